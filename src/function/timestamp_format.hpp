// strftime / strptime format strings (DuckDB's specifiers, a subset): %Y %y %m %d %e %H %I
// %M %S %f (microseconds, 6 digits) %g (milliseconds, 3 digits) %p %j %a %A %b %B %h %%
// and, for formatting only, %w %u. Other characters match / print themselves.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

// Appends the timestamp `us` written by `format` to out; throws UserError(Conversion) for an
// unknown specifier.
void FormatTimestampAs(int64_t us, std::string_view format, std::string& out);
// The timestamp `text` holds in `format` (all of it); nullopt when it does not match or a
// field is out of range; throws UserError(Conversion) for an unknown specifier.
std::optional<int64_t> ParseTimestampAs(std::string_view text, std::string_view format);

}  // namespace tessera
