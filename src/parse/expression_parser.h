// The lexer and recursive-descent parser behind parse_instructions and parse_expression. Private to parse/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr/expr.h"

namespace loom::syntax {

/// One statement's text (possibly joined from several physical lines) that remembers where each line came
/// from, so that errors point at the user's line and column.
class SourceText {
public:
    /// `what` names the construct in messages ("instruction", "expression").
    explicit SourceText(std::string what = "instruction") : what_(std::move(what)) {}
    /// Splits `text` at newlines; its first line is line 1.
    static SourceText from_text(std::string_view text, std::string what);

    /// Appends one physical line (without its newline) that is line `line` of the whole source.
    void append_line(std::string_view code, int line);
    const std::string& text() const { return text_; }
    bool empty() const { return segments_.empty(); }
    /// 1-based line and column of a character offset into text().
    std::pair<int, int> position(std::size_t offset) const;
    /// Raises a ParseError "PROBLEM in instruction 'TEXT'" located at `offset`.
    [[noreturn]] void fail(std::size_t offset, const std::string& problem) const;

private:
    struct Segment {
        std::size_t offset;
        int line;
    };
    std::string what_;
    std::string text_;
    std::vector<Segment> segments_;
};

enum class TokenKind { Identifier, Int, Float, Imaginary, Punct, End };

struct Token {
    TokenKind kind;
    std::string text;
    std::size_t offset;  // into SourceText::text()

    bool is(std::string_view s) const { return kind != TokenKind::End && text == s; }
};

/// Tokens of text()[begin, end), ending with an End token at `end`.
std::vector<Token> tokenize(const SourceText& src, std::size_t begin, std::size_t end);

/// Parses expressions (pymbolic/Python precedence) from a token range. The instruction parser also drives
/// it token by token for left-hand sides and block headers.
class ExpressionParser {
public:
    ExpressionParser(const SourceText& src, std::size_t begin, std::size_t end);

    ExprPtr expression();
    /// A name with subscripts or call arguments, or any other atom: an assignment's left-hand side.
    ExprPtr postfix();

    const Token& peek(std::size_t ahead = 0) const;
    Token take();
    bool accept(std::string_view s);
    void expect(std::string_view s);
    std::string expect_identifier();
    void expect_end() const;
    [[noreturn]] void unexpected(const Token& t) const;
    [[noreturn]] void fail(const Token& t, const std::string& problem) const { src_.fail(t.offset, problem); }

private:
    ExprPtr disjunction();
    ExprPtr conjunction();
    ExprPtr negation();
    ExprPtr comparison();
    ExprPtr arithmetic(int min_prec);
    ExprPtr unary_expr();
    ExprPtr power();
    ExprPtr atom();
    std::string name_tag(const Token& name);
    ExprPtr untagged_postfix(const Token& name);
    ExprPtr linear_subscript_rest(const Token& name);
    std::vector<ExprPtr> subscript_indices();
    ExprPtr slice_or_index();
    ExprPtr sub_array_ref_rest();
    ExprPtr number(const Token& t) const;
    ExprPtr call(const Token& fn);
    ExprPtr special_call(const Token& fn, std::vector<ExprPtr> args) const;
    ExprPtr shorthand_reduction(const Token& fn);
    ExprPtr general_reduction(const Token& fn);
    std::vector<ExprPtr> reduction_body(std::string_view op);
    std::vector<ExprPtr> arguments(std::string_view close);
    std::optional<std::vector<std::string>> iname_argument();
    /// `lhs op rhs` of a chain, whose depth grows without the parser recursing: ParseError at `op` when the
    /// tree would exceed kMaxParsedDepth.
    ExprPtr chain(const Token& op, BinOp kind, ExprPtr lhs, ExprPtr rhs) const;

    /// Counts the parser's recursion (parentheses, calls, subscripts, unary operators) and refuses it past
    /// kMaxNesting, so that hostile input ends in a ParseError instead of exhausting the stack.
    class Nested {
    public:
        explicit Nested(ExpressionParser& p);
        ~Nested() { --p_.nesting_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;

    private:
        ExpressionParser& p_;
    };
    static constexpr int kMaxNesting = 500;

    const SourceText& src_;
    std::vector<Token> tokens_;
    std::size_t pos_ = 0;
    int nesting_ = 0;
};

}  // namespace loom::syntax
