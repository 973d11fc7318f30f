// The scalar core (src/function/scalar_core.hpp), which both backends compile: its
// overflow-checked arithmetic written without compiler builtins (they do not exist in
// device code) must agree with GCC's __builtin_*_overflow on every edge value and on
// random values, for 32-, 64- and 128-bit integers; and its order puts NaN above all.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "check.hpp"
#include "function/scalar_core.hpp"

using namespace tessera;

template <class T>
static std::vector<T> EdgeValues() {
  const T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
  std::vector<T> v = {0, 1, -1, 2, -2, 3, -3, mn, (T)(mn + 1), (T)(mn + 2), mx, (T)(mx - 1), (T)(mx / 2), (T)(mn / 2),
                      (T)(mx / 2 + 1), (T)(mn / 2 - 1)};
  // Around the square root of the range, where products start to overflow.
  T r = 1;
  for (int i = 0; i < (int)sizeof(T) * 4 - 1; i++) r = (T)(r * 2);
  for (T d : {(T)-1, (T)0, (T)1}) {
    v.push_back((T)(r + d));
    v.push_back((T)(-r + d));
  }
  // For 128 bits: values just past 64 bits, where the fast path ends.
  if constexpr (sizeof(T) == 16) {
    for (T x : {(T)INT64_MAX, (T)INT64_MIN}) {
      v.push_back(x + 1);
      v.push_back(x - 1);
      v.push_back(x);
    }
  }
  return v;
}

template <class T>
static T Random(std::mt19937_64& g) {
  if constexpr (sizeof(T) == 16) return (T)(((unsigned __int128)g() << 64) | g()) >> (g() % 127);
  else return (T)(g() >> (g() % (sizeof(T) * 8)));
}

template <class T>
static int CheckAgainstBuiltins() {
  std::vector<T> v = EdgeValues<T>();
  std::mt19937_64 g(42);
  for (int i = 0; i < 2000; i++) v.push_back(g() % 2 ? Random<T>(g) : (T)-Random<T>(g));
  int bad = 0;
  for (T a : v) {
    for (T b : v) {
      T r1, r2;
      bool ok1 = ops::AddChecked(a, b, r1), ok2 = !__builtin_add_overflow(a, b, &r2);
      bad += ok1 != ok2 || (ok1 && r1 != r2);
      ok1 = ops::SubChecked(a, b, r1), ok2 = !__builtin_sub_overflow(a, b, &r2);
      bad += ok1 != ok2 || (ok1 && r1 != r2);
      ok1 = ops::MulChecked(a, b, r1), ok2 = !__builtin_mul_overflow(a, b, &r2);
      bad += ok1 != ok2 || (ok1 && r1 != r2);
    }
    T r1, r2;
    bool ok1 = ops::NegChecked(a, r1), ok2 = !__builtin_sub_overflow((T)0, a, &r2);
    bad += ok1 != ok2 || (ok1 && r1 != r2);
  }
  return bad;
}

TEST(checked_arithmetic_matches_the_compiler_builtins) {
  CHECK_EQ(CheckAgainstBuiltins<int32_t>(), 0);
  CHECK_EQ(CheckAgainstBuiltins<int64_t>(), 0);
  CHECK_EQ(CheckAgainstBuiltins<long long>(), 0);
  CHECK_EQ(CheckAgainstBuiltins<__int128>(), 0);
}

TEST(division_and_modulo_edges) {
  int32_t r = 0;
  bool overflow = false;
  CHECK(!ops::IntDiv<int32_t>(7, 0, r, overflow));  // NULL
  CHECK(ops::IntDiv<int32_t>(INT32_MIN, -1, r, overflow) && overflow);
  overflow = false;
  CHECK(ops::Mod<int32_t>(-7, 2, r, overflow) && r == -1 && !overflow);  // sign of the dividend
  CHECK(ops::Mod<int32_t>(INT32_MIN, -1, r, overflow) && overflow);
  int64_t a = 0;
  CHECK(!ops::AbsChecked<int64_t>(INT64_MIN, a));
  CHECK(ops::AbsChecked<int64_t>(-5, a) && a == 5);
  double d = 0;
  CHECK(ops::AbsChecked(-0.0, d) && !std::signbit(d));
}

TEST(nan_equals_nan_and_sorts_above_everything) {
  const double nan = std::nan(""), inf = INFINITY;
  CHECK(ops::Equals(nan, nan));
  CHECK(ops::LessThan(inf, nan));
  CHECK(!ops::LessThan(nan, inf));
  CHECK(!ops::LessThan(nan, nan));
  CHECK(ops::Equals(-0.0, 0.0));
  CHECK(ops::Compare(ops::kGe, nan, 1.0));
  CHECK(ops::Compare(ops::kNe, 1.0, nan));
  CHECK(!ops::Compare(ops::kLt, nan, 1.0));
}

TEST(exact_casts_rescale_round_and_check_the_range) {
  __int128 r = 0;
  // DECIMAL(38,2) 12.35 -> scale 6, and back to scale 1 rounding half away from zero
  CHECK(ops::CastExact(1235, 2, 6, ops::Pow10Int128(38), true, r) && r == 12350000);
  CHECK(ops::CastExact(1235, 2, 1, ops::Pow10Int128(5), true, r) && r == 124);
  CHECK(ops::CastExact(-1235, 2, 1, ops::Pow10Int128(5), true, r) && r == -124);
  CHECK(ops::CastExact(-1234, 2, 1, ops::Pow10Int128(5), true, r) && r == -123);
  // out of the target precision: |r| must stay below 10^p
  CHECK(!ops::CastExact(100000, 0, 1, ops::Pow10Int128(6), true, r));
  CHECK(ops::CastExact(99999, 0, 1, ops::Pow10Int128(6), true, r) && r == 999990);
  // integer targets: [-2^31, 2^31)
  const __int128 i32 = (__int128)INT32_MAX + 1;
  CHECK(ops::CastExact(-(__int128)INT32_MAX - 1, 0, 0, i32, false, r) && r == INT32_MIN);
  CHECK(!ops::CastExact(i32, 0, 0, i32, false, r));
  CHECK(ops::CastExact(2147483645, 1, 0, i32, false, r) && r == 214748365);  // 214748364.5 rounds up
  // a rescale that overflows 128 bits is out of range, not wrapped
  CHECK(!ops::CastExact(ops::Pow10Int128(37), 0, 10, ops::Pow10Int128(38), true, r));
}

TEST_MAIN()
