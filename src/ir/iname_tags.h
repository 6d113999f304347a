// What an iname's implementation tag ("unr", "ilp.seq", "unr_hint.4", ...) asks of the code generator.
#pragma once

#include <optional>
#include <string>

namespace loom {

/// "unr", "ilp" and "ilp.unr": the loop is replaced by one copy of its body per iteration.
bool is_unrolled_tag(const std::string& tag);

/// "ilp", "ilp.unr" and "ilp.seq": independent iterations for instruction-level parallelism; loopy nests
/// these loops innermost, privatizes temporaries over them, and places no barrier inside them.
bool is_ilp_tag(const std::string& tag);

/// The ILP tags and "vec": iterations independent of each other (temporaries are privatized over them), so
/// the linearizer nests these loops innermost and may leave and enter them again.
bool is_innermost_tag(const std::string& tag);

/// Tags that make an iname a hardware axis rather than a loop ("g.N", "l.N").
bool is_hardware_tag(const std::string& tag);

/// Tags whose iterations run concurrently (loopy's ConcurrentTag): "g.N", "l.N", "l.auto", the ILP tags
/// and "vec". A write inside them that does not depend on them races.
bool is_concurrent_tag(const std::string& tag);

/// The unroll pragma a loop gets: nullopt without one, 0 for "unr_hint" (the compiler decides the factor),
/// N for "unr_hint.N".
std::optional<int> unroll_hint(const std::string& tag);

}  // namespace loom
