// random() and setseed(x), and the samples' row keys (sample_key): DuckDB's pseudo-random DOUBLEs in [0, 1), one per row, and the
// seed of their sequence (a DOUBLE in [-1, 1]; setseed returns NULL). Both are volatile
// (ScalarFunction::is_volatile): never folded to a constant, so random() differs from row
// to row. One generator for the process, behind a mutex; the values are not DuckDB's
// (another generator), only their distribution and the seed's reproducibility are.
#include <mutex>
#include <random>

#include "common/error.hpp"
#include "function/scalar_function_sets.hpp"

namespace tessera {

namespace {

struct Generator {
  std::mutex mutex;
  std::mt19937_64 engine{std::random_device{}()};
};
Generator& Shared() {
  static Generator g;
  return g;
}

void RandomCpu(std::vector<Vector>&, Vector& out, uint32_t n) {
  Generator& g = Shared();
  std::lock_guard<std::mutex> lock(g.mutex);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (uint32_t i = 0; i < n; i++) out.data<double>()[i] = uniform(g.engine);
}

void SetSeedCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  Generator& g = Shared();
  for (uint32_t i = 0; i < n; i++) {
    if (args[0].IsValid(i)) {
      const double seed = args[0].data<double>()[i];
      if (!(seed >= -1.0 && seed <= 1.0))
        throw UserError(ErrorKind::Input, "SETSEED accepts seed values between -1.0 and 1.0, inclusive");
      std::lock_guard<std::mutex> lock(g.mutex);
      g.engine.seed((uint64_t)((seed + 1.0) * 4294967295.0));
    }
    out.SetNull(i);
  }
}

// SplitMix64's finaliser: a bijection of 64-bit words that scrambles every bit.
uint64_t Mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// sample_key(x, seed): a pseudo-random DOUBLE in [0, 1) that depends only on x and seed,
// the key the binder's samples draw rows by (planner/bind_sample.cpp).
void SampleKeyCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const int64_t* x = args[0].data<int64_t>();
  const int64_t* seed = args[1].data<int64_t>();
  double* r = out.data<double>();
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) r[i] = (double)(Mix(Mix((uint64_t)seed[i]) ^ (uint64_t)x[i]) >> 11) * 0x1.0p-53;
}

}  // namespace

std::vector<ScalarFunction> RandomFunctions() {
  ScalarFunction random{"random", {"random"}, BindFixed<Type::Double>, false, RandomCpu};
  ScalarFunction setseed{"setseed", {"setseed"}, BindFixed<Type::Integer, Type::Double>, true, SetSeedCpu};
  random.is_volatile = setseed.is_volatile = true;
  // Made only by the binder (no SQL name); deterministic, so not volatile.
  ScalarFunction sample_key{"sample_key", {}, BindFixed<Type::Double, Type::BigInt, Type::BigInt>, false, SampleKeyCpu};
  return {std::move(random), std::move(setseed), std::move(sample_key)};
}

}  // namespace tessera
