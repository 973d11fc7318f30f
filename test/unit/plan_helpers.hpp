// Helpers of the plan-shape unit tests: a TPC-H SF 0.01 database made once per test
// binary, and a statement's EXPLAIN text.
#pragma once
#include <string>

#include "gen/tpch_gen.hpp"
#include "main/database.hpp"

namespace tessera::test {

inline Database& TpchDb() {
  static Database* db = [] {
    auto* d = new Database();
    TpchOptions o;
    o.sf = 0.01;
    GenerateTpch(d->catalog(), o);
    return d;
  }();
  return *db;
}

// EXPLAIN (options) sql, one line of text per row.
inline std::string Explain(Database& db, const std::string& options, const std::string& sql) {
  Connection con(db);
  auto r = con.Query("EXPLAIN (" + options + ") " + sql);
  std::string s;
  for (auto& row : r.ToStrings()) s += row[0] + "\n";
  return s;
}

}  // namespace tessera::test
