#include "codegen/declarations.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/c_expr.h"
#include "ir/access.h"
#include "ir/eval.h"
#include "ir/layout.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// A temporary's layout with every extent, stride and offset a number, as a declaration needs them.
struct Storage {
    std::vector<std::int64_t> shape, strides;
    std::int64_t offset = 0;
    std::int64_t size = 0;  // elements to declare
    bool plain = false;     // compact and without offset: the size is the product of the extents
};

bool is_constant(const ExprPtr& e) { return eval_int(e, {}).has_value(); }

// A private array of the default layout whose extents depend on the parameters (loopy's variable-size
// temporary, as a precompute over a parameter-sized footprint makes) is a variable-length array of their
// product, sized when the kernel starts. OpenCL C has none: its compiler refuses such a kernel, as loopy's.
std::optional<ExprPtr> variable_size(const Variable& t) {
    const bool all_constant = std::all_of(t.shape.begin(), t.shape.end(), is_constant);
    if (all_constant || t.address_space != AddressSpace::Private || !t.dim_tags.empty() || t.offset ||
        !t.initializer.empty())
        return std::nullopt;
    ExprPtr size = t.shape.front();
    for (std::size_t j = 1; j < t.shape.size(); ++j) size = binary(BinOp::Mul, size, t.shape[j]);
    return size;
}

std::vector<std::int64_t> constants(const Variable& t, const std::vector<ExprPtr>& exprs, const char* what) {
    std::vector<std::int64_t> out;
    for (const ExprPtr& e : exprs) {
        const auto n = eval_int(e, {});
        if (!n) {
            std::vector<std::string> texts;
            for (const ExprPtr& x : exprs) texts.push_back(to_string(x));
            user_error(error_kind::StaticValueFindingError, "temporary '", t.name, "' needs a constant size, but its ", what,
                       " (", join(texts, ", "), ") depends on parameters: fix them (lp.fix_parameters), bound them ",
                       "in the assumptions, or declare a constant shape (only a private array of the default layout may ",
                       "have a size in the parameters)");
        }
        out.push_back(*n);
    }
    return out;
}

Storage storage_of(const Variable& t) {
    Storage s;
    s.shape = constants(t, t.shape, "shape");
    s.strides = constants(t, t.strides, "strides");
    if (t.offset) s.offset = constants(t, {t.offset}, "offset")[0];
    s.size = s.offset + storage_span(s.shape, s.strides);
    s.plain = s.offset == 0 && is_compact(s.shape, s.strides);
    return s;
}

std::string element_literal(double v, DType t) {
    if (is_float(t)) return float_literal(v, t);
    return std::to_string(static_cast<std::int64_t>(v));
}

// The values in storage order (the initializer is row-major over the shape), zero in the layout's gaps.
std::string initializer_text(const Variable& t, const Storage& s) {
    std::vector<double> flat(static_cast<std::size_t>(s.size), 0.0);
    std::vector<std::int64_t> index(s.shape.size(), 0);
    for (const double value : t.initializer) {
        std::int64_t at = s.offset;
        for (std::size_t j = 0; j < index.size(); ++j) at += index[j] * s.strides[j];
        flat[static_cast<std::size_t>(at)] = value;
        for (std::size_t j = index.size(); j-- > 0;) {
            if (++index[j] < s.shape[j]) break;
            index[j] = 0;
        }
    }
    std::vector<std::string> items;
    for (const double v : flat) items.push_back(element_literal(v, t.dtype));
    return "{ " + join(items, ", ") + " }";
}

bool is_read(const KernelData& k, const std::string& name) {
    for (const Instruction& insn : k.instructions)
        if (read_names(insn).count(name)) return true;
    return false;
}

// Loopy writes the size of a plain array as the product of its extents (`50 * 10 * 99`).
std::string size_text(const Storage& s) {
    if (!s.plain || s.shape.empty()) return std::to_string(s.size);
    std::vector<std::string> extents;
    for (const std::int64_t n : s.shape) extents.push_back(std::to_string(n));
    return join(extents, " * ");
}

}  // namespace

std::string element_type(const Variable& v, const Target& target) {
    if (target.has_vector_types() && vec_axis(v)) return target.vector_type(v.dtype, vector_length(v));
    return target.scalar_type(v.dtype);
}

bool is_single_vector(const Variable& v) {
    return v.kind == VarKind::Temporary && v.shape.size() == 1 && vec_axis(v).has_value();
}

bool at_program_scope(const Variable& t, const Target& target) {
    return t.kind == VarKind::Temporary && t.read_only && !t.initializer.empty() &&
           (t.address_space == AddressSpace::Global || target.runs_on_host());
}

std::string temporary_declaration(const Variable& t, const Target& target, const SizePrinter& print_size) {
    std::string out = element_type(t, target) + (t.read_only ? " const " : " ") + t.name;
    if (!t.is_array) return t.initializer.empty() ? out : out + " = " + element_literal(t.initializer[0], t.dtype);
    const std::string aligned = t.alignment > 0 ? cat(" __attribute__ ((aligned (", t.alignment, ")))") : "";
    const bool vectors = target.has_vector_types() && vec_axis(t).has_value();
    if (const std::optional<ExprPtr> size = vectors || !print_size ? std::nullopt : variable_size(t))
        return out + "[" + print_size(*size) + "]" + aligned;
    user_assert(!vectors || t.initializer.empty(), error_kind::LoopyError, "temporary '", t.name,
                "' has vector entries and an initializer, which this code generator does not support");
    if (vectors && is_single_vector(t)) return out + aligned;
    const Storage s = storage_of(t);
    const std::int64_t per_entry = vectors ? vector_size(t) : 1;  // scalars in one declared entry
    out += "[" + (per_entry == 1 ? size_text(s) : std::to_string((s.size + per_entry - 1) / per_entry)) + "]" + aligned;
    if (!t.initializer.empty()) out += " = " + initializer_text(t, s);
    return out;
}

std::string program_scope_declarations(const KernelData& k, const Target& target) {
    std::string out;
    for (const Variable& t : k.temporaries)
        if (at_program_scope(t, target) && is_read(k, t.name))
            out += target.table_qualifier() + temporary_declaration(t, target) + ";\n";
    return out.empty() ? out : out + "\n";
}

}  // namespace loom
