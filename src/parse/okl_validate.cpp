#include "parse/okl_validate.h"

#include <set>
#include <vector>

namespace loom {

namespace {

template <class... Parts>
[[noreturn]] void fail(const OklPos& at, const Parts&... parts) {
    okl_error(at.file_name(), at.line, parts...);
}

const std::set<std::string>& known_attributes() {
    static const std::set<std::string> names{"kernel", "outer",    "inner",     "tile",   "max_inner_dims",
                                             "dim",    "dimOrder", "shared",    "exclusive", "atomic",
                                             "restrict", "barrier", "nobarrier", "simd_length"};
    return names;
}

// Where each attribute may be written: the statement kinds it applies to.
void check_placement(const OklStmt& s) {
    static const std::set<std::string> loop_attrs{"outer", "inner", "tile", "nobarrier", "max_inner_dims", "simd_length"};
    static const std::set<std::string> decl_attrs{"dim", "dimOrder", "shared", "exclusive", "restrict"};
    for (const OklAttr& a : s.attrs) {
        if (!known_attributes().count(a.name)) fail(a.pos, "Unknown attribute [@", a.name, "]");
        const bool ok = loop_attrs.count(a.name)   ? s.kind == OklStmtKind::For
                        : decl_attrs.count(a.name) ? s.kind == OklStmtKind::Decl
                        : a.name == "barrier"      ? s.kind == OklStmtKind::Empty
                        : a.name == "atomic"       ? s.kind == OklStmtKind::Expr || s.kind == OklStmtKind::Block
                                                   : false;
        if (!ok) {
            const char* what = loop_attrs.count(a.name)   ? "for-loops"
                               : decl_attrs.count(a.name) ? "declarations"
                               : a.name == "barrier"      ? "an empty statement ([@barrier];)"
                               : a.name == "atomic"       ? "expressions and blocks"
                                                          : "functions";
            fail(a.pos, "[@", a.name, "] can only be applied to ", what);
        }
        if ((a.name == "barrier" || a.name == "nobarrier" || a.name == "atomic" || a.name == "shared" ||
             a.name == "exclusive" || a.name == "restrict") && !a.args.empty())
            fail(a.pos, "[@", a.name, "] does not take arguments");
    }
}

// The axis argument of @outer(N)/@inner(N): -1 when omitted.
int axis_argument(const OklAttr& a) {
    if (a.args.empty()) return -1;
    if (a.args.size() > 1 || !a.args[0].expr) fail(a.pos, "[@", a.name, "] takes one argument, the axis 0, 1 or 2");
    auto v = okl_try_constant(a.args[0].expr, nullptr);
    if (!v || *v < 0 || *v > 2) fail(a.pos, "[@", a.name, "] argument must be 0, 1 or 2");
    return static_cast<int>(*v);
}

// An entry of the loop tree: one parallel level.
struct Level {
    bool outer;
    int axis;  // explicit, or -1
    const OklStmt* loop;
    int part;
};

class Checker {
public:
    OklAxes run(const OklFunction& f) {
        if (f.return_type.base != "void" || f.return_type.pointers)
            fail(f.pos, "[@kernel] functions must have a [void] return type");
        std::vector<Level> path;
        visit(*f.body, path, false);
        if (!saw_outer_) fail(f.pos, "[@kernel] requires at least one [@outer] for-loop");
        if (!saw_inner_) fail(f.pos, "[@kernel] requires at least one [@inner] for-loop");
        return axes_;
    }

private:
    // Returns whether `s` holds a parallel loop. `direct`: s is directly in a parallel loop's body (no
    // regular loop between), where break and continue are not allowed.
    bool visit(const OklStmt& s, std::vector<Level>& path, bool direct) {
        check_placement(s);
        switch (s.kind) {
            case OklStmtKind::For: return loop(s, path);
            case OklStmtKind::While:
            case OklStmtKind::Do: return visit(*s.body[0], path, false);
            case OklStmtKind::Switch:  // a `break` in a switch leaves the switch
            case OklStmtKind::Case: {
                bool found = false;
                for (const OklStmtPtr& b : s.body) found |= visit(*b, path, false);
                return found;
            }
            case OklStmtKind::Block:
            case OklStmtKind::If: {
                bool found = false;
                for (const OklStmtPtr& b : s.body) found |= visit(*b, path, direct);
                return found;
            }
            case OklStmtKind::Decl: declaration(s, path); return false;
            case OklStmtKind::Break:
            case OklStmtKind::Continue:
                if (direct)
                    fail(s.pos, "[", s.kind == OklStmtKind::Break ? "break" : "continue",
                         "] cannot be used directly inside [@outer] or [@inner] loops");
                return false;
            default: return false;
        }
    }

    std::vector<Level> levels(const OklStmt& s) {
        const OklAttr* outer = okl_find_attr(s.attrs, "outer");
        const OklAttr* inner = okl_find_attr(s.attrs, "inner");
        const OklAttr* tile = okl_find_attr(s.attrs, "tile");
        if (outer && inner) fail(s.pos, "Cannot have @inner and @outer");
        if (tile && (outer || inner)) fail(s.pos, "Cannot have [@tile] with [@outer] or [@inner] on the same loop");
        std::vector<Level> out;
        if (outer || inner) out.push_back(Level{outer != nullptr, axis_argument(outer ? *outer : *inner), &s, 0});
        if (tile) {
            OklTileKinds t = okl_tile_kinds(*tile);
            for (int part = 0; part < 2; ++part)
                if (!t.kind[part].empty()) out.push_back(Level{t.kind[part] == "outer", t.axis[part], &s, part});
        }
        return out;
    }

    bool loop(const OklStmt& s, std::vector<Level>& path) {
        std::vector<Level> mine = levels(s);
        if (mine.empty()) {
            if (okl_find_attr(s.attrs, "max_inner_dims") || okl_find_attr(s.attrs, "simd_length")) {
                const OklAttr* a = okl_find_attr(s.attrs, "max_inner_dims");
                a = a ? a : okl_find_attr(s.attrs, "simd_length");
                fail(a->pos, "[@", a->name, "] applies to a top-level [@outer] loop only");
            }
            return visit(*s.body[0], path, false);
        }
        for (const Level& l : mine) push(l, path);
        check_top_level_attributes(s, path.size() == mine.size());
        const bool found = visit(*s.body[0], path, true);
        if (!found) leaf(path);
        path.resize(path.size() - mine.size());
        return true;
    }

    void check_top_level_attributes(const OklStmt& s, bool top) {
        for (const char* name : {"max_inner_dims", "simd_length"}) {
            const OklAttr* a = okl_find_attr(s.attrs, name);
            if (!a) continue;
            if (!top || !okl_find_attr(s.attrs, "outer")) fail(a->pos, "[@", name, "] applies to a top-level [@outer] loop only");
            const std::size_t most = std::string(name) == "simd_length" ? 1 : 3;
            if (a->args.empty() || a->args.size() > most) fail(a->pos, "[@", name, "] takes 1 to ", most, " integer arguments");
            for (const OklAttrArg& arg : a->args)
                if (!arg.expr || !okl_try_constant(arg.expr, nullptr) || *okl_try_constant(arg.expr, nullptr) < 1)
                    fail(a->pos, "[@", name, "] arguments must be positive integer constants");
        }
        if (okl_find_attr(s.attrs, "nobarrier") && !okl_find_attr(s.attrs, "inner"))
            fail(okl_find_attr(s.attrs, "nobarrier")->pos, "[@nobarrier] applies to [@inner] loops");
    }

    void push(const Level& l, std::vector<Level>& path) {
        bool in_inner = false, in_outer = false;
        for (const Level& p : path) (p.outer ? in_outer : in_inner) = true;
        if (l.outer && in_inner) fail(l.loop->pos, "Cannot have [@outer] loop inside an [@inner] loop");
        if (!l.outer && !in_outer) fail(l.loop->pos, "Cannot have [@inner] loop outside of an [@outer] loop");
        (l.outer ? saw_outer_ : saw_inner_) = true;
        path.push_back(l);
    }

    // A path of the loop tree ends here: the counts of each kind must agree across the paths of one top-level
    // @outer loop, and the axes follow: N from an explicit argument, otherwise the number of loops of the same
    // kind below (the deepest is 0).
    void leaf(const std::vector<Level>& path) {
        int outers = 0, inners = 0;
        for (const Level& l : path) ++(l.outer ? outers : inners);
        if (inners == 0) fail(path.back().loop->pos, "Missing an [@inner] loop");
        auto [it, fresh] = counts_.insert({path[0].loop, {outers, inners}});
        if (!fresh && it->second.first != outers) fail(path.back().loop->pos, "Mismatch of [@outer] loops");
        if (!fresh && it->second.second != inners) fail(path.back().loop->pos, "Mismatch of [@inner] loops");
        for (std::size_t p = 0; p < path.size(); ++p) assign_axis(path, p);
    }

    void assign_axis(const std::vector<Level>& path, std::size_t p) {
        const Level& l = path[p];
        int below = 0;
        for (std::size_t q = p + 1; q < path.size(); ++q) below += path[q].outer == l.outer;
        const char* kind = l.outer ? "@outer" : "@inner";
        if (l.axis < 0 && below > 2) fail(l.loop->pos, "There can't be more than 3 nested [", kind, "] loops");
        const int axis = l.axis >= 0 ? l.axis : below;
        for (std::size_t q = 0; q < p; ++q) {
            auto other = axes_.find({path[q].loop, path[q].part});
            if (path[q].outer == l.outer && other != axes_.end() && other->second.axis == axis)
                fail(l.loop->pos, "[", kind, "] loops nested in each other use the same axis ", axis);
        }
        auto [it, fresh] = axes_.insert({{l.loop, l.part}, OklAxis{l.outer, axis}});
        if (!fresh && it->second.axis != axis) fail(l.loop->pos, "Mismatch of [", kind, "] loops");
    }

    void declaration(const OklStmt& s, const std::vector<Level>& path) {
        bool in_inner = false, in_outer = false;
        for (const Level& p : path) (p.outer ? in_outer : in_inner) = true;
        for (const OklDecl& d : s.decls) {
            for (const char* name : {"shared", "exclusive"}) {
                if (!okl_find_attr(d.type.attrs, name)) continue;
                if (in_inner) fail(d.pos, "Cannot define [@", name, "] variables inside an [@inner] loop");
                if (!in_outer) fail(d.pos, "Must define [@", name, "] variables between [@outer] and [@inner] loops");
                if (std::string(name) == "shared" && d.dims.empty()) fail(d.pos, "[@shared] variables must be arrays");
            }
        }
    }

    OklAxes axes_;
    std::map<const OklStmt*, std::pair<int, int>> counts_;
    bool saw_outer_ = false, saw_inner_ = false;
};

}  // namespace

const OklAttr* okl_find_attr(const std::vector<OklAttr>& attrs, const char* name) {
    for (const OklAttr& a : attrs)
        if (okl_is(a, name)) return &a;
    return nullptr;
}

OklTileKinds okl_tile_kinds(const OklAttr& tile) {
    OklTileKinds t;
    if (tile.args.empty() || !tile.args[0].expr || !tile.args[0].key.empty())
        fail(tile.pos, "[@tile] needs the tile size as its first argument");
    int part = 0;
    for (std::size_t k = 1; k < tile.args.size(); ++k) {
        const OklAttrArg& a = tile.args[k];
        if (!a.key.empty()) {
            if (a.key != "check") fail(tile.pos, "[@tile] has no option '", a.key, "' (only check=true/false)");
            continue;
        }
        if (!a.attr || (a.attr->name != "outer" && a.attr->name != "inner"))
            fail(tile.pos, "[@tile] loop kinds must be @outer or @inner");
        if (part == 2) fail(tile.pos, "[@tile] takes at most two loop kinds");
        t.kind[part] = a.attr->name;
        t.axis[part] = axis_argument(*a.attr);
        ++part;
    }
    if (t.kind[0] == "inner" && t.kind[1] == "outer") fail(tile.pos, "Cannot have [@outer] loop inside an [@inner] loop");
    return t;
}

OklAxes okl_validate_kernel(const OklFunction& kernel) { return Checker().run(kernel); }

}  // namespace loom
