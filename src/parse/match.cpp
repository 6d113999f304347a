#include "parse/match.h"

#include <cctype>
#include <vector>

#include "ir/access.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

struct Match::Node {
    enum class Kind { And, Or, Not, Id, Tag, Writes, Reads, Iname, InKernel } kind;
    std::string pattern;                               // terminals
    std::vector<std::shared_ptr<const Node>> children;  // And, Or: two; Not: one
};

namespace {

using NodePtr = std::shared_ptr<const Match::Node>;
using Kind = Match::Node::Kind;

std::vector<std::string> tokenize(const std::string& s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '(' || c == ')') {
            out.emplace_back(1, c);
            ++i;
        } else {
            std::size_t j = i;
            while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])) && s[j] != '(' && s[j] != ')') ++j;
            out.push_back(s.substr(i, j - i));
            i = j;
        }
    }
    return out;
}

// Precedence climbing over the tokens, as loopy's parser: `not` > `and` > `or`.
class Parser {
public:
    Parser(std::string text, std::vector<std::string> tokens) : text_(std::move(text)), toks_(std::move(tokens)) {}

    NodePtr parse() {
        NodePtr n = expression(0);
        if (pos_ != toks_.size()) fail(cat("unexpected '", toks_[pos_], "'"));
        return n;
    }

private:
    static constexpr int kOr = 1, kAnd = 2;

    [[noreturn]] void fail(const std::string& why) const {
        user_error(error_kind::LoopyError, "invalid match expression '", text_, "': ", why);
    }

    NodePtr expression(int min_prec) {
        NodePtr left = unary();
        for (;;) {
            if (pos_ == toks_.size()) return left;
            const std::string& t = toks_[pos_];
            const int prec = t == "and" ? kAnd : t == "or" ? kOr : 0;
            if (prec == 0 || prec <= min_prec) return left;
            ++pos_;
            NodePtr right = expression(prec);
            left = std::make_shared<Match::Node>(
                Match::Node{prec == kAnd ? Kind::And : Kind::Or, "", {left, right}});
        }
    }

    NodePtr unary() {
        if (pos_ == toks_.size()) fail("unexpected end of input");
        const std::string t = toks_[pos_++];
        if (t == "not") return std::make_shared<Match::Node>(Match::Node{Kind::Not, "", {unary()}});
        if (t == "(") {
            NodePtr inner = expression(0);
            if (pos_ == toks_.size() || toks_[pos_] != ")") fail("missing ')'");
            ++pos_;
            return inner;
        }
        if (t == ")" || t == "and" || t == "or") fail(cat("unexpected '", t, "'"));
        return terminal(t);
    }

    NodePtr terminal(const std::string& t) const {
        static const std::vector<std::pair<std::string, Kind>> prefixes{
            {"id:", Kind::Id},       {"tag:", Kind::Tag},     {"writes:", Kind::Writes},
            {"reads:", Kind::Reads}, {"iname:", Kind::Iname}, {"in_kernel:", Kind::InKernel}};
        for (const auto& [prefix, kind] : prefixes)
            if (t.rfind(prefix, 0) == 0) {
                if (t.size() == prefix.size()) fail(cat("'", t, "' has no pattern"));
                return std::make_shared<Match::Node>(Match::Node{kind, t.substr(prefix.size()), {}});
            }
        if (t.find(':') != std::string::npos) fail(cat("unknown selector in '", t, "'"));
        return std::make_shared<Match::Node>(Match::Node{Kind::Id, t, {}});
    }

    std::string text_;
    std::vector<std::string> toks_;
    std::size_t pos_ = 0;
};

template <class Names>
bool any_matches(const std::string& pattern, const Names& names) {
    for (const std::string& n : names)
        if (fnmatch(pattern, n)) return true;
    return false;
}

// The value of `n` where each selector is decided by `leaf`.
template <class Leaf>
bool evaluate(const Match::Node& n, const Leaf& leaf) {
    switch (n.kind) {
        case Kind::And: return evaluate(*n.children[0], leaf) && evaluate(*n.children[1], leaf);
        case Kind::Or: return evaluate(*n.children[0], leaf) || evaluate(*n.children[1], leaf);
        case Kind::Not: return !evaluate(*n.children[0], leaf);
        default: return leaf(n);
    }
}

bool instruction_selected(const Match::Node& n, const Instruction& insn, const std::string& kernel_name) {
    switch (n.kind) {
        case Kind::Id: return fnmatch(n.pattern, insn.id);
        case Kind::Tag: return any_matches(n.pattern, insn.tags);
        case Kind::Writes: return any_matches(n.pattern, written_names(insn));
        case Kind::Reads: return any_matches(n.pattern, read_names(insn));
        case Kind::Iname: return any_matches(n.pattern, insn.within_inames);
        case Kind::InKernel: return fnmatch(n.pattern, kernel_name);
        default: internal_assert(false, "not a selector");
    }
    return false;
}

const char* selector_name(Kind kind) {
    switch (kind) {
        case Kind::Writes: return "writes:";
        case Kind::Reads: return "reads:";
        case Kind::Iname: return "iname:";
        default: return "in_kernel:";
    }
}

bool use_selected(const Match::Node& n, const RuleUse& use, const std::string& stack_match) {
    if (n.kind == Kind::Id) return fnmatch(n.pattern, use.name);
    if (n.kind == Kind::Tag) return !use.tag.empty() && fnmatch(n.pattern, use.tag);
    user_error(error_kind::LoopyError, "stack match '", stack_match, "': '", selector_name(n.kind), n.pattern,
               "' applies to instructions, not to uses of substitution rules (such as '", use.name, "')");
}

}  // namespace

Match Match::parse(const std::string& expr) {
    std::vector<std::string> toks = tokenize(expr);
    if (toks.empty() || (toks.size() == 1 && toks[0] == "*")) return Match(nullptr);
    return Match(Parser(expr, std::move(toks)).parse());
}

bool Match::operator()(const Instruction& insn, const std::string& kernel_name) const {
    return !root_ || evaluate(*root_, [&](const Node& n) { return instruction_selected(n, insn, kernel_name); });
}

bool Match::operator()(const RuleUse& use, const std::string& stack_match) const {
    return !root_ || evaluate(*root_, [&](const Node& n) { return use_selected(n, use, stack_match); });
}

bool matches(const std::string& expr, const Instruction& insn) { return Match::parse(expr)(insn); }

}  // namespace loom

namespace loom {

StackMatch StackMatch::parse(const std::string& expr) {
    StackMatch m;
    m.text_ = expr;
    std::string rest = trim(expr);
    if (!rest.empty() && rest.back() == '$') {
        m.ends_ = true;
        rest.pop_back();
    }
    for (const std::string& level : split_trimmed(rest, '>'))
        m.levels_.push_back({level == "...", Match::parse(level == "..." ? "" : level)});
    return m;
}

bool StackMatch::operator()(const Instruction& insn, const std::vector<RuleUse>& uses, const std::string& kernel_name) const {
    return matches_from(0, 0, insn, uses, kernel_name);
}

// Whether the stack from `item` (0: the instruction, n: uses[n - 1]) matches the levels from `level`. As in
// loopy, `...` leaves at least one item to the levels after it.
bool StackMatch::matches_from(std::size_t level, std::size_t item, const Instruction& insn,
                              const std::vector<RuleUse>& uses, const std::string& kernel_name) const {
    const std::size_t items = uses.size() + 1;
    if (level == levels_.size()) return !ends_ || item == items;
    if (levels_[level].any_levels) {
        for (std::size_t from = item; from < items; ++from)
            if (matches_from(level + 1, from, insn, uses, kernel_name)) return true;
        return false;
    }
    if (item == items) return false;
    const Match& m = levels_[level].match;
    const bool here = item == 0 ? m(insn, kernel_name) : m(uses[item - 1], text_);
    return here && matches_from(level + 1, item + 1, insn, uses, kernel_name);
}

}  // namespace loom
