#include "codegen/functions.h"

#include <memory>

namespace loom {

namespace {

// The kernel a function's expressions are typed and printed in: its parameters and locals as private scalars,
// the other functions to call.
KernelData function_scope(const KernelData& k, const ScalarFunction& f) {
    KernelData scope;
    scope.options = k.options;
    scope.assumptions = k.assumptions;
    scope.functions = k.functions;
    for (const std::vector<FunctionVariable>* vars : {&f.params, &f.locals})
        for (const FunctionVariable& fv : *vars) {
            Variable v;
            v.name = fv.name;
            v.kind = VarKind::Temporary;
            v.dtype = fv.dtype;
            v.is_array = false;
            v.address_space = AddressSpace::Private;
            scope.temporaries.push_back(v);
        }
    return scope;
}

class FunctionWriter {
public:
    FunctionWriter(const KernelData& scope, const Target& target) : printer_(scope, target), target_(target) {}

    std::string signature(const ScalarFunction& f) const {
        std::string params;
        for (const FunctionVariable& p : f.params)
            params += (params.empty() ? "" : ", ") + target_.scalar_type(p.dtype) + " " + p.name;
        return target_.helper_qualifier() + " " + target_.scalar_type(f.result) + " " + f.name + "(" +
               (params.empty() ? "void" : params) + ")";
    }

    std::string definition(const ScalarFunction& f) {
        std::string out = signature(f) + "\n{\n";
        for (const FunctionVariable& l : f.locals) out += "  " + target_.scalar_type(l.dtype) + " " + l.name + ";\n";
        for (const FunctionStatement& s : f.body.body) statement(s, 1, out);
        return out + "}\n";
    }

    const CExprPrinter& printer() const { return printer_; }

private:
    void statement(const FunctionStatement& s, int depth, std::string& out) {
        const std::string pad(2 * static_cast<std::size_t>(depth), ' ');
        switch (s.kind) {
            case FunctionStatement::Kind::Block:
                out += pad + "{\n";
                for (const FunctionStatement& c : s.body) statement(c, depth + 1, out);
                out += pad + "}\n";
                break;
            case FunctionStatement::Kind::Assign: out += pad + assignment(s) + ";\n"; break;
            case FunctionStatement::Kind::If:
                out += pad + "if (" + printer_.print(s.expr) + ")\n";
                statement(s.body[0], depth, out);
                if (!s.body[1].body.empty()) {
                    out += pad + "else\n";
                    statement(s.body[1], depth, out);
                }
                break;
            case FunctionStatement::Kind::While:
                out += pad + "while (" + printer_.print(s.expr) + ")\n";
                statement(s.body[0], depth, out);
                break;
            case FunctionStatement::Kind::DoWhile:
                out += pad + "do\n";
                statement(s.body[0], depth, out);
                out += pad + "while (" + printer_.print(s.expr) + ");\n";
                break;
            case FunctionStatement::Kind::For: {
                std::string step;
                for (const FunctionStatement& a : s.body[1].body) step += (step.empty() ? "" : ", ") + assignment(a);
                out += pad + "for (; " + (s.expr ? printer_.print(s.expr) : "") + "; " + step + ")\n";
                statement(s.body[0], depth, out);
                break;
            }
            case FunctionStatement::Kind::Break: out += pad + "break;\n"; break;
            case FunctionStatement::Kind::Continue: out += pad + "continue;\n"; break;
            case FunctionStatement::Kind::Return: out += pad + "return " + printer_.print(s.expr) + ";\n"; break;
        }
    }

    // `x = value` as an expression (a for loop's step joins several with commas).
    std::string assignment(const FunctionStatement& s) {
        std::string text = printer_.assignment(var(s.target), s.expr);
        if (!text.empty() && text.back() == ';') text.pop_back();
        return text;
    }

    CExprPrinter printer_;
    const Target& target_;
};

}  // namespace

std::string scalar_function_definitions(const KernelData& k, const Target& target, CExprPrinter& helpers) {
    std::string prototypes, definitions;
    for (const auto& f : k.functions) {
        const KernelData scope = function_scope(k, *f);
        FunctionWriter writer(scope, target);
        target.check_identifier(f->name);
        prototypes += writer.signature(*f) + ";\n";
        definitions += "\n" + writer.definition(*f);
        helpers.adopt_helpers(writer.printer());
    }
    return prototypes.empty() ? "" : prototypes + definitions + "\n";
}

}  // namespace loom
