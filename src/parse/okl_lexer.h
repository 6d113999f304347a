// OKL source text to tokens: the C lexer and preprocessor in front of the OKL parser (parse/okl_parser.h).
// Every error is an OKLError whose message starts with `file:line:` and whose line is set.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace loom {

enum class OklTok { Ident, Number, String, Char, Punct, End };

struct OklToken {
    OklTok kind = OklTok::End;
    std::string text;
    std::shared_ptr<const std::string> file;  // shared by every token of one file
    int line = 0;
    bool line_start = false;  // first token of its source line (where `#` starts a directive)
    bool space_before = false;  // blanks or comments precede it (`#define F(x)` versus `#define F (x)`)

    bool is(std::string_view s) const { return (kind == OklTok::Punct || kind == OklTok::Ident) && text == s; }
    const std::string& file_name() const;
};

/// Raises an OKLError at `file:line`.
template <class... Parts>
[[noreturn]] void okl_error(const std::string& file, int line, const Parts&... parts) {
    throw Error(error_kind::OKLError, cat(file, ":", line, ": ", parts...), line);
}

/// Raises an OKLError at the token's position.
template <class... Parts>
[[noreturn]] void okl_error(const OklToken& at, const Parts&... parts) {
    okl_error(at.file_name(), at.line, parts...);
}

/// Splits `text` into tokens (comments and line continuations removed); the last token is End.
std::vector<OklToken> okl_lex(std::string_view text, const std::shared_ptr<const std::string>& file);

struct OklOptions {
    std::map<std::string, std::string> defines;  // injected as `#define NAME VALUE`
    std::vector<std::string> include_paths;      // searched by `#include "..."` after the including file's folder
    bool read_files = true;                      // false: `#include "..."` is an OKLError (a sandbox reads no file)
    /// Pointer arguments get the shapes their accesses imply (lp.auto) instead of an unknown extent (lp.none):
    /// calls then check the arrays' sizes and allocate outputs, but every index must be affine.
    bool auto_shapes = false;
    /// Integer arguments fixed to these values where the kernel uses them (the kernel is specialized, as by
    /// fix_parameters, but before lowering: products such as `row * cols` become affine).
    std::map<std::string, long> parameters;
};

/// Runs the C preprocessor over `source` (named `file` in errors): `#define` (object- and function-like, with
/// `##`; `#` stringizing is an error), `#undef`, `#if/#ifdef/#ifndef/#elif/#else/#endif`, `#include "..."`,
/// `#error`; `#pragma` and `#include <...>` are ignored.
/// Returns the expanded tokens, ending with End.
std::vector<OklToken> okl_preprocess(const std::string& source, const std::string& file, const OklOptions& options);

}  // namespace loom
