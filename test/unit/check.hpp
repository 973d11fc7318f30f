// Minimal test harness: TEST(name) registers a case, CHECK/CHECK_EQ/CHECK_THROWS assert.
// main() runs every case and exits non-zero when any check failed.
#pragma once
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace tcheck {
struct Case { const char* name; std::function<void()> fn; };
inline std::vector<Case>& Cases() { static std::vector<Case> c; return c; }
inline int& Failures() { static int f = 0; return f; }
struct Reg { Reg(const char* n, std::function<void()> f) { Cases().push_back({n, std::move(f)}); } };
inline void Fail(const char* file, int line, const std::string& msg) {
  std::cerr << file << ":" << line << ": FAILED: " << msg << "\n";
  Failures()++;
}
}  // namespace tcheck

#define TEST(name) \
  static void test_##name(); \
  static tcheck::Reg reg_##name(#name, test_##name); \
  static void test_##name()
#define CHECK(c) do { if (!(c)) tcheck::Fail(__FILE__, __LINE__, #c); } while (0)
#define CHECK_EQ(a, b) do { auto _a = (a); auto _b = (b); if (!(_a == _b)) { \
  std::ostringstream _s; _s << #a " == " #b " (got '" << _a << "' vs '" << _b << "')"; \
  tcheck::Fail(__FILE__, __LINE__, _s.str()); } } while (0)
#define CHECK_THROWS(stmt) do { bool _t = false; try { stmt; } catch (...) { _t = true; } \
  if (!_t) tcheck::Fail(__FILE__, __LINE__, "expected exception: " #stmt); } while (0)
// Expects a std::exception whose what() contains `needle`.
#define CHECK_THROWS_WITH(stmt, needle) do { bool _t = false; std::string _w; \
  try { stmt; } catch (const std::exception& e) { _t = true; _w = e.what(); } \
  if (!_t) tcheck::Fail(__FILE__, __LINE__, "expected exception: " #stmt); \
  else if (_w.find(needle) == std::string::npos) \
    tcheck::Fail(__FILE__, __LINE__, "exception '" + _w + "' lacks '" + std::string(needle) + "'"); \
  } while (0)

namespace tcheck {
// Runs every case; returns the exit status (1 when any check failed).
inline int RunAll() {
  for (auto& c : Cases()) {
    int before = Failures();
    try {
      c.fn();
    } catch (const std::exception& e) {
      Fail(__FILE__, __LINE__, std::string(c.name) + " threw: " + e.what());
    }
    std::cout << (Failures() == before ? "ok   " : "FAIL ") << c.name << "\n";
  }
  std::cout << Cases().size() << " cases, " << Failures() << " failures\n";
  return Failures() ? 1 : 0;
}
}  // namespace tcheck

#define TEST_MAIN() \
  int main() { return tcheck::RunAll(); }
