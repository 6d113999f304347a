// Fuzzes the instruction parser: the input, cut at 0x1E bytes, is the list of instruction strings. What
// parses is made into a kernel over fixed domains, which runs make_kernel's analyses on it (argument
// guessing, dependencies, shapes from footprints).
#include "fuzz/fuzz_common.h"
#include "parse/instructions.h"
#include "parse/make_kernel.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    loom::fuzz::check_isl_leaks([&] {
        loom::fuzz::run_guarded([&] {
            loom::MakeKernelInput in;
            in.instructions = loom::fuzz::split(loom::fuzz::text(data, size), '\x1e');
            loom::parse_instructions(in.instructions);
            in.domains = {"{ [i, j, k]: 0 <= i, j, k < n }", "{ [l]: 0 <= l < 4 }"};
            loom::make_kernel(in);
        });
    });
    return 0;
}
