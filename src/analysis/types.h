// Type inference, with numpy's promotion rules as loopy applies them: literals are "weak" (an integer
// literal with float32 gives float32), `/` on integers is true division (float64).
#pragma once

#include <map>
#include <string>

#include "ir/kernel.h"

namespace loom {

struct ExprType {
    DType dtype = DType::Unknown;
    bool weak = false;  // an untyped literal (or arithmetic on literals only)
};

/// The type of `e` in kernel `k` (inames have the index dtype).
ExprType expr_type(const KernelData& k, const ExprPtr& e);

/// Returns `k` with the given dtypes applied to arguments whose dtype is unknown (unknown names are an
/// error), domain parameters typed as the index dtype, and temporaries typed from their writes.
/// With `require_all`, a variable whose type stays unknown is a TypeInferenceError naming it.
Kernel infer_types(const Kernel& k, const std::map<std::string, DType>& given, bool require_all);

}  // namespace loom
