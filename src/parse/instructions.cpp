#include "parse/instructions.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "parse/expression_parser.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using syntax::ExpressionParser;
using syntax::SourceText;
using syntax::Token;
using syntax::TokenKind;

// {{{ statements: physical lines joined while a bracket is open

std::vector<std::string_view> physical_lines(std::string_view source) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0;;) {
        std::size_t nl = source.find('\n', start);
        std::string_view line = source.substr(start, nl == std::string_view::npos ? nl : nl - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        if (nl == std::string_view::npos) return lines;
        start = nl + 1;
    }
}

std::string_view strip_comment(std::string_view line) { return line.substr(0, line.find('#')); }

bool is_open_bracket(char c) { return c == '(' || c == '[' || c == '{'; }
bool is_close_bracket(char c) { return c == ')' || c == ']' || c == '}'; }

int bracket_balance(std::string_view s) {
    int depth = 0;
    for (char c : s) depth += is_open_bracket(c) ? 1 : is_close_bracket(c) ? -1 : 0;
    return depth;
}

[[noreturn]] void fail_unclosed(const SourceText& src) {
    std::vector<std::size_t> open;
    const std::string& t = src.text();
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (is_open_bracket(t[i])) open.push_back(i);
        if (is_close_bracket(t[i]) && !open.empty()) open.pop_back();
    }
    const std::size_t at = open.empty() ? 0 : open.front();
    src.fail(at, cat("unclosed '", t[at], "'"));
}

// As loopy does, a statement whose brackets are still open continues on the next line.
std::vector<SourceText> statements(const std::vector<std::string>& sources) {
    std::vector<SourceText> out;
    SourceText pending;
    int depth = 0, line = 0;
    for (const std::string& source : sources) {
        for (std::string_view raw : physical_lines(source)) {
            ++line;
            const std::string_view code = strip_comment(raw);
            if (pending.empty() && trim(code).empty()) continue;
            pending.append_line(code, line);
            depth += bracket_balance(code);
            if (depth > 0) continue;
            out.push_back(std::move(pending));
            pending = SourceText();
            depth = 0;
        }
    }
    if (!pending.empty()) fail_unclosed(pending);
    return out;
}

// }}}

// {{{ attribute lists `{key, key=v1:v2, ...}`

/// A trimmed piece of the statement text and the offset where it starts.
struct Piece {
    std::string text;
    std::size_t offset;
};

Piece piece(const std::string& t, std::size_t begin, std::size_t end) {
    while (begin < end && std::isspace(static_cast<unsigned char>(t[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(t[end - 1]))) --end;
    return {t.substr(begin, end - begin), begin};
}

/// Splits t[begin, end) at `sep` outside quotes and parentheses (match expressions may hold either).
std::vector<Piece> split(const std::string& t, std::size_t begin, std::size_t end, char sep) {
    std::vector<Piece> pieces;
    int depth = 0;
    char quote = 0;
    std::size_t start = begin;
    for (std::size_t i = begin; i < end; ++i) {
        const char c = t[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(' || c == '[') {
            ++depth;
        } else if (c == ')' || c == ']') {
            --depth;
        } else if (c == sep && depth == 0) {
            pieces.push_back(piece(t, start, i));
            start = i + 1;
        }
    }
    pieces.push_back(piece(t, start, end));
    return pieces;
}

struct Attribute {
    Piece key;
    std::optional<Piece> value;
};

/// Where the attribute list starts: the first '{' outside brackets (expressions never hold one).
std::optional<std::size_t> attribute_start(const std::string& t) {
    int depth = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '{' && depth == 0) return i;
        depth += (t[i] == '(' || t[i] == '[') ? 1 : (t[i] == ')' || t[i] == ']') ? -1 : 0;
    }
    return std::nullopt;
}

std::vector<Attribute> attributes(const SourceText& src, std::size_t open) {
    const std::string& t = src.text();
    const std::size_t close = t.find('}', open);
    if (close == std::string::npos) src.fail(open, "unclosed '{'");
    const Piece rest = piece(t, close + 1, t.size());
    if (!rest.text.empty())
        src.fail(rest.offset, cat("unexpected text '", rest.text, "' after the attributes"));
    std::vector<Attribute> out;
    for (const Piece& p : split(t, open + 1, close, ',')) {
        if (p.text.empty()) src.fail(p.offset, "empty attribute");
        const std::size_t eq = p.text.find('=');
        if (eq == std::string::npos) {
            out.push_back({p, std::nullopt});
            continue;
        }
        const std::size_t eq_at = p.offset + eq;
        out.push_back({piece(t, p.offset, eq_at), piece(t, eq_at + 1, p.offset + p.text.size())});
    }
    return out;
}

struct AttributeContext {
    const SourceText& src;
    Instruction& insn;
    bool inames_given = false;  // `inames=` decides finality over enclosing `for` blocks
};

const Piece& value_of(const AttributeContext& c, const Attribute& a) {
    if (!a.value || a.value->text.empty())
        c.src.fail(a.key.offset, cat("attribute '", a.key.text, "' needs a value"));
    return *a.value;
}

/// The ':'-separated entries of a value, empty ones dropped.
std::vector<Piece> entries(const AttributeContext& c, const Piece& value) {
    std::vector<Piece> out;
    for (Piece& p : split(c.src.text(), value.offset, value.offset + value.text.size(), ':'))
        if (!p.text.empty()) out.push_back(std::move(p));
    return out;
}

std::vector<Piece> entries(const AttributeContext& c, const Attribute& a) { return entries(c, value_of(c, a)); }

/// The value after an optional leading marker character ('*' of dep, '+' of inames).
std::optional<Piece> after_marker(const AttributeContext& c, const Piece& value, char marker) {
    if (value.text.front() != marker) return std::nullopt;
    return piece(c.src.text(), value.offset + 1, value.offset + value.text.size());
}

std::set<std::string> entry_set(const AttributeContext& c, const Attribute& a) {
    std::set<std::string> out;
    for (const Piece& p : entries(c, a)) out.insert(p.text);
    return out;
}

void set_id(AttributeContext& c, const Attribute& a) { c.insn.id = value_of(c, a).text; }
void set_id_prefix(AttributeContext& c, const Attribute& a) { c.insn.id_prefix = value_of(c, a).text; }
void set_dep_query(AttributeContext& c, const Attribute& a) { c.insn.dep_query = value_of(c, a).text; }
void set_tags(AttributeContext& c, const Attribute& a) { c.insn.tags = entry_set(c, a); }
void set_groups(AttributeContext& c, const Attribute& a) { c.insn.groups = entry_set(c, a); }
void set_conflicts(AttributeContext& c, const Attribute& a) { c.insn.conflicts_with_groups = entry_set(c, a); }

// The optional '@scope' suffix is left in the text, as the kernel builder resolves the whole query.
void set_nosync_query(AttributeContext& c, const Attribute& a) { c.insn.nosync_query = value_of(c, a).text; }

// `dep=*a:b`: the leading '*' says the list is complete (no single-writer heuristic).
void add_deps(AttributeContext& c, const Attribute& a) {
    Piece value = value_of(c, a);
    if (std::optional<Piece> rest = after_marker(c, value, '*')) {
        c.insn.depends_on_is_final = true;
        value = *rest;
    }
    for (const Piece& p : entries(c, value)) c.insn.depends_on.insert(p.text);
}

// `nosync=a@local:b*`: entries with an optional scope, `@any` when none is given.
void add_nosync(AttributeContext& c, const Attribute& a) {
    static const std::map<std::string, SyncScope> scopes{
        {"local", SyncScope::Local}, {"global", SyncScope::Global}, {"any", SyncScope::Any}};
    for (const Piece& p : entries(c, a)) {
        const std::size_t at = p.text.find('@');
        NoSync ns{trim(p.text.substr(0, at)), SyncScope::Any};
        if (ns.id_pattern.empty())
            c.src.fail(p.offset, cat("nosync entry '", p.text, "' names no instruction"));
        if (at != std::string::npos) {
            auto scope = scopes.find(trim(p.text.substr(at + 1)));
            if (scope == scopes.end())
                c.src.fail(p.offset + at + 1, cat("unknown nosync scope in '", p.text,
                                                  "' (allowed scopes are 'local', 'global', 'any')"));
            ns.scope = scope->second;
        }
        c.insn.no_sync_with.push_back(std::move(ns));
    }
}

void set_priority(AttributeContext& c, const Attribute& a) {
    const Piece& v = value_of(c, a);
    const char* end = v.text.data() + v.text.size();
    auto [ptr, ec] = std::from_chars(v.text.data(), end, c.insn.priority);
    if (ec != std::errc() || ptr != end) c.src.fail(v.offset, cat("priority '", v.text, "' is not an integer"));
}

// `if=a:b`: each entry is an expression (usually a variable) that must hold for the instruction to run.
void add_predicates(AttributeContext& c, const Attribute& a) {
    for (const Piece& p : entries(c, a)) {
        ExpressionParser parser(c.src, p.offset, p.offset + p.text.size());
        c.insn.predicates.push_back(parser.expression());
        parser.expect_end();
    }
}

// `inames=i:j` fixes the loops; `inames=+i:j` only adds to those the kernel builder finds.
void set_inames(AttributeContext& c, const Attribute& a) {
    Piece value = value_of(c, a);
    std::optional<Piece> rest = after_marker(c, value, '+');
    c.insn.within_inames_is_final = !rest;
    c.inames_given = true;
    for (const Piece& p : entries(c, rest ? *rest : value)) c.insn.within_inames.insert(p.text);
}

void add_dup(AttributeContext& c, const Attribute& a) {
    for (const Piece& p : entries(c, a)) c.insn.dup.push_back(p.text);
}

// `atomic` is an atomic update, `atomic=init` an atomic store (the only directive loopy's syntax has).
void set_atomic(AttributeContext& c, const Attribute& a) {
    if (c.insn.kind != InsnKind::Assignment || c.insn.assignees.size() != 1)
        c.src.fail(a.key.offset, "'atomic' needs an assignment with exactly one left-hand side");
    if (a.value) {
        const Piece& v = value_of(c, a);
        if (v.text != "init")
            c.src.fail(v.offset, cat("atomicity directive '", v.text, "' not understood (expected 'init')"));
        c.insn.atomic_init = true;
    }
    c.insn.atomic = true;
}

void set_mem_kind(AttributeContext& c, const Attribute& a) {
    const Piece& v = value_of(c, a);
    if (c.insn.kind != InsnKind::Barrier) c.src.fail(a.key.offset, "'mem_kind' is only allowed on barriers");
    std::string kind = v.text;
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (kind != "local" && kind != "global")
        c.src.fail(v.offset, cat("unknown memory kind '", v.text, "' (expected 'local' or 'global')"));
    c.insn.mem_kind = kind;
}

using AttributeHandler = void (*)(AttributeContext&, const Attribute&);

void apply(AttributeContext& c, const Attribute& a) {
    static const std::map<std::string, AttributeHandler> handlers{
        {"id", set_id},
        {"id_prefix", set_id_prefix},
        {"dep", add_deps},
        {"dep_query", set_dep_query},
        {"nosync", add_nosync},
        {"nosync_query", set_nosync_query},
        {"priority", set_priority},
        {"if", add_predicates},
        {"tags", set_tags},
        {"groups", set_groups},
        {"conflicts_grp", set_conflicts},
        {"conflicts", set_conflicts},  // the spelling loopy's code accepts
        {"inames", set_inames},
        {"dup", add_dup},
        {"atomic", set_atomic},
        {"mem_kind", set_mem_kind},
    };
    auto h = handlers.find(a.key.text);
    if (h == handlers.end()) c.src.fail(a.key.offset, cat("unknown instruction attribute '", a.key.text, "'"));
    h->second(c, a);
}

// }}}

// {{{ statements

/// An open `for`, `if` or `with` block.
struct Block {
    bool is_if = false;
    bool is_with = false;
    std::vector<Attribute> shared;    // with: the attributes every instruction inside gets
    SourceText opener;                // the statement that opened it, for "never closed" errors
    std::size_t keyword_offset = 0;
    std::vector<std::string> inames;  // for
    std::vector<ExprPtr> conditions;  // if: the conditions of the branches so far
    std::vector<ExprPtr> predicates;  // if: what the current branch requires
    bool in_else = false;
};

/// A left-hand side entry, with its `<>`/`<dtype>` declaration when it has one.
struct Assignee {
    ExprPtr target;
    std::optional<DType> declared;
    std::size_t offset;
};

class InstructionParser {
public:
    void statement(const SourceText& src);

    ParsedInstructions finish() {
        if (!blocks_.empty()) {
            const Block& b = blocks_.back();
            b.opener.fail(b.keyword_offset, cat("'", b.is_if ? "if" : b.is_with ? "with" : "for",
                                                "' block is never closed by 'end'"));
        }
        return std::move(out_);
    }

private:
    void for_block(ExpressionParser& p, const SourceText& src);
    void with_block(ExpressionParser& p, const SourceText& src, std::size_t attrs);
    void if_block(ExpressionParser& p, const SourceText& src);
    void next_branch(ExpressionParser& p, const Token& keyword);
    void end_block(ExpressionParser& p, const Token& keyword);
    void special(ExpressionParser& p, const SourceText& src, std::optional<std::size_t> attrs);
    void assignment_or_rule(ExpressionParser& p, const SourceText& src, std::optional<std::size_t> attrs);
    void assignment(ExpressionParser& p, const SourceText& src, std::vector<Assignee> lhs,
                    std::optional<std::size_t> attrs);
    void substitution(ExpressionParser& p, const SourceText& src, const std::vector<Assignee>& lhs);
    void add(Instruction insn, const SourceText& src, std::optional<std::size_t> attrs);

    ParsedInstructions out_;
    std::vector<Block> blocks_;
};

void InstructionParser::statement(const SourceText& src) {
    const std::optional<std::size_t> attrs = attribute_start(src.text());
    ExpressionParser p(src, 0, attrs.value_or(src.text().size()));
    const Token first = p.peek();
    const bool keyword = first.kind == TokenKind::Identifier;
    const bool alone = p.peek(1).kind == TokenKind::End;
    const bool block_statement =
        keyword && (first.text == "for" || first.text == "if" || first.text == "elif" ||
                    ((first.text == "else" || first.text == "end") && alone));
    if (keyword && first.text == "with" && alone && attrs) return with_block(p, src, *attrs);
    if (block_statement && attrs) src.fail(*attrs, cat("attributes are not allowed on '", first.text, "'"));
    if (first.is("...")) return special(p, src, attrs);
    if (!block_statement) return assignment_or_rule(p, src, attrs);
    if (first.text == "for") return for_block(p, src);
    if (first.text == "if") return if_block(p, src);
    if (first.text == "end") return end_block(p, first);
    next_branch(p, first);
}

void InstructionParser::for_block(ExpressionParser& p, const SourceText& src) {
    Block b;
    b.opener = src;
    b.keyword_offset = p.take().offset;
    do {
        b.inames.push_back(p.expect_identifier());
    } while (p.accept(","));
    p.expect_end();
    blocks_.push_back(std::move(b));
}

// `with {dep=..., id_prefix=...}`: attributes every instruction inside gets, as loopy's with-blocks. Those
// that name one instruction cannot be shared.
void InstructionParser::with_block(ExpressionParser& p, const SourceText& src, std::size_t attrs) {
    Block b;
    b.opener = src;
    b.keyword_offset = p.take().offset;
    b.is_with = true;
    b.shared = attributes(src, attrs);
    for (const Attribute& a : b.shared)
        if (a.key.text == "id" || a.key.text == "priority" || a.key.text == "dup")
            src.fail(a.key.offset, cat("'", a.key.text, "' option may not be specified in a 'with' block"));
    blocks_.push_back(std::move(b));
}

void InstructionParser::if_block(ExpressionParser& p, const SourceText& src) {
    Block b;
    b.is_if = true;
    b.opener = src;
    b.keyword_offset = p.take().offset;
    ExprPtr cond = p.expression();
    p.expect_end();
    b.conditions = {cond};
    b.predicates = {cond};
    blocks_.push_back(std::move(b));
}

// `elif c` runs when no earlier branch's condition held and c does; `else` when none held.
void InstructionParser::next_branch(ExpressionParser& p, const Token& keyword) {
    p.take();
    if (blocks_.empty() || !blocks_.back().is_if) p.fail(keyword, cat("'", keyword.text, "' without 'if'"));
    Block& b = blocks_.back();
    if (b.in_else) p.fail(keyword, cat("'", keyword.text, "' after 'else'"));
    b.predicates.clear();
    for (const ExprPtr& c : b.conditions) b.predicates.push_back(unary("not", c));
    if (keyword.text == "else") {
        b.in_else = true;
        return;
    }
    ExprPtr cond = p.expression();
    p.expect_end();
    b.conditions.push_back(cond);
    b.predicates.push_back(cond);
}

void InstructionParser::end_block(ExpressionParser& p, const Token& keyword) {
    if (blocks_.empty()) p.fail(keyword, "'end' without 'for', 'if' or 'with'");
    blocks_.pop_back();
}

// `... gbarrier`, `... lbarrier`, `... nop`.
void InstructionParser::special(ExpressionParser& p, const SourceText& src, std::optional<std::size_t> attrs) {
    const Token dots = p.take();
    const Token kind = p.peek();
    Instruction insn;
    insn.line = src.position(dots.offset).first;
    if (kind.is("gbarrier") || kind.is("lbarrier")) {
        insn.kind = InsnKind::Barrier;
        insn.barrier_kind = kind.text == "gbarrier" ? "global" : "local";
    } else if (kind.is("nop")) {
        insn.kind = InsnKind::Nop;
    } else {
        p.fail(kind, cat("unknown special instruction '... ", kind.text,
                         "' (expected gbarrier, lbarrier or nop)"));
    }
    p.take();
    p.expect_end();
    add(std::move(insn), src, attrs);
}

void InstructionParser::assignment_or_rule(ExpressionParser& p, const SourceText& src,
                                           std::optional<std::size_t> attrs) {
    std::vector<Assignee> lhs;
    do {
        Assignee a{nullptr, std::nullopt, p.peek().offset};
        if (p.accept("<")) {
            if (p.accept(">")) {
                a.declared = DType::Unknown;
            } else {
                const Token type = p.peek();
                a.declared = dtype_from_name(p.expect_identifier());
                if (!a.declared) p.fail(type, cat("unknown type '", type.text, "'"));
                p.expect(">");
            }
        }
        a.target = p.postfix();
        lhs.push_back(std::move(a));
    } while (p.accept(","));
    if (p.peek().is(":=")) {
        if (attrs) src.fail(*attrs, "attributes are not allowed on substitution rules");
        return substitution(p, src, lhs);
    }
    if (!p.peek().is("=")) p.unexpected(p.peek());
    assignment(p, src, std::move(lhs), attrs);
}

// Instruction has one declaration for all its assignees, so a multi-assignment declares all or none,
// with one type: `<> v, <> i = argmax(...)`.
void InstructionParser::assignment(ExpressionParser& p, const SourceText& src, std::vector<Assignee> lhs,
                                   std::optional<std::size_t> attrs) {
    Instruction insn;
    insn.line = src.position(lhs.front().offset).first;
    for (Assignee& a : lhs) {
        const ExprKind kind = a.target->kind;
        if (kind != ExprKind::Var && kind != ExprKind::Subscript && kind != ExprKind::SubArrayRef)
            src.fail(a.offset, cat("cannot assign to '", to_string(a.target),
                                   "' (expected a variable, a subscript or a sub-array reference)"));
        if (a.declared != lhs.front().declared)
            src.fail(a.offset, "all left-hand sides of one instruction must declare the same temporary type, or none");
        insn.assignees.push_back(std::move(a.target));
    }
    insn.declares_temporary = lhs.front().declared.has_value();
    insn.temp_var_type = lhs.front().declared.value_or(DType::Unknown);
    p.take();  // '='
    insn.expression = p.expression();
    p.expect_end();
    add(std::move(insn), src, attrs);
}

// `f(x, y) := expr` or `f := expr`.
void InstructionParser::substitution(ExpressionParser& p, const SourceText& src,
                                     const std::vector<Assignee>& lhs) {
    const Assignee& a = lhs.front();
    const ExprPtr& t = a.target;
    const bool args_are_names = std::all_of(t->args.begin(), t->args.end(),
                                            [](const ExprPtr& e) { return e->kind == ExprKind::Var; });
    const bool name_or_call = t->kind == ExprKind::Var || (t->kind == ExprKind::Call && args_are_names);
    if (lhs.size() != 1 || a.declared || !name_or_call)
        src.fail(a.offset, "a substitution rule's left-hand side must be a name, or a call with names as arguments");
    SubstitutionRule rule{t->name, {}, nullptr};
    for (const ExprPtr& e : t->args) rule.arguments.push_back(e->name);
    p.take();  // ':='
    rule.expression = p.expression();
    p.expect_end();
    for (const SubstitutionRule& r : out_.substitutions)
        if (r.name == rule.name)
            src.fail(a.offset, cat("substitution rule '", rule.name, "' is defined twice"));
    out_.substitutions.push_back(std::move(rule));
}

// Attributes, then the enclosing blocks. As in loopy, an instruction inside `for` blocks runs in exactly
// those loops (within_inames_is_final) unless `inames=+...` asks the builder to add the ones it finds.
void InstructionParser::add(Instruction insn, const SourceText& src, std::optional<std::size_t> attrs) {
    AttributeContext c{src, insn};
    for (const Block& b : blocks_) {
        if (!b.is_with) continue;
        AttributeContext shared{b.opener, insn};
        for (const Attribute& a : b.shared) apply(shared, a);
        c.inames_given = c.inames_given || shared.inames_given;
    }
    if (attrs)
        for (const Attribute& a : attributes(src, *attrs)) apply(c, a);
    std::vector<ExprPtr> predicates;
    bool in_loops = false;
    for (const Block& b : blocks_) {
        in_loops |= !b.inames.empty();
        insn.within_inames.insert(b.inames.begin(), b.inames.end());
        predicates.insert(predicates.end(), b.predicates.begin(), b.predicates.end());
    }
    if (!c.inames_given) insn.within_inames_is_final = in_loops;
    insn.predicates.insert(insn.predicates.begin(), predicates.begin(), predicates.end());
    out_.instructions.push_back(std::move(insn));
}

// }}}

}  // namespace

ParsedInstructions parse_instructions(const std::vector<std::string>& sources) {
    InstructionParser parser;
    for (const SourceText& s : statements(sources)) parser.statement(s);
    return parser.finish();
}

ExprPtr parse_expression(std::string_view text) {
    const SourceText src = SourceText::from_text(text, "expression");
    ExpressionParser p(src, 0, src.text().size());
    ExprPtr e = p.expression();
    p.expect_end();
    return e;
}

}  // namespace loom
