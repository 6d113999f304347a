#include "parse/array_decls.h"


#include "ir/access.h"
#include "ir/eval.h"
#include "support/error.h"

namespace loom {

namespace {

bool name_taken(const KernelData& k, const std::string& name) {
    return find_variable(k, name) != nullptr || is_iname(k, name);
}

// Local memory is shared by a work-group and written by it; on the C target, which runs one group at a time,
// a local temporary is an ordinary array and can be initialized, as loopy declares it there.
void check_initializer(const Variable& t, const std::string& target) {
    user_assert(t.kind == VarKind::Temporary, error_kind::LoopyError, "argument '", t.name,
                "' has an initializer: only temporaries can have one");
    user_assert(t.read_only, error_kind::LoopyError, "temporary '", t.name,
                "' has an initializer, so it must be declared read_only");
    user_assert(t.address_space != AddressSpace::Local || target == "c", error_kind::LoopyError, "temporary '", t.name,
                "' has an initializer: local memory cannot be initialized (but on the C target)");
    std::int64_t count = 1;
    for (const ExprPtr& s : t.shape) {
        const auto n = eval_int(s, {});
        user_assert(n.has_value(), error_kind::LoopyError, "temporary '", t.name, "' has an initializer, so its shape must be ",
                    "constant, but an extent is '", to_string(s), "'");
        count *= *n;
    }
    user_assert(count == static_cast<std::int64_t>(t.initializer.size()), error_kind::LoopyError, "the initializer of '",
                t.name, "' has ", t.initializer.size(), " values, but its shape holds ", count);
}

}  // namespace

void add_offset_args(KernelData& k) {
    for (std::size_t i = 0; i < k.args.size(); ++i) {
        Variable& array = k.args[i];
        if (!array.offset_auto) continue;
        std::string name = array.name + "_offset";
        for (int n = 0; name_taken(k, name); ++n) name = cat(array.name, "_offset_", n);
        array.offset = var(name);
        array.offset_auto = false;
        Variable offset;
        offset.name = name;
        offset.kind = VarKind::ValueArg;
        offset.is_array = false;
        offset.dtype = k.options.index_dtype;
        k.args.insert(k.args.begin() + static_cast<long>(i) + 1, std::move(offset));
    }
}

void add_stride_args(KernelData& k) {
    std::vector<Variable> added;
    for (Variable& array : k.args)
        for (std::size_t axis = 0; axis < array.dim_tags.size(); ++axis) {
            ExprPtr& stride = array.dim_tags[axis].stride;
            if (!stride || stride->kind != ExprKind::Var || stride->name != "auto") continue;
            std::string name = cat(array.name, "_stride", axis);
            for (int n = 0; name_taken(k, name); ++n) name = cat(array.name, "_stride", axis, "_", n);
            stride = var(name);
            Variable value;
            value.name = name;
            value.kind = VarKind::ValueArg;
            value.is_array = false;
            value.dtype = k.options.index_dtype;
            added.push_back(std::move(value));
        }
    for (Variable& v : added) k.args.push_back(std::move(v));
}

std::set<std::string> layout_names(const KernelData& k) {
    std::set<std::string> out;
    auto add = [&](const ExprPtr& e) {
        if (!e) return;
        for (const std::string& n : referenced_names(e)) out.insert(n);
    };
    for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars) {
            for (const ExprPtr& s : v.shape) add(s);
            for (const DimTag& t : v.dim_tags) add(t.stride);
            add(v.offset);
        }
    return out;
}

void check_temporaries(const KernelData& k) {
    for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars) {
            if (!v.initializer.empty()) check_initializer(v, k.options.target);
            user_assert(!v.read_only || !v.initializer.empty() || v.kind != VarKind::Temporary, error_kind::LoopyError,
                        "temporary '", v.name, "' is read_only, so it needs an initializer");
        }
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn)) {
            const Variable* v = find_variable(k, w);
            user_assert(!(v && v->kind == VarKind::Temporary && v->read_only), error_kind::LoopyError, "instruction '",
                        insn.id, "' writes read-only temporary '", w, "'");
        }
}

}  // namespace loom
