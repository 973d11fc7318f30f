// The version that `tessera --version` and the shell banner print.
#pragma once

namespace tessera::cli {
inline constexpr const char* kVersion = "0.1.0-dev";
}  // namespace tessera::cli
