// Evaluation of integer expressions (shapes, strides, grid sizes) for given parameter values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "expr/expr.h"

namespace loom {

/// The value of `e` with `values` for its variables; nullopt when a variable has no value or the expression
/// is not integer arithmetic. Floor division and modulo follow Python (loopy) semantics.
std::optional<std::int64_t> eval_int(const ExprPtr& e, const std::map<std::string, std::int64_t>& values);

}  // namespace loom
