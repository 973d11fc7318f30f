// Small JSON helpers for the files tessera writes itself (probe results, bench reports):
// string escaping, number formatting, and a reader for flat objects
// {"key": number | "string" | true | false | null, ...}.
#pragma once
#include <map>
#include <string>

namespace tessera::json {

// `s` as a JSON string literal, quotes included.
std::string Quote(const std::string& s);
// A finite number with up to 6 significant decimals after the point ("null" for NaN/inf).
std::string Number(double v);

// Values of a flat object: strings unquoted, numbers and literals as written.
using FlatObject = std::map<std::string, std::string>;
// Parses a flat object; throws UserError (naming `what`) on anything else.
FlatObject ParseFlat(const std::string& text, const std::string& what);

}  // namespace tessera::json
