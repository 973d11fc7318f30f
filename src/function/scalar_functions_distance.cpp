// String distances and similarities of the registry, as DuckDB computes them: over the
// strings' bytes, not their characters (so 'é' is two symbols): levenshtein,
// damerau_levenshtein (BIGINT), hamming / mismatches (BIGINT; the strings must be of equal,
// non-zero length), jaccard (DOUBLE: the sets of bytes; neither string may be empty),
// jaro_similarity and jaro_winkler_similarity (DOUBLE; 0 for an empty string; an optional
// third argument, a score cutoff below which the result is 0). damerau_levenshtein of
// strings whose table would pass 2^28 cells is an error (DuckDB computes it).
#include <algorithm>
#include <array>
#include <bitset>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "function/scalar_function_sets.hpp"
#include "planner/binder.hpp"

namespace tessera {

namespace {

using Bytes = std::string_view;

// The edit distance: insertions, deletions and substitutions of single bytes.
int64_t Levenshtein(Bytes a, Bytes b) {
  if (a.size() < b.size()) std::swap(a, b);  // the row over the shorter string
  std::vector<int64_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); j++) row[j] = (int64_t)j;
  for (size_t i = 1; i <= a.size(); i++) {
    int64_t diag = row[0];  // row[i-1][j-1]
    row[0] = (int64_t)i;
    for (size_t j = 1; j <= b.size(); j++) {
      const int64_t up = row[j];
      row[j] = std::min({up + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// The unrestricted Damerau-Levenshtein distance (transpositions of adjacent bytes, which
// later edits may separate: 'ca' to 'abc' is 2), by the Lowrance-Wagner recurrence over a
// table with a border row and column of "infinity". The table has (|a| + 2) * (|b| + 2)
// cells; beyond kMaxDamerauCells (1 GiB) the call is refused rather than allocated.
constexpr size_t kMaxDamerauCells = size_t(1) << 28;
int64_t DamerauLevenshtein(Bytes a, Bytes b) {
  const size_t n = a.size(), m = b.size();
  if ((n + 2) > kMaxDamerauCells / (m + 2))
    throw UserError(ErrorKind::Input, "damerau_levenshtein: strings of " + std::to_string(n) + " and " +
                                          std::to_string(m) + " bytes are too long (a table of more than 2^28 cells)");
  const int32_t inf = (int32_t)(n + m);
  const size_t w = m + 2;
  std::vector<int32_t> d((n + 2) * w);
  auto at = [&](size_t i, size_t j) -> int32_t& { return d[i * w + j]; };
  at(0, 0) = inf;
  for (size_t i = 0; i <= n; i++) {
    at(i + 1, 0) = inf;
    at(i + 1, 1) = (int32_t)i;
  }
  for (size_t j = 0; j <= m; j++) {
    at(0, j + 1) = inf;
    at(1, j + 1) = (int32_t)j;
  }
  std::array<size_t, 256> last_row{};  // the last row (1-based) where a byte occurred in a
  for (size_t i = 1; i <= n; i++) {
    size_t last_col = 0;  // the last column (1-based) in this row where b matched a[i-1]
    for (size_t j = 1; j <= m; j++) {
      const size_t k = last_row[(uint8_t)b[j - 1]], l = last_col;
      const int32_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      if (cost == 0) last_col = j;
      at(i + 1, j + 1) = std::min({at(i, j) + cost, at(i + 1, j) + 1, at(i, j + 1) + 1,
                                   at(k, l) + (int32_t)(i - k - 1) + 1 + (int32_t)(j - l - 1)});
    }
    last_row[(uint8_t)a[i - 1]] = i;
  }
  return at(n + 1, m + 1);
}

int64_t Hamming(Bytes a, Bytes b) {
  if (a.size() != b.size()) throw UserError(ErrorKind::Input, "Mismatch Function: Strings must be of equal length!");
  if (a.empty()) throw UserError(ErrorKind::Input, "Mismatch Function: Strings must be of length > 0!");
  int64_t r = 0;
  for (size_t i = 0; i < a.size(); i++) r += a[i] != b[i];
  return r;
}

double Jaccard(Bytes a, Bytes b) {
  if (a.empty() || b.empty()) throw UserError(ErrorKind::Input, "Jaccard Function: An argument too short!");
  std::bitset<256> x, y;
  for (char c : a) x.set((uint8_t)c);
  for (char c : b) y.set((uint8_t)c);
  return (double)(x & y).count() / (double)(x | y).count();
}

// Jaro: the bytes of a and b that match (equal, within max(|a|, |b|) / 2 - 1 positions of
// each other, each used once, left to right) and the transpositions among them.
double Jaro(Bytes a, Bytes b) {
  if (a.empty() || b.empty()) return 0.0;
  const int64_t window = std::max<int64_t>(0, (int64_t)std::max(a.size(), b.size()) / 2 - 1);
  std::vector<char> used_a(a.size()), used_b(b.size());
  int64_t matches = 0;
  for (int64_t i = 0; i < (int64_t)a.size(); i++) {
    const int64_t lo = std::max<int64_t>(0, i - window), hi = std::min<int64_t>((int64_t)b.size() - 1, i + window);
    for (int64_t j = lo; j <= hi; j++)
      if (!used_b[j] && a[i] == b[j]) {
        used_a[i] = used_b[j] = 1;
        matches++;
        break;
      }
  }
  if (matches == 0) return 0.0;
  int64_t half_transpositions = 0;
  for (size_t i = 0, j = 0; i < a.size(); i++) {
    if (!used_a[i]) continue;
    while (!used_b[j]) j++;
    half_transpositions += a[i] != b[j];
    j++;
  }
  const double m = (double)matches;
  return (m / (double)a.size() + m / (double)b.size() + (m - (double)(half_transpositions / 2)) / m) / 3.0;
}

size_t CommonPrefix4(Bytes a, Bytes b) {
  size_t p = 0;
  while (p < 4 && p < a.size() && p < b.size() && a[p] == b[p]) p++;
  return p;
}

// Jaro-Winkler: a Jaro similarity above 0.7 raised by 0.1 of the rest per byte of the
// common prefix, up to 4. With a cutoff, the Jaro similarity must first reach the cutoff
// that the raise could lift to `cutoff` (at least 0.7), and then the result must reach
// `cutoff`; otherwise 0 (DuckDB's results, to the last bit of the cutoff's arithmetic).
double JaroWinklerCutoff(Bytes a, Bytes b, double cutoff) {
  const double raise = (double)CommonPrefix4(a, b) * 0.1;
  double jaro_cutoff = cutoff;
  if (jaro_cutoff > 0.7) jaro_cutoff = raise >= 1.0 ? 0.7 : std::max(0.7, (raise - jaro_cutoff) / (raise - 1.0));
  double r = Jaro(a, b);
  if (r < jaro_cutoff) return 0.0;
  if (r > 0.7) r += raise * (1.0 - r);
  return r >= cutoff ? r : 0.0;
}
double JaroCutoff(Bytes a, Bytes b, double cutoff) {
  const double r = Jaro(a, b);
  return r >= cutoff ? r : 0.0;
}
double JaccardCutoff(Bytes a, Bytes b, double) { return Jaccard(a, b); }

Type BindDistance(ScalarCall& c) { return BindFixed<Type::BigInt, Type::Varchar, Type::Varchar>(c); }

// (VARCHAR, VARCHAR [, DOUBLE cutoff]) -> DOUBLE.
Type BindSimilarity(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 3);
  for (size_t k = 0; k < 2; k++) c.args[k] = Binder::Coerce(std::move(c.args[k]), Type::Varchar(), c.pos);
  if (c.args.size() == 3) c.args[2] = Binder::Coerce(std::move(c.args[2]), Type::Double(), c.pos);
  return Type::Double();
}

template <int64_t (*F)(Bytes, Bytes)>
void DistanceCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<int64_t>()[i] = F(args[0].data<StrRef>()[i], args[1].data<StrRef>()[i]);
}

// F(a, b, cutoff): the similarity, 0 below the cutoff (the third argument, when given).
template <double (*F)(Bytes, Bytes, double)>
void SimilarityCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i))
      out.data<double>()[i] = F(args[0].data<StrRef>()[i], args[1].data<StrRef>()[i],
                                args.size() > 2 ? args[2].data<double>()[i] : 0.0);
}

}  // namespace

std::vector<ScalarFunction> DistanceFunctions() {
  return {
      {"levenshtein", {"levenshtein"}, BindDistance, false, DistanceCpu<Levenshtein>},
      {"damerau_levenshtein", {"damerau_levenshtein"}, BindDistance, false, DistanceCpu<DamerauLevenshtein>},
      {"hamming", {"hamming", "mismatches"}, BindDistance, false, DistanceCpu<Hamming>},
      {"jaccard", {"jaccard"}, BindFixed<Type::Double, Type::Varchar, Type::Varchar>, false, SimilarityCpu<JaccardCutoff>},
      {"jaro_similarity", {"jaro_similarity"}, BindSimilarity, false, SimilarityCpu<JaroCutoff>},
      {"jaro_winkler_similarity", {"jaro_winkler_similarity"}, BindSimilarity, false, SimilarityCpu<JaroWinklerCutoff>},
  };
}

}  // namespace tessera
