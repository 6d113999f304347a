// Small string helpers shared by the parsers and printers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loom {

std::string trim(std::string_view s);
/// Splits at `sep`, trims each piece and drops empty pieces.
std::vector<std::string> split_trimmed(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
/// Whether `names` has `name`.
bool contains(const std::vector<std::string>& names, const std::string& name);
/// Shell-style wildcard match (`*`, `?`, `[...]`), as Python's fnmatch.fnmatchcase.
bool fnmatch(std::string_view pattern, std::string_view text);
bool is_identifier(std::string_view s);
/// `s` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string s, std::string_view from, const std::string& to);

}  // namespace loom
