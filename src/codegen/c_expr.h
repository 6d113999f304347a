// Printing expressions as C-family source, in loopy's style: integer (index) arithmetic is flattened into a
// sum with the constant first (`-1 + n`, `n * j + i`), literals take the floating type of the operation they
// appear in (`2.0f * a[i]`), subscripts become flat offsets from the array's strides.
//
// Semantics: arithmetic is C's, with casts where C's usual conversions would compute in another type than
// numpy's promotion (uint32 with int32, int64 with float32). `//` and `%` follow Python (floor division,
// remainder with the divisor's sign) through helper functions, and are C's `/` and `%` where isl proves both
// operands non-negative over the statement's domain. `**` with an integer exponent uses an exponentiation
// helper. Complex numbers are C99 `_Complex` on the C target and pyopencl-style `cfloat_t`/`cdouble_t` with
// helper functions (`cfloat_mul`, `cfloat_divide`, ...) on OpenCL.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/types.h"
#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

class CExprPrinter {
public:
    CExprPrinter(const KernelData& k, const Target& target) : k_(k), typer_(k), target_(target) {}
    CExprPrinter(const CExprPrinter&) = delete;  // facts_ points into the printer's own domain_facts_
    CExprPrinter& operator=(const CExprPrinter&) = delete;

    /// `want`: the type the value is wanted in (untyped literals are printed in it); Unknown: their own type.
    std::string print(const ExprPtr& e, DType want = DType::Unknown);
    /// An assignment statement (without the trailing newline), converting when the types differ.
    std::string assignment(const ExprPtr& lhs, const ExprPtr& rhs);
    /// A guard condition as loopy prints isl's constraints: `-1 + -128 * gid(0) + -1 * lid(0) + n >= 0`
    /// (every integer comparison moved to one side, constant first, then inames, then parameters).
    std::string guard(const ExprPtr& cond);
    /// An integer sum reordered as loopy prints affine expressions: constant, then terms by the domain order
    /// of their inames, then the rest (parameters) in their order.
    ExprPtr canonical_sum(const ExprPtr& e) const;
    /// Prints iname `iname` as `text` (the work-item id that implements it).
    void set_hardware_text(const std::string& iname, const std::string& text) { hardware_text_[iname] = text; }
    /// The iname a vectorized statement runs on at once (vector types): subscripts by it along a `vec` axis are
    /// whole vectors. Empty: none.
    void set_vector_iname(std::string iname) { vector_iname_ = std::move(iname); }
    /// The inames of the statement printed next: `//` and `%` are proven non-negative over their domain. None
    /// (`{}`) for what runs outside any one statement's domain: loop bounds and guards, which are evaluated
    /// wherever the loops around them run, also where no statement instance is.
    void set_statement_inames(std::vector<std::string> inames);
    /// Type definitions and helper functions (floor division, complex arithmetic, ...) that the printed code
    /// uses, as C definitions in dependency order.
    std::string helper_definitions() const;
    /// Takes over the helpers another printer's code uses (one program holds several device kernels).
    void adopt_helpers(const CExprPrinter& other);

private:
    // Types are kept while one expression (a statement, a guard) is printed and dropped after it: kept for the
    // whole kernel, they held every node printed (thousands of unrolled copies), and freeing them at the end
    // cost as much as printing them.
    class Printing {
    public:
        explicit Printing(CExprPrinter& p) : p_(p) { ++p_.printing_; }
        ~Printing() {
            if (--p_.printing_ == 0) p_.typer_.forget();
        }
        Printing(const Printing&) = delete;
        Printing& operator=(const Printing&) = delete;

    private:
        CExprPrinter& p_;
    };

    std::string print_prec(const ExprPtr& e, DType want, int parent_prec, bool right_operand = false);
    std::string print_node(const ExprPtr& e, DType want, int& prec);
    std::string print_binary(const ExprPtr& e, DType want, int& prec);
    std::string print_arithmetic(const ExprPtr& e, DType t, int& prec);
    std::string print_comparison(const ExprPtr& e, int& prec);
    std::string print_true_division(const ExprPtr& e, DType want, int& prec);
    std::string print_floor_div(const ExprPtr& e, int& prec);
    std::string print_pow(const ExprPtr& e, int& prec);
    std::string print_complex_arithmetic(const ExprPtr& e, DType t, int& prec);
    std::string print_negation(const ExprPtr& x, DType t, int& prec, bool cast);
    std::string print_unary(const ExprPtr& e, DType want, int& prec);
    std::string print_if(const ExprPtr& e, DType want, int& prec);
    std::string print_cast(const ExprPtr& e, int& prec);
    std::string print_integer_sum(const ExprPtr& e, DType t, int& prec, bool constant_last = false);
    std::string print_term(const ExprPtr& term, DType sum_type, int parent_prec, bool right_operand);
    std::string print_call(const ExprPtr& e, int& prec);
    std::string print_real_call(const ExprPtr& e, DType arg_type, int& prec);
    std::string print_complex_call(const ExprPtr& e, DType t);
    std::string print_subscript(const ExprPtr& e);
    std::string print_storage_subscript(const Variable& v, const ExprPtr& e);
    std::string literal(const ExprPtr& e, DType want) const;
    std::string imag_literal(const ExprPtr& e, DType want, int& prec);
    std::string converted(const ExprPtr& e, DType to, int parent_prec, bool right_operand = false);
    bool needs_casts(const ExprPtr& a, const ExprPtr& b, DType t);
    std::string through_int(DType from, DType to) const;
    std::string operand(const ExprPtr& x, DType t, int parent_prec, bool right_operand, bool cast);
    std::string division_guards(const std::string& op, DType t) const;
    std::string imaginary_unit() const;
    bool nonnegative(const ExprPtr& e);
    std::optional<long> lower_bound(const ExprPtr& e);
    const isl::set& statement_domain();
    bool complex_helpers() const { return target_.complex_style() == ComplexStyle::Helpers; }

    std::string define(const std::string& name, const std::string& ret, const std::string& params,
                       const std::string& body);
    std::string integer_helper(const std::string& op, DType t);
    std::string pow_helper(DType base, DType exponent);
    std::string min_max_helper(const std::string& f, DType t);
    std::string complex_fn(const std::string& op, DType t);

    const KernelData& k_;
    ExprTyper typer_;  // each node of a printed expression is typed once
    int printing_ = 0;  // depth of the public calls under way (Printing)
    const Target& target_;
    std::vector<std::pair<std::string, std::string>> helpers_;  // (name, definition), dependencies first
    std::set<DType> complex_types_;                             // used by printed expressions
    std::map<std::string, std::string> hardware_text_;          // iname -> "gid(0)", "lid(1)", ...
    // What isl proved on one statement domain, kept while the printer goes from statements to the loop bounds
    // around them and back.
    struct DomainFacts {
        std::optional<isl::set> domain;  // computed when a `//` or `%` first needs it
        std::map<std::string, std::optional<long>> iname_minimum;
        std::map<std::string, bool> nonnegative;  // by expression text
    };
    std::vector<std::string> statement_inames_;
    std::string vector_iname_;
    std::map<std::vector<std::string>, DomainFacts> domain_facts_;  // by statement inames
    DomainFacts* facts_ = &domain_facts_[{}];
};

/// Formats a floating-point number as a C literal of type `t` (shortest round-trip digits, ".0" when
/// integral, "f" suffix for float32).
std::string float_literal(double v, DType t);

}  // namespace loom
