// The core of the string semantics that both backends evaluate row by row, defined once:
// UTF-8 sequence lengths and LIKE (`%` any run of characters, `_` exactly one character,
// every other byte itself). The CPU's string functions (string_ops.cpp) call these; the
// GPU's kernels evaluate LIKE over a column's own bytes (columns without a dictionary)
// with the very same function: this header is embedded with scalar_core.hpp in front of
// every NVRTC kernel (embed_core.cmake), so it includes nothing but host_device.hpp and
// works on pointers and lengths (no std::).
#pragma once
#include "common/host_device.hpp"

namespace tessera {
namespace ops {

// Bytes of the UTF-8 sequence a lead byte starts (1 for a stray continuation byte).
TESSERA_HD inline int Utf8SequenceLength(unsigned char lead) {
  return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF8 ? 4 : 1;
}

// s LIKE p. Greedy with backtracking to the last `%`: linear in |s| for patterns with
// one `%` run between literals, at most |s| * |p| steps in general.
TESSERA_HD inline bool LikeMatch(const char* s, unsigned long long n, const char* p, unsigned long long pn) {
  unsigned long long si = 0, pi = 0, star_p = 0, star_s = 0;
  bool star = false;
  while (si < n) {
    if (pi < pn && p[pi] == '_') {
      si += Utf8SequenceLength((unsigned char)s[si]);
      pi++;
    } else if (pi < pn && p[pi] != '%' && p[pi] == s[si]) {
      si++;
      pi++;
    } else if (pi < pn && p[pi] == '%') {
      star = true;
      star_p = pi++;
      star_s = si;
    } else if (star) {
      pi = star_p + 1;
      star_s += Utf8SequenceLength((unsigned char)s[star_s]);  // retry one whole character further
      si = star_s;
    } else {
      return false;
    }
  }
  while (pi < pn && p[pi] == '%') pi++;
  return pi == pn && si == n;
}

}  // namespace ops
}  // namespace tessera
