#include "ir/function.h"

#include "support/error.h"

namespace loom {

const ScalarFunction* find_function(const ScalarFunctions& functions, const std::string& name) {
    for (const auto& f : functions)
        if (f->name == name) return f.get();
    return nullptr;
}

void add_functions(ScalarFunctions& functions, const ScalarFunctions& more) {
    for (const auto& f : more) {
        const ScalarFunction* known = find_function(functions, f->name);
        user_assert(known == nullptr || known == f.get(), error_kind::LoopyError, "two different functions are named '",
                    f->name, "'");
        if (!known) functions.push_back(f);
    }
}

}  // namespace loom
