#include "planner/binder_internal.hpp"

namespace tessera {

std::string QuoteIdent(const std::string& name) {
  std::string r = "\"";
  for (char c : name) {
    r.push_back(c);
    if (c == '"') r.push_back('"');
  }
  return r + "\"";
}

std::string QuoteText(const std::string& s) {
  std::string r = "'";
  for (char c : s) {
    r.push_back(c);
    if (c == '\'') r.push_back('\'');
  }
  return r + "'";
}

}  // namespace tessera
