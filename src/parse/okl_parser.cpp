#include "parse/okl_parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

namespace loom {

const std::string& OklPos::file_name() const {
    static const std::string unknown = "<okl>";
    return file ? *file : unknown;
}

namespace {

// Nesting deeper than this (statements or expressions) is an error, not a stack overflow.
constexpr int kMaxNesting = 256;

const std::map<std::string, std::string>& named_types() {
    static const std::map<std::string, std::string> t{
        {"size_t", "uint64"},  {"ptrdiff_t", "int64"}, {"int8_t", "int8"},   {"int16_t", "int16"},
        {"int32_t", "int32"},  {"int64_t", "int64"},   {"uint8_t", "uint8"}, {"uint16_t", "uint16"},
        {"uint32_t", "uint32"}, {"uint64_t", "uint64"}, {"float", "float32"}, {"double", "float64"},
        {"bool", "bool"},      {"void", "void"}};
    return t;
}

// OpenCL's vector types, `float3` or `uint4`: their element type and lane count.
std::optional<std::pair<std::string, int>> vector_type(const std::string& w) {
    static const std::map<std::string, std::string> elements{
        {"char", "int8"},   {"uchar", "uint8"}, {"short", "int16"}, {"ushort", "uint16"}, {"int", "int32"},
        {"uint", "uint32"}, {"long", "int64"},  {"ulong", "uint64"}, {"float", "float32"}, {"double", "float64"}};
    const std::size_t digits = w.find_first_of("0123456789");
    if (digits == std::string::npos || digits == 0) return std::nullopt;
    const auto element = elements.find(w.substr(0, digits));
    const std::string lanes = w.substr(digits);
    if (element == elements.end() || (lanes != "2" && lanes != "3" && lanes != "4" && lanes != "8" && lanes != "16"))
        return std::nullopt;
    return std::make_pair(element->second, std::stoi(lanes));
}

bool is_specifier_word(const std::string& s) {
    static const std::set<std::string> words{"const",  "volatile", "static", "inline", "extern", "unsigned",
                                             "signed", "short",    "long",   "int",    "char",   "restrict",
                                             "__restrict__", "__restrict", "struct", "constexpr"};
    return words.count(s) || named_types().count(s) || vector_type(s);
}

class Parser {
public:
    explicit Parser(const std::vector<OklToken>& toks) : t_(toks) {}

    OklProgram program() {
        OklProgram p;
        while (peek().kind != OklTok::End) top_level(p);
        p.structs = std::move(structs_);
        return p;
    }

    OklExprPtr whole_expression() {
        OklExprPtr e = expression();
        if (peek().kind != OklTok::End) fail(peek(), "unexpected '", peek().text, "' in expression");
        return e;
    }

private:
    struct Guard {
        explicit Guard(Parser& p) : p_(p) {
            if (++p_.depth_ > kMaxNesting) fail(p_.peek(), "nesting deeper than ", kMaxNesting, " levels");
        }
        ~Guard() { --p_.depth_; }
        Parser& p_;
    };

    template <class... Parts>
    [[noreturn]] static void fail(const OklToken& at, const Parts&... parts) {
        okl_error(at, parts...);
    }

    const OklToken& peek(std::size_t ahead = 0) const {
        const std::size_t k = std::min(i_ + ahead, t_.size() - 1);
        return t_[k];
    }
    const OklToken& take() {
        const OklToken& t = t_[i_];
        if (i_ + 1 < t_.size()) ++i_;
        return t;
    }
    bool accept(const char* s) {
        if (!peek().is(s)) return false;
        take();
        return true;
    }
    const OklToken& expect(const char* s) {
        if (!peek().is(s)) fail(peek(), "expected '", s, "' but found '", peek().kind == OklTok::End ? "end of file" : peek().text, "'");
        return take();
    }
    std::string expect_ident(const char* what) {
        if (peek().kind != OklTok::Ident) fail(peek(), "expected ", what, " but found '", peek().text, "'");
        return take().text;
    }
    static OklPos pos(const OklToken& t) { return OklPos{t.file, t.line}; }

    // --- attributes

    bool at_attribute() const { return peek().is("@") || (peek().is("[") && peek(1).is("[")); }

    std::vector<OklAttr> attributes() {
        std::vector<OklAttr> out;
        while (at_attribute()) out.push_back(attribute());
        return out;
    }

    OklAttr attribute() {
        Guard g(*this);
        if (accept("@")) {
            OklAttr a;
            a.pos = pos(peek());
            a.name = expect_ident("an attribute name after '@'");
            if (peek().is("(")) {
                take();
                a.has_parens = true;
                attribute_args(a);
                expect(")");
            }
            return a;
        }
        return normalized_attribute();
    }

    // `[[okl_name("args")]]`: the string holds the arguments as they would be written after `@name(`.
    OklAttr normalized_attribute() {
        expect("[");
        expect("[");
        OklAttr a;
        a.pos = pos(peek());
        std::string name = expect_ident("an attribute name after '[['");
        if (name.rfind("okl_", 0) != 0) fail(peek(), "unknown attribute '", name, "' (OKL attributes are written [[okl_name(\"...\")]])");
        a.name = name.substr(4);
        if (accept("(")) {
            a.has_parens = true;
            if (peek().kind != OklTok::String) fail(peek(), "the arguments of [[okl_", a.name, "]] are one string");
            const OklToken& s = take();
            std::vector<OklToken> inner = okl_lex(s.text.substr(1, s.text.size() - 2), s.file);
            for (OklToken& t : inner) t.line = s.line;
            if (inner.size() > 1) {
                Parser sub(inner);
                sub.depth_ = depth_;
                sub.attribute_args(a);
                if (sub.peek().kind != OklTok::End) fail(sub.peek(), "unexpected '", sub.peek().text, "' in [[okl_", a.name, "]]");
            }
            expect(")");
        }
        expect("]");
        expect("]");
        return a;
    }

    void attribute_args(OklAttr& a) {
        if (peek().is(")") || peek().kind == OklTok::End) return;
        do {
            OklAttrArg arg;
            if (at_attribute()) {
                arg.attr = std::make_shared<OklAttr>(attribute());
            } else if (peek().kind == OklTok::Ident && peek(1).is("=") && !peek(2).is("=")) {
                arg.key = take().text;
                take();
                arg.expr = assignment();
            } else {
                arg.expr = assignment();
            }
            a.args.push_back(std::move(arg));
        } while (accept(","));
    }

    // --- types

    bool at_type() const {
        const OklToken& t = peek();
        return t.kind == OklTok::Ident && (is_specifier_word(t.text) || typedefs_.count(t.text));
    }

    // Declaration specifiers: the base type, const, storage words and attributes anywhere among them.
    OklType specifiers(std::vector<OklAttr>& attrs, bool* is_static = nullptr) {
        Guard g(*this);
        OklType ty;
        const OklToken& start = peek();
        int longs = 0;
        bool is_unsigned = false, is_signed = false, saw_int = false, saw_char = false, saw_short = false;
        std::string named;
        while (true) {
            if (at_attribute()) {
                attrs.push_back(attribute());
                continue;
            }
            const OklToken& t = peek();
            if (t.kind != OklTok::Ident) break;
            const std::string& w = t.text;
            if (w == "const" || w == "constexpr") ty.is_const = true;
            else if (w == "static" || w == "inline" || w == "extern") { if (is_static) *is_static = true; }
            else if (w == "volatile") {}
            else if (w == "restrict" || w == "__restrict__" || w == "__restrict") attrs.push_back(OklAttr{"restrict", {}, false, pos(t)});
            else if (w == "unsigned") is_unsigned = true;
            else if (w == "signed") is_signed = true;
            else if (w == "long") ++longs;
            else if (w == "short") saw_short = true;
            else if (w == "int") saw_int = true;
            else if (w == "char") saw_char = true;
            else if (w == "struct" && named.empty()) {
                ty.base = struct_type();
                return ty;
            }
            else if (named.empty() && !saw_int && !saw_char && !longs && !saw_short && !is_unsigned && !is_signed &&
                     (named_types().count(w) || typedefs_.count(w) || vector_type(w))) named = w;
            else break;
            take();
        }
        (void)saw_int;
        if (!named.empty()) {
            auto td = typedefs_.find(named);
            if (td != typedefs_.end()) {
                OklType base = td->second;
                base.is_const |= ty.is_const;
                return base;
            }
            if (const auto vec = vector_type(named)) {
                ty.base = vec->first;
                ty.lanes = vec->second;
                return ty;
            }
            ty.base = named_types().at(named);
            return ty;
        }
        if (!saw_int && !saw_char && !longs && !saw_short && !is_unsigned && !is_signed) {
            if (peek().kind == OklTok::Ident && (ty.is_const || !attrs.empty())) fail(peek(), "unknown type '", peek().text, "'");
            fail(start, "expected a type but found '", start.text, "'");
        }
        const std::string bits = saw_char ? "8" : saw_short ? "16" : longs ? "64" : "32";
        ty.base = std::string(is_unsigned ? "uint" : "int") + bits;
        return ty;
    }

    // `struct NAME`, `struct [NAME] { fields }`: the type's name ("struct NAME"; anonymous ones are numbered).
    std::string struct_type() {
        const OklToken& kw = take();
        const std::string tag = peek().kind == OklTok::Ident ? take().text : "";
        const std::string name = "struct " + (tag.empty() ? cat("<anonymous ", structs_.size() + 1, ">") : tag);
        if (!accept("{")) {
            if (!structs_.count(name)) fail(kw, "unknown type '", name, "'");
            return name;
        }
        if (structs_.count(name)) fail(kw, "'", name, "' is defined twice");
        std::vector<OklDecl> fields;
        while (!accept("}")) {
            if (peek().kind == OklTok::End) fail(kw, "missing '}' for ", name);
            std::vector<OklAttr> attrs;
            OklType ty = specifiers(attrs);
            do fields.push_back(declarator(ty, attrs));
            while (accept(","));
            expect(";");
        }
        structs_[name] = std::move(fields);
        if (!tag.empty()) typedefs_[tag].base = name;  // C++: the tag names the type
        return name;
    }

    // `*`s (with const/restrict/attributes after each) and the declarator name with its array sizes.
    OklDecl declarator(OklType ty, std::vector<OklAttr> attrs, bool name_optional = false, bool parameter = false) {
        OklDecl d;
        while (true) {
            if (accept("*")) {
                ++ty.pointers;
            } else if (peek().is("const") || peek().is("volatile")) {
                take();
            } else if (peek().is("restrict") || peek().is("__restrict__") || peek().is("__restrict")) {
                attrs.push_back(OklAttr{"restrict", {}, false, pos(take())});
            } else if (peek().is("&")) {
                if (!parameter) fail(peek(), "C++ references are supported only as function parameters");
                if (ty.is_reference) fail(peek(), "a reference to a reference");
                take();
                ty.is_reference = true;
            } else if (at_attribute()) {
                attrs.push_back(attribute());
            } else {
                break;
            }
        }
        d.pos = pos(peek());
        if (peek().kind == OklTok::Ident && !at_type())
            d.name = take().text;
        else if (!name_optional)
            fail(peek(), "expected a name but found '", peek().text, "'");
        while (accept("[")) {
            d.dims.push_back(peek().is("]") ? nullptr : expression());  // `[]`: sized by the initializer
            expect("]");
        }
        while (at_attribute()) attrs.push_back(attribute());
        ty.attrs.insert(ty.attrs.end(), attrs.begin(), attrs.end());
        d.type = std::move(ty);
        return d;
    }

    // --- top level

    void top_level(OklProgram& p) {
        if (accept(";")) return;
        const OklToken& start = peek();
        std::vector<OklAttr> attrs = attributes();
        if (accept("typedef")) return typedef_decl(attrs);
        if (peek().is("class") || peek().is("namespace") || peek().is("template"))
            fail(peek(), "'", peek().text, "' is not supported by Loom's OKL front end");
        OklType ty = specifiers(attrs);
        if (ty.base.rfind("struct ", 0) == 0 && accept(";")) return;  // a struct definition alone
        OklDecl first = declarator(ty, attrs);
        if (peek().is("(")) return function(p, first, start);
        first.init = accept("=") ? initializer() : nullptr;
        p.globals.push_back(first);
        while (accept(",")) {
            std::vector<OklAttr> none;
            OklDecl d = declarator(ty, none);
            d.init = accept("=") ? initializer() : nullptr;
            p.globals.push_back(std::move(d));
        }
        expect(";");
    }

    void typedef_decl(std::vector<OklAttr> attrs) {
        OklType ty = specifiers(attrs);
        do {
            OklDecl d = declarator(ty, {});
            if (!d.dims.empty()) fail(peek(), "array typedefs are not supported");
            d.type.attrs.insert(d.type.attrs.begin(), attrs.begin(), attrs.end());
            typedefs_[d.name] = d.type;
        } while (accept(","));
        expect(";");
    }

    void function(OklProgram& p, OklDecl& head, const OklToken& start) {
        OklFunction f;
        f.name = head.name;
        f.pos = head.pos;
        f.return_type = head.type;
        // Attributes written before the return type (`@kernel void f`) belong to the function.
        for (const OklAttr& a : head.type.attrs)
            (okl_is(a, "kernel") ? f.attrs : f.return_type.attrs).push_back(a);
        f.return_type.attrs.erase(std::remove_if(f.return_type.attrs.begin(), f.return_type.attrs.end(),
                                                 [](const OklAttr& a) { return okl_is(a, "kernel"); }),
                                  f.return_type.attrs.end());
        expect("(");
        if (!(peek().is("void") && peek(1).is(")")) && !peek().is(")")) {
            do {
                std::vector<OklAttr> attrs = attributes();
                OklType ty = specifiers(attrs);
                f.params.push_back(declarator(ty, attrs, true, true));
            } while (accept(","));
        } else {
            accept("void");
        }
        expect(")");
        std::vector<OklAttr> after = attributes();
        f.attrs.insert(f.attrs.end(), after.begin(), after.end());
        if (accept(";")) {
            p.functions.push_back(std::move(f));
            return;
        }
        if (!peek().is("{")) fail(start, "expected a function body for '", f.name, "'");
        f.body = block();
        p.functions.push_back(std::move(f));
    }

    // --- statements

    OklStmtPtr block() {
        Guard g(*this);
        auto s = std::make_shared<OklStmt>();
        s->kind = OklStmtKind::Block;
        s->pos = pos(expect("{"));
        while (!peek().is("}")) {
            if (peek().kind == OklTok::End) fail(peek(), "missing '}' for the block opened at line ", s->pos.line);
            s->body.push_back(statement());
        }
        take();
        return s;
    }

    OklStmtPtr statement() {
        Guard g(*this);
        std::vector<OklAttr> attrs = attributes();
        const OklToken& t = peek();
        std::shared_ptr<OklStmt> s;
        if (t.is("{")) {
            s = std::const_pointer_cast<OklStmt>(block());
        } else if (t.is("if")) {
            s = if_statement();
        } else if (t.is("for")) {
            s = for_statement();
        } else if (t.is("while")) {
            s = node(OklStmtKind::While, take());
            expect("(");
            s->expr = expression();
            expect(")");
            s->body.push_back(statement());
        } else if (t.is("do")) {
            s = node(OklStmtKind::Do, take());
            s->body.push_back(statement());
            expect("while");
            expect("(");
            s->expr = expression();
            expect(")");
            expect(";");
        } else if (t.is("switch")) {
            s = switch_statement();
        } else if (t.is("return")) {
            s = node(OklStmtKind::Return, take());
            if (!peek().is(";")) s->expr = expression();
            expect(";");
        } else if (t.is("throw") || t.is("try")) {
            fail(t, "'", t.text, "' is C++: OKL kernels are C, and none of Loom's targets (C, OpenCL C, CUDA device code) has exceptions");
        } else if (t.is("break") || t.is("continue")) {
            s = node(t.is("break") ? OklStmtKind::Break : OklStmtKind::Continue, take());
            expect(";");
        } else if (t.is(";")) {
            s = node(OklStmtKind::Empty, take());
        } else if (t.is("typedef")) {
            take();
            typedef_decl({});
            s = node(OklStmtKind::Empty, t);
        } else if (at_type()) {
            s = declaration(attrs);
            expect(";");
        } else {
            s = node(OklStmtKind::Expr, t);
            s->expr = expression();
            expect(";");
        }
        s->attrs.insert(s->attrs.begin(), attrs.begin(), attrs.end());
        return s;
    }

    std::shared_ptr<OklStmt> node(OklStmtKind kind, const OklToken& at) {
        auto s = std::make_shared<OklStmt>();
        s->kind = kind;
        s->pos = pos(at);
        return s;
    }

    // Declaration statement; attributes before the type belong to each declared variable.
    std::shared_ptr<OklStmt> declaration(std::vector<OklAttr>& attrs) {
        auto s = node(OklStmtKind::Decl, peek());
        OklType ty = specifiers(attrs);
        do {
            OklDecl d = declarator(ty, attrs);
            d.init = accept("=") ? initializer() : nullptr;
            s->decls.push_back(std::move(d));
        } while (accept(","));
        attrs.clear();
        return s;
    }

    OklExprPtr initializer() {
        if (!peek().is("{")) return assignment();
        Guard g(*this);
        auto e = std::make_shared<OklExpr>();
        e->kind = OklExprKind::InitList;
        e->pos = pos(take());
        while (!peek().is("}")) {
            e->args.push_back(initializer());
            if (!accept(",")) break;
        }
        expect("}");
        return e;
    }

    std::shared_ptr<OklStmt> switch_statement() {
        auto s = node(OklStmtKind::Switch, take());
        expect("(");
        s->expr = expression();
        expect(")");
        expect("{");
        std::shared_ptr<OklStmt> current;
        while (!accept("}")) {
            if (peek().kind == OklTok::End) fail(peek(), "missing '}' for the switch at line ", s->pos.line);
            if (peek().is("case") || peek().is("default")) {
                current = node(OklStmtKind::Case, peek());
                if (take().is("case")) current->expr = conditional();
                expect(":");
                s->body.push_back(current);
            } else {
                if (!current) fail(peek(), "statement before the first case label of a switch");
                current->body.push_back(statement());
            }
        }
        return s;
    }

    std::shared_ptr<OklStmt> if_statement() {
        auto s = node(OklStmtKind::If, take());
        expect("(");
        s->expr = expression();
        expect(")");
        s->body.push_back(statement());
        if (accept("else")) s->body.push_back(statement());
        return s;
    }

    // `for (init; cond; step; @attrs)`: OKL puts loop attributes after the update too.
    std::shared_ptr<OklStmt> for_statement() {
        auto s = node(OklStmtKind::For, take());
        expect("(");
        if (peek().is(";")) {
            s->init = node(OklStmtKind::Empty, take());
        } else if (at_type()) {
            std::vector<OklAttr> none;
            s->init = declaration(none);
            expect(";");
        } else {
            auto e = node(OklStmtKind::Expr, peek());
            e->expr = expression();
            s->init = e;
            expect(";");
        }
        if (!peek().is(";")) s->expr = expression();
        expect(";");
        if (!peek().is(")") && !peek().is(";")) s->step = expression();
        if (accept(";")) {
            std::vector<OklAttr> attrs = attributes();
            s->attrs.insert(s->attrs.end(), attrs.begin(), attrs.end());
        }
        expect(")");
        s->body.push_back(statement());
        return s;
    }

    // --- expressions (C precedence)

    std::shared_ptr<OklExpr> make(OklExprKind kind, const OklToken& at, std::string op = "") {
        auto e = std::make_shared<OklExpr>();
        e->kind = kind;
        e->op = std::move(op);
        e->pos = pos(at);
        return e;
    }

    OklExprPtr expression() {
        OklExprPtr e = assignment();
        for (int chain = 0; peek().is(","); ++chain) {
            if (chain + depth_ > kMaxNesting) fail(peek(), "nesting deeper than ", kMaxNesting, " levels");
            auto c = make(OklExprKind::Comma, take(), ",");
            c->args = {e, assignment()};
            e = c;
        }
        return e;
    }

    OklExprPtr assignment() {
        Guard g(*this);
        OklExprPtr lhs = conditional();
        static const std::set<std::string> ops{"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
        if (peek().kind == OklTok::Punct && ops.count(peek().text)) {
            const OklToken& op = take();
            auto e = make(OklExprKind::Assign, op, op.text);
            e->args = {lhs, assignment()};
            return e;
        }
        return lhs;
    }

    OklExprPtr conditional() {
        OklExprPtr c = binary(0);
        if (!peek().is("?")) return c;
        Guard g(*this);
        auto e = make(OklExprKind::Ternary, take(), "?");
        OklExprPtr a = expression();
        expect(":");
        e->args = {c, a, conditional()};
        return e;
    }

    static int precedence(const OklToken& t) {
        static const std::map<std::string, int> p{{"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},
                                                  {"==", 6}, {"!=", 6}, {"<", 7},  {"<=", 7}, {">", 7},
                                                  {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},  {"-", 9},
                                                  {"*", 10}, {"/", 10}, {"%", 10}};
        if (t.kind != OklTok::Punct) return -1;
        auto it = p.find(t.text);
        return it == p.end() ? -1 : it->second;
    }

    OklExprPtr binary(int min_prec) {
        Guard g(*this);
        OklExprPtr lhs = unary();
        int chain = 0;
        while (precedence(peek()) > min_prec) {
            // A chain `a + b + ...` nests to the left: it counts as nesting too.
            if (++chain + depth_ > kMaxNesting) fail(peek(), "nesting deeper than ", kMaxNesting, " levels");
            const OklToken& op = take();
            auto e = make(OklExprKind::Binary, op, op.text);
            e->args = {lhs, binary(precedence(op))};
            lhs = e;
        }
        return lhs;
    }

    bool at_cast() const {
        if (!peek().is("(")) return false;
        const OklToken& t = peek(1);
        return t.kind == OklTok::Ident && (is_specifier_word(t.text) || typedefs_.count(t.text));
    }

    std::shared_ptr<const OklType> type_name() {
        std::vector<OklAttr> attrs;
        OklType ty = specifiers(attrs);
        OklDecl d = declarator(ty, attrs, true);
        if (!d.name.empty() || !d.dims.empty()) fail(peek(), "expected a type name");
        return std::make_shared<OklType>(d.type);
    }

    OklExprPtr unary() {
        Guard g(*this);
        const OklToken& t = peek();
        if (t.is("++") || t.is("--") || t.is("-") || t.is("+") || t.is("!") || t.is("~") || t.is("*") || t.is("&")) {
            auto e = make(OklExprKind::Unary, take(), t.text);
            e->args = {unary()};
            return e;
        }
        if (t.is("sizeof")) {
            auto e = make(OklExprKind::Sizeof, take(), "sizeof");
            if (at_cast()) {
                take();
                e->type = type_name();
                expect(")");
            } else {
                e->args = {unary()};
            }
            return e;
        }
        if (at_cast()) {
            auto e = make(OklExprKind::Cast, take(), "cast");
            e->type = type_name();
            expect(")");
            e->args = {unary()};
            return e;
        }
        if (at_attribute()) fail(t, "attribute @", peek(1).text, " is not allowed inside an expression");
        return postfix(primary());
    }

    OklExprPtr postfix(OklExprPtr e) {
        for (int chain = 0;; ++chain) {
            Guard g(*this);
            if (chain + depth_ > kMaxNesting) fail(peek(), "nesting deeper than ", kMaxNesting, " levels");
            const OklToken& t = peek();
            if (t.is("[")) {
                auto s = make(OklExprKind::Index, take(), "[]");
                s->args = {e, expression()};
                expect("]");
                e = s;
            } else if (t.is("(")) {
                auto c = make(OklExprKind::Call, take(), "()");
                c->args = {e};
                if (!peek().is(")")) {
                    do c->args.push_back(assignment());
                    while (accept(","));
                }
                expect(")");
                e = c;
            } else if (t.is(".") || t.is("->")) {
                auto m = make(OklExprKind::Member, take(), t.text);
                m->name = expect_ident("a field name");
                m->args = {e};
                e = m;
            } else if (t.is("++") || t.is("--")) {
                auto p = make(OklExprKind::Postfix, take(), t.text);
                p->args = {e};
                e = p;
            } else {
                return e;
            }
        }
    }

    OklExprPtr primary() {
        const OklToken& t = peek();
        if (t.kind == OklTok::Number) return number(take());
        if (t.kind == OklTok::Ident) {
            if (t.is("true") || t.is("false")) {
                auto e = make(OklExprKind::Int, take());
                e->ival = t.is("true");
                return e;
            }
            auto e = make(OklExprKind::Name, take());
            e->name = t.text;
            return e;
        }
        if (t.kind == OklTok::Char) return character(take());
        if (accept("(")) {
            OklExprPtr e = expression();
            expect(")");
            return e;
        }
        if (t.kind == OklTok::End) fail(t, "unexpected end of file in an expression");
        if (t.kind == OklTok::String)
            fail(t, "a string literal (", t.text.substr(0, 24), t.text.size() > 24 ? "...)" : ")",
                 ": Loom's kernels have no strings, and so no printf");
        fail(t, "unexpected '", t.text, "' in an expression");
    }

    OklExprPtr character(const OklToken& t) {
        auto e = make(OklExprKind::Int, t);
        const std::string body = t.text.substr(1, t.text.size() - 2);
        if (body.size() == 1) e->ival = static_cast<unsigned char>(body[0]);
        else if (body == "\\n") e->ival = '\n';
        else if (body == "\\0") e->ival = 0;
        else if (body == "\\t") e->ival = '\t';
        else if (body == "\\\\") e->ival = '\\';
        else if (body == "\\'") e->ival = '\'';
        else fail(t, "unsupported character literal ", t.text);
        return e;
    }

    OklExprPtr number(const OklToken& t) {
        std::string s = t.text;
        const bool hex = s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        const bool is_float = !hex && s.find_first_of(".eE") != std::string::npos;
        if (is_float) return float_number(t, s);
        std::string suffix;
        while (!s.empty() && std::string("uUlL").find(s.back()) != std::string::npos) {
            suffix.insert(suffix.begin(), static_cast<char>(std::tolower(static_cast<unsigned char>(s.back()))));
            s.pop_back();
        }
        if (s.empty() || (suffix != "" && suffix != "u" && suffix != "l" && suffix != "ul" && suffix != "lu" && suffix != "ll" && suffix != "ull" && suffix != "llu"))
            fail(t, "malformed number '", t.text, "'");
        errno = 0;
        char* end = nullptr;
        const unsigned long long v = std::strtoull(s.c_str(), &end, hex ? 16 : (s.size() > 1 && s[0] == '0') ? 8 : 10);
        if (*end != '\0') fail(t, "malformed number '", t.text, "'");
        if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) fail(t, "integer literal '", t.text, "' is too large");
        auto e = make(OklExprKind::Int, t);
        e->ival = static_cast<std::int64_t>(v);
        const bool is_unsigned = suffix.find('u') != std::string::npos;
        const bool is_long = suffix.find('l') != std::string::npos || v > 0x7fffffffULL;
        e->int_type = std::string(is_unsigned ? "uint" : "int") + (is_long ? "64" : "32");
        return e;
    }

    OklExprPtr float_number(const OklToken& t, std::string s) {
        auto e = make(OklExprKind::Float, t);
        if (s.back() == 'f' || s.back() == 'F') {
            e->float32 = true;
            s.pop_back();
        } else if (s.back() == 'l' || s.back() == 'L') {
            s.pop_back();
        }
        char* end = nullptr;
        e->fval = std::strtod(s.c_str(), &end);
        if (*end != '\0' || !std::isfinite(e->fval)) fail(t, "malformed number '", t.text, "'");
        return e;
    }

    const std::vector<OklToken>& t_;
    std::size_t i_ = 0;
    int depth_ = 0;
    std::map<std::string, OklType> typedefs_;
    std::map<std::string, std::vector<OklDecl>> structs_;
};

}  // namespace

OklProgram okl_parse(const std::vector<OklToken>& tokens) { return Parser(tokens).program(); }

namespace {

std::optional<std::int64_t> checked(const OklExpr& e, bool overflow, std::int64_t v) {
    if (overflow) okl_error(e.pos.file_name(), e.pos.line, "integer overflow in a constant expression");
    return v;
}

std::optional<std::int64_t> binary_constant(const OklExpr& e, std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    const std::string& op = e.op;
    // The overflow test runs before `r` is read: arguments are evaluated in no fixed order.
    if (op == "+" || op == "-" || op == "*") {
        const bool overflow = op == "+"   ? __builtin_add_overflow(a, b, &r)
                              : op == "-" ? __builtin_sub_overflow(a, b, &r)
                                          : __builtin_mul_overflow(a, b, &r);
        return checked(e, overflow, r);
    }
    if (op == "/" || op == "%") {
        if (b == 0) okl_error(e.pos.file_name(), e.pos.line, "division by zero in a constant expression");
        if (a == INT64_MIN && b == -1) return checked(e, true, 0);
        return op == "/" ? a / b : a % b;  // C truncates, as C++ does
    }
    if (op == "<<" || op == ">>") {
        if (b < 0 || b > 62) okl_error(e.pos.file_name(), e.pos.line, "shift by ", b, " in a constant expression");
        if (op == ">>") return a >> b;
        const bool overflow = a < 0 || a > (INT64_MAX >> b);
        return checked(e, overflow, overflow ? 0 : a << b);
    }
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "&") return a & b;
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "&&") return a && b;
    if (op == "||") return a || b;
    return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> okl_try_constant(const OklExprPtr& e, const OklNameValue& names) {
    switch (e->kind) {
        case OklExprKind::Int: return e->ival;
        case OklExprKind::Name: return names ? names(e->name) : std::nullopt;
        case OklExprKind::Cast: {
            if (e->type->pointers || e->type->base.find("int") == std::string::npos) return std::nullopt;
            return okl_try_constant(e->args[0], names);
        }
        case OklExprKind::Unary: {
            auto a = okl_try_constant(e->args[0], names);
            if (!a) return std::nullopt;
            if (e->op == "-") return *a == INT64_MIN ? checked(*e, true, 0) : -*a;
            if (e->op == "+") return a;
            if (e->op == "!") return !*a;
            if (e->op == "~") return ~*a;
            return std::nullopt;
        }
        case OklExprKind::Binary: {
            auto a = okl_try_constant(e->args[0], names);
            if (!a) return std::nullopt;
            // && and || do not evaluate their right operand when the left decides (`#if defined(X) && X > 2`).
            if (e->op == "&&" && !*a) return 0;
            if (e->op == "||" && *a) return 1;
            auto b = okl_try_constant(e->args[1], names);
            if (!b) return std::nullopt;
            return binary_constant(*e, *a, *b);
        }
        case OklExprKind::Ternary: {
            auto c = okl_try_constant(e->args[0], names);
            if (!c) return std::nullopt;
            return okl_try_constant(e->args[*c ? 1 : 2], names);
        }
        default: return std::nullopt;
    }
}

std::int64_t okl_constant_condition(const std::vector<OklToken>& tokens) {
    OklExprPtr e = Parser(tokens).whole_expression();
    auto v = okl_try_constant(e, nullptr);
    if (!v) okl_error(tokens[0], "#if needs an integer constant expression");
    return *v;
}

}  // namespace loom
