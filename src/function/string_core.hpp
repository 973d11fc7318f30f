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

// s LIKE p [ESCAPE escape]. Greedy with backtracking to the last `%`: linear in |s| for
// patterns with one `%` run between literals, at most |s| * |p| steps in general. `escape`
// (a byte, or -1 for none) makes the byte after it literal (`%`, `_` and itself); a pattern
// ending in the escape byte matches nothing (DuckDB's).
TESSERA_HD inline bool LikeMatch(const char* s, unsigned long long n, const char* p, unsigned long long pn,
                                 int escape) {
  unsigned long long si = 0, pi = 0, star_p = 0, star_s = 0;
  bool star = false;
  while (si < n) {
    const bool escaped = escape >= 0 && pi < pn && (unsigned char)p[pi] == escape;
    if (escaped && pi + 1 >= pn) return false;
    if (!escaped && pi < pn && p[pi] == '_') {
      si += Utf8SequenceLength((unsigned char)s[si]);
      pi++;
    } else if (pi < pn && (escaped ? p[pi + 1] == s[si] : p[pi] != '%' && p[pi] == s[si])) {
      si++;
      pi += escaped ? 2 : 1;
    } else if (!escaped && pi < pn && p[pi] == '%') {
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
  while (pi < pn && p[pi] == '%' && !(escape >= 0 && (unsigned char)p[pi] == escape)) pi++;
  return pi == pn && si == n;
}
TESSERA_HD inline bool LikeMatch(const char* s, unsigned long long n, const char* p, unsigned long long pn) {
  return LikeMatch(s, n, p, pn, -1);
}

}  // namespace ops
}  // namespace tessera
