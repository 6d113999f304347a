// Domains and assumptions as users write them (isl's set notation, loopy's conventions) read into isl sets,
// with errors that point into the text.
#pragma once

#include <isl/cpp.h>

#include <set>
#include <string>

namespace loom {

/// Parses a domain in isl syntax, declaring as parameters the identifiers it uses that are neither set
/// dimensions nor bound by `exists` (loopy finds parameters automatically). ParseError on bad syntax;
/// LoopyError for a domain isl cannot read within a bounded number of operations, or of more than
/// isl_util::kMaxDomainPieces pieces.
isl::set parse_domain(const std::string& text);
/// Each iname of `looped` that is a dimension of `s` (parsed from `text`) has a lower and an upper bound:
/// a loop over an unbounded one would not end, and isl's AST generator cannot write it. Inames no instruction
/// runs in may stay unbounded, as in loopy. LoopyError, or ParseError naming a likely misspelt parameter.
void check_bounded(const std::string& text, const isl::set& s, const std::set<std::string>& looped);
/// Parses a parameter set such as "n >= 1 and n mod 16 = 0" (the `{ : ... }` and parameter list optional).
isl::set parse_assumptions(const std::string& text);

}  // namespace loom
