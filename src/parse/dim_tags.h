// Parsing loopy's dim tags ("Data Axis Tags"): `c`, `f`, `N0`..`N9`, `stride:EXPR`, `N1:stride:EXPR` (the
// form the listing prints), `sep`, `vec`, each optionally followed by `?`.
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// One tag; LoopyError naming `array` when the text is not a dim tag.
DimTag parse_dim_tag(const std::string& text, const std::string& array);

/// Tags given as one comma-separated string ("N1,N0", "c,stride:4") or one entry per tag.
std::vector<DimTag> parse_dim_tags(const std::vector<std::string>& entries, const std::string& array);

}  // namespace loom
