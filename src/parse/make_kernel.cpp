#include "parse/make_kernel.h"

#include <isl/aff.h>
#include <isl/set.h>

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/domain.h"
#include "isl/isl.h"
#include "parse/instructions.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

void parse_domains(KernelData& k, const std::vector<std::string>& texts) {
    std::set<std::string> seen;
    for (const std::string& t : texts) {
        isl::set d = isl_util::parse_domain(t);
        for (const std::string& iname : isl_util::set_dim_names(d)) {
            user_assert(is_identifier(iname), "ParseError", "domain '", trim(t), "' has an unnamed dimension");
            user_assert(seen.insert(iname).second, "LoopyError", "iname '", iname,
                        "' is declared by more than one domain");
        }
        k.domains.push_back(d);
    }
}

// `max(x, y)`/`min(x, y)` parse as reductions when x looks like an iname list; they are function calls
// when x is not an iname of the kernel.
ExprPtr resolve_min_max(const ExprPtr& e, const std::vector<std::string>& inames) {
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        if (n->kind != ExprKind::Reduction || (n->name != "max" && n->name != "min")) return n;
        const bool all_inames = std::all_of(n->inames.begin(), n->inames.end(),
                                            [&](const std::string& i) { return contains(inames, i); });
        if (all_inames || n->inames.size() != 1 || n->args.size() != 1) return n;
        return call(n->name, {var(n->inames[0]), n->args[0]});
    });
}

void check_reduction_inames(const Instruction& insn, const std::vector<std::string>& inames) {
    if (!insn.expression) return;
    for (const std::string& r : reduction_inames(insn.expression))
        user_assert(contains(inames, r), "LoopyError", "reduction in instruction '", insn.id,
                    "' is over unknown iname '", r, "'");
}

// Gives every instruction a unique id: as written, from its id_prefix, or "insn", "insn_0", ...
void assign_ids(KernelData& k) {
    std::set<std::string> used;
    for (const Instruction& insn : k.instructions)
        if (!insn.id.empty()) {
            user_assert(used.insert(insn.id).second, "LoopyError", "instruction id '", insn.id,
                        "' is used more than once (line ", insn.line, ")");
        }
    for (Instruction& insn : k.instructions) {
        if (!insn.id.empty()) continue;
        const std::string base = insn.id_prefix.empty() ? "insn" : insn.id_prefix;
        std::string id = base;
        for (int n = 0; used.count(id); ++n) id = cat(base, "_", n);
        used.insert(id);
        insn.id = id;
    }
}

void declare_temporaries(KernelData& k) {
    for (const Instruction& insn : k.instructions) {
        if (!insn.declares_temporary) continue;
        for (const ExprPtr& a : insn.assignees) {
            const bool known = std::any_of(k.temporaries.begin(), k.temporaries.end(),
                                           [&](const Variable& t) { return t.name == a->name; });
            if (known) continue;
            Variable t;
            t.name = a->name;
            t.kind = VarKind::Temporary;
            t.dtype = insn.temp_var_type;
            t.is_array = a->kind == ExprKind::Subscript;
            t.shape_auto = t.is_array;
            k.temporaries.push_back(std::move(t));
        }
    }
}

struct NameUse {
    bool written = false;
    bool subscripted = false;
    std::string first_insn;
};

std::map<std::string, NameUse> collect_uses(const KernelData& k) {
    std::map<std::string, NameUse> uses;
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            NameUse& u = uses[a.name];
            u.written |= a.is_write;
            u.subscripted |= a.subscripted;
            if (u.first_insn.empty()) u.first_insn = insn.id;
        }
    return uses;
}

bool is_declared(const KernelData& k, const std::string& name) {
    auto same = [&](const Variable& v) { return v.name == name; };
    return std::any_of(k.args.begin(), k.args.end(), same) ||
           std::any_of(k.temporaries.begin(), k.temporaries.end(), same);
}

Variable guessed_arg(const std::string& name, const NameUse& use) {
    Variable v;
    v.name = name;
    if (use.subscripted || use.written) {
        v.kind = VarKind::GlobalArg;
        v.shape_auto = use.subscripted;
        v.is_array = true;
    } else {
        v.kind = VarKind::ValueArg;
        v.is_array = false;
    }
    return v;
}

// Adds arguments for every used name that is not declared (sorted by name, as loopy does), or complains
// about them when the argument list is final.
void guess_args(KernelData& k, bool guess) {
    const std::vector<std::string> inames = all_inames(k);
    std::map<std::string, NameUse> uses = collect_uses(k);
    for (const isl::set& d : k.domains)
        for (const std::string& p : isl_util::param_names(d.space())) uses.try_emplace(p);
    std::vector<Variable> guessed;
    for (const auto& [name, use] : uses) {
        if (contains(inames, name) || is_declared(k, name)) continue;
        user_assert(guess, "LoopyError", "variable '", name, "' is used",
                    use.first_insn.empty() ? std::string(" in a domain") : cat(" in instruction '", use.first_insn, "'"),
                    " but is not an argument or temporary (add it to the arguments, or add \"...\")");
        guessed.push_back(guessed_arg(name, use));
    }
    for (Variable& v : guessed) k.args.push_back(std::move(v));
}

void infer_io(KernelData& k) {
    const std::map<std::string, NameUse> uses = collect_uses(k);
    std::set<std::string> read;
    for (const Instruction& insn : k.instructions)
        for (const std::string& n : read_names(insn)) read.insert(n);
    for (Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) continue;
        const auto it = uses.find(v.name);
        const bool written = it != uses.end() && it->second.written;
        if (!v.is_output) v.is_output = written;
        if (!v.is_input) v.is_input = read.count(v.name) != 0 || !written;
        user_assert(!(written && v.kind == VarKind::ConstantArg), "LoopyError", "constant argument '", v.name,
                    "' is written");
    }
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn))
            for (const Variable& v : k.args)
                user_assert(!(v.name == w && v.kind == VarKind::ValueArg), "LoopyError", "instruction '", insn.id,
                            "' writes value argument '", w, "'");
}

std::set<std::string> inames_referenced(const Instruction& insn, const std::vector<std::string>& inames) {
    std::set<std::string> out;
    const std::set<std::string> bound = reduction_inames(insn.expression);
    for (const Access& a : accesses_of(insn))
        if (contains(inames, a.name) && !bound.count(a.name)) out.insert(a.name);
    return out;
}

bool is_temporary(const KernelData& k, const std::string& name) {
    return std::any_of(k.temporaries.begin(), k.temporaries.end(), [&](const Variable& t) { return t.name == name; });
}

// The loops each instruction runs in: the inames it uses (plus enclosing `for` blocks and `inames=`),
// plus the inames shared by all writers of the temporaries it reads (loopy's heuristic).
void find_within_inames(KernelData& k) {
    const std::vector<std::string> inames = all_inames(k);
    for (Instruction& insn : k.instructions) {
        for (const std::string& i : insn.within_inames)
            user_assert(contains(inames, i), "LoopyError", "instruction '", insn.id, "' names unknown iname '", i,
                        "' (line ", insn.line, ")");
        if (insn.within_inames_is_final) continue;
        for (const std::string& i : inames_referenced(insn, inames)) insn.within_inames.insert(i);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (Instruction& insn : k.instructions) {
            if (insn.within_inames_is_final) continue;
            for (const std::string& var_name : read_names(insn)) {
                if (!is_temporary(k, var_name)) continue;
                std::optional<std::set<std::string>> common;
                for (const Instruction& w : k.instructions) {
                    if (&w == &insn || !written_names(w).count(var_name)) continue;
                    if (!common) {
                        common = w.within_inames;
                    } else {
                        std::set<std::string> both;
                        std::set_intersection(common->begin(), common->end(), w.within_inames.begin(),
                                              w.within_inames.end(), std::inserter(both, both.begin()));
                        common = both;
                    }
                }
                if (!common) continue;
                const std::set<std::string> bound = reduction_inames(insn.expression);
                for (const std::string& i : *common)
                    if (!bound.count(i) && insn.within_inames.insert(i).second) changed = true;
            }
        }
    }
}

void resolve_dependencies(KernelData& k, bool seq_dependencies) {
    std::map<std::string, std::vector<std::string>> writers;
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn)) writers[w].push_back(insn.id);
    const std::vector<Instruction> all = k.instructions;
    for (std::size_t n = 0; n < k.instructions.size(); ++n) {
        Instruction& insn = k.instructions[n];
        std::set<std::string> deps;
        for (const std::string& pattern : insn.depends_on) {
            bool matched = false;
            for (const Instruction& other : all)
                if (fnmatch(pattern, other.id)) {
                    deps.insert(other.id);
                    matched = true;
                }
            user_assert(matched || !k.options.check_dep_resolution, "LoopyError", "dependency '", pattern,
                        "' of instruction '", insn.id, "' matches no instruction");
        }
        if (!insn.depends_on_is_final) {
            for (const std::string& r : read_names(insn)) {
                const auto it = writers.find(r);
                if (it != writers.end() && it->second.size() == 1 && it->second[0] != insn.id)
                    deps.insert(it->second[0]);
            }
        }
        if (seq_dependencies && n > 0) deps.insert(all[n - 1].id);
        deps.erase(insn.id);
        insn.depends_on = deps;
    }
}

ExprPtr product(const std::vector<ExprPtr>& factors) {
    ExprPtr out;
    for (const ExprPtr& f : factors) {
        if (f->kind == ExprKind::IntLit && f->ival == 1) continue;
        out = out ? binary(BinOp::Mul, out, f) : f;
    }
    return out ? out : int_lit(1);
}

// The set of index tuples that the instructions access in `name` (over the parameters).
std::optional<isl::set> access_footprint(const KernelData& k, const std::string& name, std::size_t& ndim) {
    std::optional<isl::set> all;
    for (const Instruction& insn : k.instructions) {
        std::vector<std::string> loops(insn.within_inames.begin(), insn.within_inames.end());
        for (const std::string& r : reduction_inames(insn.expression)) loops.push_back(r);
        for (const Access& a : accesses_of(insn)) {
            if (a.name != name || !a.subscripted) continue;
            user_assert(ndim == 0 || ndim == a.indices.size(), "LoopyError", "array '", name,
                        "' is accessed with different numbers of indices");
            ndim = a.indices.size();
            isl::set d = domain_of(k, loops);
            const int base = static_cast<int>(d.tuple_dim());
            d = isl::manage(isl_set_add_dims(d.copy(), isl_dim_set, static_cast<unsigned>(ndim)));
            for (std::size_t j = 0; j < ndim; ++j)
                d = isl::manage(isl_set_set_dim_name(d.copy(), isl_dim_set, base + static_cast<int>(j),
                                                     cat("_loom_axis", j).c_str()));
            for (std::size_t j = 0; j < ndim; ++j) {
                const auto idx = isl_util::to_pw_aff(a.indices[j], d);
                if (!idx)
                    throw Error("StaticValueFindingError",
                                cat("cannot find the shape of '", name, "' from the non-affine index '",
                                    to_string(a.indices[j]), "' in instruction '", insn.id,
                                    "': declare its shape explicitly"));
                const auto axis = isl_util::to_pw_aff(var(cat("_loom_axis", j)), d);
                const isl::set eq = isl::manage(isl_pw_aff_eq_set(axis->copy(), idx->copy()));
                d = isl::manage(isl_set_intersect(isl_set_align_params(d.copy(), isl_set_get_space(eq.get())),
                                                  isl_set_align_params(eq.copy(), isl_set_get_space(d.get()))));
            }
            d = isl::manage(isl_set_project_out(d.copy(), isl_dim_set, 0, static_cast<unsigned>(base)));
            if (all) {
                d = isl_util::align_params(d, all->space());
                *all = isl_util::align_params(*all, d.space()).unite(d);
            } else {
                all = d;
            }
        }
    }
    return all;
}

ExprPtr single_piece_expr(const isl::pw_aff& size) {
    std::optional<isl::aff> piece;
    isl_pw_aff_foreach_piece(
        size.get(),
        [](isl_set* s, isl_aff* a, void* user) {
            *static_cast<std::optional<isl::aff>*>(user) = isl::manage(a);
            isl_set_free(s);
            return isl_stat_ok;
        },
        &piece);
    return isl_util::aff_to_expr(*piece);
}

void find_auto_shape(const KernelData& k, Variable& v) {
    std::size_t ndim = 0;
    const auto footprint = access_footprint(k, v.name, ndim);
    user_assert(footprint.has_value(), "StaticValueFindingError", "cannot find the shape of '", v.name,
                "': it is never accessed with a subscript");
    const isl::set ctx = isl_util::align_params(assumption_context(k), footprint->space());
    v.shape.clear();
    for (std::size_t j = 0; j < ndim; ++j) {
        isl::pw_aff size = isl_util::dim_max(*footprint, static_cast<int>(j));
        size = isl::manage(isl_pw_aff_add(size.copy(), isl_pw_aff_val_on_domain(isl_set_params(isl_pw_aff_domain(size.copy())),
                                                                               isl_val_one(isl_pw_aff_get_ctx(size.get())))));
        const isl::set aligned = isl_util::align_params(ctx, size.space());
        size = isl::manage(isl_pw_aff_coalesce(isl_pw_aff_gist_params(size.copy(), aligned.copy())));
        if (isl_pw_aff_n_piece(size.get()) != 1)
            throw Error("StaticValueFindingError",
                        cat("a static maximum was not found for PwAff '", isl_util::to_str(size), "'"));
        v.shape.push_back(single_piece_expr(size));
    }
    v.shape_auto = false;
}

}  // namespace

void set_default_strides(Variable& v) {
    if (!v.is_array || !v.strides.empty()) return;
    const std::size_t n = v.shape.size();
    v.strides.assign(n, nullptr);
    for (std::size_t j = 0; j < n; ++j) {
        std::vector<ExprPtr> factors;
        if (v.order == 'F')
            factors.assign(v.shape.begin(), v.shape.begin() + static_cast<long>(j));
        else
            factors.assign(v.shape.begin() + static_cast<long>(j) + 1, v.shape.end());
        v.strides[j] = product(factors);
    }
}

void finish_array_layouts(KernelData& k) {
    const KernelData snapshot = k;
    for (std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (Variable& v : *vars) {
            if (v.shape_auto) {
                v.strides.clear();
                find_auto_shape(snapshot, v);
            }
            set_default_strides(v);
        }
}

Kernel make_kernel(const MakeKernelInput& in) {
    KernelData k;
    k.name = in.name;
    k.options.target = in.target;
    k.options.index_dtype = in.index_dtype;
    k.silenced_warnings = in.silenced_warnings;
    parse_domains(k, in.domains);
    k.assumptions = in.assumptions.empty() ? isl::set(isl_util::ctx(), "{ : }") : isl_util::parse_assumptions(in.assumptions);

    ParsedInstructions parsed = parse_instructions(in.instructions);
    k.instructions = std::move(parsed.instructions);
    k.substitutions = std::move(parsed.substitutions);
    for (const Variable& v : in.args) (v.kind == VarKind::Temporary ? k.temporaries : k.args).push_back(v);

    const std::vector<std::string> inames = all_inames(k);
    assign_ids(k);
    for (Instruction& insn : k.instructions) {
        if (insn.expression) insn.expression = resolve_min_max(insn.expression, inames);
        check_reduction_inames(insn, inames);
    }
    declare_temporaries(k);
    guess_args(k, in.guess_remaining_args);
    infer_io(k);
    find_within_inames(k);
    resolve_dependencies(k, in.seq_dependencies);
    finish_array_layouts(k);
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
