#include "ir/names.h"

#include "support/c_names.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

void check_name(const std::string& name, const std::string& what, const std::string& where) {
    user_assert(is_identifier(name), error_kind::LoopyError, where, ": ", what, " '", name,
                "' is not a valid name (letters, digits and '_', not starting with a digit)");
    user_assert(!is_c_reserved(name), error_kind::LoopyError, where, ": ", what, " '", name,
                "' is reserved in C (a keyword, type or macro, or a name of the generated code): rename it");
}

NameGenerator::NameGenerator(const KernelData& k) {
    for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars) taken_.insert(v.name);
    for (const std::string& n : all_inames(k)) taken_.insert(n);
    for (const std::string& n : all_params(k)) taken_.insert(n);
    for (const SubstitutionRule& r : k.substitutions) taken_.insert(r.name);
    for (const Instruction& insn : k.instructions) taken_.insert(insn.id);
}

std::string NameGenerator::operator()(const std::string& base) {
    std::string name = base;
    for (int n = 0; taken_.count(name); ++n) name = cat(base, "_", n);
    taken_.insert(name);
    return name;
}

}  // namespace loom
