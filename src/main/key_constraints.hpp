// CREATE TABLE's PRIMARY KEY and UNIQUE constraints, bound to column indexes.
#pragma once
#include <vector>

#include "parser/ast.hpp"
#include "storage/catalog.hpp"

namespace tessera {

// The constraints of `ct` over `columns` (its columns, in order): names resolved, at most
// one PRIMARY KEY, no column twice in one key, repeated constraints kept once; the PRIMARY
// KEY's columns become NOT NULL. Errors carry the constraint's position.
std::vector<KeyConstraint> BindKeyConstraints(const ast::CreateTableStatement& ct, std::vector<ColumnDef>& columns);

}  // namespace tessera
