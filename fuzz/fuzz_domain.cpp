// Fuzzes the domain parser: the input, cut at 0x1E bytes, is the list of domains of a kernel without
// instructions; the iteration domain of all its inames is then formed through the domain forest.
#include "fuzz/fuzz_common.h"
#include "ir/domain.h"
#include "parse/make_kernel.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    loom::fuzz::check_isl_leaks([&] {
        loom::fuzz::run_guarded([&] {
            loom::MakeKernelInput in;
            in.domains = loom::fuzz::split(loom::fuzz::text(data, size), '\x1e');
            const loom::Kernel k = loom::make_kernel(in);
            loom::domain_of(*k, k.all_inames());
        });
    });
    return 0;
}
