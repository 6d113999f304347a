// Names that enter generated code: the one check every entry point applies to the names it is given, and fresh
// names for what transformations add to a kernel, as loopy's UniqueNameGenerator makes them.
#pragma once

#include <set>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// The check of every name that becomes an identifier of the generated code (an argument, temporary, iname,
/// value argument...): LoopyError from `where` (the entry point, e.g. "add_prefetch") naming `what` ("temporary
/// name", "iname"...) unless `name` is an identifier (letters, digits and '_', not starting with a digit) that C
/// does not reserve (support/c_names.h: keywords, header types and macros, the code's own helpers). So a name
/// can never carry code into the generated source. Code generation applies it again to every name of the kernel,
/// with the target's reserved names (OpenCL C's), since the target may change after the name was given.
void check_name(const std::string& name, const std::string& what, const std::string& where);

/// Names not yet taken by variables, inames, parameters, substitution rules or instruction ids: `base`,
/// then `base_0`, `base_1`...; each name handed out is taken from then on.
class NameGenerator {
public:
    explicit NameGenerator(const KernelData& k);
    std::string operator()(const std::string& base);

    bool is_taken(const std::string& name) const { return taken_.count(name) != 0; }
    void take(const std::string& name) { taken_.insert(name); }

private:
    std::set<std::string> taken_;
};

}  // namespace loom
