#include "ir/iname_tags.h"

namespace loom {

bool is_unrolled_tag(const std::string& tag) { return tag == "unr" || tag == "ilp" || tag == "ilp.unr"; }

bool is_ilp_tag(const std::string& tag) { return tag == "ilp" || tag == "ilp.unr" || tag == "ilp.seq"; }

bool is_innermost_tag(const std::string& tag) { return is_ilp_tag(tag) || tag == "vec"; }

bool is_hardware_tag(const std::string& tag) { return tag.rfind("g.", 0) == 0 || tag.rfind("l.", 0) == 0; }

bool is_concurrent_tag(const std::string& tag) { return is_hardware_tag(tag) || is_ilp_tag(tag) || tag == "vec"; }

std::optional<int> unroll_hint(const std::string& tag) {
    if (tag == "unr_hint") return 0;
    const std::string prefix = "unr_hint.";
    if (tag.rfind(prefix, 0) != 0) return std::nullopt;
    return std::stoi(tag.substr(prefix.size()));  // the tag parser admits digits only
}

}  // namespace loom
