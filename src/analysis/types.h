// Type inference with numpy's promotion rules as loopy applies them:
//  * integer literals are int32 (int64 when they do not fit); float literals float32 when float32 holds them
//    exactly, float64 otherwise; `f`/`d` suffixes force float32/float64; `2j` is complex64 when exact, `jf`
//    complex64;
//  * two operand types combine as numpy's result_type, except int32 with float32, which gives float32;
//  * in `+`, `-`, `*` (and the arguments of min/max and the math functions) an integer literal of magnitude
//    below 1024 does not take part when another operand is not an integer (`2*a` is a's type);
//  * `/` of two integers is true division (float64); `//` and `%` keep integers integer (a literal divisor
//    takes the other operand's type); comparisons and logic give bool;
//  * math functions of integers compute in float64; abs/real/imag of a complex give its real part type.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/kernel.h"

namespace loom {

struct ExprType {
    DType dtype = DType::Unknown;
    bool weak = false;  // an untyped literal: code generation prints it in the type it is used in
};

/// A built-in function call's types: its arguments are converted to `args`, it returns `result`.
struct CallTypes {
    DType args = DType::Unknown;
    DType result = DType::Unknown;
};

/// Types expressions of kernel `k`, each node once: the types are kept per node, so that typing a tree (or
/// every sub-tree of it, as code generation does) takes time linear in its size. The kernel's variable types
/// must not change while a typer is in use.
class ExprTyper {
public:
    explicit ExprTyper(const KernelData& k) : k_(k) {}

    /// The type of `e` (inames have the index dtype); Unknown while a variable's type is. An unknown
    /// function, a wrong argument count or an operand type an operation does not accept is a
    /// TypeInferenceError (LoopyError for the argument count) naming it.
    ExprType type(const ExprPtr& e);
    /// The common type in which `operands` of a sum, product or comparison are computed (the small-literal
    /// rule above applied).
    DType operation_type(const std::vector<ExprPtr>& operands);
    /// Unknown fields while an argument's type is unknown. `call` is a Call of a built-in function.
    CallTypes call_types(const ExprPtr& call);
    /// Drops the types kept so far, and the nodes they hold.
    void forget();

private:
    ExprType compute(const ExprPtr& e);
    ExprType variable_type(const ExprPtr& e);
    ExprType call_type(const ExprPtr& e);
    ExprType binary_type(const ExprPtr& e);
    ExprType unary_type(const ExprPtr& e);
    ExprType cast_type(const ExprPtr& e);
    ExprType reduction_type(const ExprPtr& e);
    // Substitution rules are typed through their expansion, made once per use.
    ExprType expansion_type(const ExprPtr& use);

    const KernelData& k_;
    // Keyed by node; the node is held so that its address is not reused while the typer lives.
    std::unordered_map<const Expr*, std::pair<ExprPtr, ExprType>> memo_;
};

/// The type of `e` in kernel `k` (ExprTyper::type, for one expression).
ExprType expr_type(const KernelData& k, const ExprPtr& e);

/// Two operand types combined (numpy's result_type, int32 with float32 giving float32).
DType combine_types(DType a, DType b);

/// The type a literal of value `v` gets when no suffix fixes it.
DType int_literal_type(std::int64_t v);
DType float_literal_type(double v);
DType imag_literal_type(double v);


/// Returns `k` with the given dtypes applied to arguments whose dtype is unknown (unknown names are an
/// error), domain parameters typed as the index dtype, and temporaries typed from their writes.
/// With `require_all`, a variable whose type stays unknown is a TypeInferenceError naming it, and so is a
/// name an instruction uses that is no variable, iname or substitution rule; as in loopy, an argument the
/// kernel only reads may stay untyped until code is generated (require_argument_types) when every
/// temporary has its type without it.
Kernel infer_types(const Kernel& k, const std::map<std::string, DType>& given, bool require_all);

/// Every argument has a type, else a TypeInferenceError names the first one that has none.
void require_argument_types(const KernelData& k);

}  // namespace loom
