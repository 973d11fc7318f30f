// Enforcement of PRIMARY KEY and UNIQUE constraints (KeyConstraint, catalog.hpp): a hash
// set of the encoded key values of each constraint, built from one table snapshot by a
// scan and extended as rows are appended, so that a bulk load checks each new row once.
// Rows with a NULL in a key's columns take no part (NULLs do not collide).
// Errors are DuckDB's: a new key equal to a committed one is "Duplicate key "c: v" violates
// primary key constraint." (or unique), two equal keys among the new rows "PRIMARY KEY or
// UNIQUE constraint violation: duplicate key "v"".
#pragma once
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "storage/catalog.hpp"

namespace tessera {

// Appends the key of row r of `cols` (a key's columns, read into vectors) to `out`; false
// when one of its values is NULL. Equal values give equal bytes.
bool EncodeKey(const std::vector<Vector>& cols, uint32_t r, std::string& out);

class KeyIndex {
 public:
  // The keys of every row of `data`; throws UserError(Constraint) when two are equal
  // (a change that would leave the table with a duplicate, e.g. an UPDATE).
  static std::shared_ptr<KeyIndex> Build(const TableSchema& schema, std::shared_ptr<const TableData> data);

  // The keys of rows about to be appended, checked against the indexed ones and each other.
  struct Pending {
    std::vector<std::vector<std::string>> keys;  // per constraint
  };
  // Throws UserError(Constraint) on a duplicate; changes nothing.
  Pending Check(const TableSchema& schema, const std::vector<std::shared_ptr<const RowGroup>>& groups) const;
  // Adds checked keys; the index then describes `data` (the snapshot with them appended).
  void Add(Pending&& pending, std::shared_ptr<const TableData> data);

  // The snapshot this index describes.
  const TableData* snapshot() const { return data_.get(); }

 private:
  std::shared_ptr<const TableData> data_;
  std::vector<std::unordered_set<std::string>> sets_;  // per constraint
};

}  // namespace tessera
