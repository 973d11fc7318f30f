// Helpers of the unit tests that run SQL: a TPC-H SF 0.01 database made once per test
// binary, a statement's EXPLAIN text, a query's rows as one string.
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

// How often `what` occurs in `text` (operators in an EXPLAIN), and whether it does.
inline size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) n++;
  return n;
}
inline bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Every row of a query as "a|b" lines joined by ';'.
inline std::string All(Connection& c, const std::string& sql) {
  std::string out;
  for (auto& row : c.Query(sql).ToStrings()) {
    if (!out.empty()) out += ";";
    for (size_t i = 0; i < row.size(); i++) out += (i ? "|" : "") + row[i];
  }
  return out;
}

}  // namespace tessera::test
