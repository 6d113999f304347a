// Fuzzes the whole path make_kernel -> transformations -> generate_code. The input is three parts cut at
// 0 bytes: the domains (cut at 0x1E bytes), the instructions, and a program (the rest): each byte picks a transformation
// or one of its arguments (an iname, a variable, a tag, a factor) among what the kernel has. A transformation
// that raises a typed error is skipped; the last kernel is generated for C or OpenCL, checked or not (the last
// byte).
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "codegen/lower.h"
#include "fuzz/fuzz_common.h"
#include "parse/make_kernel.h"
#include "transform/transforms.h"

namespace {

using namespace loom;

const std::vector<std::string> kTags = {"", "for", "ord", "l.0", "l.1", "g.0", "g.1", "unr", "ilp",
                                        "ilp.seq", "vec", "unr_hint", "l.auto", "unused.g"};

// Reads the program's bytes; past its end every byte is 0.
class Program {
public:
    explicit Program(std::string bytes) : bytes_(std::move(bytes)) {}
    bool done() const { return pos_ >= bytes_.size(); }
    unsigned byte() { return done() ? 0 : static_cast<unsigned char>(bytes_[pos_++]); }
    // One of `names`, or now and then a name no kernel has (what a typo gives).
    std::string pick(const std::vector<std::string>& names) {
        const unsigned b = byte();
        if (names.empty() || b >= 250) return "zz" + std::to_string(b);
        return names[b % names.size()];
    }
    std::vector<std::string> some(const std::vector<std::string>& names) {
        std::vector<std::string> out;
        for (unsigned n = 1 + byte() % 3; n > 0; --n) out.push_back(pick(names));
        return out;
    }
    std::string tag() { return kTags[byte() % kTags.size()]; }

private:
    std::string bytes_;
    std::size_t pos_ = 0;
};

std::vector<std::string> names_of(const std::vector<Variable>& vars, bool arrays_only) {
    std::vector<std::string> out;
    for (const Variable& v : vars)
        if (!arrays_only || v.is_array) out.push_back(v.name);
    return out;
}

std::vector<std::string> instruction_ids(const Kernel& k) {
    std::vector<std::string> out;
    for (const Instruction& insn : k->instructions) out.push_back(insn.id);
    return out;
}

std::vector<std::string> rule_names(const Kernel& k) {
    std::vector<std::string> out;
    for (const SubstitutionRule& r : k->substitutions) out.push_back(r.name);
    return out;
}

// With LOOM_FUZZ_TRACE set, each transformation is printed before it runs (as the Lua call a test would make,
// roughly), so that a finding can be turned into a regression test.
void trace(const std::string& call) {
    static const bool on = std::getenv("LOOM_FUZZ_TRACE") != nullptr;
    if (on) std::fprintf(stderr, "fuzz step: %s\n", call.c_str());
}

std::string quoted(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return "{" + out + "}";
}

// The transformation the next byte picks, its arguments from the following bytes.
Kernel step(const Kernel& k, Program& p) {
    const std::vector<std::string> inames = k.all_inames();
    const std::vector<std::string> temporaries = names_of(k->temporaries, false);
    // Arguments are read from the program left to right (locals, not call arguments, whose order C++ leaves open).
    switch (p.byte() % 20) {
        case 0: {
            SplitOptions o;
            o.outer_tag = p.tag();
            o.inner_tag = p.tag();
            const std::string iname = p.pick(inames);
            const int factor = 1 + static_cast<int>(p.byte() % 17);
            trace(cat("split_iname(k, \"", iname, "\", ", factor, ", {outer_tag=\"", o.outer_tag, "\", inner_tag=\"",
                      o.inner_tag, "\"})"));
            return split_iname(k, iname, factor, o);
        }
        case 1: {
            const std::string iname = p.pick(inames);
            const int n = 1 + static_cast<int>(p.byte() % 5);
            trace(cat("chunk_iname(k, \"", iname, "\", ", n, ")"));
            return chunk_iname(k, iname, n);
        }
        case 2: {
            const std::vector<std::string> joined{p.pick(inames), p.pick(inames)};
            trace(cat("join_inames(k, ", quoted(joined), ")"));
            return join_inames(k, joined);
        }
        case 3: {
            const std::string iname = p.pick(inames);
            const std::string tag = p.tag();
            trace(cat("tag_inames(k, {", iname, " = \"", tag, "\"})"));
            return tag_inames(k, {{iname, tag}});
        }
        case 4: {
            const std::vector<std::string> order = p.some(inames);
            trace(cat("prioritize_loops(k, ", quoted(order), ")"));
            return prioritize_loops(k, order);
        }
        case 5: {
            const std::string iname = p.pick(inames);
            trace(cat("duplicate_inames(k, \"", iname, "\")"));
            return duplicate_inames(k, {iname});
        }
        case 6: {
            const std::string old_iname = p.pick(inames);
            const std::string new_iname = p.pick(inames);
            trace(cat("rename_iname(k, \"", old_iname, "\", \"", new_iname, "\", true)"));
            return rename_iname(k, old_iname, new_iname, true);
        }
        case 7: trace("realize_reduction(k)"); return realize_reduction(k);
        case 8: {
            PrefetchOptions o;
            o.default_tag = p.tag();
            const std::string array = p.pick(names_of(k->args, true));
            const std::vector<std::string> sweep = p.some(inames);
            trace(cat("add_prefetch(k, \"", array, "\", ", quoted(sweep), ", {default_tag=\"", o.default_tag, "\"})"));
            return add_prefetch(k, array, sweep, o);
        }
        case 9: {
            PrecomputeOptions o;
            o.default_tag = p.tag();
            o.fetch_bounding_box = p.byte() % 2;
            const std::string rule = p.pick(rule_names(k));
            const std::vector<std::string> sweep = p.some(inames);
            trace(cat("precompute(k, \"", rule, "\", ", quoted(sweep), ", {default_tag=\"", o.default_tag,
                      "\", fetch_bounding_box=", o.fetch_bounding_box ? "true" : "false", "})"));
            return precompute(k, {rule}, sweep, o);
        }
        case 10: trace("expand_subst(k)"); return expand_subst(k);
        case 11: {
            const std::string name = p.pick(temporaries);
            trace(cat("assignment_to_subst(k, \"", name, "\")"));
            return assignment_to_subst(k, name);
        }
        case 12: {
            const std::vector<std::string> chosen = p.some(inames);
            trace(cat("privatize_temporaries_with_inames(k, ", quoted(chosen), ")"));
            return privatize_temporaries_with_inames(k, {chosen.begin(), chosen.end()});
        }
        case 13: {
            const std::string name = p.pick(temporaries);
            const auto space = static_cast<AddressSpace>(1 + p.byte() % 3);
            trace(cat("set_temporary_address_space(k, \"", name, "\", ", static_cast<int>(space), ")"));
            return set_temporary_address_space(k, name, space);
        }
        case 14: {
            const std::string param = p.pick(k.all_params());
            const int value = static_cast<int>(p.byte() % 20) - 2;
            trace(cat("fix_parameters(k, {", param, " = ", value, "})"));
            return fix_parameters(k, {{param, int_lit(value)}});
        }
        case 15: {
            const std::string param = p.pick(k.all_params());
            const std::string assumption = param + " >= " + std::to_string(p.byte() % 40);
            trace(cat("assume(k, \"", assumption, "\")"));
            return assume(k, assumption);
        }
        case 16: {
            const std::string array = p.pick(names_of(k->args, true));
            const std::string order = p.byte() % 2 ? "f" : "c";
            trace(cat("tag_array_axes(k, \"", array, "\", \"", order, "\")"));
            return tag_array_axes(k, {array}, {order});
        }
        case 17: trace("remove_unused_inames(k)"); return remove_unused_inames(k);
        case 18: {
            const std::string before = "id:" + p.pick(instruction_ids(k));
            const std::string after = "id:" + p.pick(instruction_ids(k));
            trace(cat("add_barrier(k, \"", before, "\", \"", after, "\")"));
            return add_barrier(k, before, after);
        }
        default: {
            const std::string sink = "id:" + p.pick(instruction_ids(k));
            const std::string source = "id:" + p.pick(instruction_ids(k));
            trace(cat("add_dependency(k, \"", sink, "\", \"", source, "\")"));
            return add_dependency(k, sink, source);
        }
    }
}

// Arguments whose type nothing fixes get one: float32 arrays, int32 values.
std::map<std::string, DType> default_dtypes(const Kernel& k) {
    std::map<std::string, DType> out;
    for (const Variable& v : k->args)
        if (v.dtype == DType::Unknown) out[v.name] = v.is_array ? DType::Float32 : DType::Int32;
    return out;
}

constexpr int kMaxSteps = 8;

void run_input(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> parts = fuzz::split(fuzz::text(data, size), '\0', 3);
    parts.resize(3);
    Program p(parts[2]);
    std::optional<Kernel> k;
    fuzz::run_guarded([&] {
        MakeKernelInput in;
        in.domains = fuzz::split(parts[0], '\x1e');
        in.instructions = {parts[1]};
        trace(cat("make_kernel(", quoted(in.domains), ", [[", parts[1], "]])"));
        k = make_kernel(in);
    });
    if (!k) return;
    for (int n = 0; n < kMaxSteps && !p.done(); ++n) fuzz::run_guarded([&] { k = step(*k, p); });
    const unsigned last = p.byte();
    const TargetKind target = last % 2 ? TargetKind::C : TargetKind::OpenCL;
    // Checked kernels guard what isl cannot prove (preprocess/checked_accesses.h): indices through data among them.
    if (last & 2) {
        OptionUpdate checked;
        checked.checked = true;
        trace("set_options(k, {checked = true})");
        fuzz::run_guarded([&] { k = set_options(*k, checked); });
    }
    trace(cat("generate_code(k) for ", target == TargetKind::C ? "C" : "OpenCL"));
    fuzz::run_guarded([&] { generate_code(*k, target, default_dtypes(*k)); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::check_isl_leaks([&] { run_input(data, size); });
    return 0;
}
