// Fuzzes the OKL front end: the input is an OKL source (preprocessor, parser, OKL's rules, lowering); every
// kernel it yields is then generated for OpenCL. An OKLError or any other typed user error is a correct answer.
#include "codegen/lower.h"
#include "fuzz/fuzz_common.h"
#include "parse/okl_lower.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    loom::fuzz::check_isl_leaks([&] {
        std::vector<loom::Kernel> kernels;
        // No include paths: an `#include` resolves next to a file of this name, which does not exist.
        loom::fuzz::run_guarded([&] {
            kernels = loom::okl_kernels(std::string(loom::fuzz::text(data, size)), "/nonexistent/fuzz.okl", {});
        });
        for (const loom::Kernel& k : kernels)
            loom::fuzz::run_guarded([&] { loom::generate_code(k, loom::TargetKind::OpenCL); });
    });
    return 0;
}
