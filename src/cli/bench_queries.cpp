#include "cli/bench_queries.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/ssb_queries.hpp"
#include "parser/parser.hpp"
#include "common/error.hpp"

#ifndef TESSERA_SOURCE_DIR
#define TESSERA_SOURCE_DIR ""
#endif

namespace tessera::cli {

namespace fs = std::filesystem;

std::string QueriesRoot() {
  std::vector<fs::path> candidates;
  if (*TESSERA_SOURCE_DIR) candidates.push_back(fs::path(TESSERA_SOURCE_DIR) / "queries");
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path() / ".." / "queries");
  candidates.push_back("queries");
  for (auto& c : candidates)
    if (fs::is_directory(c, ec)) return c.lexically_normal().string();
  return "";
}

std::vector<std::string> KnownBenchmarks() {
  std::vector<std::string> names = {"ssb"};
  std::string root = QueriesRoot();
  std::error_code ec;
  if (root.empty()) return names;
  for (auto& d : fs::directory_iterator(root, ec)) {
    if (!d.is_directory()) continue;
    std::string n = d.path().filename().string();
    bool has_sql = false;
    for (auto& f : fs::directory_iterator(d.path(), ec)) has_sql |= f.path().extension() == ".sql";
    if (has_sql && n != "ssb") names.push_back(n);
  }
  std::sort(names.begin() + 1, names.end());
  return names;
}

void SplitQueryFile(BenchQuery& q) {
  q.statements = SplitStatements(q.sql, nullptr);
  if (q.statements.empty()) throw UserError(ErrorKind::Input, "query " + q.name + " has no statement");
  q.result = q.statements.size() - 1;
  for (size_t i = 0; i < q.statements.size(); i++) {
    try {
      auto parsed = ParseSQL(q.statements[i]);
      if (parsed.size() == 1 && parsed[0]->kind == ast::StmtKind::Select) q.result = i;
    } catch (const UserError&) {
      // reported when it runs
    }
  }
}

std::vector<BenchQuery> BenchmarkQueries(const std::string& bench) {
  std::vector<BenchQuery> out;
  if (bench == "ssb") {
    for (const SsbQuery& q : SsbQueries()) out.push_back({std::string(q.name), std::string(q.sql), {}, 0});
    for (auto& q : out) SplitQueryFile(q);
    return out;
  }
  auto known = KnownBenchmarks();
  if (std::find(known.begin(), known.end(), bench) == known.end()) {
    std::string list;
    for (auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw UserError(ErrorKind::Input, "unknown benchmark '" + bench + "' (available: " + list + ")");
  }
  fs::path dir = fs::path(QueriesRoot()) / bench;
  for (auto& f : fs::directory_iterator(dir)) {
    if (f.path().extension() != ".sql") continue;
    std::ifstream in(f.path());
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back({f.path().stem().string(), ss.str(), {}, 0});
    SplitQueryFile(out.back());
  }
  // q1, q2, ..., q10: numeric order where the names differ only in a number.
  std::sort(out.begin(), out.end(), [](const BenchQuery& a, const BenchQuery& b) {
    auto num = [](const std::string& s) {
      size_t i = s.find_first_of("0123456789");
      return i == std::string::npos ? -1.0 : std::atof(s.c_str() + i);
    };
    double x = num(a.name), y = num(b.name);
    return x != y ? x < y : a.name < b.name;
  });
  return out;
}

}  // namespace tessera::cli
