#include "storage/key_index.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace tessera {

// Appends the key of row r of `cols` (the key's columns, read into vectors) to `out`;
// false when one of its values is NULL. Equal values give equal bytes: fixed-width values
// as stored (doubles with -0.0 as 0.0 and one NaN), strings length-prefixed.
bool EncodeKey(const std::vector<Vector>& cols, uint32_t r, std::string& out) {
  out.clear();
  for (const Vector& v : cols) {
    if (!v.IsValid(r)) return false;
    switch (v.type().physical()) {
      case PhysType::Str: {
        StrRef s = v.data<StrRef>()[r];
        uint32_t n = (uint32_t)s.size();
        out.append(reinterpret_cast<const char*>(&n), 4);
        out.append(s.data(), s.size());
        break;
      }
      case PhysType::F64: {
        double d = v.data<double>()[r];
        if (d == 0) d = 0;
        if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
        out.append(reinterpret_cast<const char*>(&d), sizeof d);
        break;
      }
      default: {
        const int w = v.type().width();
        out.append(reinterpret_cast<const char*>(v.raw() + (size_t)r * w), w);
        break;
      }
    }
  }
  return true;
}

namespace {

// "v1, v2" (the within-statement message) or "c1: v1, c2: v2" (against committed rows).
std::string KeyText(const TableSchema& schema, const KeyConstraint& key, const std::vector<Vector>& cols,
                    uint32_t r, bool with_names) {
  std::string s;
  for (size_t i = 0; i < cols.size(); i++) {
    if (i) s += ", ";
    if (with_names) s += schema.columns[key.columns[i]].name + ": ";
    s += cols[i].GetValue(r).ToString();
  }
  return s;
}

UserError DuplicateOfCommitted(const TableSchema& schema, const KeyConstraint& key,
                               const std::vector<Vector>& cols, uint32_t r) {
  return UserError(ErrorKind::Constraint, "Duplicate key \"" + KeyText(schema, key, cols, r, true) +
                                              "\" violates " + (key.primary ? "primary key" : "unique") +
                                              " constraint.");
}

// Calls f(cols, row) for every row of `groups`, the key's columns read a vector at a time.
template <class F>
void ForEachKeyRow(const TableSchema& schema, const KeyConstraint& key,
                   const std::vector<std::shared_ptr<const RowGroup>>& groups, F&& f) {
  std::vector<Vector> cols(key.columns.size());
  for (size_t i = 0; i < key.columns.size(); i++) cols[i].Init(schema.columns[key.columns[i]].type);
  for (const auto& rg : groups) {
    for (uint32_t at = 0; at < rg->count; at += kVectorSize) {
      const uint32_t n = std::min(kVectorSize, rg->count - at);
      for (size_t i = 0; i < key.columns.size(); i++) {
        cols[i].ClearNulls();
        rg->columns[key.columns[i]]->Read(at, n, cols[i]);
      }
      for (uint32_t r = 0; r < n; r++) f(cols, r);
    }
  }
}

}  // namespace

std::shared_ptr<KeyIndex> KeyIndex::Build(const TableSchema& schema, std::shared_ptr<const TableData> data) {
  auto idx = std::make_shared<KeyIndex>();
  idx->sets_.resize(schema.keys.size());
  std::string buf;
  for (size_t k = 0; k < schema.keys.size(); k++) {
    const KeyConstraint& key = schema.keys[k];
    auto& set = idx->sets_[k];
    set.reserve(data->row_count);
    ForEachKeyRow(schema, key, data->row_groups, [&](const std::vector<Vector>& cols, uint32_t r) {
      if (EncodeKey(cols, r, buf) && !set.insert(buf).second) throw DuplicateOfCommitted(schema, key, cols, r);
    });
  }
  idx->data_ = std::move(data);
  return idx;
}

KeyIndex::Pending KeyIndex::Check(const TableSchema& schema,
                                  const std::vector<std::shared_ptr<const RowGroup>>& groups) const {
  Pending p;
  p.keys.resize(schema.keys.size());
  std::string buf;
  for (size_t k = 0; k < schema.keys.size(); k++) {
    const KeyConstraint& key = schema.keys[k];
    const auto& set = sets_[k];
    std::unordered_set<std::string> fresh;
    uint64_t rows = 0;
    for (const auto& rg : groups) rows += rg->count;
    fresh.reserve(rows);
    ForEachKeyRow(schema, key, groups, [&](const std::vector<Vector>& cols, uint32_t r) {
      if (!EncodeKey(cols, r, buf)) return;
      if (set.count(buf)) throw DuplicateOfCommitted(schema, key, cols, r);
      if (!fresh.insert(buf).second)
        throw UserError(ErrorKind::Constraint, "PRIMARY KEY or UNIQUE constraint violation: duplicate key \"" +
                                                   KeyText(schema, key, cols, r, false) + "\"");
    });
    p.keys[k].reserve(fresh.size());
    for (auto it = fresh.begin(); it != fresh.end();) p.keys[k].push_back(std::move(fresh.extract(it++).value()));
  }
  return p;
}

void KeyIndex::Add(Pending&& pending, std::shared_ptr<const TableData> data) {
  for (size_t k = 0; k < sets_.size() && k < pending.keys.size(); k++) {
    sets_[k].reserve(sets_[k].size() + pending.keys[k].size());
    for (auto& key : pending.keys[k]) sets_[k].insert(std::move(key));
  }
  data_ = std::move(data);
}

}  // namespace tessera
