// Whole stages are kept with the immutable kernel they ran on (ir/derived.h, stage_result): a kernel is
// preprocessed once per argument types and checking, and its code emitted once per target.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "helpers.h"
#include "preprocess/preprocess.h"
#include "transform/transforms.h"

using namespace loom;

TEST_CASE("a kernel keeps its preprocessed form and its code", "[stages]") {
    const Kernel k = add_dtypes(test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = 2*a[i]"}), {{"a", DType::Float32}});
    const Kernel first = preprocess_kernel(k);
    CHECK(&*preprocess_kernel(k) == &*first);  // the same kernel object: not preprocessed again
    CHECK(&*preprocess_kernel(k, {{"n", DType::Int64}}) != &*first);  // other argument types: another entry
    const GeneratedCode c = generate_code(k, TargetKind::C), again = generate_code(k, TargetKind::C);
    CHECK(c.device_code == again.device_code);
    CHECK(generate_code(k, TargetKind::OpenCL).device_code != c.device_code);  // per target
    // A transformation makes a new kernel, with stages of its own.
    const Kernel split = split_iname(k, "i", 4, {});
    CHECK(generate_code(split, TargetKind::C).device_code != c.device_code);
}
