#include "parse/expression_parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>

#include "support/error.h"
#include "support/strings.h"

namespace loom::syntax {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool is_keyword(std::string_view s) { return s == "and" || s == "or" || s == "not"; }

// Longest first, so that `**` is not read as two `*`.
constexpr std::array<std::string_view, 10> kLongPunct{"...", "**", "//", "<<", ">>",
                                                      "<=", ">=", "==", "!=", ":="};
constexpr std::string_view kShortPunct = "()[],+-*/%<>=&|^~$:";

}  // namespace

// {{{ SourceText

SourceText SourceText::from_text(std::string_view text, std::string what) {
    SourceText src(std::move(what));
    int line = 1;
    std::size_t start = 0;
    for (std::size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1)
        src.append_line(text.substr(start, nl - start), line++);
    src.append_line(text.substr(start), line);
    return src;
}

void SourceText::append_line(std::string_view code, int line) {
    if (!segments_.empty()) text_ += '\n';
    segments_.push_back({text_.size(), line});
    text_ += code;
}

std::pair<int, int> SourceText::position(std::size_t offset) const {
    auto after = std::upper_bound(segments_.begin(), segments_.end(), offset,
                                  [](std::size_t off, const Segment& s) { return off < s.offset; });
    if (after == segments_.begin()) return {0, 0};
    const Segment& seg = *std::prev(after);
    return {seg.line, static_cast<int>(offset - seg.offset) + 1};
}

void SourceText::fail(std::size_t offset, const std::string& problem) const {
    // Quote the statement on one line, however many lines it was written on.
    std::vector<std::string> lines;
    for (std::string_view rest = text_;;) {
        std::size_t nl = rest.find('\n');
        std::string piece = trim(rest.substr(0, nl));
        if (!piece.empty()) lines.push_back(std::move(piece));
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
    }
    auto [line, column] = position(offset);
    const std::string at = line > 0 ? cat(" (line ", line, ", column ", column, ")") : "";
    throw Error(error_kind::ParseError, cat(problem, " in ", what_, " '", join(lines, " "), "'", at), line, column);
}

// }}}

// {{{ lexer

namespace {

class Lexer {
public:
    Lexer(const SourceText& src, std::size_t begin, std::size_t end) : src_(src), i_(begin), end_(end) {}

    std::vector<Token> run() {
        std::vector<Token> tokens;
        while (true) {
            while (i_ < end_ && std::isspace(static_cast<unsigned char>(at(i_)))) ++i_;
            if (i_ >= end_) break;
            tokens.push_back(next());
        }
        tokens.push_back({TokenKind::End, "", end_});
        return tokens;
    }

private:
    char at(std::size_t i) const { return i < end_ ? src_.text()[i] : '\0'; }

    Token next() {
        const char c = at(i_);
        if (is_word_start(c)) return word();
        if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) return number();
        return punct();
    }

    Token make(TokenKind kind, std::size_t start) {
        return {kind, src_.text().substr(start, i_ - start), start};
    }

    Token word() {
        const std::size_t start = i_;
        while (is_word_char(at(i_))) ++i_;
        return make(TokenKind::Identifier, start);
    }

    void digits() {
        while (is_digit(at(i_))) ++i_;
    }

    // Python's numbers plus loopy's suffixes: `f` float32, `d` float64, `j` imaginary, `jf` complex64.
    Token number() {
        const std::size_t start = i_;
        bool is_float = false;
        digits();
        if (at(i_) == '.') {
            is_float = true;
            ++i_;
            digits();
        }
        const char e = at(i_), sign = at(i_ + 1);
        const bool signed_exponent = (sign == '+' || sign == '-') && is_digit(at(i_ + 2));
        if ((e == 'e' || e == 'E') && (is_digit(sign) || signed_exponent)) {
            is_float = true;
            i_ += 2;
            digits();
        }
        const std::size_t suffix_start = i_;
        while (is_word_char(at(i_))) ++i_;
        const std::string_view suffix = std::string_view(src_.text()).substr(suffix_start, i_ - suffix_start);
        if (suffix.empty()) return make(is_float ? TokenKind::Float : TokenKind::Int, start);
        if (suffix == "f" || suffix == "d") return make(TokenKind::Float, start);
        if (suffix == "j" || suffix == "jf") return make(TokenKind::Imaginary, start);
        src_.fail(start, cat("invalid number '", src_.text().substr(start, i_ - start), "'"));
    }

    Token punct() {
        const std::string_view rest = std::string_view(src_.text()).substr(i_, end_ - i_);
        const std::size_t start = i_;
        for (std::string_view p : kLongPunct) {
            if (rest.substr(0, p.size()) == p) {
                i_ += p.size();
                return make(TokenKind::Punct, start);
            }
        }
        if (kShortPunct.find(rest[0]) == std::string_view::npos)
            src_.fail(start, cat("unexpected character '", rest[0], "'"));
        ++i_;
        return make(TokenKind::Punct, start);
    }

    const SourceText& src_;
    std::size_t i_;
    std::size_t end_;
};

}  // namespace

std::vector<Token> tokenize(const SourceText& src, std::size_t begin, std::size_t end) {
    return Lexer(src, begin, end).run();
}

// }}}

// {{{ parser

namespace {

std::optional<BinOp> comparison_op(const Token& t) {
    if (t.kind != TokenKind::Punct) return std::nullopt;
    if (t.text == "==") return BinOp::Eq;
    if (t.text == "!=") return BinOp::Ne;
    if (t.text == "<") return BinOp::Lt;
    if (t.text == "<=") return BinOp::Le;
    if (t.text == ">") return BinOp::Gt;
    if (t.text == ">=") return BinOp::Ge;
    return std::nullopt;
}

/// Operators between the comparisons and the unary ones: bit operations, shifts, sums, products.
std::optional<BinOp> arithmetic_op(const Token& t) {
    if (t.kind != TokenKind::Punct) return std::nullopt;
    static const std::array<std::pair<std::string_view, BinOp>, 11> ops{{
        {"|", BinOp::BitOr}, {"^", BinOp::BitXor}, {"&", BinOp::BitAnd}, {"<<", BinOp::Shl},
        {">>", BinOp::Shr}, {"+", BinOp::Add}, {"-", BinOp::Sub}, {"*", BinOp::Mul},
        {"/", BinOp::Div}, {"//", BinOp::FloorDiv}, {"%", BinOp::Mod},
    }};
    for (const auto& [text, op] : ops)
        if (t.text == text) return op;
    return std::nullopt;
}

bool is_reduction_op(std::string_view name) {
    static const std::array<std::string_view, 8> ops{"sum", "product", "max", "min",
                                                     "argmax", "argmin", "any", "all"};
    return std::find(ops.begin(), ops.end(), name) != ops.end();
}

/// argmax/argmin reduce a value and an index together; the others one expression.
std::size_t body_count(std::string_view op) { return op == "argmax" || op == "argmin" ? 2 : 1; }

// The arguments of `op` after its inames: one expression, or for argmax/argmin a value and an index, or
// one two-valued reduction whose results they reduce (loopy's tuple-typed reduction argument).
bool fits_body(std::string_view op, const std::vector<ExprPtr>& body) {
    if (body.size() == body_count(op)) return true;
    return body_count(op) == 2 && body.size() == 1 && is_two_valued(body[0]);
}

// Loopy's rule: a reduction of one value cannot reduce the two of an argmax/argmin.
bool two_values_for_one(std::string_view op, const std::vector<ExprPtr>& body) {
    return body_count(op) == 1 && body.size() == 1 && is_two_valued(body[0]);
}

std::string two_values_message(std::string_view op, const ExprPtr& operand) {
    return cat("'", op, "' reduces one value, but '", to_string(operand), "' has two (a value and an index)");
}

std::string reduction_usage(std::string_view fn, std::string_view op) {
    std::string args = body_count(op) == 2 ? "inames, value, index (or inames, argmax/argmin reduction)" : "inames, expression";
    std::string prefix = fn == op ? "" : cat(op, ", ");
    return cat("expected ", fn, "(", prefix, args, ") where inames is an iname or a tuple of inames");
}

/// Negative literals stay literals, as in pymbolic: `-2` is the number, not an operation on it.
ExprPtr negate(const ExprPtr& e) {
    switch (e->kind) {
        case ExprKind::IntLit: return int_lit(-e->ival);
        case ExprKind::FloatLit: return float_lit(-e->fval, e->dtype);
        case ExprKind::ImagLit: return imag_lit(-e->fval, e->dtype);
        default: return unary("-", e);
    }
}

}  // namespace

ExpressionParser::ExpressionParser(const SourceText& src, std::size_t begin, std::size_t end)
    : src_(src), tokens_(tokenize(src, begin, end)) {}

const Token& ExpressionParser::peek(std::size_t ahead) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
}

Token ExpressionParser::take() {
    Token t = peek();
    if (t.kind != TokenKind::End) ++pos_;
    return t;
}

bool ExpressionParser::accept(std::string_view s) {
    if (!peek().is(s)) return false;
    ++pos_;
    return true;
}

void ExpressionParser::expect(std::string_view s) {
    if (!accept(s)) unexpected(peek());
}

std::string ExpressionParser::expect_identifier() {
    const Token& t = peek();
    if (t.kind != TokenKind::Identifier || is_keyword(t.text)) unexpected(t);
    return take().text;
}

void ExpressionParser::expect_end() const {
    if (peek().kind != TokenKind::End) unexpected(peek());
}

void ExpressionParser::unexpected(const Token& t) const {
    if (t.kind == TokenKind::End) fail(t, "unexpected end of input");
    fail(t, cat("unexpected token '", t.text, "'"));
}

ExpressionParser::Nested::Nested(ExpressionParser& p) : p_(p) {
    if (p_.nesting_ == kMaxNesting) p_.fail(p_.peek(), cat("expression nested more than ", kMaxNesting, " levels deep"));
    ++p_.nesting_;
}

ExprPtr ExpressionParser::chain(const Token& op, BinOp kind, ExprPtr lhs, ExprPtr rhs) const {
    if (depth_over({lhs, rhs}) > kMaxParsedDepth)
        fail(op, cat("expression nested deeper than ", kMaxParsedDepth, " levels (split it with temporaries)"));
    return binary(kind, std::move(lhs), std::move(rhs));
}

// Python's conditional expression `a if c else b`, the loosest binding and right-associative.
ExprPtr ExpressionParser::expression() {
    const Nested nested(*this);
    ExprPtr then = disjunction();
    if (!accept("if")) return then;
    ExprPtr cond = disjunction();
    if (!accept("else")) fail(peek(), "expected 'else' in the conditional expression 'a if condition else b'");
    return if_then_else(cond, then, expression());
}

ExprPtr ExpressionParser::disjunction() {
    ExprPtr e = conjunction();
    while (peek().is("or")) {
        const Token op = take();
        e = chain(op, BinOp::Or, e, conjunction());
    }
    return e;
}

ExprPtr ExpressionParser::conjunction() {
    ExprPtr e = negation();
    while (peek().is("and")) {
        const Token op = take();
        e = chain(op, BinOp::And, e, negation());
    }
    return e;
}

ExprPtr ExpressionParser::negation() {
    if (accept("not")) {
        const Nested nested(*this);
        return unary("not", negation());
    }
    return comparison();
}

// Python would read `a < b < c` as `a < b and b < c`; rather than guess, we refuse the chain.
ExprPtr ExpressionParser::comparison() {
    ExprPtr lhs = arithmetic(binop_precedence(BinOp::BitOr));
    std::optional<BinOp> op = comparison_op(peek());
    if (!op) return lhs;
    take();
    ExprPtr rhs = arithmetic(binop_precedence(BinOp::BitOr));
    if (comparison_op(peek())) fail(peek(), "chained comparisons are not supported (combine them with 'and')");
    return binary(*op, lhs, rhs);
}

// Precedence climbing over the left-associative levels from `|` up to `*`.
ExprPtr ExpressionParser::arithmetic(int min_prec) {
    ExprPtr e = unary_expr();
    for (std::optional<BinOp> op; (op = arithmetic_op(peek())) && binop_precedence(*op) >= min_prec;) {
        const Token t = take();
        e = chain(t, *op, e, arithmetic(binop_precedence(*op) + 1));
    }
    return e;
}

ExprPtr ExpressionParser::unary_expr() {
    if (!peek().is("-") && !peek().is("+") && !peek().is("~")) return power();
    const Nested nested(*this);
    const Token op = take();
    if (op.is("-")) return negate(unary_expr());
    if (op.is("+")) return unary_expr();
    return unary("~", unary_expr());
}

// As in Python, `**` binds tighter than a unary minus on its left and accepts one on its right:
// `-a**-b` is `-(a**(-b))`.
ExprPtr ExpressionParser::power() {
    ExprPtr base = postfix();
    if (accept("**")) return binary(BinOp::Pow, base, unary_expr());
    return base;
}

ExprPtr ExpressionParser::postfix() {
    if (peek().kind != TokenKind::Identifier || is_keyword(peek().text)) return atom();
    Token name = take();
    const std::string tag = name_tag(name);
    ExprPtr e = untagged_postfix(name);
    if (tag.empty()) return e;
    if (e->kind != ExprKind::Var && e->kind != ExprKind::Subscript && e->kind != ExprKind::Call)
        fail(name, cat("'", name.text, "$", tag, "': only variables, arrays and substitution rules take a tag"));
    return tagged(e, tag);
}

// The tag of `name$tag` right after `name` (written without spaces, as loopy's TaggedVariable), or "".
std::string ExpressionParser::name_tag(const Token& name) {
    const Token& dollar = peek();
    if (!dollar.is("$") || dollar.offset != name.offset + name.text.size()) return "";
    const Token& tag = peek(1);
    if (tag.kind != TokenKind::Identifier || tag.offset != dollar.offset + 1) fail(dollar, "expected a tag name after '$'");
    take();
    return take().text;
}

ExprPtr ExpressionParser::untagged_postfix(const Token& name) {
    if (accept("(")) return call(name);
    if (accept("[")) {
        if (accept("[")) return linear_subscript_rest(name);
        // `a[()]`: the one element of a 0-d array, as pymbolic writes it.
        if (peek().is("(") && peek(1).is(")") && peek(2).is("]")) {
            pos_ += 3;
            return var(name.text);
        }
        std::vector<ExprPtr> indices = subscript_indices();
        if (indices.empty()) fail(name, cat("empty subscript of '", name.text, "'"));
        return subscript(name.text, std::move(indices));
    }
    if (name.text == "if") fail(name, "'if' in an expression must be written if(condition, then, else)");
    return var(name.text);
}

// The indices of a subscript after its `[`, up to the `]`; each may be a slice `start:stop:step` (parts optional).
std::vector<ExprPtr> ExpressionParser::subscript_indices() {
    std::vector<ExprPtr> indices;
    if (accept("]")) return indices;
    do {
        if (indices.size() == kMaxArrayAxes)
            fail(peek(), cat("a subscript of more than ", kMaxArrayAxes, " indices (arrays have at most ", kMaxArrayAxes,
                             " axes, as numpy's)"));
        indices.push_back(slice_or_index());
    } while (accept(","));
    expect("]");
    return indices;
}

ExprPtr ExpressionParser::slice_or_index() {
    const auto omitted = [&] { return peek().is(":") || peek().is(",") || peek().is("]"); };
    const auto part = [&] { return omitted() ? var(kSliceCall) : expression(); };
    if (omitted() && !peek().is(":")) fail(peek(), "empty index in a subscript (two commas, or a comma next to a bracket)");
    ExprPtr start = part();
    if (!accept(":")) return start;
    ExprPtr stop = part();
    ExprPtr step = accept(":") ? part() : var(kSliceCall);
    return loom::call(kSliceCall, {std::move(start), std::move(stop), std::move(step)});
}

// `[i, j]: a[i, j]` (the `[` taken): loopy's sub-array reference, `a` swept over inames i and j.
ExprPtr ExpressionParser::sub_array_ref_rest() {
    std::vector<std::string> swept;
    if (!accept("]")) {
        do {
            swept.push_back(expect_identifier());
        } while (accept(","));
        expect("]");
    }
    expect(":");
    const Token at = peek();
    ExprPtr target = postfix();
    if (target->kind != ExprKind::Var && target->kind != ExprKind::Subscript)
        fail(at, "a sub-array reference '[inames]: ...' must sweep a variable or a subscript");
    if (target->linear) fail(at, "a sub-array reference cannot sweep a linear subscript 'a[[e]]'");
    return sub_array_ref(target->name, target->args, std::move(swept));
}

// `a[[e]]` after its `[[`: one index into a's flat storage (loopy's linear subscript).
ExprPtr ExpressionParser::linear_subscript_rest(const Token& name) {
    ExprPtr index = expression();
    expect("]");
    expect("]");
    return linear_subscript(name.text, std::move(index));
}

ExprPtr ExpressionParser::atom() {
    Token t = take();
    switch (t.kind) {
        case TokenKind::Int:
        case TokenKind::Float:
        case TokenKind::Imaginary: return number(t);
        case TokenKind::Punct:
            if (t.text == "[") return sub_array_ref_rest();
            if (t.text == "(") {
                ExprPtr e = expression();
                if (peek().is(",")) fail(peek(), "a tuple is only allowed as the iname list of a reduction or as "
                                           "argmax/argmin's (value, index)");
                expect(")");
                return e;
            }
            break;
        default: break;
    }
    unexpected(t);
}

ExprPtr ExpressionParser::number(const Token& t) const {
    const std::string& s = t.text;
    if (t.kind == TokenKind::Int) {
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size())
            fail(t, cat("integer literal '", s, "' is too large"));
        return int_lit(v);
    }
    std::size_t digits_end = s.size();
    while (digits_end > 0 && (s[digits_end - 1] == 'f' || s[digits_end - 1] == 'd' || s[digits_end - 1] == 'j'))
        --digits_end;
    const std::string suffix = s.substr(digits_end);
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + digits_end, v);
    if (ec != std::errc() || end != s.data() + digits_end) fail(t, cat("number '", s, "' is out of range"));
    if (t.kind == TokenKind::Imaginary) return imag_lit(v, suffix == "jf" ? DType::Complex64 : DType::Unknown);
    return float_lit(v, suffix == "f" ? DType::Float32 : suffix == "d" ? DType::Float64 : DType::Unknown);
}

// Called after the opening parenthesis of `fn(`.
ExprPtr ExpressionParser::call(const Token& fn) {
    if (fn.text == "reduce" || fn.text == "simul_reduce") return general_reduction(fn);
    if (is_reduction_op(fn.text)) return shorthand_reduction(fn);
    return special_call(fn, arguments(")"));
}

ExprPtr ExpressionParser::special_call(const Token& fn, std::vector<ExprPtr> args) const {
    if (fn.text == "if") {
        if (args.size() != 3)
            fail(fn, cat("if() takes 3 arguments (condition, then, else), got ", args.size()));
        return if_then_else(args[0], args[1], args[2]);
    }
    if (fn.text == "cast") {
        if (args.size() != 2 || args[0]->kind != ExprKind::Var)
            fail(fn, "cast() takes a type name and an expression, as in cast(float32, x)");
        std::optional<DType> t = dtype_from_name(args[0]->name);
        if (!t) fail(fn, cat("unknown type '", args[0]->name, "' in cast()"));
        return cast(*t, args[1]);
    }
    return loom::call(fn.text, std::move(args));
}

// `sum(k, e)`, `sum((i, j), e)`, `argmax(i, a[i], i)`. The parser cannot know the kernel's inames, so
// `max(x, y)` and `min(x, y)` are ambiguous between a reduction over iname `x` and the binary function:
// they become a Reduction whenever the first argument is a bare identifier (or a tuple of them) and the
// argument count fits, as loopy does; the kernel builder turns such a Reduction whose "iname" is not an
// iname back into call("max", {var(x), y}). With any other first argument, or another argument count,
// max/min are plain calls. The other reduction names always need an iname first.
ExprPtr ExpressionParser::shorthand_reduction(const Token& fn) {
    const bool minmax = fn.text == "max" || fn.text == "min";
    const bool tuple = peek().is("(") || peek().is("[");
    std::optional<std::vector<std::string>> inames = iname_argument();
    if (!inames) {
        if (minmax) return loom::call(fn.text, arguments(")"));
        fail(fn, reduction_usage(fn.text, fn.text));
    }
    std::vector<ExprPtr> body = reduction_body(fn.text);
    if (two_values_for_one(fn.text, body)) fail(fn, two_values_message(fn.text, body[0]));
    if (inames->empty() && body.size() == 1) return body.front();
    if (fits_body(fn.text, body) && !inames->empty()) return reduction(fn.text, std::move(*inames), std::move(body));
    if (minmax && !tuple) {
        body.insert(body.begin(), var(inames->front()));
        return loom::call(fn.text, std::move(body));
    }
    fail(fn, reduction_usage(fn.text, fn.text));
}

// `reduce(op, inames, e...)`; `simul_reduce` also lets the inames be shared with other reductions.
ExprPtr ExpressionParser::general_reduction(const Token& fn) {
    const Token op_token = peek();
    const std::string op = expect_identifier();
    if (!is_reduction_op(op)) fail(op_token, cat("unknown reduction operation '", op, "'"));
    expect(",");
    std::optional<std::vector<std::string>> inames = iname_argument();
    if (!inames) fail(peek(), reduction_usage(fn.text, op));
    std::vector<ExprPtr> body = reduction_body(op);
    if (two_values_for_one(op, body)) fail(fn, two_values_message(op, body[0]));
    if (!fits_body(op, body)) fail(fn, reduction_usage(fn.text, op));
    // Over no inames a reduction is its body, as in loopy.
    if (inames->empty() && body.size() == 1) return body.front();
    if (inames->empty()) fail(fn, cat("'", op, "' over no inames has no value: name the inames to reduce over"));
    return reduction(op, std::move(*inames), std::move(body), fn.text == "simul_reduce");
}

// The operands of reduction `op` after its inames, up to the closing parenthesis: for argmax/argmin also
// loopy's tuple `(value, index)` as the only one.
std::vector<ExprPtr> ExpressionParser::reduction_body(std::string_view op) {
    if (body_count(op) == 2 && peek().is("(")) {
        const std::size_t start = pos_;
        take();
        ExprPtr value = expression();
        if (accept(",")) {
            ExprPtr index = expression();
            expect(")");
            if (accept(")")) return {std::move(value), std::move(index)};
        }
        pos_ = start;  // a parenthesized operand, not a tuple
    }
    return arguments(")");
}

std::vector<ExprPtr> ExpressionParser::arguments(std::string_view close) {
    std::vector<ExprPtr> args;
    if (accept(close)) return args;
    do {
        args.push_back(expression());
    } while (accept(","));
    expect(close);
    return args;
}

// An iname list followed by a comma: `k,` or `(i, j),`. Consumes it only when it matches.
std::optional<std::vector<std::string>> ExpressionParser::iname_argument() {
    auto is_name = [&](std::size_t i) {
        return peek(i).kind == TokenKind::Identifier && !is_keyword(peek(i).text);
    };
    if (is_name(0) && peek(1).is(",")) {
        std::string name = take().text;
        take();
        return std::vector<std::string>{name};
    }
    // A parenthesized tuple or, as loopy's list form, a bracketed list: `(i, j)`, `[i, j]`.
    if (!peek().is("(") && !peek().is("[")) return std::nullopt;
    const std::string_view close = peek().is("(") ? ")" : "]";
    std::vector<std::string> names;
    std::size_t i = 1;
    while (is_name(i)) {
        names.push_back(peek(i).text);
        if (peek(i + 1).is(",")) i += 2;
        else {
            ++i;
            break;
        }
    }
    if (!peek(i).is(close) || !peek(i + 1).is(",")) return std::nullopt;
    pos_ += i + 2;
    return names;
}

// }}}

}  // namespace loom::syntax
