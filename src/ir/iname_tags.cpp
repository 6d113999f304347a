#include "ir/iname_tags.h"

#include <algorithm>
#include <map>

namespace loom {

namespace {

using Kind = InameTag::Kind;

// The tags without a number, by their text.
const std::map<std::string, Kind>& plain_kinds() {
    static const std::map<std::string, Kind> kinds{
        {"ord", Kind::Ord},   {"l.auto", Kind::LocalAuto}, {"unr", Kind::Unr},         {"unr_hint", Kind::UnrHint},
        {"ilp", Kind::Ilp},   {"ilp.unr", Kind::IlpUnr},   {"ilp.seq", Kind::IlpSeq}, {"vec", Kind::Vec}};
    return kinds;
}

// The numbered tags, by the text before the number.
const std::map<std::string, Kind>& numbered_kinds() {
    static const std::map<std::string, Kind> kinds{{"g.", Kind::Group}, {"l.", Kind::Local}, {"unr_hint.", Kind::UnrHint}};
    return kinds;
}

// `digits` as a number; nullopt unless it is one that fits an int.
std::optional<int> parse_number(const std::string& digits) {
    if (digits.empty() || digits.size() > 9) return std::nullopt;  // nine digits always fit
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
    return std::stoi(digits);
}

bool has_prefix(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

std::optional<int> InameTag::unroll_hint() const {
    if (kind != Kind::UnrHint) return std::nullopt;
    return std::max(number, 0);
}

std::optional<InameTag> parse_iname_tag(const std::string& text) {
    if (const auto plain = plain_kinds().find(text); plain != plain_kinds().end()) return InameTag{plain->second};
    for (const auto& [prefix, kind] : numbered_kinds())
        if (has_prefix(text, prefix))
            if (const std::optional<int> n = parse_number(text.substr(prefix.size()))) return InameTag{kind, *n};
    return std::nullopt;
}

std::string to_string(const InameTag& tag) {
    if (tag.is_none()) return "";
    for (const auto& [prefix, kind] : numbered_kinds())
        if (kind == tag.kind && tag.number >= 0) return prefix + std::to_string(tag.number);
    for (const auto& [text, kind] : plain_kinds())
        if (kind == tag.kind) return text;
    return "";  // not reached: every kind has a text
}

std::ostream& operator<<(std::ostream& os, const InameTag& tag) { return os << to_string(tag); }

std::optional<TagRequest> parse_tag_request(const std::string& text) {
    if (text.empty() || text == "for" || text == "None") return TagRequest{};
    if (text == "unused.g") return TagRequest{TagRequest::Kind::UnusedGroup, {}, {}};
    if (text == "unused.l") return TagRequest{TagRequest::Kind::UnusedLocal, {}, {}};
    if (has_prefix(text, "like.")) return TagRequest{TagRequest::Kind::Like, {}, text.substr(5)};
    if (const std::optional<InameTag> tag = parse_iname_tag(text)) return TagRequest{TagRequest::Kind::Tag, *tag, {}};
    return std::nullopt;
}

}  // namespace loom
