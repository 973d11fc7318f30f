#include "main/key_constraints.hpp"

#include <algorithm>

namespace tessera {

std::vector<KeyConstraint> BindKeyConstraints(const ast::CreateTableStatement& ct, std::vector<ColumnDef>& columns) {
  std::vector<KeyConstraint> keys;
  bool have_primary = false;
  for (const auto& k : ct.keys) {
    if (k.primary) {
      if (have_primary)
        throw UserError(ErrorKind::Syntax, "table \"" + ct.table + "\" has more than one primary key", k.pos);
      have_primary = true;
    }
    KeyConstraint key;
    key.primary = k.primary;
    for (const auto& name : k.columns) {
      auto it = std::find_if(columns.begin(), columns.end(), [&](const ColumnDef& c) { return IdentEquals(c.name, name); });
      if (it == columns.end())
        throw UserError(ErrorKind::Catalog, "table \"" + ct.table + "\" does not have a column named \"" + name + "\"",
                        k.pos);
      const uint32_t c = (uint32_t)(it - columns.begin());
      if (std::find(key.columns.begin(), key.columns.end(), c) != key.columns.end())
        throw UserError(ErrorKind::Syntax,
                        "column \"" + name + "\" appears twice in " +
                            std::string(k.primary ? "primary key" : "unique") + " constraint",
                        k.pos);
      key.columns.push_back(c);
    }
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(std::move(key));
  }
  for (const auto& key : keys)
    if (key.primary)
      for (uint32_t c : key.columns) columns[c].not_null = true;
  return keys;
}

}  // namespace tessera
