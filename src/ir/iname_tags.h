// Iname implementation tags (loopy's InameImplementationTag classes, Halide's ForType): what an iname asks of
// the code generator. A tag is parsed once where it enters the kernel (tag_inames and the tag options of
// split_iname, join_inames, duplicate_inames, precompute take loopy's text); everything after reads its kind
// and number, and prints it with to_string (or <<) where text is wanted.
//
//   text                          InameTag                       meaning
//   "g.N", "l.N"                  InameTag::group(N), local(N)   group and local (work-item) hardware axis N
//   "l.auto"                      {Kind::LocalAuto}              a local axis chosen at preprocessing
//   "ord"                         {Kind::Ord}                    a loop that keeps its order
//   "unr"                         {Kind::Unr}                    one copy of the body per iteration
//   "unr_hint", "unr_hint.N"      {Kind::UnrHint, -1 or N}       a loop with an unroll pragma
//   "ilp", "ilp.unr", "ilp.seq"   {Kind::Ilp}, IlpUnr, IlpSeq    independent iterations (copies, copies, a loop)
//   "vec"                         {Kind::Vec}                    vector lanes
//
// An untagged iname ("for", "None" or "" when tagging) has no entry in KernelData::iname_tags; the lookup
// iname_tag(kernel, iname) (ir/kernel.h) returns InameTag{} (Kind::None) for it, whose predicates are all
// false. So: `iname_tag(k, i).is_hardware()` to ask, `k.iname_tags[i] = InameTag::local(0)` to set one in a
// transformation's edit, `parse_iname_tag(text)` where text comes in.
#pragma once

#include <compare>
#include <optional>
#include <ostream>
#include <string>

namespace loom {

struct InameTag {
    // In the order of their text, so that tags sort as their text did ("g.1" < "l.0" < "l.auto"), but axes by
    // number.
    enum class Kind { None, Group, Ilp, IlpSeq, IlpUnr, Local, LocalAuto, Ord, Unr, UnrHint, Vec };
    Kind kind = Kind::None;
    int number = -1;  // the axis of Group and Local, the factor of UnrHint (-1: none given); -1 otherwise

    static InameTag group(int axis) { return {Kind::Group, axis}; }
    static InameTag local(int axis) { return {Kind::Local, axis}; }

    bool is_none() const { return kind == Kind::None; }
    bool is_group() const { return kind == Kind::Group; }
    /// "l.N" and "l.auto".
    bool is_local() const { return kind == Kind::Local || kind == Kind::LocalAuto; }
    /// "g.N", "l.N" and "l.auto": the iname is a hardware axis rather than a loop.
    bool is_hardware() const { return is_group() || is_local(); }
    /// "unr", "ilp" and "ilp.unr": the loop is replaced by one copy of its body per iteration.
    bool is_unrolled() const { return kind == Kind::Unr || kind == Kind::Ilp || kind == Kind::IlpUnr; }
    /// "ilp", "ilp.unr" and "ilp.seq": independent iterations for instruction-level parallelism; loopy nests
    /// these loops innermost, privatizes temporaries over them, and places no barrier inside them.
    bool is_ilp() const { return kind == Kind::Ilp || kind == Kind::IlpUnr || kind == Kind::IlpSeq; }
    bool is_vec() const { return kind == Kind::Vec; }
    /// The ILP tags and "vec": iterations independent of each other (temporaries are privatized over them),
    /// so the linearizer nests these loops innermost and may leave and enter them again.
    bool is_innermost() const { return is_ilp() || is_vec(); }
    /// Iterations that run concurrently (loopy's ConcurrentTag): the hardware tags, the ILP tags and "vec". A
    /// write inside them that does not depend on them races.
    bool is_concurrent() const { return is_hardware() || is_innermost(); }
    /// The unroll pragma a loop gets: nullopt without one, 0 for "unr_hint" (the compiler decides the
    /// factor), N for "unr_hint.N".
    std::optional<int> unroll_hint() const;

    friend auto operator<=>(const InameTag&, const InameTag&) = default;
};

/// One of InameTag's predicates, for code that works on one kind of axis (&InameTag::is_local).
using TagPredicate = bool (InameTag::*)() const;

/// The tag `text` writes ("l.0", "unr", ...); nullopt for any other text, the forms that mean no tag included.
std::optional<InameTag> parse_iname_tag(const std::string& text);

/// The tag as loopy writes it ("g.0", "ilp.seq", "unr_hint.4"); "" for Kind::None.
std::string to_string(const InameTag& tag);
std::ostream& operator<<(std::ostream& os, const InameTag& tag);

/// A tag as a transform is asked to set it: a tag, no tag ("for", "None", ""), the tag of another iname
/// ("like.INAME"), or the lowest axis of a kind that no iname uses yet ("unused.g", "unused.l").
struct TagRequest {
    enum class Kind { None, Tag, Like, UnusedGroup, UnusedLocal };
    Kind kind = Kind::None;
    InameTag tag;       // Kind::Tag
    std::string iname;  // Kind::Like
};

/// Parses what tag_inames and the tag options of the transforms accept; nullopt for a tag loopy does not know.
std::optional<TagRequest> parse_tag_request(const std::string& text);

}  // namespace loom
