#include "backends/invoker.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>

#include "analysis/kernel_checks.h"
#include "preprocess/checked_accesses.h"
#include "support/limits.h"
#include "support/strings.h"
#include "backends/call_arrays.h"
#include "ir/affine.h"
#include "ir/eval.h"
#include "ir/layout.h"
#include "isl/isl.h"
#include "preprocess/preprocess.h"
#include "support/error.h"

namespace loom::backend {

namespace {

// --- values not passed

// Whether `name` is the offset of an array argument (as lp.auto offsets make): host arrays start at their first
// element, so it is 0 unless passed.
bool is_offset_of_an_array(const KernelData& k, const std::string& name) {
    return std::any_of(k.args.begin(), k.args.end(), [&](const Variable& a) {
        return a.offset && a.offset->kind == ExprKind::Var && a.offset->name == name;
    });
}

// The value of `name` when it is the stride:auto of an array axis (loopy's `<array>_stride<axis>`): the stride,
// in elements, of the array passed, or the C-contiguous one of an output the call allocates.
std::optional<std::int64_t> auto_stride(const KernelData& k, const std::string& name, const CallArgs& c) {
    for (const Variable& a : k.args)
        for (std::size_t j = 0; j < a.strides.size(); ++j) {
            const ExprPtr& s = a.strides[j];
            if (!s || s->kind != ExprKind::Var || s->name != name) continue;
            if (const auto it = c.arrays.find(a.name); it != c.arrays.end() && j < it->second.ndim())
                return it->second.strides()[j];
            if (const auto it = c.device_arrays.find(a.name); it != c.device_arrays.end() && j < it->second.shape.size())
                return it->second.strides()[j];
            std::int64_t stride = 1;
            for (std::size_t m = j + 1; m < a.shape.size(); ++m) {
                const auto extent = eval_int(a.shape[m], c.ints);
                if (!extent) return std::nullopt;
                stride *= *extent;
            }
            return stride;
        }
    return std::nullopt;
}

// `slope * name + constant`: an expression affine in one unknown.
struct Affine {
    std::int64_t slope = 0, constant = 0;
};

// `e` as an affine function of `name`, the other variables taking their `known` values; nothing when it is not
// one (a product of two terms in `name`, a division or call of it) or another variable is unknown.
std::optional<Affine> affine_in(const ExprPtr& e, const std::string& name, const std::map<std::string, std::int64_t>& known) {
    if (const auto value = eval_int(e, known)) return Affine{0, *value};  // `name` is not in `known`: e is free of it
    if (e->kind == ExprKind::Var) return e->name == name ? std::optional(Affine{1, 0}) : std::nullopt;
    if (e->kind == ExprKind::Unary && e->unop == "-") {
        const auto x = affine_in(e->args[0], name, known);
        return x ? std::optional(Affine{-x->slope, -x->constant}) : std::nullopt;
    }
    if (e->kind != ExprKind::Binary || (e->op != BinOp::Add && e->op != BinOp::Sub && e->op != BinOp::Mul))
        return std::nullopt;
    const auto x = affine_in(e->args[0], name, known), y = affine_in(e->args[1], name, known);
    if (!x || !y) return std::nullopt;
    if (e->op == BinOp::Add) return Affine{x->slope + y->slope, x->constant + y->constant};
    if (e->op == BinOp::Sub) return Affine{x->slope - y->slope, x->constant - y->constant};
    if (x->slope != 0 && y->slope != 0) return std::nullopt;  // quadratic in `name`
    return Affine{x->slope * y->constant + y->slope * x->constant, x->constant * y->constant};
}

// The value of `name` that makes the extent `shape` equal `size` (n from `n + 2` = 7), if `shape` is affine in
// it, the other variables of `shape` are known and the solution is an integer.
std::optional<std::int64_t> solve_extent(const ExprPtr& shape, const std::string& name, std::int64_t size,
                                         const std::map<std::string, std::int64_t>& known) {
    const std::optional<Affine> f = affine_in(shape, name, known);
    if (!f || f->slope == 0 || (size - f->constant) % f->slope != 0) return std::nullopt;
    return (size - f->constant) / f->slope;
}

// The extents of the arrays passed, each beside the size it has in this call.
std::vector<std::pair<ExprPtr, std::int64_t>> passed_extents(const KernelData& k, const CallArgs& c) {
    std::vector<std::pair<ExprPtr, std::int64_t>> out;
    const auto add = [&](const Variable& av, const HostArray::Shape& shape) {
        for (std::size_t j = 0; j < av.shape.size() && j < shape.size(); ++j)
            if (av.shape[j]) out.emplace_back(av.shape[j], shape[j]);
    };
    for (const auto& [name, arr] : c.arrays) add(*find_variable(k, name), arr.shape());
    for (const auto& [name, arr] : c.device_arrays) add(*find_variable(k, name), arr.shape);
    for (const auto& [name, list] : c.piece_lists) {
        const Variable& av = *find_variable(k, name);
        if (!list.empty()) add(sep_piece_variable(av, sep_pieces(av)[0]), list[0].shape());
    }
    return out;
}

// The values of `unknowns` that the extents of the arrays passed fix, with isl: each extent that is quasi-affine
// in them (the values already known put in; `n + 2`, `(n + 1) // 2`, `n - m` beside `m`) equals its size, and an
// unknown takes the one value these equations leave it. An extent that is not quasi-affine (`n*m` with both
// unknown) or names anything else unknown is left out, and so is one that contradicts those before it: the
// arrays first in order give the values, and the shape check names the array that disagrees.
std::map<std::string, std::int64_t> solve_from_extents(const std::vector<std::pair<ExprPtr, std::int64_t>>& extents,
                                                      const std::vector<std::string>& unknowns,
                                                      const std::map<std::string, std::int64_t>& known) {
    std::map<std::string, ExprPtr> values;
    for (const auto& [name, value] : known) values[name] = int_lit(value);
    const std::set<std::string> unknown(unknowns.begin(), unknowns.end());
    isl::set solutions = isl_util::add_named_dims(isl::set(isl_util::ctx(), "{ [] }"), unknowns, false);
    for (const auto& [extent, size] : extents) {
        const ExprPtr e = substitute(extent, values);
        const std::vector<std::string> found = referenced_names(e);
        const std::set<std::string> names(found.begin(), found.end());
        if (names.empty() || !std::includes(unknown.begin(), unknown.end(), names.begin(), names.end())) continue;
        const auto s = affine::try_add_constraint(solutions, e, BinOp::Eq, int_lit(size));
        if (s && !s->is_empty()) solutions = *s;
    }
    std::map<std::string, std::int64_t> out;
    for (std::size_t d = 0; d < unknowns.size(); ++d) {
        const auto range = isl_util::independent_range(solutions, static_cast<int>(d));
        if (range && range->first == range->second) out[unknowns[d]] = range->first;
    }
    return out;
}

// The value arguments of `k` that `c` does not give.
std::vector<std::string> unknown_values(const KernelData& k, const CallArgs& c) {
    std::vector<std::string> out;
    for (const Variable& v : k.args)
        if (v.kind == VarKind::ValueArg && !c.ints.count(v.name) && !c.floats.count(v.name) && !c.complexes.count(v.name))
            out.push_back(v.name);
    return out;
}

// Value argument `name` from the first extent affine in it alone, else 0 for an array's offset, else an auto
// stride of the arrays passed; nothing where none of them gives it.
std::optional<std::int64_t> direct_value(const KernelData& k, const CallArgs& c, const std::string& name,
                                         const std::vector<std::pair<ExprPtr, std::int64_t>>& extents) {
    for (const auto& [extent, size] : extents)
        if (const auto value = solve_extent(extent, name, size, c.ints)) return value;
    if (is_offset_of_an_array(k, name)) return 0;
    return auto_stride(k, name, c);
}

// Value arguments not passed are read off the shapes of the arrays that were (n from a of shape (n)), offsets
// default to 0 and auto strides come from the arrays, as often as one found value lets another be found (a
// stride of the arrays passed, then an extent that names it). An extent affine in one unknown is solved by
// arithmetic, at no cost to a call; isl solves what is left (a call whose shapes change every time pays for it).
void find_values_from_shapes(const KernelData& k, CallArgs& c) {
    std::vector<std::string> left = unknown_values(k, c);
    if (left.empty()) return;
    const std::vector<std::pair<ExprPtr, std::int64_t>> extents = passed_extents(k, c);
    while (!left.empty()) {
        for (const std::string& name : left)
            if (const auto value = direct_value(k, c, name, extents)) c.ints[name] = *value;
        if (const std::vector<std::string> rest = unknown_values(k, c); !rest.empty())
            for (const auto& [name, value] : solve_from_extents(extents, rest, c.ints)) c.ints[name] = value;
        const std::vector<std::string> still = unknown_values(k, c);
        if (still.size() == left.size())
            throw Error(error_kind::ArgumentError, cat("value argument '", still.front(), "' of kernel '", k.name,
                                                       "' was not given and cannot be found from the shapes of the arrays passed"));
        left = still;
    }
}

// Every name passed is an argument of `k` of the kind it is passed as (the Lua binding checks this while
// reading, in the order of its table).
void check_names(const KernelData& k, const CallArgs& c) {
    const auto each = [&](const auto& map, bool value) {
        for (const auto& entry : map) {
            const Variable& v = argument_named(k, entry.first);
            user_assert((v.kind == VarKind::ValueArg) == value, error_kind::ArgumentError, "argument '", v.name,
                        value ? "' is an array argument: an array expected" : "' is a value argument: a value expected");
        }
    };
    each(c.arrays, false);
    each(c.device_arrays, false);
    each(c.piece_lists, false);
    each(c.ints, true);
    each(c.floats, true);
    each(c.complexes, true);
}

// --- the build

std::map<std::string, DType> call_dtypes(const KernelData& k, const CallArgs& c) {
    std::map<std::string, DType> out;
    for (const auto& [name, arr] : c.arrays)
        if (find_variable(k, name)->dtype == DType::Unknown) out[name] = arr.dtype();
    for (const auto& [name, arr] : c.device_arrays)
        if (find_variable(k, name)->dtype == DType::Unknown) out[name] = arr.dtype;
    for (const auto& [name, list] : c.piece_lists)
        if (!list.empty() && find_variable(k, name)->dtype == DType::Unknown) out[name] = list[0].dtype();
    for (const auto& [name, t] : c.value_types)
        if (find_variable(k, name)->dtype == DType::Unknown) out[name] = t;
    return out;
}

std::string build_key(const Executor& e, const std::map<std::string, DType>& dtypes) {
    std::string key = cat(static_cast<const void*>(&e), "|", e.target());
    for (const auto& [name, t] : dtypes) key += "|" + name + ":" + dtype_name(t);
    return key;
}

// A build already done, as the future a worker's build would give.
std::shared_future<BuiltProgram> built_now(BuiltProgram b) {
    std::promise<BuiltProgram> done;
    done.set_value(std::move(b));
    return done.get_future().share();
}

void set_launch_grid(const DeviceKernel& dk, const std::map<std::string, std::int64_t>& values, Launch& launch) {
    launch.dims = static_cast<unsigned>(std::max(dk.groups.size(), dk.local.size()));
    for (std::size_t i = 0; i < 3; ++i) {
        const auto g = i < dk.groups.size() ? eval_int(dk.groups[i], values) : std::optional<std::int64_t>(1);
        const auto l = i < dk.local.size() ? eval_int(dk.local[i], values) : std::optional<std::int64_t>(1);
        if (!g || !l) throw Error(error_kind::ArgumentError, cat("cannot evaluate the launch grid of '", dk.name, "'"));
        launch.groups[i] = static_cast<std::size_t>(std::max<std::int64_t>(*g, 0));
        launch.local[i] = static_cast<std::size_t>(*l);
    }
}

// --- the memory of a call

// The memory of one call: a buffer per array argument (passed, or allocated for outputs) and per global
// temporary (allocated, zero-filled).
struct CallMemory {
    std::vector<Buffer> buffers;
    std::map<std::string, std::size_t> buffer_of;
    std::vector<HostArray> keep;  // arrays whose memory the buffers point into
    std::vector<Output> outputs;
    std::vector<ArrayMemory> staged_outputs;  // copied back into the caller's arrays after the run
    std::vector<SepMemory> split_outputs;     // likewise, from their separate arrays

    std::vector<std::shared_ptr<DeviceBuffer>> device_keep;  // the device buffers of `buffers`

    void add(const std::string& name, const HostArray& a, bool read, bool written) {
        buffer_of[name] = buffers.size();
        buffers.push_back({a.data(), span_bytes(a), read, written});
        keep.push_back(a);
    }
    void add_device(const std::string& name, const std::shared_ptr<DeviceBuffer>& b, bool written) {
        buffer_of[name] = buffers.size();
        buffers.push_back({b->host(), b->bytes(), true, written, b.get()});
        device_keep.push_back(b);
    }
};

// A device array passed for `v`, or the output allocated on the device for it when the call's inputs are device
// arrays (device arrays in, device arrays out). Used in place: it must have the declared layout.
void add_device_array(CallMemory& m, const Variable& v, const DeviceArray* passed, const CallArgs& c,
                      const std::shared_ptr<Executor>& exec) {
    user_assert(sep_axes(v).empty(), error_kind::ArgumentError, "argument '", v.name,
                "' has sep axes (separate arrays), which device arrays do not support: pass host arrays for it");
    const bool written = v.is_output.value_or(false);
    if (passed) {
        user_assert(passed->buffer != nullptr, error_kind::ArgumentError, "argument '", v.name,
                    "': the device array has been released");
        user_assert(passed->exec->memory_domain() == exec->memory_domain(), error_kind::ArgumentError, "argument '", v.name,
                    "' is a device array of another executor (", passed->exec->description(), ") that does not share "
                    "memory with the one the call runs on (", exec->description(), ")");
        check_device_memory(v, {passed->dtype, passed->shape, passed->strides(), passed->buffer->host()}, c.ints);
    }
    const DeviceArray d = passed ? *passed
                                 : allocate_device_array(exec, eval_shape(v, c.ints), v.dtype, device_order(v, c.ints));
    if (written) m.outputs.push_back({v.name, {}, {}, d});
    m.add_device(v.name, d.buffer, written);
}

// A sep argument given as its separate arrays: each is checked and passed as an argument of its own.
void add_piece_list(CallMemory& m, const Variable& v, const std::vector<HostArray>& list, const CallArgs& c) {
    const bool written = v.is_output.value_or(false);
    const std::vector<SepPiece> pieces = sep_pieces(v);
    user_assert(list.size() == pieces.size(), error_kind::ArgumentError, "argument '", v.name, "': expected ",
                pieces.size(), " separate arrays, got ", list.size());
    Output out{v.name, {}, sep_extents(v), std::nullopt};
    for (std::size_t n = 0; n < pieces.size(); ++n) {
        const ArrayMemory a = array_memory(sep_piece_variable(v, pieces[n]), &list[n], c.ints);
        if (written && a.staged) m.staged_outputs.push_back(a);
        out.arrays.push_back(a.logical);
        m.add(pieces[n].name, a.buffer, true, written);
    }
    if (written) m.outputs.push_back(std::move(out));
}

// A sep argument given as one array (or allocated): a buffer per separate array, under the names the device
// kernels take.
void add_split_array(CallMemory& m, const Variable& v, const HostArray* passed, const CallArgs& c) {
    const bool written = v.is_output.value_or(false);
    const SepMemory split = sep_memory(v, passed, c.ints);
    const std::vector<SepPiece> pieces = sep_pieces(v);
    for (std::size_t n = 0; n < pieces.size(); ++n) m.add(pieces[n].name, split.pieces[n], true, written);
    if (!written) return;
    m.outputs.push_back({v.name, {split.logical}, {}, std::nullopt});
    m.split_outputs.push_back(split);
}

// Array arguments are declared `restrict` on every target: memory one of them writes must be reached through
// no other argument, or the compiler's reordering makes the result depend on it (reads through several are
// fine). Equal or overlapping buffers are refused before anything runs.
void check_no_written_aliases(const std::vector<Buffer>& buffers, const std::map<std::string, std::size_t>& buffer_of) {
    // Device memory without a host address is told apart by its buffer: the same buffer twice overlaps.
    const auto begin = [](const Buffer& u) {
        return reinterpret_cast<std::uintptr_t>(u.host ? u.host : static_cast<void*>(u.device));
    };
    const auto size = [](const Buffer& u) { return u.host ? u.bytes : std::size_t{1}; };
    for (std::size_t a = 0; a < buffers.size(); ++a)
        for (std::size_t b = a + 1; b < buffers.size(); ++b) {
            const Buffer &x = buffers[a], &y = buffers[b];
            if (!(x.written || y.written) || x.bytes == 0 || y.bytes == 0) continue;
            if (begin(x) >= begin(y) + size(y) || begin(y) >= begin(x) + size(x)) continue;
            // Names only for the message: the passing call builds none.
            std::string name_a, name_b;
            for (const auto& [name, index] : buffer_of) {
                if (index == a) name_a = name;
                if (index == b) name_b = name;
            }
            user_error(error_kind::ArgumentError, "arguments '", name_a, "' and '", name_b, "' share memory and the kernel writes '",
                       x.written ? name_a : name_b, "': array arguments must not overlap (pass a copy, or write the "
                       "kernel in place on one argument, as out[i] = out[i] + 1)");
        }
}

// `exec` runs the call. When any array passed is a device array, the outputs not passed and the global
// temporaries are allocated on its device.
CallMemory call_memory(const KernelData& k, const CallArgs& c, const std::shared_ptr<Executor>& exec) {
    CallMemory m;
    const bool on_device = !c.device_arrays.empty();
    for (const Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) continue;
        const auto found = c.arrays.find(v.name);
        const HostArray* passed = found != c.arrays.end() ? &found->second : nullptr;
        if (const auto list = c.piece_lists.find(v.name); list != c.piece_lists.end()) {
            add_piece_list(m, v, list->second, c);
            continue;
        }
        const auto device = c.device_arrays.find(v.name);
        if (device != c.device_arrays.end() || (on_device && !passed && v.is_output.value_or(false))) {
            add_device_array(m, v, device != c.device_arrays.end() ? &device->second : nullptr, c, exec);
            continue;
        }
        // As loopy, written arrays that are not passed are allocated; a missing read-only input would read zeros.
        if (!passed && !v.is_output.value_or(false) && v.is_input.value_or(true))
            throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' is read by the kernel but was not passed"));
        if (!sep_axes(v).empty()) {
            add_split_array(m, v, passed, c);
            continue;
        }
        const bool written = v.is_output.value_or(false);
        const ArrayMemory a = array_memory(v, passed, c.ints);
        if (written) m.outputs.push_back({v.name, {a.logical}, {}, std::nullopt});
        if (written && a.staged) m.staged_outputs.push_back(a);
        // Every array goes to the device, outputs too: elements the kernel does not write keep their values,
        // as on the C target which works in place.
        m.add(v.name, a.buffer, true, written);
    }
    for (const Variable& t : k.temporaries) {
        if (t.address_space != AddressSpace::Global) continue;
        const HostArray buffer = array_memory(t, nullptr, c.ints).buffer;
        if (on_device) m.add_device(t.name, exec->allocate(buffer.nbytes()), false);
        else m.add(t.name, buffer, true, false);
    }
    check_no_written_aliases(m.buffers, m.buffer_of);
    return m;
}

// Copies what the program wrote into the caller's arrays where they could not be passed in place.
void copy_back_outputs(const CallMemory& mem) {
    for (const ArrayMemory& a : mem.staged_outputs) copy_back(a);
    for (const SepMemory& a : mem.split_outputs) copy_back(a);
}

// --- the launches

// `ints`: the call's integer values and the inames of the host loops around the launch.
Arg kernel_arg(const KernelParam& p, const CallMemory& m, const CallArgs& c, const std::map<std::string, std::int64_t>& ints) {
    Arg arg;
    if (p.is_pointer) {
        arg.kind = Arg::Kind::Buffer;
        arg.buffer = m.buffer_of.at(p.name);
    } else if (is_complex(p.dtype)) {
        arg.kind = Arg::Kind::Complex;
        if (const auto z = c.complexes.find(p.name); z != c.complexes.end()) {
            arg.f = z->second.real();
            arg.im = z->second.imag();
        } else {
            const auto f = c.floats.find(p.name);
            arg.f = f != c.floats.end() ? f->second : static_cast<double>(ints.at(p.name));
        }
    } else if (is_float(p.dtype)) {
        arg.kind = Arg::Kind::Float;
        const auto f = c.floats.find(p.name);
        arg.f = f != c.floats.end() ? f->second : static_cast<double>(ints.at(p.name));
    } else {
        arg.kind = Arg::Kind::Int;
        const auto i = ints.find(p.name);
        if (i == ints.end()) throw Error(error_kind::ArgumentError, cat("argument '", p.name, "' must be an integer"));
        arg.i = i->second;
    }
    return arg;
}

// Integer values must fit the types of their arguments, and the domain's parameters the index type that the
// loops count in: C would truncate them silently.
void check_value_ranges(const KernelData& typed, const CallArgs& c) {
    const std::vector<std::string> params = all_params(typed);
    for (const Variable& v : typed.args) {
        const auto value = c.ints.find(v.name);
        if (v.kind != VarKind::ValueArg || value == c.ints.end()) continue;
        user_assert(!is_integer(v.dtype) || holds(v.dtype, value->second), error_kind::ArgumentError, "value ", value->second,
                    " of argument '", v.name, "' does not fit its type ", dtype_name(v.dtype));
        const DType index = typed.options.index_dtype;
        user_assert(std::find(params.begin(), params.end(), v.name) == params.end() || holds(index, value->second),
                    error_kind::ArgumentError, "value ", value->second, " of parameter '", v.name,
                    "' does not fit the kernel's index type ", dtype_name(index),
                    " (make the kernel with index_dtype = \"int64\")");
    }
}

// A checked kernel's arrays without a shape are checked against the buffers passed for them
// (preprocess/checked_accesses.h): their element counts become the values of its buffer-size arguments.
void pass_buffer_sizes(const KernelData& typed, CallArgs& args) {
    for (const Variable& v : typed.args) {
        if (v.kind != VarKind::ValueArg || !v.name.starts_with(kBufferSizePrefix)) continue;
        const std::string array = v.name.substr(std::string_view(kBufferSizePrefix).size());
        if (const auto host = args.arrays.find(array); host != args.arrays.end()) args.ints[v.name] = host->second.size();
        else if (const auto dev = args.device_arrays.find(array); dev != args.device_arrays.end()) args.ints[v.name] = dev->second.size();
        else args.ints[v.name] = 0;  // not passed: it cannot be allocated either (call_memory says so)
    }
}

// A checked kernel's violation record (preprocess/checked_accesses.h), taken out of the outputs: an IndexError
// where a guarded access ran outside its array.
void take_violations(const std::string& kernel, const std::vector<std::string>& sites, std::vector<Output>& outputs) {
    const auto it = std::find_if(outputs.begin(), outputs.end(), [](const Output& o) { return o.name == kViolationRecord; });
    if (it == outputs.end()) return;
    const Output record = std::move(*it);
    outputs.erase(it);
    if (record.arrays.empty()) return;
    const HostArray& a = record.arrays.front();
    raise_violations(kernel, sites, static_cast<const std::int64_t*>(a.data()), static_cast<std::size_t>(a.size()));
}

// Private temporaries live on a thread's stack where the executor runs work-items in the host's process: more
// than its limits would overflow it (a crash, not an error), so the call is refused before any launch.
void check_private_memory(const KernelData& typed, const CallArgs& c, const std::vector<Launch>& launches,
                          const PrivateMemoryLimits& limits) {
    if (limits.per_work_item == 0 && limits.per_work_group == 0) return;
    const std::optional<std::int64_t> bytes = private_bytes(typed, c.ints);
    if (!bytes || *bytes == 0) return;
    std::vector<std::string> names;
    for (const Variable& v : typed.temporaries)
        if (v.address_space == AddressSpace::Private) names.push_back(v.name);
    const auto per_item = static_cast<std::size_t>(*bytes);
    user_assert(limits.per_work_item == 0 || per_item <= limits.per_work_item, error_kind::LimitError, "kernel '",
                typed.name, "': its private temporaries (", join(names, ", "), ") take ", per_item,
                " bytes per work-item, more than the ", limits.per_work_item, " this executor's threads can hold on their stacks ",
                "(make them local or global temporaries, or smaller)");
    for (const Launch& launch : launches) {
        const std::size_t items = launch.local[0] * launch.local[1] * launch.local[2];
        user_assert(limits.per_work_group == 0 || per_item * items <= limits.per_work_group, error_kind::LimitError,
                    "kernel '", typed.name, "': its private temporaries (", join(names, ", "), ") take ", per_item,
                    " bytes per work-item, ", per_item * items, " for a work-group of ", items, ", more than the ",
                    limits.per_work_group, " a CPU device's thread can hold on its stack (make them local or global ",
                    "temporaries, or smaller, or the work-groups smaller)");
    }
}

// The host program decides the launches: each device kernel once, or once per iteration of its host loops.
std::vector<Launch> launches_of(const CompiledKernel& built, const CallMemory& mem, const CallArgs& c) {
    std::vector<Launch> launches;
    run_host_program(built.code.host, c.ints, [&](std::size_t kernel, const HostValues& values) {
        const DeviceKernel& dk = built.code.kernels.at(kernel);
        Launch launch;
        launch.kernel = kernel;
        for (const KernelParam& p : dk.params) launch.args.push_back(kernel_arg(p, mem, c, values));
        set_launch_grid(dk, values, launch);
        launches.push_back(std::move(launch));
    });
    return launches;
}

}  // namespace

// A call ready to run: the program built for the arguments' types, the memory and the launches of its device
// kernels.
struct PreparedCall {
    std::shared_ptr<CompiledKernel> built;
    CallMemory mem;
    std::vector<Launch> launches;
    CallArgs args;  // as passed, with the values found from shapes
};

namespace {

// --- the plans of repeated calls

using Slot = CallPlan::Slot;
using Source = CallPlan::Source;

// The slot of the argument `v` as `c` holds it, or nothing when the plan cannot take it.
std::optional<Slot> slot_of(const Variable& v, const CallArgs& c) {
    Slot s{Slot::Kind::Absent, v.name, DType::Unknown, {}, {}, 0};
    if (const auto a = c.arrays.find(v.name); a != c.arrays.end())
        s = {Slot::Kind::Host, v.name, a->second.dtype(), a->second.shape(), a->second.strides(), 0};
    else if (const auto d = c.device_arrays.find(v.name); d != c.device_arrays.end())
        s = {Slot::Kind::Device, v.name, d->second.dtype, d->second.shape, d->second.strides(), 0};
    else if (const auto f = c.floats.find(v.name); f != c.floats.end())
        s.kind = Slot::Kind::Float;
    else if (c.value_types.count(v.name) && c.ints.count(v.name))  // passed, not found from shapes
        s = {Slot::Kind::Integer, v.name, DType::Unknown, {}, {}, c.ints.at(v.name)};
    else if (c.value_types.count(v.name) || c.piece_lists.count(v.name))
        return std::nullopt;
    return s;
}

// Where the memory of array argument `v` (buffer `index`) came from in `call`.
std::optional<Source> source_of(const Variable& v, std::size_t index, const PreparedCall& call, const std::vector<Slot>& slots) {
    const Buffer& b = call.mem.buffers[index];
    for (std::size_t k = 0; k < slots.size(); ++k) {
        if (slots[k].name != v.name) continue;
        const Source passed{Source::Kind::Passed, k, {}, DType::Unknown, Order::C, 0};
        if (slots[k].kind == Slot::Kind::Device) return passed;
        // In place, not staged: the buffer is the array's own memory.
        if (slots[k].kind == Slot::Kind::Host)
            return call.args.arrays.at(v.name).data() == b.host ? std::optional(passed) : std::nullopt;
    }
    for (const Output& o : call.mem.outputs) {
        if (o.name != v.name) continue;
        if (o.device) return Source{Source::Kind::DeviceOutput, 0, o.device->shape, o.device->dtype, o.device->order, 0};
        const HostArray& a = o.arrays.at(0);
        if (a.data() != b.host) return std::nullopt;
        return Source{Source::Kind::HostOutput, 0, a.shape(), a.dtype(), a.is_contiguous() ? Order::C : Order::F, 0};
    }
    return std::nullopt;
}

// The plan of a call that just ran, or null when its arguments need the general path.
std::shared_ptr<CallPlan> make_plan(const PreparedCall& call, const Executor* exec) {
    const KernelData& k = *call.built->typed;
    const CallArgs& c = call.args;
    if (!c.piece_lists.empty() || !c.complexes.empty() || !call.mem.staged_outputs.empty() ||
        !call.mem.split_outputs.empty())
        return nullptr;
    auto plan = std::make_shared<CallPlan>();
    plan->exec = exec;
    plan->built = call.built;
    plan->buffers = call.mem.buffers;
    plan->buffer_of = call.mem.buffer_of;
    plan->launches = call.launches;
    plan->sources.resize(plan->buffers.size());
    for (const Variable& v : k.args) {
        const std::optional<Slot> slot = slot_of(v, c);
        if (!slot || v.alignment > 0 || !sep_axes(v).empty()) return nullptr;
        plan->slots.push_back(*slot);
    }
    for (const Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) continue;
        const std::size_t index = call.mem.buffer_of.at(v.name);
        const std::optional<Source> source = source_of(v, index, call, plan->slots);
        if (!source) return nullptr;
        plan->sources[index] = *source;
    }
    for (const Variable& t : k.temporaries) {
        const auto index = call.mem.buffer_of.find(t.name);
        if (index == call.mem.buffer_of.end()) continue;
        const Buffer& b = call.mem.buffers[index->second];
        const auto kind = b.device ? Source::Kind::DeviceTemporary : Source::Kind::HostTemporary;
        plan->sources[index->second] = Source{kind, 0, {}, DType::Unknown, Order::C, b.bytes};
    }
    for (std::size_t l = 0; l < plan->launches.size(); ++l) {
        const DeviceKernel& dk = call.built->code.kernels.at(plan->launches[l].kernel);
        for (std::size_t a = 0; a < dk.params.size(); ++a)
            for (std::size_t k2 = 0; k2 < plan->slots.size(); ++k2)
                if (plan->slots[k2].kind == Slot::Kind::Float && plan->slots[k2].name == dk.params[a].name)
                    plan->floats.push_back({l, a, k2});
    }
    for (const Output& o : call.mem.outputs) plan->outputs.emplace_back(o.name, call.mem.buffer_of.at(o.name));
    return plan;
}

// Whether `arg` fits `slot`; sets the address of `b` to its memory (arrays).
bool matches(const Slot& slot, const PlanArg& arg, const Executor* exec, Buffer* b,
             std::shared_ptr<DeviceBuffer>* device) {
    if (!arg.of_kind) return false;
    switch (slot.kind) {
        case Slot::Kind::Absent: return true;
        case Slot::Kind::Integer: return arg.integer == slot.integer;
        case Slot::Kind::Float: return true;
        case Slot::Kind::Host: {
            const HostArray* a = arg.host;
            if (a->dtype() != slot.dtype || a->shape() != slot.shape || a->strides() != slot.strides) return false;
            if (b) b->host = a->data();
            return true;
        }
        case Slot::Kind::Device: {
            const DeviceArray* d = arg.device;
            if (!d->buffer || d->exec->memory_domain() != exec->memory_domain() || d->dtype != slot.dtype ||
                d->shape != slot.shape || d->strides() != slot.strides)
                return false;
            *device = d->buffer;
            return true;
        }
    }
    return false;
}

constexpr std::size_t kMaxPlans = 8;  // per kernel: the argument signatures a script alternates between

// The memory of one call through a plan: what the sources give, allocated anew where they allocate.
struct PlanMemory {
    std::vector<std::optional<HostArray>> hosts;             // by buffer: allocated host outputs and temporaries
    std::vector<std::optional<DeviceArray>> device_outputs;  // by buffer
    std::vector<std::shared_ptr<DeviceBuffer>> device_temporaries;
};

PlanMemory plan_memory(const CallPlan& plan, std::vector<Buffer>& buffers,
                       const std::vector<std::shared_ptr<DeviceBuffer>>& passed_devices) {
    const std::shared_ptr<Executor>& exec = plan.built->executor;
    PlanMemory m{std::vector<std::optional<HostArray>>(buffers.size()),
                 std::vector<std::optional<DeviceArray>>(buffers.size()), {}};
    const auto use_device = [](Buffer& b, const std::shared_ptr<DeviceBuffer>& d) {
        b.device = d.get();
        b.host = d->host();
    };
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const Source& s = plan.sources[i];
        switch (s.kind) {
            case Source::Kind::Passed:  // host arrays: their address was read while matching
                if (passed_devices[s.slot]) use_device(buffers[i], passed_devices[s.slot]);
                break;
            case Source::Kind::HostOutput:
                m.hosts[i] = HostArray::zeros(s.shape, s.dtype, s.order);
                buffers[i].host = m.hosts[i]->data();
                break;
            case Source::Kind::HostTemporary:
                m.hosts[i] = HostArray::zeros({static_cast<std::int64_t>(s.bytes)}, DType::UInt8);
                buffers[i].host = m.hosts[i]->data();
                break;
            case Source::Kind::DeviceOutput:
                m.device_outputs[i] = allocate_device_array(exec, s.shape, s.dtype, s.order);
                use_device(buffers[i], m.device_outputs[i]->buffer);
                break;
            case Source::Kind::DeviceTemporary:
                m.device_temporaries.push_back(exec->allocate(s.bytes));
                use_device(buffers[i], m.device_temporaries.back());
                break;
        }
    }
    return m;
}

std::vector<Output> run_plan(CallPlan& plan, std::vector<Buffer> buffers, const std::vector<PlanArg>& args,
                             const std::vector<std::shared_ptr<DeviceBuffer>>& devices) {
    const PlanMemory m = plan_memory(plan, buffers, devices);
    check_no_written_aliases(buffers, plan.buffer_of);
    for (const CallPlan::FloatPatch& f : plan.floats) plan.launches[f.launch].args[f.arg].f = args[f.slot].number;
    plan.built->program().run(buffers, plan.launches);
    std::vector<Output> outputs;  // those passed come back as they were passed
    for (const auto& [name, index] : plan.outputs) {
        outputs.push_back({name, {}, {}, m.device_outputs[index]});
        if (m.hosts[index]) outputs.back().arrays.push_back(*m.hosts[index]);
    }
    return outputs;
}

}  // namespace

void CallArgs::set_integer(const std::string& name, std::int64_t value) {
    ints[name] = value;
    value_types[name] = value >= INT32_MIN && value <= INT32_MAX ? DType::Int32 : DType::Int64;
}

void CallArgs::set_float(const std::string& name, double value) {
    floats[name] = value;
    value_types[name] = DType::Float64;
}

void CallArgs::set_complex(const std::string& name, std::complex<double> value) {
    complexes[name] = value;
    value_types[name] = DType::Complex128;
}

const Variable& argument_named(const KernelData& k, const std::string& name) {
    const Variable* v = find_variable(k, name);
    if (!v || !v->is_arg()) throw Error(error_kind::ArgumentError, cat("kernel '", k.name, "' has no argument named '", name, "'"));
    return *v;
}

std::vector<std::int64_t> sep_extents(const Variable& v) {
    std::vector<std::int64_t> out;
    for (const std::size_t axis : sep_axes(v)) out.push_back(v.shape[axis]->ival);
    return out;
}

// Generates the code here (the engine is not thread-safe) and builds it here, or on `workers` when given.
std::shared_ptr<CompiledKernel> Invoker::compile(const std::shared_ptr<Executor>& exec,
                                                 const std::map<std::string, DType>& dtypes, WorkerPool* workers) {
    const std::string key = build_key(*exec, dtypes);
    if (auto it = builds_.find(key); it != builds_.end()) return it->second;
    const TargetKind target = target_from_name(exec->target());
    auto built = std::make_shared<CompiledKernel>(CompiledKernel{preprocess_kernel(kernel_, dtypes), {}, {}, exec});
    // Checked before building, which would fail in the device compiler; generate_code alone prints the code.
    if (!target_of(target).has_variable_length_arrays()) check_constant_temporary_sizes(*built->typed);
    built->code = emit_code(built->typed, target);
    // The options ask for the code on standard output (loopy's write_code).
    if (kernel_->options.write_code) std::cout << built->code.device_code << std::flush;
    if (kernel_->options.write_wrapper) std::cout << built->code.host_code << std::flush;
    std::vector<KernelSpec> specs;
    for (const DeviceKernel& dk : built->code.kernels) {
        KernelSpec s{dk.name, {}};
        for (const KernelParam& p : dk.params) s.params.push_back({p.name, p.dtype, p.is_pointer});
        specs.push_back(std::move(s));
    }
    // Copies for the worker: nothing it reads may change under it.
    std::function<BuiltProgram()> build = [exec, source = built->code.device_code, specs = std::move(specs),
                                           options = kernel_->options.build_options] {
        const double start = wall_seconds();
        std::shared_ptr<Program> program;
        {
            const ForeignMemory compiler;  // the compiler's and the driver's memory is not the engine's
            program = exec->build(source, specs, options);
        }
        return BuiltProgram{std::move(program), wall_seconds() - start};
    };
    built->build = workers ? workers->submit(std::move(build)) : built_now(build());
    builds_[key] = built;
    return built;
}

std::shared_ptr<CompiledKernel> Invoker::build(const std::shared_ptr<Executor>& exec, CallArgs args,
                                               WorkerPool* workers) {
    check_names(*kernel_, args);
    find_values_from_shapes(*kernel_, args);
    return compile(exec, call_dtypes(*kernel_, args), workers);
}

PreparedCall Invoker::prepare(const std::shared_ptr<Executor>& exec, CallArgs args) {
    check_names(*kernel_, args);
    find_values_from_shapes(*kernel_, args);
    PreparedCall call{compile(exec, call_dtypes(*kernel_, args), nullptr), {}, {}, {}};
    pass_buffer_sizes(*call.built->typed, args);
    check_value_ranges(*call.built->typed, args);
    call.mem = call_memory(*call.built->typed, args, exec);
    call.launches = launches_of(*call.built, call.mem, args);
    check_private_memory(*call.built->typed, args, call.launches, exec->private_memory_limits());
    call.args = std::move(args);
    return call;
}

void Invoker::remember(std::shared_ptr<CallPlan> plan) {
    if (plans_.size() == kMaxPlans) plans_.erase(plans_.begin());
    plans_.push_back(std::move(plan));
}

std::vector<Output> Invoker::call(const std::shared_ptr<Executor>& exec, CallArgs args, bool keep_plan) {
    PreparedCall call = prepare(exec, std::move(args));
    call.built->program().run(call.mem.buffers, call.launches);
    copy_back_outputs(call.mem);
    take_violations(call.built->typed->name, call.built->typed->checked_accesses, call.mem.outputs);
    if (keep_plan)
        if (std::shared_ptr<CallPlan> plan = make_plan(call, exec.get())) remember(std::move(plan));
    return std::move(call.mem.outputs);
}

std::optional<std::vector<Output>> Invoker::call_planned(CallPlan& plan, const std::vector<PlanArg>& args) {
    internal_assert(args.size() == plan.slots.size(), "a planned call takes one argument per slot");
    std::vector<Buffer> buffers = plan.buffers;
    std::vector<std::shared_ptr<DeviceBuffer>> devices(plan.slots.size());
    for (std::size_t k = 0; k < plan.slots.size(); ++k) {
        const auto index = plan.buffer_of.find(plan.slots[k].name);
        Buffer* b = index != plan.buffer_of.end() ? &buffers[index->second] : nullptr;
        if (!matches(plan.slots[k], args[k], plan.exec, b, &devices[k])) return std::nullopt;
    }
    std::vector<Output> outputs = run_plan(plan, std::move(buffers), args, devices);
    take_violations(plan.built->typed->name, plan.built->typed->checked_accesses, outputs);
    return outputs;
}

std::optional<std::vector<Output>> Invoker::call_fitting_plan(
    const Executor* exec, std::size_t passed, const std::function<PlanArg(const CallPlan::Slot&, bool& given)>& read) {
    for (const std::shared_ptr<CallPlan>& plan : plans_) {
        if (plan->exec != exec) continue;
        std::vector<PlanArg> values(plan->slots.size());
        std::size_t given = 0;
        bool fits = true;
        for (std::size_t s = 0; s < plan->slots.size() && fits; ++s) {
            bool passed_here = false;
            values[s] = read(plan->slots[s], passed_here);
            given += passed_here;
            fits = values[s].of_kind;
        }
        if (fits && given == passed)
            if (std::optional<std::vector<Output>> outputs = call_planned(*plan, values)) return outputs;
    }
    return std::nullopt;
}

TimedCall Invoker::prepare_timed(const std::shared_ptr<Executor>& exec, CallArgs args, int warmup, int runs) {
    PreparedCall call = prepare(exec, std::move(args));
    // The part that may run on a worker holds no kernel: the engine's (isl's) objects must be released on the
    // kernel's thread. It holds the call's memory, which it may be the last to release.
    auto mem = std::make_shared<CallMemory>(std::move(call.mem));
    return {[mem, build = call.built->build, launches = std::move(call.launches), warmup, runs] {
                return build.get().program->time(mem->buffers, launches, warmup, runs);
            },
            [mem, name = call.built->typed->name, sites = call.built->typed->checked_accesses] {
                copy_back_outputs(*mem);
                take_violations(name, sites, mem->outputs);
            }};
}

}  // namespace loom::backend
