#include "parse/domain_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <tuple>

#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// 1-based line and column of offset `at` of `text` (its end where `at` is past it).
std::pair<int, int> line_column(const std::string& text, std::size_t at) {
    at = std::min(at, text.size());
    const std::size_t line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    const std::size_t column0 = at - (line_start == std::string::npos ? 0 : line_start + 1);
    return {1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')),
            static_cast<int>(column0) + 1};
}

struct Token {
    std::string text;
    bool ident;
};

// The end of the isl comment (`#` to the end of the line) that starts at `at`: its newline, or the text's end.
std::size_t comment_end(const std::string& text, std::size_t at) { return std::min(text.find('\n', at), text.size()); }

// The words and symbols of isl's set notation; its comments are skipped.
std::vector<Token> tokenize(const std::string& s) {
    std::vector<Token> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = s[i];
        if (c == '#') {
            i = comment_end(s, i);
        } else if (std::isalpha(c) || c == '_') {
            std::size_t j = i;
            while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_'))
                ++j;
            out.push_back({s.substr(i, j - i), true});
            i = j;
        } else if (std::isspace(c)) {
            ++i;
        } else {
            out.push_back({std::string(1, static_cast<char>(c)), false});
            ++i;
        }
    }
    return out;
}

bool is_isl_keyword(const std::string& w) {
    static const std::set<std::string> kw{"and", "or", "not", "mod", "exists", "floor", "ceil", "min",
                                          "max", "true", "false", "infty", "implies", "xor", "div"};
    return kw.count(w) != 0;
}

// Identifiers of `text` that isl would not know: used names minus declared parameters, set dimensions,
// and `exists`-bound names.
std::vector<std::string> undeclared_names(const std::string& text) {
    const std::vector<Token> toks = tokenize(text);
    std::set<std::string> bound;
    std::vector<std::string> used;
    int bracket_depth = 0;
    bool in_tuple = false, seen_brace = false;
    for (std::size_t k = 0; k < toks.size(); ++k) {
        const Token& t = toks[k];
        if (!t.ident) {
            if (t.text == "{") seen_brace = true;
            if (t.text == "[") {
                ++bracket_depth;
                if (bracket_depth == 1) in_tuple = true;
            }
            if (t.text == "]" && --bracket_depth == 0) in_tuple = false;
            continue;
        }
        if (is_isl_keyword(t.text)) {
            if (t.text == "exists") {
                // exists ( a, b : ... ) or exists a, b : ...
                for (std::size_t m = k + 1; m < toks.size() && toks[m].text != ":"; ++m)
                    if (toks[m].ident) bound.insert(toks[m].text);
            }
            continue;
        }
        // Before '{' a bracketed list declares parameters; inside '{' the first tuple names dimensions.
        if (in_tuple) {
            const bool is_tuple_dim = k + 1 < toks.size() && (toks[k + 1].text == "," || toks[k + 1].text == "]");
            if (is_tuple_dim || !seen_brace) {
                bound.insert(t.text);
                continue;
            }
        }
        if (k + 1 < toks.size() && toks[k + 1].text == "[" && seen_brace) continue;  // a tuple name
        used.push_back(t.text);
    }
    std::vector<std::string> out;
    for (const std::string& u : used)
        if (!bound.count(u) && std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
    return out;
}

// `text` with `extra` declared as parameters, and where that inserted text (its offset and length).
struct WithParams {
    std::string text;
    std::size_t inserted_at = 0;
    std::size_t inserted = 0;
};

WithParams with_params(const std::string& text, const std::vector<std::string>& extra) {
    if (extra.empty()) return {text};
    const std::string list = join(extra, ", ");
    const std::size_t arrow = text.find("->");
    const std::size_t brace = text.find('{');
    // "[n] -> {...}": extend the declared list. Without its ']' ("[ -> {...}"), the list is left to isl,
    // which says what is wrong with it.
    const std::size_t close = arrow != std::string::npos && arrow < brace ? text.rfind(']', arrow) : std::string::npos;
    if (close != std::string::npos) {
        const std::string before = trim(text.substr(0, close));
        const std::string insert = (!before.empty() && before.back() == '[' ? "" : ", ") + list;
        return {text.substr(0, close) + insert + text.substr(close), close, insert.size()};
    }
    const std::string insert = "[" + list + "] -> ";
    return {insert + text, 0, insert.size()};
}

// isl's reader turns each `!=` (and each pair of the lists of `a, b != c, d`) into a disjunction, and a
// conjunction of disjunctions into all their combinations: `x0,x1,x2,x3 != i,j,k` is 2^12 of them, which took
// minutes and gigabytes (found by fuzz/fuzz_domain). The reading gets this many isl operations (the same cut
// on every machine; the domains of the tests take under 2,000, and reaching it takes about 0.2 s under ASan),
// and the set it gives at most kMaxDomainPieces pieces.
constexpr unsigned long kDomainReadOperations = 100000;

[[noreturn]] void fail_too_complex(const std::string& text) {
    throw Error(error_kind::LoopyError, cat("domain '", trim(text), "' is too complex: isl did not read it within ",
                                  kDomainReadOperations, " operations (each '!=' or 'or' can double its pieces)"));
}

// "malformed domain 'TEXT': PROBLEM" at the place isl stopped, in the coordinates of the text the user wrote.
[[noreturn]] void fail_domain_syntax(const std::string& text, const WithParams& parsed) {
    const std::string head = cat("malformed domain '", trim(text), "'");
    const auto found = isl_util::read_set_error(parsed.text, kDomainReadOperations);
    if (found && found->first.find("maximal number of operations exceeded") != std::string::npos)
        fail_too_complex(text);
    int line = 0, column = 0;
    char what[256] = "";
    if (!found || std::sscanf(found->first.c_str(), "syntax error (%d, %d): %255[^\n]", &line, &column, what) != 3)
        throw Error(error_kind::ParseError, head + ": isl could not parse it");
    // The offset in the parsed text, less the parameter list Loom inserted, back to line and column.
    std::size_t offset = 0;
    for (int l = 1; l < line && offset != std::string::npos; ++l) offset = parsed.text.find('\n', offset) + 1;
    offset += static_cast<std::size_t>(column - 1);
    if (offset >= parsed.inserted_at + parsed.inserted) offset -= parsed.inserted;
    std::tie(line, column) = line_column(text, offset);
    std::string problem = what;
    if (const std::size_t t = problem.find("isl_token"); t != std::string::npos) problem.replace(t, 9, "token");
    const std::size_t quote = found->second.find('\'');
    const std::string got = quote == std::string::npos ? "" : cat(", at ", found->second.substr(quote));
    throw Error(error_kind::ParseError, cat(head, ": ", problem, got, " (line ", line, ", column ", column, ")"), line, column);
}

// 1-based line and column of the first use of the word `name` in `text` (0, 0 when there is none).
std::pair<int, int> word_position(const std::string& text, const std::string& name) {
    const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '\''; };
    for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        const std::size_t end = at + name.size();
        if ((at > 0 && is_word(text[at - 1])) || (end < text.size() && is_word(text[end]))) continue;
        return line_column(text, at);
    }
    return {0, 0};
}

}  // namespace

// Next to an unbounded iname, a name the domain does not declare (taken for a parameter) is most likely a
// misspelling: that is the ParseError reported.
void check_bounded(const std::string& text, const isl::set& s, const std::set<std::string>& looped) {
    const std::vector<std::string> names = isl_util::set_dim_names(s);
    for (std::size_t pos = 0; pos < names.size(); ++pos) {
        if (!looped.count(names[pos])) continue;
        // The values the iname takes, alone: a constraint on it may bound only a combination with other
        // inames (0 <= 16*i_outer + i_inner < n bounds neither), which the projection exposes.
        const auto [lower, upper] = isl_util::dim_has_bounds(s, static_cast<int>(pos));
        if (lower && upper) continue;
        const std::string problem =
            cat("iname '", names[pos], "' has no ", !lower && !upper ? "bounds" : lower ? "upper bound" : "lower bound");
        const std::vector<std::string> undeclared = undeclared_names(text);
        if (undeclared.empty()) throw Error(error_kind::LoopyError, cat("domain '", trim(text), "': ", problem));
        const auto [line, column] = word_position(text, undeclared.front());
        throw Error(error_kind::ParseError,
                    cat("malformed domain '", trim(text), "': unknown name '", undeclared.front(), "' (line ", line,
                        ", column ", column, "), taken as a parameter, and ", problem),
                    line, column);
    }
}

namespace {

// The first offset of `text` from `at` that is neither blank nor in one of isl's comments ('#' to the end of
// the line), which isl's reader skips between any two tokens.
std::size_t skip_blanks(const std::string& text, std::size_t at) {
    while (at < text.size()) {
        if (text[at] == '#') {
            at = comment_end(text, at);
        } else if (std::isspace(static_cast<unsigned char>(text[at]))) {
            ++at;
        } else {
            break;
        }
    }
    return at;
}

// Decimal digits of `text` that end just before `end` (after spaces), or start at `begin` (after blanks and
// comments, as isl reads them). Digits that end a name (`z1`, `i_2`) are no literal: empty then.
std::string literal_before(const std::string& text, std::size_t end) {
    while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
    const auto ends_name = [&] {
        const char c = text[begin - 1];
        return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    };
    if (begin > 0 && begin < end && ends_name()) return "";
    return text.substr(begin, end - begin);
}

std::string literal_after(const std::string& text, std::size_t begin) {
    begin = skip_blanks(text, begin);
    std::size_t end = begin;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    return text.substr(begin, end - begin);
}

// A ParseError about the domain `text` at offset `at`, with its line and column.
[[noreturn]] void fail_at(const std::string& text, std::size_t at, const std::string& problem) {
    const auto [line, column] = line_column(text, at);
    throw Error(error_kind::ParseError, cat("malformed domain '", trim(text), "': ", problem, " (line ", line, ", column ", column, ")"),
                line, column);
}

// isl's reader evaluates the power `x^y` of two integer literals with GMP, which aborts the process when the
// result cannot be represented (`2^6666666666`, found by fuzz/fuzz_domain). A power of more than 4096 bits,
// of no use as a bound, is a ParseError before isl sees the text.
void check_powers(const std::string& text) {
    constexpr double max_bits = 4096;
    for (std::size_t at = text.find('^'); at != std::string::npos; at = text.find('^', at + 1)) {
        const std::string base = literal_before(text, at), exponent = literal_after(text, at + 1);
        const std::size_t base_digits = base.size() - std::min(base.find_first_not_of('0'), base.size());
        const std::size_t exponent_digits = exponent.size() - std::min(exponent.find_first_not_of('0'), exponent.size());
        const bool zero_or_one = base_digits == 0 || (base_digits == 1 && base.back() == '1');
        if (base.empty() || exponent.empty())
            fail_at(text, at, "the power '^' of a name is not affine");  // isl would build the polynomial first
        if (zero_or_one) continue;
        const std::string significant = base.substr(base.size() - base_digits);
        const std::size_t head = std::min<std::size_t>(significant.size(), 15);
        const double bits = std::log2(std::stod(significant.substr(0, head))) +
                            static_cast<double>(significant.size() - head) * std::log2(10.0);
        if (exponent_digits <= 4 && bits * std::stod(exponent) <= max_bits) continue;
        fail_at(text, at, cat("the power ", base, "^", exponent, " is too large: more than 4096 bits"));
    }
}

// isl's reader drops a name's primes (`i'` is `i`), so that an undeclared `i'`, taken for a parameter, became a
// second `i` beside the iname: a kernel without a domain (found by fuzz_pipeline, reliability.md 26). A prime
// outside isl's comments is a ParseError.
void check_primes(const std::string& text) {
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] == '#') at = comment_end(text, at);
        else if (text[at] == '\'') fail_at(text, at, "primed names (i') are not supported: isl reads i' as i");
    }
}

bool all_zeros(const std::string& digits) { return digits.find_first_not_of('0') == std::string::npos; }

// isl's reader computes the integer division `a // b` of a literal by a literal itself, with GMP, which kills
// the process (SIGFPE) where `b` is 0 (`0 <= i < 1//0`, found by fuzz/fuzz_pipeline). The divisor isl takes is
// the literal after `//`, or its power where `^` and a literal follow (`0^2` is 0, `0^0` is 1); a zero divisor
// is a ParseError before isl sees the text, whatever precedes `//` (isl allows a literal only).
void check_divisions(const std::string& text) {
    for (std::size_t at = skip_blanks(text, 0); at + 1 < text.size(); at = skip_blanks(text, at + 1)) {
        if (text[at] != '/' || text[at + 1] != '/') continue;
        const std::size_t begin = skip_blanks(text, at + 2);
        const std::string divisor = literal_after(text, begin);
        if (divisor.empty() || !all_zeros(divisor)) continue;
        const std::size_t power = skip_blanks(text, begin + divisor.size());
        if (power < text.size() && text[power] == '^') {
            const std::string exponent = literal_after(text, power + 1);
            if (!exponent.empty() && all_zeros(exponent)) continue;  // 0^0 is 1
        }
        fail_at(text, at, "division by zero: '//' by the literal 0");
    }
}

// isl's reader takes text that starts with a number for PolyLib's matrix format, whose leading numbers are
// sizes it allocates (`77777777777 7 [` asked for terabytes; found by fuzz/fuzz_domain): a domain is isl's
// set notation, `{ ... }` or `[params] -> { ... }`.
void check_set_notation(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t\n\r\v\f");
    if (first != std::string::npos && text[first] != '{' && text[first] != '[')
        fail_at(text, first, "a domain starts with '{' (or '[' and its parameters)");
    // isl reads one set and ignores what follows it: text after the closing brace (an instruction pasted into
    // the domain) would be dropped, its names already taken as parameters (fuzz_pipeline, reliability.md 20).
    const std::size_t last = text.find_last_not_of(" \t\n\r\v\f");
    if (last != std::string::npos && text[last] != '}')
        fail_at(text, text.rfind('}') == std::string::npos ? last : text.rfind('}') + 1,
                "a domain ends with its closing '}'");
}

}  // namespace

isl::set parse_domain(const std::string& text) {
    check_set_notation(text);
    check_primes(text);
    check_powers(text);
    check_divisions(text);
    const std::vector<std::string> undeclared = undeclared_names(text);
    const WithParams full = with_params(text, undeclared);
    const isl_util::SetReading read = isl_util::read_set(full.text, kDomainReadOperations);
    if (read.over_budget) fail_too_complex(text);
    if (!read.set) fail_domain_syntax(text, full);
    const isl::set s = *read.set;
    const int pieces = static_cast<int>(s.n_basic_set());
    user_assert(pieces <= isl_util::kMaxDomainPieces, error_kind::LoopyError, "domain '", trim(text), "' is a union of ", pieces,
                " pieces (isl basic sets); at most ", isl_util::kMaxDomainPieces,
                " are taken (each '!=' or 'or' can double the pieces)");
    return s;
}

isl::set parse_assumptions(const std::string& text) {
    std::string body = trim(text);
    if (body.find('{') == std::string::npos) body = "{ : " + body + " }";
    const isl::set s = parse_domain(body);
    if (s.tuple_dim() != 0)
        throw Error(error_kind::ParseError, cat("assumptions '", trim(text), "' must constrain parameters only"));
    return s;
}


}  // namespace loom
