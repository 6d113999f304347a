// Printing expressions as C-family source, in loopy's style: integer (index) arithmetic is flattened into a
// sum with the constant first (`-1 + n`, `n * j + i`), literals take the floating type of the operation they
// appear in (`2.0f * a[i]`), subscripts become flat offsets from the array's strides.
#pragma once

#include <map>
#include <set>
#include <string>

#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

class CExprPrinter {
public:
    CExprPrinter(const KernelData& k, TargetKind target) : k_(k), target_(target) {}

    /// `want`: the type the value is wanted in (literals are printed in it); Unknown: their own type.
    std::string print(const ExprPtr& e, DType want = DType::Unknown);
    /// An assignment statement (without the trailing newline), casting when the types differ.
    std::string assignment(const ExprPtr& lhs, const ExprPtr& rhs);
    /// Prints iname `iname` as `text` (the work-item id that implements it).
    void set_hardware_text(const std::string& iname, const std::string& text) { hardware_text_[iname] = text; }
    /// Helper functions (floor division, ...) that printed code uses, as C definitions.
    std::string helper_definitions() const;

private:
    std::string print_prec(const ExprPtr& e, DType want, int parent_prec, bool right_operand = false);
    std::string print_node(const ExprPtr& e, DType want, int& prec);
    std::string print_binary(const ExprPtr& e, DType want, int& prec);
    std::string print_integer_sum(const ExprPtr& e, int& prec);
    std::string print_term(const ExprPtr& t, int parent_prec, bool right_operand);
    std::string print_call(const ExprPtr& e, DType want);
    std::string print_subscript(const ExprPtr& e);
    std::string literal(const ExprPtr& e, DType want) const;
    std::string use_helper(const std::string& op, DType t);
    bool is_integer_expr(const ExprPtr& e) const;

    const KernelData& k_;
    TargetKind target_;
    std::map<std::string, std::pair<std::string, DType>> helpers_;  // name -> (operation, type)
    std::map<std::string, std::string> hardware_text_;               // iname -> "gid(0)", "lid(1)", ...
};

/// Formats a floating-point number as a C literal of type `t` (shortest round-trip digits, ".0" when
/// integral, "f" suffix for float32).
std::string float_literal(double v, DType t);

}  // namespace loom
