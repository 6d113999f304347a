// Which instructions run on whole OpenCL vectors over a `vec` iname (loopy's VectorizabilityChecker, with
// the stricter rules on types and assignees that vectorize.h states).
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "analysis/types.h"
#include "codegen/vectorize.h"
#include "parse/make_kernel.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

// Whether the one instruction `insn` over { [i,k]: 0<=i<n, 0<=k<4 } is vectorizable along k, with the
// float32 arrays a, b, out of shape (n, 4) laid out "c,vec", the float32 array flat of shape (4n), the
// float64 array d of shape (n, 4) laid out "c,vec", and int32 array c of shape (n, 2, 4) laid out "c,c,vec".
bool vectorizable(const std::string& insn, long length = 4) {
    MakeKernelInput in;
    in.domains = {"{ [i,k]: 0<=i<n and 0<=k<4 }"};
    in.instructions = {insn};
    Kernel k = make_kernel(in);
    const std::map<std::string, DType> dtypes{{"a", DType::Float32}, {"b", DType::Float32}, {"out", DType::Float32},
                                             {"flat", DType::Float32}, {"d", DType::Float64}, {"c", DType::Int32},
                                             {"s", DType::Float32}};
    std::vector<std::string> arrays;
    for (const char* name : {"a", "b", "out", "d"})
        if (k.find_variable(name)) arrays.push_back(name);
    k = tag_array_axes(k, arrays, {"c,vec"});
    if (k.find_variable("c")) k = tag_array_axes(k, {"c"}, {"c,c,vec"});
    std::map<std::string, DType> known;
    for (const auto& [name, t] : dtypes)
        if (k.find_variable(name)) known[name] = t;
    k = infer_types(k, known, true);
    return is_vectorizable(*k, k->instructions.at(0), "k", length);
}

}  // namespace

TEST_CASE("arithmetic on vec axes indexed by the vec iname is vectorizable", "[vectorize]") {
    CHECK(vectorizable("out[i,k] = a[i,k] + b[i,k]"));
    CHECK(vectorizable("out[i,k] = 2*a[i,k] - b[i,k]/3"));
    CHECK(vectorizable("out[i,k] = -a[i,k]"));
    CHECK(vectorizable("out[i,k] = a[i,k] * s"));       // a scalar operand is broadcast
    CHECK(vectorizable("out[i,k] = a[i,2]"));            // a scalar right-hand side too
    CHECK(vectorizable("out[i,k] = 0"));
}

TEST_CASE("other uses of the vec iname are not", "[vectorize]") {
    CHECK_FALSE(vectorizable("out[i,k] = a[i,k] + k"));             // the iname as a value
    CHECK_FALSE(vectorizable("out[i,k] = a[i,3-k]"));               // not the bare iname on the vec axis
    CHECK_FALSE(vectorizable("flat[4*i+k] = a[i,k]"));              // the iname on an axis that is not vec
    CHECK_FALSE(vectorizable("out[i,k] = a[i,k]", 2));             // vector and loop lengths differ
    CHECK_FALSE(vectorizable("out[i,2] = a[i,k]"));                 // a scalar assignee of a vector
    CHECK_FALSE(vectorizable("out[i,k] = sqrt(a[i,k])"));           // calls take no vectors
    CHECK_FALSE(vectorizable("out[i,k] = if(a[i,k] > 0 and b[i,k] > 0, a[i,k], 0)"));  // logic
    CHECK_FALSE(vectorizable("out[i,k] = d[i,k] * 2"));             // a float64 vector into float32
    CHECK_FALSE(vectorizable("d[i,k] = a[i,k] * 2"));               // a float32 vector into float64
    CHECK_FALSE(vectorizable("out[i,k] = a[i,k] {atomic}"));
}
