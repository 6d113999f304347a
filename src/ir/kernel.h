// The kernel model: an immutable value. Transformations build a new KernelData and wrap it; copies of a
// Kernel share their data, which is what makes scripting thousands of variants cheap.
#pragma once

#include <isl/cpp.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "expr/dtype.h"
#include "expr/expr.h"
#include "ir/function.h"
#include "ir/iname_tags.h"
#include "ir/instruction.h"

namespace loom {

enum class VarKind { GlobalArg, ConstantArg, ValueArg, Temporary };
enum class AddressSpace { Auto, Private, Local, Global };

std::string address_space_name(AddressSpace s);  // "private", "local", "global", "auto"

/// How one array axis is laid out in memory, as declared (loopy's data axis tags). Read left to right, `c`
/// nests the axis inside those before it (it moves faster) and `f` outside them; `N0`..`N9` give the nesting
/// level explicitly (N0 moves fastest); `stride:EXPR` fixes the stride (`N1:stride:EXPR` also the level);
/// `sep` makes separate arrays and `vec` vector entries.
struct DimTag {
    enum class Kind { C, F, Nested, Stride, Sep, Vec };
    Kind kind = Kind::C;
    int level = -1;         // Nested, and Stride when written with a level; -1: none
    ExprPtr stride;         // Stride
    bool optional = false;  // written with '?': dropped, leftmost first, while there are more tags than axes
};

/// An argument or temporary. Arrays have a shape; scalars (ValueArg, scalar temporaries) have none.
struct Variable {
    std::string name;
    VarKind kind = VarKind::GlobalArg;
    DType dtype = DType::Unknown;
    bool is_array = true;
    bool shape_auto = false;         // lp.auto: found from the access footprint when the kernel is made
    bool no_shape = false;           // lp.none (loopy's shape=None): a pointer of unknown extent and an empty
                                     // shape; with fixed strides one axis per stride, else (no strides either)
                                     // indexed by one index into its storage
    std::vector<ExprPtr> shape;      // one extent per axis; empty with is_array for a 0-d array
    std::vector<DimTag> dim_tags;    // as declared (the `strides` option gives fixed ones); empty: from order
    std::vector<ExprPtr> strides;    // in elements, per axis; computed from shape and dim tags when not given
    std::vector<int> stride_levels;  // per axis: the nesting level a computed stride comes from, -1 if fixed
    char order = 'C';
    ExprPtr offset;                  // in elements, added to every flat index; null: zero
    bool offset_auto = false;        // lp.auto: make_kernel adds the value argument `<name>_offset` after it
    std::optional<bool> is_input;    // unset: inferred from the instructions
    std::optional<bool> is_output;
    AddressSpace address_space = AddressSpace::Auto;
    bool read_only = false;
    std::vector<double> initializer; // row-major values for read-only temporaries
    bool for_atomic = false;
    int alignment = 0;               // in bytes; 0: none. Temporaries are declared aligned, arguments checked

    bool is_arg() const { return kind != VarKind::Temporary; }
    /// Whether its one index counts elements of its storage: an array without a shape or strides (lp.none).
    bool storage_indexed() const { return no_shape && strides.empty(); }
};

/// loopy's `enforce_variable_access_ordered`: true (Enforce), false (Warn) or "no_check" (NoCheck).
enum class AccessOrdering { Enforce, Warn, NoCheck };

/// The tag of an instruction a checked kernel guards (preprocess/checked_accesses.h), "loom_bound_guards=N": its
/// last N predicates are the guards of its writes, which analyses that must see every instance the kernel means
/// (the dependence check) leave out.
inline constexpr char kBoundGuardsTag[] = "loom_bound_guards=";

struct KernelOptions {
    bool write_code = false;
    bool write_wrapper = false;  // print the host code (the launches) when the kernel is built for a call
    bool return_dict = false;
    bool allow_terminal_colors = false;
    bool check_dep_resolution = true;
    bool insert_gbarriers = false;  // global barriers where cross-group dependencies need them
    bool checked = false;  // accesses isl cannot prove inside their arrays are checked when they run (a sandbox's always)
    AccessOrdering access_ordering = AccessOrdering::Enforce;  // analysis/access_order.h
    std::vector<std::string> build_options;
    std::string target = "opencl";  // "opencl", "c", "cuda"
    DType index_dtype = DType::Int32;
};

/// One step of a linearization (loopy's "schedule items").
struct LinearItem {
    enum class Kind { EnterLoop, LeaveLoop, RunInstruction, Barrier, CallKernel, ReturnFromKernel } kind;
    std::string name;     // iname, instruction id, or device kernel name
    std::string comment;  // Barrier: why it is there
    std::string sync_kind;  // Barrier: "local"/"global"
};

struct DerivedFacts;  // ir/derived.h

/// Facts derived from a kernel's data (the domain forest, iteration domains of iname sets), computed
/// on first use and kept, as loopy memoizes on its kernel objects (STYLE 14). Only data that a Kernel holds
/// caches, because only that data never changes: a KernelData copied or moved (a transformation's edit)
/// starts without a cache, so nothing derived from the original survives into the edit.
class DerivedCache {
public:
    DerivedCache() = default;
    DerivedCache(const DerivedCache&) noexcept {}
    DerivedCache(DerivedCache&&) noexcept {}
    DerivedCache& operator=(const DerivedCache&) noexcept {
        facts_.reset();
        return *this;
    }
    DerivedCache& operator=(DerivedCache&&) noexcept {
        facts_.reset();
        return *this;
    }
    /// The facts cached so far; null for data that may still change.
    DerivedFacts* facts() const { return facts_.get(); }

private:
    friend class Kernel;
    void enable() const;
    mutable std::shared_ptr<DerivedFacts> facts_;
};

struct KernelData {
    std::string name = "loopy_kernel";
    std::vector<isl::set> domains;   // each with its parameters; nested domains follow their parents
    isl::set assumptions;            // a parameter set
    std::vector<Variable> args;      // in argument order
    std::vector<Variable> temporaries;
    std::vector<Instruction> instructions;
    std::vector<SubstitutionRule> substitutions;
    std::map<std::string, InameTag> iname_tags;  // iname -> tag; an untagged iname has no entry
    /// split_iname's `slabs`: leading and trailing iterations of the iname that get separate code.
    std::map<std::string, std::pair<int, int>> iname_slabs;
    std::vector<std::vector<std::string>> loop_priority;
    /// What each split or chunk put in place of its iname (loopy's applied_iname_rewrites), in order: footprint
    /// subscripts written in terms of the original inames are rewritten with them.
    std::vector<std::map<std::string, ExprPtr>> applied_iname_rewrites;
    /// The loops the kernel meant before a transformation changed its inames or priorities: its inames then, in
    /// their nesting order (nesting_order), each as an expression of today's inames (a split's `i` is
    /// `i_inner + 4*i_outer`), and the instructions it had then, whose loops they are (those made later, such
    /// as a realized reduction's accumulator updates, have orders of their own). Empty until the first such
    /// transformation. The dependence check compares today's loop order against it (dependence_legality.h).
    struct MeantLoops {
        std::vector<std::pair<std::string, ExprPtr>> loops;
        std::set<std::string> instructions;
    } meant;
    /// A checked kernel's accesses guarded when they run (an instruction whose writes are guarded is tagged
    /// kBoundGuardsTag) (preprocess/checked_accesses.h), in the order of their
    /// slots in the kernel's violation record: what each reports, e.g. "instruction 'g' reads b[idx[i]] (array
    /// 'b' of shape (n))".
    std::vector<std::string> checked_accesses;
    std::vector<std::string> silenced_warnings;
    KernelOptions options;
    std::vector<LinearItem> linearization;  // empty until linearized
    bool linearized = false;
    /// False for a kernel made by make_function: one meant to be called by other kernels (loopy's
    /// is_entrypoint). Its arguments' directions (is_input/is_output) say which are the call's results.
    bool is_entrypoint = true;
    /// The kernels its calls name (loopy's callables table of the translation unit): lp.merge and
    /// register_callable add them, preprocessing inlines every call (transform/callable.cpp).
    std::map<std::string, std::shared_ptr<const KernelData>> callables;
    /// Scalar functions its expressions call (ir/function.h), each written out as a function of the program.
    ScalarFunctions functions;
    DerivedCache cache;
};

class Kernel {
public:
    /// Holds `data`, which from now on never changes: its facts are cached. The one way to turn a
    /// transformation's edit into a kernel (unlinearized_kernel also forgets the linearization).
    explicit Kernel(KernelData data) : Kernel(std::make_shared<const KernelData>(std::move(data))) {}
    /// Holds `data` (null for an empty handle), as the constructor above.
    explicit Kernel(std::shared_ptr<const KernelData> data) : data_(std::move(data)) {
        if (data_) data_->cache.enable();
    }
    const KernelData& operator*() const { return *data_; }
    const KernelData* operator->() const { return data_.get(); }
    /// A mutable copy for a transformation to edit before wrapping it as a new Kernel.
    KernelData copy() const { return *data_; }
    /// The shared data itself: what holds this kernel without copying it (another kernel's callables).
    const std::shared_ptr<const KernelData>& shared() const { return data_; }

    const Variable* find_variable(const std::string& name) const;
    const Instruction* find_instruction(const std::string& id) const;
    /// All inames of all domains, in order of first appearance.
    std::vector<std::string> all_inames() const;
    /// Parameters of the domains and assumptions that are not inames.
    std::vector<std::string> all_params() const;
    /// The tag of `iname`; InameTag{} (Kind::None) when it has none.
    InameTag iname_tag(const std::string& iname) const;

private:
    std::shared_ptr<const KernelData> data_;
};

/// Lookups on kernel data (also what Kernel's methods use), for code that edits a KernelData.
const Variable* find_variable(const KernelData& k, const std::string& name);
bool is_temporary(const KernelData& k, const std::string& name);
Variable* find_variable(KernelData& k, const std::string& name);
const Instruction* find_instruction(const KernelData& k, const std::string& id);
/// Whether `sink`'s nosync entries (no_sync_with) waive synchronizing it with `source` in `scope`: an entry of
/// that scope or of any scope whose pattern matches `source`'s id.
bool nosync(const Instruction& sink, const Instruction& source, SyncScope scope);
std::vector<std::string> all_inames(const KernelData& k);
/// About the bytes a kernel's data takes (its instructions' expressions, variables, domains and what is derived
/// from them), for the memory a state's kernel objects are charged.
std::size_t approximate_bytes(const KernelData& k);
/// `inames` in the order their loops nest where the dependencies leave a choice: an iname that a loop priority
/// names before another goes outside it, the rest keep the kernel's iname order (all_inames). The linearizer
/// nests ILP loops so, and privatized temporaries take their axes so, which keeps the innermost loop on the
/// contiguous axis.
std::vector<std::string> nesting_order(const KernelData& k, const std::vector<std::string>& inames);
InameTag iname_tag(const KernelData& k, const std::string& iname);
/// Replaces each expression of `insn` (assignees, right-hand side, predicates) by f of it.
void rewrite_instruction(Instruction& insn, const std::function<ExprPtr(const ExprPtr&)>& f);
/// Every instruction `id` depends on, directly or through others (loopy's recursive_insn_dep_map).
std::set<std::string> all_dependencies(const KernelData& k, const std::string& id);
std::vector<std::string> all_params(const KernelData& k);
bool is_iname(const KernelData& k, const std::string& name);

/// LoopyError unless the kernel's index type holds `v`, which `where` (a transformation, code generation)
/// would compute with as `what`: a value past it would be truncated in the generated code.
void check_index_value(const KernelData& k, std::int64_t v, const std::string& where, const std::string& what);
/// A coefficient of a variable in the constraints of `s` that the index type cannot hold is a LoopyError naming
/// `what`: loops computed from `s` would overflow, and isl's AST generator spends seconds of big-integer arithmetic
/// on them first (docs/reliability.md, finding 41). Constants past it are loop bounds, checked where printed.
void check_index_coefficients(const KernelData& k, const isl::set& s, const std::string& what);

/// The kernel of `k`, a transformation's edit: whatever linearization `k` had no longer holds, so it is dropped.
Kernel unlinearized_kernel(KernelData&& k);

}  // namespace loom
