// Included by tests/okl/preprocessor.lua through the include_paths option.
#ifndef OKL_SIZES_H
#define OKL_SIZES_H
#include "okl_scale.h"
#define TILE 8
#endif
