// Included from okl_sizes.h: found in the including file's folder.
#define SCALE(x) ((x) * FACTOR)
