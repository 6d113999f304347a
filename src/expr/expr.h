// Expressions of the kernel language: immutable trees shared through ExprPtr.
//
// Semantics follow loopy (pymbolic) as lowered to C:
//  * `/` on two integers is true division (result float64, as numpy); `//` is floor division and `%` the
//    modulo that matches it (sign of the divisor), as in Python. Codegen emits plain C `/`, `%` only where
//    both operands are known non-negative.
//  * Integer literals are typed by value (int32 when they fit); float literals are float64 unless suffixed
//    (`1.5f`), and then take the other operand's float type when combined, as loopy does.
//  * Comparisons and logic yield bool; `if(c, a, b)` evaluates only the chosen branch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "expr/dtype.h"

namespace loom {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class ExprKind {
    IntLit,     // ival
    FloatLit,   // fval, dtype (Float32 when suffixed 'f', Float64 when 'd'; Unknown = float64 literal)
    ImagLit,    // fval: the imaginary literal fval*j (dtype Complex64 for 'jf')
    Var,        // name
    Subscript,  // name, args = indices
    Call,       // name = function, args
    Binary,     // op, args = {lhs, rhs}
    Unary,      // op ("-", "not", "~"), args = {operand}
    If,         // args = {cond, then, else}
    Cast,       // dtype, args = {operand}
    Reduction,  // name = operation ("sum", ...), inames, args = {body...}
    // name = array, args = indices (none: the whole variable), inames = swept inames. loopy's SubArrayRef
    // `[i, j]: a[i, 0, j]`: the sub-array of `a` whose axes are i and j (each from its lower bound), passed to or
    // returned from a callable kernel. Only a call's arguments and left-hand sides hold one; calls are inlined
    // (transform/callable.h) before any analysis that needs values.
    SubArrayRef,
};

/// Binary operators; comparison and logic included.
enum class BinOp {
    Add, Sub, Mul, Div, FloorDiv, Mod, Pow,
    Eq, Ne, Lt, Le, Gt, Ge,
    And, Or,
    BitAnd, BitOr, BitXor, Shl, Shr,
    // Truncating C division and remainder. Never parsed: produced from isl's AST where isl knows the
    // operands are non-negative (pdiv_q, pdiv_r) or the division exact, so C's `/` and `%` are correct.
    CDiv, CMod,
};

const char* binop_text(BinOp op);  // as written in the source language ("//", "and", ...)
int binop_precedence(BinOp op);    // higher binds tighter

struct Expr {
    ExprKind kind;
    std::string name;
    std::vector<ExprPtr> args;
    std::vector<std::string> inames;  // Reduction
    std::int64_t ival = 0;
    double fval = 0;
    DType dtype = DType::Unknown;
    BinOp op = BinOp::Add;
    std::string unop;
    bool allow_simultaneous = false;  // Reduction written `simul_reduce(...)`: its inames may be shared
    /// Subscript written `a[[e]]` (loopy's linear subscript): its one index counts elements of a's storage
    /// from its offset, whatever a's shape and strides.
    bool linear = false;
    /// Var, Subscript or Call written `name$tag` (loopy's TaggedVariable): a name for this one use, which match
    /// expressions select with `tag:` (expand_subst's stack matches); the name means what it means untagged.
    std::string tag;
    /// Levels of the tree (1 for a leaf), set by the constructors below; never above kMaxExprDepth.
    int depth = 1;
};

/// The deepest expression tree Loom builds. Every walk over expressions recurses once per level; bounding the
/// depth where trees are made keeps those walks (and the destructor) within the stack that `loom` runs on
/// (docs/tutorial.md, "Limits on input"). Deeper trees are a LoopyError where they would be made.
constexpr int kMaxExprDepth = 12000;
/// The deepest tree the parser accepts (a ParseError beyond): a sum of 10,000 subscripts, with room left below
/// kMaxExprDepth for the levels that transformations and code generation add around what the user wrote.
constexpr int kMaxParsedDepth = 10050;

/// The depth a node over `args` would have.
int depth_over(const std::vector<ExprPtr>& args);

ExprPtr int_lit(std::int64_t v);
ExprPtr float_lit(double v, DType suffix_type = DType::Unknown);
ExprPtr imag_lit(double v, DType suffix_type = DType::Unknown);
ExprPtr var(std::string name);
ExprPtr subscript(std::string name, std::vector<ExprPtr> indices);
ExprPtr linear_subscript(std::string name, ExprPtr index);
/// `e` with other operands, or another name; everything else kept.
ExprPtr with_args(const ExprPtr& e, std::vector<ExprPtr> args);
ExprPtr with_name(const ExprPtr& e, std::string name);
/// `e` (a Var, Subscript or Call) with its name tagged `name$tag`.
ExprPtr tagged(const ExprPtr& e, std::string tag);
ExprPtr call(std::string fn, std::vector<ExprPtr> args);
ExprPtr binary(BinOp op, ExprPtr a, ExprPtr b);
ExprPtr unary(std::string op, ExprPtr a);
ExprPtr if_then_else(ExprPtr c, ExprPtr a, ExprPtr b);
ExprPtr cast(DType t, ExprPtr a);
ExprPtr reduction(std::string op, std::vector<std::string> inames, std::vector<ExprPtr> body,
                  bool allow_simultaneous = false);
ExprPtr sub_array_ref(std::string name, std::vector<ExprPtr> indices, std::vector<std::string> swept);

/// The most indices a subscript, and so axes an array, may have: numpy's limit, which host arrays keep too.
inline constexpr std::size_t kMaxArrayAxes = 64;

/// The function name of a slice `start:stop:step` inside a subscript, as parsed: call(kSliceCall, {start, stop,
/// step}), an omitted part var(kSliceCall). Only make_kernel sees one: it turns the subscript into a SubArrayRef.
inline constexpr const char* kSliceCall = ":";

/// Whether `e` is a reduction with two results, a value and an index (argmax, argmin).
bool is_two_valued(const ExprPtr& e);
/// Operand `n` (0: the value, 1: the index) of a two-valued reduction: its own argument, or, where it reduces
/// another two-valued reduction (`argmax(i, argmax(j, a[i, j], j))`, loopy's tuple-typed reduction argument),
/// the one that reduction's results take their type from.
const ExprPtr& pair_operand(const ExprPtr& red, std::size_t n);

/// Source-language text, as loopy prints it in kernel listings (`2*a[i]`, `sum(k, a[i, k]*b[k, j])`).
std::string to_string(const ExprPtr& e);

/// Calls f on e and every sub-expression, parents first.
template <class F>
void visit(const ExprPtr& e, F&& f) {
    f(e);
    for (const ExprPtr& a : e->args) visit(a, f);
}

/// Rebuilds e bottom-up; `f` gets each node with already-rebuilt children and returns its replacement
/// (returning the node itself keeps it). Unchanged subtrees are shared, not copied.
ExprPtr rewrite(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f);

/// `e` (which may be null) with each variable named in `values` replaced by its expression. Subscripted arrays
/// and reduction inames are names, not variables, and stay.
ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& values);

/// Names of variables read (Var, Subscript and SubArrayRef names), excluding calls' function names.
std::vector<std::string> referenced_names(const ExprPtr& e);

}  // namespace loom
