// The iteration space of a kernel: its domain forest (loopy's model), and the set of iname values an
// instruction runs for.
//
// Domains form a forest: a domain whose parameters are inames of an earlier domain, or integer temporaries
// written inside that domain's loops (data-dependent bounds), is nested in it. The iteration domain of a
// set of inames intersects the domains declaring them and all their ancestors, identifying each parameter
// that names an iname with that iname, and projects onto the inames. Temporaries stay parameters: the code
// reads them where the loop starts. The domains an iname set needs must form chains: a branch (two nested
// domains under one parent both needed) would let one child constrain the other through their parent.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// The parent of each domain of `k` (an index into k.domains), -1 for a root. Checks the loop bounds first.
std::vector<int> domain_parents(const KernelData& k);

/// Checks that every temporary used as a loop bound is written by exactly one instruction (LoopyError).
void check_loop_bounds(const KernelData& k);

/// The index of the domain declaring `iname` as a set dimension, or -1.
int home_domain(const KernelData& k, const std::string& iname);

/// Empties the cache of domain products that kernels with the same domains share (the 64 used last are kept):
/// the isl objects that outlive a kernel are then those of other kernels alone (the fuzz targets' leak check).
void drop_shared_domain_products();

/// The iteration domain of `inames` (in that order); other inames are quantified existentially. LoopyError
/// when the inames need a branch of the domain forest.
isl::set domain_of(const KernelData& k, const std::vector<std::string>& inames);

/// The instances of `insn` that run: the domain of its inames (in within_inames order) where those of its
/// predicates hold that isl can follow, comparisons (and their negations) of its inames and of value arguments
/// that no instruction writes. A predicate on data leaves every instance: any may run.
isl::set running_instances(const KernelData& k, const Instruction& insn);

/// running_instances where isl follows every predicate of `insn` (the instances are exactly those that run);
/// nullopt where some predicate reads data or is not a comparison isl can state.
std::optional<isl::set> certain_instances(const KernelData& k, const Instruction& insn);

/// The constraints that relate `iname` to other inames where the domain of `inames` (which has it) is
/// formed: over the group of inames that constraints tie to it (isl_util::independent_factors), all of
/// them, not only `inames`. What holds for `iname` whatever the others of the group are holds in the domain
/// of `inames`.
isl::set iname_factor(const KernelData& k, const std::vector<std::string>& inames, const std::string& iname);

/// The most values `iname` takes under the assumptions (the length of its loop); nullopt where that has no
/// constant bound.
std::optional<long> constant_length(const KernelData& k, const std::string& iname);

/// One past the largest value of `iname` over all parameter values: what a work-group axis over it needs;
/// nullopt where unbounded.
std::optional<long> extent_bound(const KernelData& k, const std::string& iname);

/// extent_bound, or StaticValueFindingError when unbounded.
long static_extent(const KernelData& k, const std::string& iname);

/// A new domain `0 <= iname < extent` (extent quasi-affine in the parameters): a loop that a transformation
/// adds.
isl::set slab_domain(const std::string& iname, const ExprPtr& extent);

/// The assumptions as a parameter set aligned with the kernel's parameters (inames excluded).
isl::set assumption_context(const KernelData& k);

/// One past the largest value of hardware iname `iname` under the assumptions, a function of the parameters; a
/// StaticValueFindingError where isl takes too long to find it.
isl::pw_aff hardware_extent(const KernelData& k, const std::string& iname);

/// The smallest value of hardware iname `iname` (whose domain bounds it below) as one expression of the
/// parameters, nullopt where it has several pieces. Where isl takes too long to find it, the least value over
/// all parameter values, a lower bound; a StaticValueFindingError where that too takes too long.
std::optional<ExprPtr> hardware_start(const KernelData& k, const std::string& iname);

/// The number of work-groups along the group axis that `inames` (not empty) are tagged with: the largest of
/// their extents under the assumptions, a function of the parameters (hardware inames start at 0).
isl::pw_aff group_count(const KernelData& k, const std::vector<std::string>& inames);

}  // namespace loom
