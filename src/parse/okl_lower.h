// The OKL front end's entry point: preprocess, parse, check and lower every @kernel of an OKL file into an
// ordinary Kernel (DESIGN decision 8). The lowering writes Loom's own instruction text and isl domains and
// hands them to make_kernel, so an OKL kernel is built by the same code as any other:
//  * an affine `for` loop is an iname over its iterations (a + s*k for a step s other than 1); @outer/@inner
//    tag it g.N/l.N, @tile splits it into a tile iname and an element iname; a loop with a constant
//    but non-affine trip (`d *= 2`) runs over a table of its values;
//  * statements are instructions in program order: each depends on every earlier one it conflicts with,
//    so Loom's exact barrier insertion places the local barriers (@barrier adds one, @nobarrier waives
//    the one after its loop), and consecutive top-level @outer loops are separated by a global barrier;
//  * C semantics are kept: integer `/` and `%` truncate, `if` conditions are evaluated once, before the
//    branch runs.
// Whatever cannot be represented exactly is an OKLError naming the construct and its line.
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"
#include "parse/okl_lexer.h"

namespace loom {

/// The kernels of an OKL source (named `file` in errors and used to resolve `#include "..."`), in file order.
std::vector<Kernel> okl_kernels(const std::string& source, const std::string& file, const OklOptions& options);

}  // namespace loom
