#include "codegen/vectorize.h"

#include <algorithm>

#include "analysis/types.h"
#include "ir/layout.h"

namespace loom {

namespace {

struct Unvectorizable {};

class VectorizabilityChecker {
public:
    VectorizabilityChecker(const KernelData& k, const std::string& iname, std::int64_t length, DType element)
        : k_(k), typer_(k), iname_(iname), length_(length), element_(element) {}

    /// Whether `e` is a vector; throws Unvectorizable when it cannot be computed as one.
    bool is_vector(const ExprPtr& e) {
        const bool vector = classify(e);
        if (vector && typer_.type(e).dtype != element_) throw Unvectorizable{};
        return vector;
    }

private:
    bool any_vector(const std::vector<ExprPtr>& args) {
        bool any = false;
        for (const ExprPtr& a : args) any = is_vector(a) || any;
        return any;
    }

    bool classify(const ExprPtr& e) {
        switch (e->kind) {
            case ExprKind::IntLit: case ExprKind::FloatLit: case ExprKind::ImagLit: return false;
            case ExprKind::Var:
                if (e->name == iname_) throw Unvectorizable{};
                return false;
            case ExprKind::Subscript: return subscript(e);
            case ExprKind::Binary: return binary_op(e);
            case ExprKind::Unary: {
                const bool vector = any_vector(e->args);
                if (vector && e->unop != "-") throw Unvectorizable{};
                return vector;
            }
            case ExprKind::If: return any_vector(e->args);
            case ExprKind::Call: case ExprKind::Cast:
                if (any_vector(e->args)) throw Unvectorizable{};
                return false;
            case ExprKind::Reduction: case ExprKind::SubArrayRef: throw Unvectorizable{};
        }
        return false;
    }

    // C's arithmetic and comparison operators act entry-wise on OpenCL vectors; the others are printed
    // through helper functions or have no vector meaning in loopy (logical and/or).
    bool binary_op(const ExprPtr& e) {
        const bool vector = any_vector(e->args);
        switch (e->op) {
            case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div:
            case BinOp::Eq: case BinOp::Ne: case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge:
                return vector;
            case BinOp::And: case BinOp::Or: throw Unvectorizable{};
            default:
                if (vector) throw Unvectorizable{};
                return false;
        }
    }

    bool subscript(const ExprPtr& e) {
        const Variable* v = find_variable(k_, e->name);
        const std::optional<std::size_t> vec = v ? vec_axis(*v) : std::nullopt;
        bool vector = false;
        for (std::size_t j = 0; j < e->args.size(); ++j) {
            const ExprPtr& idx = e->args[j];
            if (vec && j == *vec && idx->kind == ExprKind::Var && idx->name == iname_) {
                if (vector_length(*v) != length_) throw Unvectorizable{};
                vector = true;
                continue;
            }
            const std::vector<std::string> names = referenced_names(idx);
            if (std::find(names.begin(), names.end(), iname_) != names.end()) throw Unvectorizable{};
        }
        return vector;
    }

    const KernelData& k_;
    ExprTyper typer_;
    const std::string& iname_;
    std::int64_t length_;
    DType element_;
};

}  // namespace

bool is_vectorizable(const KernelData& k, const Instruction& insn, const std::string& iname, std::int64_t length) {
    if (insn.kind != InsnKind::Assignment || insn.atomic || insn.assignees.size() != 1) return false;
    for (const ExprPtr& p : insn.predicates) {
        const std::vector<std::string> names = referenced_names(p);
        if (std::find(names.begin(), names.end(), iname) != names.end()) return false;
    }
    const ExprPtr& lhs = insn.assignees[0];
    VectorizabilityChecker check(k, iname, length, expr_type(k, lhs).dtype);
    try {
        if (!check.is_vector(lhs)) return false;
        check.is_vector(insn.expression);  // throws when the right-hand side cannot be computed on vectors
        return true;
    } catch (const Unvectorizable&) {
        return false;
    }
}

}  // namespace loom
