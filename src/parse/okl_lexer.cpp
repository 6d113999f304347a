#include "parse/okl_lexer.h"

#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "parse/okl_parser.h"

namespace loom {

const std::string& OklToken::file_name() const {
    static const std::string unknown = "<okl>";
    return file ? *file : unknown;
}

namespace {

bool word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Lexer {
public:
    Lexer(std::string_view text, std::shared_ptr<const std::string> file) : s_(text), file_(std::move(file)) {}

    std::vector<OklToken> run() {
        std::vector<OklToken> out;
        bool line_start = true;
        while (true) {
            const std::size_t before = i_;
            line_start |= skip_space();
            if (i_ >= s_.size()) break;
            const bool spaced = i_ != before;
            OklToken t = next();
            t.line_start = line_start;
            t.space_before = spaced;
            line_start = false;
            out.push_back(std::move(t));
        }
        OklToken end{OklTok::End, "", file_, line_, true, false};
        out.push_back(std::move(end));
        return out;
    }

private:
    char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

    // Skips blanks, comments and line continuations; true when a line ended.
    bool skip_space() {
        bool newline = false;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '\n') {
                newline = true;
                ++line_;
                ++i_;
            } else if (c == '\\' && (at(i_ + 1) == '\n' || (at(i_ + 1) == '\r' && at(i_ + 2) == '\n'))) {
                i_ += at(i_ + 1) == '\n' ? 2 : 3;
                ++line_;
            } else if (std::isspace(static_cast<unsigned char>(c))) {
                ++i_;
            } else if (c == '/' && at(i_ + 1) == '/') {
                while (i_ < s_.size() && s_[i_] != '\n') ++i_;
            } else if (c == '/' && at(i_ + 1) == '*') {
                block_comment();
            } else {
                break;
            }
        }
        return newline;
    }

    void block_comment() {
        const int start = line_;
        i_ += 2;
        while (i_ < s_.size() && !(s_[i_] == '*' && at(i_ + 1) == '/')) line_ += s_[i_++] == '\n';
        if (i_ >= s_.size()) okl_error(*file_, start, "unterminated comment");
        i_ += 2;
    }

    OklToken token(OklTok kind, std::size_t start) {
        return OklToken{kind, std::string(s_.substr(start, i_ - start)), file_, line_, false, false};
    }

    OklToken next() {
        const std::size_t start = i_;
        const char c = s_[i_];
        if (word_start(c)) {
            while (word_char(at(i_))) ++i_;
            return token(OklTok::Ident, start);
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
            // A preprocessing number: digits, letters, '.', and a sign after an exponent letter.
            while (word_char(at(i_)) || at(i_) == '.' ||
                   ((at(i_) == '+' || at(i_) == '-') && std::string_view("eEpP").find(at(i_ - 1)) != std::string_view::npos))
                ++i_;
            return token(OklTok::Number, start);
        }
        if (c == '"' || c == '\'') return quoted(c, start);
        return punct(start);
    }

    OklToken quoted(char quote, std::size_t start) {
        ++i_;
        while (i_ < s_.size() && s_[i_] != quote && s_[i_] != '\n') i_ += s_[i_] == '\\' ? 2 : 1;
        if (i_ >= s_.size() || s_[i_] != quote) okl_error(*file_, line_, "unterminated ", quote == '"' ? "string" : "character", " literal");
        ++i_;
        return token(quote == '"' ? OklTok::String : OklTok::Char, start);
    }

    OklToken punct(std::size_t start) {
        static const std::array<std::string_view, 24> multi{
            "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
            "||",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "##", "::"};
        for (std::string_view m : multi) {
            if (s_.substr(i_, m.size()) == m) {
                i_ += m.size();
                return token(OklTok::Punct, start);
            }
        }
        if (std::string_view("+-*/%<>=!&|^~?:;,.()[]{}#@").find(s_[i_]) == std::string_view::npos) {
            const unsigned ch = static_cast<unsigned char>(s_[i_]);
            okl_error(*file_, line_, "unexpected character ", ch < 32 || ch > 126 ? cat("code ", ch) : cat("'", s_[i_], "'"));
        }
        ++i_;
        return token(OklTok::Punct, start);
    }

    std::string_view s_;
    std::shared_ptr<const std::string> file_;
    std::size_t i_ = 0;
    int line_ = 1;
};

struct Macro {
    bool function_like = false;
    std::vector<std::string> params;
    std::vector<OklToken> body;
};

// Bounds that keep hostile input (self-feeding macros, include cycles, exponential expansion) an error.
constexpr int kMaxExpansionDepth = 200;
constexpr std::size_t kMaxTokens = 250'000;
constexpr int kMaxIncludeDepth = 64;

using Line = std::vector<OklToken>;

class Preprocessor {
public:
    explicit Preprocessor(const OklOptions& options) : options_(options) {
        for (const auto& [name, value] : options.defines) {
            auto file = std::make_shared<const std::string>("<defines>");
            Macro m;
            m.body = okl_lex(value, file);
            m.body.pop_back();
            macros_[name] = std::move(m);
        }
    }

    std::vector<OklToken> run(const std::string& source, const std::string& file) {
        process(source, file, 0);
        flush();
        OklToken end{OklTok::End, "", std::make_shared<const std::string>(file), last_line_, true, false};
        out_.push_back(std::move(end));
        return std::move(out_);
    }

private:
    struct Cond {
        bool active;      // this branch's lines are kept
        bool taken;       // some branch of the group was active
        bool parent_active;
        bool in_else;
        OklToken where;
    };

    void process(const std::string& source, const std::string& file, int depth) {
        auto name = std::make_shared<const std::string>(file);
        const std::vector<OklToken> toks = okl_lex(source, name);
        const std::size_t conds_before = conds_.size();
        std::size_t i = 0;
        while (toks[i].kind != OklTok::End) {
            Line line{toks[i++]};
            while (toks[i].kind != OklTok::End && !toks[i].line_start) line.push_back(toks[i++]);
            if (line[0].is("#"))
                directive(line, file, depth);
            else if (active())
                pending_.insert(pending_.end(), line.begin(), line.end());
        }
        last_line_ = toks.back().line;
        if (conds_.size() != conds_before) okl_error(conds_.back().where, "unterminated #", conds_.back().where.text);
    }

    bool active() const { return conds_.empty() || conds_.back().active; }

    void directive(const Line& line, const std::string& file, int depth) {
        if (line.size() == 1) return;  // the null directive
        const OklToken& d = line[1];
        const std::string& name = d.text;
        if (name == "if" || name == "ifdef" || name == "ifndef") return open_if(line);
        if (name == "elif" || name == "else") return next_branch(line);
        if (name == "endif") {
            if (conds_.empty()) okl_error(d, "#endif without #if");
            conds_.pop_back();
            return;
        }
        if (!active()) return;
        flush();
        if (name == "define") return define(line);
        if (name == "undef") return void(macros_.erase(name_at(line, 2)));
        if (name == "include") return include(line, file, depth);
        if (name == "error") okl_error(d, "#error", rest_text(line, 2));
        if (name == "pragma" || name == "line" || name == "warning") return;
        okl_error(d, "unknown preprocessor directive '#", name, "'");
    }

    static std::string rest_text(const Line& line, std::size_t from) {
        std::string s;
        for (std::size_t k = from; k < line.size(); ++k) s += " " + line[k].text;
        return s;
    }

    static const std::string& name_at(const Line& line, std::size_t k) {
        if (k >= line.size() || line[k].kind != OklTok::Ident)
            okl_error(line[k < line.size() ? k : line.size() - 1], "#", line[1].text, " needs a macro name");
        return line[k].text;
    }

    void open_if(const Line& line) {
        const bool parent = active();
        bool value = false;
        if (parent) {
            if (line[1].text == "if")
                value = condition(line);
            else
                value = macros_.count(name_at(line, 2)) == (line[1].text == "ifdef" ? 1u : 0u);
        }
        conds_.push_back(Cond{parent && value, parent && value, parent, false, line[1]});
    }

    void next_branch(const Line& line) {
        if (conds_.empty()) okl_error(line[1], "#", line[1].text, " without #if");
        Cond& c = conds_.back();
        if (c.in_else) okl_error(line[1], "#", line[1].text, " after #else");
        if (line[1].text == "else") {
            c.in_else = true;
            c.active = c.parent_active && !c.taken;
        } else {
            c.active = c.parent_active && !c.taken && condition(line);
        }
        c.taken |= c.active;
    }

    // `#if` expression: `defined` first, then macros, then the remaining names are 0 (true is 1).
    bool condition(const Line& line) {
        std::vector<OklToken> toks;
        for (std::size_t k = 2; k < line.size(); ++k) {
            if (!line[k].is("defined")) {
                toks.push_back(line[k]);
                continue;
            }
            const bool paren = k + 1 < line.size() && line[k + 1].is("(");
            const std::string& n = name_at(line, k + 1 + paren);
            OklToken v = line[k];
            v.kind = OklTok::Number;
            v.text = macros_.count(n) ? "1" : "0";
            toks.push_back(v);
            k += 1 + 2 * paren;
            if (paren && (k >= line.size() || !line[k].is(")"))) okl_error(line[k - 1], "expected ')' after defined(", n);
        }
        std::vector<OklToken> expanded = expand(toks, {}, 0);
        for (OklToken& t : expanded) {
            if (t.kind != OklTok::Ident) continue;
            t.text = t.text == "true" ? "1" : "0";
            t.kind = OklTok::Number;
        }
        if (expanded.empty()) okl_error(line[1], "#", line[1].text, " needs an expression");
        OklToken end{OklTok::End, "", line[1].file, line[1].line, false, false};
        expanded.push_back(end);
        return okl_constant_condition(expanded) != 0;
    }

    void define(const Line& line) {
        const std::string& name = name_at(line, 2);
        if (name == "defined") okl_error(line[2], "'defined' cannot be a macro name");
        Macro m;
        std::size_t k = 3;
        // A '(' right after the name, with no space between, makes a function-like macro.
        if (k < line.size() && line[k].is("(") && !line[k].space_before) {
            m.function_like = true;
            ++k;
            while (k < line.size() && !line[k].is(")")) {
                if (line[k].kind != OklTok::Ident && !line[k].is("...")) okl_error(line[k], "bad parameter in macro '", name, "'");
                m.params.push_back(line[k].is("...") ? "__VA_ARGS__" : line[k].text);
                ++k;
                if (k < line.size() && line[k].is(",")) ++k;
            }
            if (k >= line.size()) okl_error(line[2], "unterminated parameter list of macro '", name, "'");
            ++k;
        }
        m.body.assign(line.begin() + static_cast<long>(k), line.end());
        macros_[name] = std::move(m);
    }

    void include(const Line& line, const std::string& file, int depth) {
        // System headers (<math.h>) declare what Loom already knows: OKL's math functions are builtins.
        if (line.size() >= 3 && line[2].is("<")) return;
        if (line.size() < 3 || line[2].kind != OklTok::String) okl_error(line[1], "#include needs a \"file\" or <header>");
        if (depth >= kMaxIncludeDepth) okl_error(line[1], "#include nested more than ", kMaxIncludeDepth, " deep");
        if (!options_.read_files) okl_error(line[1], "#include \"...\" reads a file, which a sandbox does not allow");
        const std::string want = line[2].text.substr(1, line[2].text.size() - 2);
        std::vector<std::filesystem::path> dirs{std::filesystem::path(file).parent_path()};
        for (const std::string& p : options_.include_paths) dirs.emplace_back(p);
        for (const std::filesystem::path& dir : dirs) {
            const std::filesystem::path candidate = dir / want;
            std::ifstream in(candidate, std::ios::binary);
            if (!in || std::filesystem::is_directory(candidate)) continue;
            std::stringstream text;
            text << in.rdbuf();
            process(text.str(), candidate.string(), depth + 1);
            return;
        }
        okl_error(line[2], "cannot find include file \"", want, "\"");
    }

    void flush() {
        if (pending_.empty()) return;
        std::vector<OklToken> expanded = expand(pending_, {}, 0);
        out_.insert(out_.end(), expanded.begin(), expanded.end());
        pending_.clear();
    }

    // Reads the arguments of a function-like macro call whose '(' is at toks[k]; returns the index after ')'.
    static std::size_t arguments(const std::vector<OklToken>& toks, std::size_t k, std::vector<std::vector<OklToken>>& args) {
        int nesting = 0;
        args.emplace_back();
        for (++k; k < toks.size(); ++k) {
            const OklToken& t = toks[k];
            if (t.is(")") && nesting == 0) return k + 1;
            if (t.is(",") && nesting == 0) {
                args.emplace_back();
                continue;
            }
            nesting += t.is("(") - t.is(")");
            args.back().push_back(t);
        }
        okl_error(toks[k - 1], "unterminated macro call");
    }

    std::vector<OklToken> expand(const std::vector<OklToken>& toks, const std::set<std::string>& disabled, int depth) {
        if (depth > kMaxExpansionDepth) okl_error(toks.empty() ? OklToken{} : toks[0], "macro expansion nested more than ", kMaxExpansionDepth, " deep");
        std::vector<OklToken> out;
        for (std::size_t k = 0; k < toks.size();) {
            const OklToken& t = toks[k];
            auto m = t.kind == OklTok::Ident && !disabled.count(t.text) ? macros_.find(t.text) : macros_.end();
            if (m == macros_.end() || (m->second.function_like && !(k + 1 < toks.size() && toks[k + 1].is("(")))) {
                out.push_back(t);
                ++k;
                continue;
            }
            std::vector<std::vector<OklToken>> args;
            k = m->second.function_like ? arguments(toks, k + 1, args) : k + 1;
            std::set<std::string> inner = disabled;
            inner.insert(t.text);
            std::vector<OklToken> body = substitute(m->second, args, t, disabled, depth);
            for (OklToken& b : body) b.line = t.line, b.file = t.file;  // errors point at the use
            std::vector<OklToken> expanded = expand(body, inner, depth + 1);
            out.insert(out.end(), expanded.begin(), expanded.end());
            if (out.size() > kMaxTokens) okl_error(t, "macro expansion produces more than ", kMaxTokens, " tokens");
        }
        return out;
    }

    std::vector<OklToken> substitute(const Macro& m, std::vector<std::vector<OklToken>>& args, const OklToken& use,
                                     const std::set<std::string>& disabled, int depth) {
        if (m.function_like && args.size() == 1 && args[0].empty() && m.params.empty()) args.clear();
        const bool variadic = !m.params.empty() && m.params.back() == "__VA_ARGS__";
        if (variadic && args.size() > m.params.size()) {
            for (std::size_t a = m.params.size(); a < args.size(); ++a) {
                OklToken comma = use;
                comma.kind = OklTok::Punct;
                comma.text = ",";
                args[m.params.size() - 1].push_back(comma);
                args[m.params.size() - 1].insert(args[m.params.size() - 1].end(), args[a].begin(), args[a].end());
            }
            args.resize(m.params.size());
        }
        if (m.function_like && args.size() != m.params.size())
            okl_error(use, "macro '", use.text, "' takes ", m.params.size(), " arguments, given ", args.size());
        auto param = [&m](const OklToken& t) -> int {
            for (std::size_t p = 0; p < m.params.size(); ++p)
                if (t.kind == OklTok::Ident && t.text == m.params[p]) return static_cast<int>(p);
            return -1;
        };
        std::vector<OklToken> out;
        const std::vector<OklToken>& b = m.body;
        for (std::size_t k = 0; k < b.size(); ++k) {
            const bool pasted = (k + 1 < b.size() && b[k + 1].is("##")) || (k > 0 && b[k - 1].is("##"));
            if (b[k].is("##")) continue;
            // Strings have no use in OKL kernels: `#x` would make one.
            if (b[k].is("#") && k + 1 < b.size() && param(b[k + 1]) >= 0) okl_error(use, "stringizing (#", b[k + 1].text, ") in macro '", use.text, "' is not supported");
            std::vector<OklToken> piece;
            if (int p = param(b[k]); p >= 0)
                piece = pasted ? args[static_cast<std::size_t>(p)] : expand(args[static_cast<std::size_t>(p)], disabled, depth + 1);
            else
                piece = {b[k]};
            if (k > 0 && b[k - 1].is("##") && !out.empty() && !piece.empty()) {
                paste(out.back(), piece.front());
                piece.erase(piece.begin());
            }
            out.insert(out.end(), piece.begin(), piece.end());
        }
        return out;
    }

    // `a ## b`: the two tokens become the one token their texts spell.
    static void paste(OklToken& left, const OklToken& right) {
        std::vector<OklToken> re = okl_lex(left.text + right.text, left.file);
        if (re.size() != 2) okl_error(left, "pasting '", left.text, "' and '", right.text, "' does not give one token");
        const int line = left.line;
        left = re[0];
        left.line = line;
    }

    const OklOptions& options_;
    std::map<std::string, Macro> macros_;
    std::vector<Cond> conds_;
    std::vector<OklToken> pending_;
    std::vector<OklToken> out_;
    int last_line_ = 1;
};

}  // namespace

std::vector<OklToken> okl_lex(std::string_view text, const std::shared_ptr<const std::string>& file) {
    return Lexer(text, file).run();
}

std::vector<OklToken> okl_preprocess(const std::string& source, const std::string& file, const OklOptions& options) {
    return Preprocessor(options).run(source, file);
}

}  // namespace loom
