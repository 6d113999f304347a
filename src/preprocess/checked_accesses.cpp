#include "preprocess/checked_accesses.h"

#include <map>
#include <optional>
#include <set>

#include "analysis/bounds.h"
#include "ir/layout.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

ExprPtr both(const ExprPtr& a, const ExprPtr& b) { return a ? binary(BinOp::And, a, b) : b; }
ExprPtr negated(const ExprPtr& e) { return unary("not", e); }

// One guarded access: its slot in the violation record, and per checked axis the index and its extent.
struct Site {
    std::size_t slot;
    std::vector<std::pair<ExprPtr, ExprPtr>> checks;  // (index, extent), the index as rewritten
    std::vector<std::size_t> axes;

    // 0 <= index < extent on every checked axis.
    ExprPtr inside() const {
        ExprPtr out;
        for (const auto& [index, extent] : checks)
            out = both(out, both(binary(BinOp::Le, int_lit(0), index), binary(BinOp::Lt, index, extent)));
        return out;
    }
    // The first axis whose index is outside, as `pick(axis position, index)` of it (an if-chain).
    ExprPtr first_outside(const std::function<ExprPtr(std::size_t)>& pick) const {
        ExprPtr out = int_lit(0);
        for (std::size_t n = checks.size(); n-- > 0;) {
            const auto& [index, extent] = checks[n];
            const ExprPtr ok = both(binary(BinOp::Le, int_lit(0), index), binary(BinOp::Lt, index, extent));
            out = if_then_else(ok, out, pick(n));
        }
        return out;
    }
};

class Guard {
public:
    Guard(KernelData& k, const std::vector<UnprovenAccess>& unproven) : k_(k) {
        for (const UnprovenAccess& u : unproven) unproven_[u.access] = &u;
    }

    void run() {
        std::vector<Instruction> out;
        for (const Instruction& insn : k_.instructions) {
            insn_ = insn;
            records_.clear();
            for (ExprPtr& p : insn_.predicates) p = guarded(p, nullptr);
            if (insn_.expression) insn_.expression = guarded(insn_.expression, nullptr);
            const std::size_t predicates = insn_.predicates.size();
            for (ExprPtr& a : insn_.assignees) a = write_target(a);
            if (insn_.predicates.size() > predicates)
                insn_.tags.insert(cat(kBoundGuardsTag, insn_.predicates.size() - predicates));
            out.push_back(insn_);
            for (Instruction& r : records_) out.push_back(std::move(r));
        }
        k_.instructions = std::move(out);
    }

private:
    // A write's subscript: its indices guarded as reads, the write itself under the instruction's predicate.
    ExprPtr write_target(const ExprPtr& lhs) {
        if (lhs->kind != ExprKind::Subscript) return lhs;
        std::vector<ExprPtr> args;
        for (const ExprPtr& a : lhs->args) args.push_back(guarded(a, nullptr));
        const ExprPtr rewritten = with_args(lhs, args);
        if (const std::optional<Site> site = site_of(lhs, rewritten, "writes")) {
            record(*site, nullptr);  // under the instruction's predicates before the guard joins them
            insn_.predicates.push_back(site->inside());
        }
        return rewritten;
    }

    // `e` with each unproven read guarded (0 where outside), `when` the conditions of the `if`s around it.
    ExprPtr guarded(const ExprPtr& e, const ExprPtr& when) {
        if (e->kind == ExprKind::If) {
            const ExprPtr c = guarded(e->args[0], when);
            return if_then_else(c, guarded(e->args[1], both(when, c)), guarded(e->args[2], both(when, negated(c))));
        }
        std::vector<ExprPtr> args;
        bool changed = false;
        for (const ExprPtr& a : e->args) {
            args.push_back(guarded(a, when));
            changed = changed || args.back() != a;
        }
        const ExprPtr out = changed ? with_args(e, std::move(args)) : e;
        if (e->kind != ExprKind::Subscript) return out;
        const std::optional<Site> site = site_of(e, out, "reads");
        if (!site) return out;
        record(*site, when);
        return if_then_else(site->inside(), out, int_lit(0));
    }

    std::optional<Site> site_of(const ExprPtr& original, const ExprPtr& rewritten, const char* verb) {
        const auto found = unproven_.find(original.get());
        if (found == unproven_.end()) return std::nullopt;
        const UnprovenAccess& u = *found->second;
        const Variable& v = *find_variable(k_, original->name);
        Site site{k_.checked_accesses.size(), {}, u.axes};
        if (u.flat) {
            // An array without a shape (an OKL pointer) is as long as the buffer the call passes.
            ExprPtr size = v.no_shape ? var(buffer_size_name(v.name)) : int_lit(1);
            if (!v.no_shape)
                for (const ExprPtr& extent : v.shape) size = binary(BinOp::Mul, size, extent);
            site.checks.push_back({rewritten->args.at(0), size});
            site.axes = {0};
        } else {
            for (const std::size_t axis : u.axes) site.checks.push_back({rewritten->args.at(axis), v.shape.at(axis)});
        }
        k_.checked_accesses.push_back(cat("instruction '", insn_.id, "' ", verb, " ", to_string(original), " (array '", v.name,
                                          v.no_shape ? "' without a shape: the buffer passed for it" : "' of shape " + shape_text(v.shape),
                                          ")"));
        return site;
    }

    // Two instructions beside the guarded one, run where it runs, under the same predicates and `if`s, when the
    // access is outside: they write the axis and the index to the access's slots (any of the violating
    // instances': each slot is the same access).
    void record(const Site& site, const ExprPtr& when) {
        const auto slot = [&](std::size_t n) { return subscript(kViolationRecord, {int_lit(static_cast<std::int64_t>(n))}); };
        const ExprPtr axis = site.first_outside([&](std::size_t n) { return int_lit(static_cast<std::int64_t>(site.axes[n]) + 1); });
        const ExprPtr index = site.first_outside([&](std::size_t n) { return site.checks[n].first; });
        for (const auto& [n, value] : {std::pair{2 * site.slot, axis}, std::pair{2 * site.slot + 1, index}}) {
            Instruction r;
            r.id = fresh_id(cat(insn_.id, "_violation"));
            r.assignees = {slot(n)};
            r.expression = value;
            r.within_inames = insn_.within_inames;
            r.within_inames_is_final = true;
            r.depends_on = insn_.depends_on;
            r.depends_on_is_final = true;
            r.predicates = insn_.predicates;
            if (when) r.predicates.push_back(when);
            r.predicates.push_back(negated(site.inside()));
            r.line = insn_.line;
            k_.silenced_warnings.push_back(cat("write_race(", r.id, ")"));
            records_.push_back(std::move(r));
        }
    }

    std::string fresh_id(const std::string& base) {
        for (int n = 0;; ++n) {
            std::string id = n == 0 ? base : cat(base, "_", n);
            if (!find_instruction(k_, id) && !taken_.count(id)) {
                taken_.insert(id);
                return id;
            }
        }
    }

    KernelData& k_;
    std::map<const Expr*, const UnprovenAccess*> unproven_;
    Instruction insn_;                  // the instruction being guarded
    std::vector<Instruction> records_;  // its recording instructions
    std::set<std::string> taken_;
};

}  // namespace

std::string buffer_size_name(const std::string& array) { return cat(kBufferSizePrefix, array); }

Kernel guard_unproven_accesses(const Kernel& kernel, bool checked) {
    if (!checked) return kernel;
    for (const Variable& v : kernel->args)
        user_assert(!v.no_shape || v.strides.empty(), error_kind::LoopyError, "kernel '", kernel->name, "': array '",
                    v.name, "' has no shape but strides, so its accesses cannot be checked; a checked kernel (a ",
                    "sandbox's, or checked = true) needs its shape");
    const std::vector<UnprovenAccess> unproven = unproven_accesses(*kernel);
    if (unproven.empty()) return kernel;
    user_assert(!kernel->linearized, error_kind::LoopyError, "kernel '", kernel->name, "': a checked kernel guards ",
                "the accesses isl cannot prove in bounds with instructions of its own, which a linearization given ",
                "beforehand does not place: check it unlinearized");
    KernelData k = kernel.copy();
    Guard(k, unproven).run();
    Variable record;
    record.name = kViolationRecord;
    record.kind = VarKind::GlobalArg;
    record.dtype = DType::Int64;
    record.shape = {int_lit(static_cast<std::int64_t>(2 * k.checked_accesses.size()))};
    record.is_output = true;
    compute_layout(record);
    k.args.push_back(std::move(record));
    for (const Variable& v : kernel->args) {
        if (!v.no_shape) continue;
        Variable size;
        size.name = buffer_size_name(v.name);
        size.kind = VarKind::ValueArg;
        size.dtype = DType::Int64;
        size.is_array = false;
        k.args.push_back(std::move(size));
    }
    return Kernel(std::move(k));
}

void raise_violations(const std::string& kernel, const std::vector<std::string>& sites, const std::int64_t* record,
                      std::size_t n) {
    for (std::size_t slot = 0; slot < sites.size() && 2 * slot + 1 < n; ++slot) {
        if (record[2 * slot] == 0) continue;
        user_error(error_kind::IndexError, "kernel '", kernel, "': ", sites[slot], " out of bounds: index ",
                   record[2 * slot + 1], " on axis ", record[2 * slot] - 1, " (the access was skipped; a read gave 0)");
    }
}

}  // namespace loom
