// random() and setseed(x): DuckDB's pseudo-random DOUBLEs in [0, 1), one per row, and the
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

}  // namespace

std::vector<ScalarFunction> RandomFunctions() {
  ScalarFunction random{"random", {"random"}, BindFixed<Type::Double>, false, RandomCpu};
  ScalarFunction setseed{"setseed", {"setseed"}, BindFixed<Type::Integer, Type::Double>, true, SetSeedCpu};
  random.is_volatile = setseed.is_volatile = true;
  return {std::move(random), std::move(setseed)};
}

}  // namespace tessera
