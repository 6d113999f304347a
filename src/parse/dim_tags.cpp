#include "parse/dim_tags.h"

#include <cctype>
#include <optional>
#include <utility>

#include "parse/instructions.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

[[noreturn]] void invalid(const std::string& text, const std::string& array) {
    user_error(error_kind::LoopyError, "invalid dim tag '", trim(text), "' for array '", array,
               "' (expected c, f, N0..N9, stride:EXPR, N<level>:stride:EXPR, sep or vec, optionally followed by '?')");
}

// `N<level>` at the start of `s`: the level, and the rest after a ':' (empty when none).
std::optional<std::pair<int, std::string>> nesting_prefix(const std::string& s) {
    if (s.size() < 2 || s[0] != 'N') return std::nullopt;
    std::size_t end = 1;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end == 1 || end > 3 || (end < s.size() && s[end] != ':')) return std::nullopt;
    return std::make_pair(std::stoi(s.substr(1, end - 1)), end < s.size() ? trim(s.substr(end + 1)) : std::string());
}

}  // namespace

DimTag parse_dim_tag(const std::string& text, const std::string& array) {
    std::string s = trim(text);
    DimTag tag;
    tag.optional = !s.empty() && s.back() == '?';
    if (tag.optional) s = trim(s.substr(0, s.size() - 1));
    using Kind = DimTag::Kind;
    if (s == "sep" || s == "vec") {
        tag.kind = s == "sep" ? Kind::Sep : Kind::Vec;
        return tag;
    }
    if (const auto prefix = nesting_prefix(s)) {
        tag.level = prefix->first;
        s = prefix->second;
        tag.kind = Kind::Nested;
        if (s.empty()) return tag;
    }
    if (s.rfind("stride:", 0) == 0) {
        tag.kind = Kind::Stride;
        tag.stride = parse_expression(s.substr(7));
    } else if ((s == "c" || s == "C" || s == "f" || s == "F") && tag.level < 0) {
        tag.kind = (s == "c" || s == "C") ? Kind::C : Kind::F;
    } else {
        invalid(text, array);
    }
    return tag;
}

std::vector<DimTag> parse_dim_tags(const std::vector<std::string>& entries, const std::string& array) {
    std::vector<DimTag> tags;
    for (const std::string& entry : entries)
        for (const std::string& part : split_trimmed(entry, ',')) tags.push_back(parse_dim_tag(part, array));
    return tags;
}

}  // namespace loom
