// OKL's structure rules for one @kernel function, with OCCA's messages (the "Kernel structure" section of the
// OKL document): return type, the tree of @outer/@inner loops, @shared/@exclusive placement, break/continue,
// attribute arguments. Also decides each parallel loop's axis, which OKL derives from that tree.
#pragma once

#include <map>
#include <utility>

#include "parse/okl_parser.h"

namespace loom {

/// Which hardware axis runs an OKL loop: `outer` (g.axis) or inner (l.axis).
struct OklAxis {
    bool outer = false;
    int axis = 0;
};

/// Parallel loops of a kernel: (for statement, part) -> axis, where part is 0 for a plain @outer/@inner loop
/// and for a @tile's tile loop, 1 for a @tile's element loop.
using OklAxes = std::map<std::pair<const OklStmt*, int>, OklAxis>;

/// Checks `kernel` (a function with @kernel) against OKL's rules and returns its loops' axes. An OKLError
/// with file and line names the first rule broken.
OklAxes okl_validate_kernel(const OklFunction& kernel);

/// The attribute `name` of a statement or declaration, or null.
const OklAttr* okl_find_attr(const std::vector<OklAttr>& attrs, const char* name);

/// For a @tile attribute: the kinds ("outer", "inner" or "") of its tile and element loops, and their
/// explicit axes (-1: OKL's rule decides).
struct OklTileKinds {
    std::string kind[2];
    int axis[2] = {-1, -1};
};
OklTileKinds okl_tile_kinds(const OklAttr& tile);

}  // namespace loom
