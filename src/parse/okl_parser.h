// The OKL syntax tree and its parser: the C subset OCCA kernels are written in, with attributes in both
// spellings (`@outer(1)` and `[[okl_outer("1")]]`). The parser checks only syntax; OKL's structure rules
// and the lowering into a Kernel live in parse/okl_lower.h. Errors are OKLError with file and line.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "parse/okl_lexer.h"

namespace loom {

struct OklExpr;
using OklExprPtr = std::shared_ptr<const OklExpr>;
struct OklAttr;

/// Where a node was written.
struct OklPos {
    std::shared_ptr<const std::string> file;
    int line = 0;
    const std::string& file_name() const;
};

/// One argument of an attribute: an expression, a nested attribute (`@tile(16, @outer, @inner)`), or a
/// keyword argument (`check=false`: key and expr).
struct OklAttrArg {
    OklExprPtr expr;
    std::shared_ptr<const OklAttr> attr;
    std::string key;
};

/// `@name(args)`; `name` without the `okl_` prefix of the normalized spelling.
struct OklAttr {
    std::string name;
    std::vector<OklAttrArg> args;
    bool has_parens = false;
    OklPos pos;
};

/// A C type: `base` is a numpy dtype name ("float32", "int32", ...), "void", or "struct NAME" (see
/// OklProgram::structs).
struct OklType {
    std::string base;
    int lanes = 1;  // OpenCL's vector types (`float3`: base float32, 3 lanes)
    bool is_const = false;
    int pointers = 0;
    bool is_reference = false;  // `T&`: function parameters only
    std::vector<OklAttr> attrs;  // @dim, @dimOrder, @shared, @exclusive, @restrict (typedefs carry theirs)
};

enum class OklExprKind { Int, Float, Name, Unary, Postfix, Binary, Assign, Ternary, Call, Index, Member, Cast, Sizeof, InitList, Comma };

/// An expression. `op` is the C operator ("+", "+=", "++", "->", ...); Call's callee and Member's object
/// are args[0]; Cast and Sizeof-of-a-type hold `type`.
struct OklExpr {
    OklExprKind kind = OklExprKind::Int;
    std::string op;
    std::string name;  // Name, Member (the field)
    std::vector<OklExprPtr> args;
    std::int64_t ival = 0;
    std::string int_type = "int32";  // Int: int32, uint32, int64, uint64 as C types the literal
    double fval = 0;
    bool float32 = false;  // Float with an `f` suffix
    std::shared_ptr<const OklType> type;
    OklPos pos;
};

struct OklDecl {
    OklType type;
    std::string name;
    std::vector<OklExprPtr> dims;  // `a[4][8]`
    OklExprPtr init;               // expression or InitList
    OklPos pos;
};

enum class OklStmtKind { Expr, Decl, Block, If, For, While, Do, Return, Break, Continue, Empty, Switch, Case };

struct OklStmt;
using OklStmtPtr = std::shared_ptr<const OklStmt>;

/// A statement. If: expr = condition, body = {then[, else]}. For: init, expr = condition (may be null),
/// step (may be null), body = {body}. While/Do: expr, body = {body}. Block: body. Decl: decls. Switch: expr =
/// the selector, body = its Cases in order. Case: expr = the label (null for `default`), body = the statements
/// up to the next label.
struct OklStmt {
    OklStmtKind kind = OklStmtKind::Empty;
    std::vector<OklAttr> attrs;
    OklExprPtr expr;
    OklExprPtr step;
    OklStmtPtr init;
    std::vector<OklDecl> decls;
    std::vector<OklStmtPtr> body;
    OklPos pos;
};

struct OklFunction {
    std::string name;
    OklType return_type;
    std::vector<OklDecl> params;
    OklStmtPtr body;  // null for a prototype
    std::vector<OklAttr> attrs;
    OklPos pos;
};

struct OklProgram {
    std::vector<OklFunction> functions;  // in file order, prototypes included
    std::vector<OklDecl> globals;        // file-scope variables (constants)
    /// Struct types by the name their OklType::base carries ("struct name"), with their fields in order.
    std::map<std::string, std::vector<OklDecl>> structs;
};

/// Parses the preprocessed tokens of one OKL file.
OklProgram okl_parse(const std::vector<OklToken>& tokens);

/// Evaluates the integer constant expression `tokens` (ending with End) as `#if` does.
std::int64_t okl_constant_condition(const std::vector<OklToken>& tokens);

/// Values of names in constant expressions (nullopt: not a constant).
using OklNameValue = std::function<std::optional<std::int64_t>(const std::string&)>;

/// The value of `e` if it is an integer constant expression (C semantics: `/` truncates), names valued by
/// `names` (may be empty); nullopt otherwise. Overflow and division by zero are OKLErrors.
std::optional<std::int64_t> okl_try_constant(const OklExprPtr& e, const OklNameValue& names);

/// Whether `a` names `name` (`@name` or `[[okl_name]]`).
inline bool okl_is(const OklAttr& a, const char* name) { return a.name == name; }

}  // namespace loom
