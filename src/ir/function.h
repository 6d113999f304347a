// Scalar functions that a kernel's expressions call by name (loopy's ScalarCallable, with a body): value
// parameters, one result, and a body of structured C statements that code generation writes out as a function
// on every target. The OKL front end makes them for device functions whose control flow (a while loop that
// runs until a value converges, a return from inside a loop) has no form in the loop-nest model. To the
// dependence and barrier analyses a call is an expression of its arguments: a function reads and writes only
// its parameters and locals.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "expr/dtype.h"
#include "expr/expr.h"

namespace loom {

struct FunctionStatement {
    enum class Kind { Block, Assign, If, While, DoWhile, For, Break, Continue, Return };
    Kind kind = Kind::Block;
    std::string target;  // Assign: the parameter or local assigned
    ExprPtr expr;        // Assign: the value; If and the loops: the condition; Return: the value
    /// Block: its statements. If: the then and else Blocks. While, DoWhile: the body Block. For: the body Block
    /// and the step Block (run after the body and after a `continue`).
    std::vector<FunctionStatement> body;
};

struct FunctionVariable {
    std::string name;
    DType dtype = DType::Unknown;
};

struct ScalarFunction {
    std::string name;
    DType result = DType::Unknown;
    std::vector<FunctionVariable> params;  // in order
    std::vector<FunctionVariable> locals;
    FunctionStatement body;  // a Block
};

using ScalarFunctions = std::vector<std::shared_ptr<const ScalarFunction>>;

/// The function named `name` among `functions`; null if none is.
const ScalarFunction* find_function(const ScalarFunctions& functions, const std::string& name);

/// Adds `more` to `functions` (a kernel inlining a callee takes the callee's functions along); a different
/// function of the same name is a LoopyError.
void add_functions(ScalarFunctions& functions, const ScalarFunctions& more);

}  // namespace loom
