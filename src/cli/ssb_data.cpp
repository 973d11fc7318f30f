#include "cli/ssb_data.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

namespace tessera::cli {

std::string FormatScaleFactor(double sf) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, sf);
  return std::string(buf, r.ptr);
}

std::string DefaultSsbDatabasePath(double sf) {
  return "data/ssb-sf" + FormatScaleFactor(sf) + ".tdb";
}

std::function<void(const std::string&)> StderrProgress() {
  auto start = std::chrono::steady_clock::now();
  return [start](const std::string& msg) {
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%6.1f s] ", s);
    std::cerr << stamp << msg << std::endl;
  };
}

bool SsbDatabaseComplete(Database& db, double sf) {
  SsbCardinalities n = SsbCounts(sf);
  const std::map<std::string, uint64_t> expected = {{"part", n.part},
                                                   {"supplier", n.supplier},
                                                   {"customer", n.customer},
                                                   {"date", n.date}};
  for (const TableSchema& schema : SsbSchemas()) {
    auto entry = db.catalog().GetTable(schema.name);
    if (!entry || !entry->data) return false;
    auto it = expected.find(schema.name);
    uint64_t rows = entry->data->row_count;
    // The generator reports the number of orders, not of lineorder rows: any rows do.
    if (it != expected.end() ? rows != it->second : rows == 0) return false;
  }
  return true;
}

void DropSsbTables(Database& db) {
  for (const TableSchema& schema : SsbSchemas()) db.catalog().DropTable(schema.name, true);
}

}  // namespace tessera::cli
