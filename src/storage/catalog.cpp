#include "storage/catalog.hpp"

#include <algorithm>

#include "storage/key_index.hpp"
#include "storage/sequence.hpp"

namespace tessera {

Catalog::Catalog(std::unique_ptr<StorageBackend> backend) : backend_(std::move(backend)) {
  if (backend_) state_ = backend_->Load();
}

Catalog::Catalog(Catalog* parent, uint64_t txn, CatalogState snapshot, std::shared_ptr<Catalog> temp)
    : parent_(parent), txn_(txn), base_(snapshot), temp_(std::move(temp)), state_(std::move(snapshot)) {}

Catalog::Catalog(Catalog* shared, std::shared_ptr<Catalog> temp) : shared_(shared), temp_(std::move(temp)) {}

std::shared_ptr<Catalog> Catalog::MakeTemp(CatalogState state) {
  auto c = std::make_shared<Catalog>();
  c->state_ = std::move(state);
  c->holds_temporary_ = true;
  return c;
}

Catalog* Catalog::TempHolding(const std::string& name) const {
  return temp_ && temp_->GetEntry(name) ? temp_.get() : nullptr;
}

std::shared_ptr<const TableEntry> Catalog::GetMainEntry(const std::string& name) const {
  if (shared_) return shared_->GetMainEntry(name);
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(name);
  return it == state_.end() ? nullptr : it->second;
}

std::shared_ptr<const TableEntry> Catalog::GetTempEntry(const std::string& name) const {
  return temp_ ? temp_->GetEntry(name) : nullptr;
}

bool Catalog::HasTempObjects() const {
  if (!temp_) return false;
  std::lock_guard<std::mutex> g(temp_->mu_);
  return !temp_->state_.empty() || !temp_->state_.sequences.empty();
}

CatalogState Catalog::TempSnapshot() const { return temp_ ? temp_->Snapshot() : CatalogState{}; }

void Catalog::ResetState(CatalogState state) {
  std::lock_guard<std::mutex> g(mu_);
  state_ = std::move(state);
  key_indexes_.clear();
  version_.fetch_add(1, std::memory_order_acq_rel);
}

uint64_t Catalog::version() const {
  uint64_t v = shared_ ? shared_->version() : version_.load(std::memory_order_acquire);
  return temp_ ? v + temp_->version() : v;
}

namespace {
std::shared_ptr<const TableEntry> Find(const CatalogState& s, const std::string& name) {
  auto it = s.find(name);
  return it == s.end() ? nullptr : it->second;
}
// The names whose entries differ between two states (added, dropped or replaced).
std::vector<std::string> ChangedNames(const CatalogState& a, const CatalogState& b) {
  std::vector<std::string> out;
  for (auto& [name, e] : a)
    if (Find(b, name) != e) out.push_back(name);
  for (auto& [name, e] : b)
    if (!a.count(name)) out.push_back(name);
  return out;
}
bool SameSchema(const TableSchema& a, const TableSchema& b) {
  if (a.name != b.name || a.columns.size() != b.columns.size() || a.keys != b.keys) return false;
  for (size_t i = 0; i < a.columns.size(); i++)
    if (a.columns[i].name != b.columns[i].name || a.columns[i].type != b.columns[i].type ||
        a.columns[i].not_null != b.columns[i].not_null || a.columns[i].default_sql != b.columns[i].default_sql)
      return false;
  return true;
}
// Whether `next` is `base` with row groups appended and nothing else changed (INSERT, COPY):
// such a change needs no claim and is applied at COMMIT on top of whatever was committed
// meanwhile, as DuckDB lets concurrent transactions append to one table.
bool AppendOnly(const std::shared_ptr<const TableEntry>& base, const std::shared_ptr<const TableEntry>& next) {
  if (!base || !next || base->is_view() || next->is_view() || base->temporary || next->temporary) return false;
  const auto& b = base->data->row_groups;
  const auto& n = next->data->row_groups;
  if (n.size() <= b.size() || !std::equal(b.begin(), b.end(), n.begin())) return false;
  return SameSchema(base->schema, next->schema);
}
UserError Conflict(const std::string& name, bool open) {
  return UserError(ErrorKind::Transaction,
                   "Transaction conflict: \"" + name + "\" " +
                       (open ? "is being changed by another transaction"
                             : "was changed by another transaction after this transaction began"));
}
}  // namespace

uint64_t Catalog::BeginTransaction(CatalogState* snapshot) {
  std::lock_guard<std::mutex> g(mu_);
  *snapshot = state_;
  return next_txn_++;
}

void Catalog::Claim(uint64_t txn, const CatalogState& base, const CatalogState& next) {
  std::lock_guard<std::mutex> g(mu_);
  auto changed = ChangedNames(base, next);
  std::erase_if(changed, [&](const std::string& name) { return AppendOnly(Find(base, name), Find(next, name)); });
  for (auto& name : changed) {
    auto it = claims_.find(name);
    if (it != claims_.end() && it->second != txn) throw Conflict(name, true);
    if (Find(state_, name) != Find(base, name)) throw Conflict(name, false);
  }
  for (auto& name : changed) claims_[name] = txn;
}

void Catalog::EndTransaction(uint64_t txn) {
  std::lock_guard<std::mutex> g(mu_);
  std::erase_if(claims_, [&](const auto& c) { return c.second == txn; });
}

void Catalog::CommitTransaction(uint64_t txn, const Catalog& txn_catalog) {
  const CatalogState mine = txn_catalog.Snapshot();
  std::lock_guard<std::mutex> g(mu_);
  struct Release {
    Catalog* c;
    uint64_t txn;
    ~Release() { std::erase_if(c->claims_, [&](const auto& e) { return e.second == txn; }); }
  } release{this, txn};
  const CatalogState& base = txn_catalog.base_;
  auto changed = ChangedNames(base, mine);
  // Sequences the transaction created, replaced or dropped (their positions are shared).
  std::vector<std::string> changed_sequences;
  auto sequence_in = [](const CatalogState& s, const std::string& name) -> std::shared_ptr<const SequenceEntry> {
    auto it = s.sequences.find(name);
    return it == s.sequences.end() ? nullptr : it->second;
  };
  for (auto& [name, e] : mine.sequences)
    if (sequence_in(base, name) != e) changed_sequences.push_back(name);
  for (auto& [name, e] : base.sequences)
    if (!mine.sequences.count(name)) changed_sequences.push_back(name);
  if (changed.empty() && changed_sequences.empty()) return;
  CatalogState next = state_;
  for (auto& name : changed_sequences) {
    if (sequence_in(state_, name) != sequence_in(base, name)) throw Conflict(name, false);
    next.sequences.erase(name);
    if (auto e = sequence_in(mine, name)) next.sequences[e->def.name] = e;
  }
  // Rows appended by the transaction to a table committed by someone else meanwhile: the
  // current table with them appended, their keys checked against its index.
  struct Rebased {
    std::string name;
    std::shared_ptr<KeyIndex> index;
    KeyIndex::Pending keys;
  };
  std::vector<Rebased> rebased;
  for (auto& name : changed) {
    auto b = Find(base, name), cur = Find(state_, name), e = Find(mine, name);
    if (cur == b) {
      if (e) next[name] = e;
      else next.erase(name);
      continue;
    }
    if (!AppendOnly(b, e) || !cur || cur->is_view() || !SameSchema(cur->schema, e->schema))
      throw Conflict(name, false);
    std::vector<std::shared_ptr<const RowGroup>> added(e->data->row_groups.begin() + b->data->row_groups.size(),
                                                        e->data->row_groups.end());
    Rebased r{name, nullptr, {}};
    if (!cur->schema.keys.empty()) {
      r.index = KeyIndexLocked(name, *cur);
      r.keys = r.index->Check(cur->schema, added);
    }
    auto data = std::make_shared<TableData>(*cur->data);
    for (auto& rg : added) {
      data->row_count += rg->count;
      data->row_groups.push_back(rg);
    }
    auto entry = std::make_shared<TableEntry>(*cur);
    entry->data = std::move(data);
    next[name] = std::move(entry);
    rebased.push_back(std::move(r));
  }
  CommitLocked(std::move(next), txn);
  for (auto& name : changed) key_indexes_.erase(name);
  for (auto& r : rebased)
    if (r.index) {
      r.index->Add(std::move(r.keys), state_.at(r.name)->data);
      key_indexes_[r.name] = std::move(r.index);
    }
}

std::shared_ptr<const TableEntry> Catalog::GetEntry(const std::string& name) const {
  if (temp_)
    if (auto e = temp_->GetEntry(name)) return e;
  if (shared_) return shared_->GetEntry(name);
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(name);
  return it == state_.end() ? nullptr : it->second;
}

std::shared_ptr<const TableEntry> Catalog::GetTable(const std::string& name) const {
  auto e = GetEntry(name);
  return e && !e->is_view() ? e : nullptr;
}

void Catalog::CreateView(const std::string& name, std::string sql, std::vector<std::string> columns,
                         bool or_replace, bool temporary) {
  if (temporary) {
    if (!temp_) throw InternalError("CREATE TEMP VIEW without a connection's temp catalog");
    return temp_->CreateView(name, std::move(sql), std::move(columns), or_replace);
  }
  if (shared_) return shared_->CreateView(name, std::move(sql), std::move(columns), or_replace);
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(name);
  if (it != state_.end()) {
    if (!it->second->is_view()) throw UserError(ErrorKind::Catalog, "table \"" + name + "\" already exists");
    if (!or_replace) throw UserError(ErrorKind::Catalog, "view \"" + name + "\" already exists");
  }
  auto e = std::make_shared<TableEntry>();
  e->schema.name = name;
  e->data = std::make_shared<TableData>();
  e->view_sql = std::move(sql);
  e->view_columns = std::move(columns);
  e->temporary = holds_temporary_;
  CatalogState next = state_;
  next.erase(name);  // a replaced view takes the new spelling
  next[name] = e;
  CommitLocked(std::move(next));
}

bool Catalog::DropView(const std::string& name, bool if_exists) {
  if (Catalog* t = TempHolding(name)) return t->DropView(name, if_exists);
  if (shared_) return shared_->DropView(name, if_exists);
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(name);
  if (it == state_.end()) {
    if (if_exists) return false;
    throw UserError(ErrorKind::Catalog, "view \"" + name + "\" does not exist");
  }
  if (!it->second->is_view())
    throw UserError(ErrorKind::Catalog, "\"" + name + "\" is a table, not a view (use DROP TABLE)");
  CatalogState next = state_;
  next.erase(name);
  CommitLocked(std::move(next));
  return true;
}

std::vector<std::string> Catalog::TableNames() const {
  std::vector<std::string> r = temp_ ? temp_->TableNames() : std::vector<std::string>{};
  if (shared_) {
    auto rest = shared_->TableNames();
    r.insert(r.end(), rest.begin(), rest.end());
    return r;
  }
  std::lock_guard<std::mutex> g(mu_);
  for (auto& [k, e] : state_) r.push_back(e->schema.name);
  return r;
}

CatalogState Catalog::Snapshot() const {
  if (shared_) return shared_->Snapshot();
  std::lock_guard<std::mutex> g(mu_);
  return state_;
}

void Catalog::CommitLocked(CatalogState next, uint64_t txn) {
  if (parent_) {
    parent_->Claim(txn_, base_, next);
  } else if (!claims_.empty()) {
    for (auto& name : ChangedNames(state_, next)) {
      auto it = claims_.find(name);
      if (it != claims_.end() && it->second != txn) throw Conflict(name, true);
    }
  }
  if (backend_) {
    // Temporary tables stay out of the backend: commit the rest, then put them back.
    CatalogState temporary;
    for (auto it = next.begin(); it != next.end();) {
      if (it->second->temporary) {
        temporary.insert(*it);
        it = next.erase(it);
      } else {
        ++it;
      }
    }
    next = backend_->Commit(next);
    next.merge(temporary);
  }
  state_ = std::move(next);
  version_.fetch_add(1, std::memory_order_acq_rel);
}

namespace {
// A new table's columns have distinct names.
void CheckColumnNames(const TableSchema& schema) {
  for (size_t i = 0; i < schema.columns.size(); i++)
    for (size_t j = 0; j < i; j++)
      if (IdentEquals(schema.columns[i].name, schema.columns[j].name))
        throw UserError(ErrorKind::Catalog, "column \"" + schema.columns[i].name + "\" specified more than once");
}
UserError AlreadyExists(const TableEntry& existing, const std::string& name) {
  return UserError(ErrorKind::Catalog, std::string(existing.is_view() ? "view" : "table") + " \"" + name + "\" already exists");
}
}  // namespace

void Catalog::CreateTable(TableSchema schema, bool if_not_exists, std::vector<std::shared_ptr<const RowGroup>> groups,
                          bool or_replace, bool temporary) {
  if (temporary) {
    if (!temp_) throw InternalError("CREATE TEMP TABLE without a connection's temp catalog");
    return temp_->CreateTable(std::move(schema), if_not_exists, std::move(groups), or_replace);
  }
  if (shared_) return shared_->CreateTable(std::move(schema), if_not_exists, std::move(groups), or_replace);
  std::lock_guard<std::mutex> g(mu_);
  auto old = state_.find(schema.name);
  if (old != state_.end()) {
    if (if_not_exists) return;
    if (!or_replace || old->second->is_view()) throw AlreadyExists(*old->second, schema.name);
  }
  CheckColumnNames(schema);
  TESSERA_ASSERT(groups.empty() || schema.keys.empty(), "a new table with rows has no key constraints");
  auto e = std::make_shared<TableEntry>();
  e->schema = std::move(schema);
  e->temporary = holds_temporary_;
  auto data = std::make_shared<TableData>();
  for (auto& rg : groups) {
    TESSERA_ASSERT(rg->columns.size() == e->schema.columns.size(), "row group has the wrong column count");
    data->row_count += rg->count;
    data->row_groups.push_back(std::move(rg));
  }
  e->data = std::move(data);
  CatalogState next = state_;
  if (old != state_.end()) next.erase(old->first);  // replaced (its name may be spelled otherwise)
  next[e->schema.name] = e;
  CommitLocked(std::move(next));
  key_indexes_.erase(e->schema.name);
}

bool Catalog::DropTable(const std::string& name, bool if_exists) {
  if (Catalog* t = TempHolding(name)) return t->DropTable(name, if_exists);
  if (shared_) return shared_->DropTable(name, if_exists);
  std::lock_guard<std::mutex> g(mu_);
  if (!state_.count(name)) {
    if (if_exists) return false;
    throw UserError(ErrorKind::Catalog, "table \"" + name + "\" does not exist");
  }
  if (state_.at(name)->is_view())
    throw UserError(ErrorKind::Catalog, "\"" + name + "\" is a view, not a table (use DROP VIEW)");
  CatalogState next = state_;
  next.erase(name);
  CommitLocked(std::move(next));
  key_indexes_.erase(name);
  return true;
}

void Catalog::ReplaceTable(const std::string& name, const TableEntry* expected,
                           std::shared_ptr<const TableEntry> next) {
  if (Catalog* t = TempHolding(name)) return t->ReplaceTable(name, expected, std::move(next));
  if (shared_) return shared_->ReplaceTable(name, expected, std::move(next));
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(name);
  if (it == state_.end() || it->second->is_view())
    throw UserError(ErrorKind::Catalog, "table \"" + name + "\" does not exist");
  if (it->second.get() != expected)
    throw UserError(ErrorKind::Constraint, "table \"" + name + "\" was changed by another statement meanwhile; try again");
  const std::string& new_name = next->schema.name;
  if (!IdentEquals(new_name, name) && state_.count(new_name))
    throw AlreadyExists(*state_.at(new_name), new_name);
  CheckColumnNames(next->schema);
  std::shared_ptr<KeyIndex> index;
  if (!next->schema.keys.empty()) index = KeyIndex::Build(next->schema, next->data);
  CatalogState state = state_;
  state.erase(name);
  state[new_name] = std::move(next);
  CommitLocked(std::move(state));
  key_indexes_.erase(name);
  // The committed snapshot (row groups possibly in their persisted form) has the same keys.
  if (index) {
    index->Add({}, state_.at(new_name)->data);
    key_indexes_[new_name] = std::move(index);
  }
}

std::shared_ptr<KeyIndex> Catalog::KeyIndexLocked(const std::string& name, const TableEntry& entry) {
  auto& idx = key_indexes_[name];
  if (!idx || idx->snapshot() != entry.data.get()) idx = KeyIndex::Build(entry.schema, entry.data);
  return idx;
}

void Catalog::PutTemporaryTable(TableSchema schema, std::shared_ptr<const TableData> data, bool replace) {
  if (shared_) return shared_->PutTemporaryTable(std::move(schema), std::move(data), replace);
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(schema.name);
  if (it != state_.end() && (!replace || !it->second->temporary))
    throw AlreadyExists(*it->second, schema.name);
  CheckColumnNames(schema);
  auto e = std::make_shared<TableEntry>();
  e->schema = std::move(schema);
  e->data = std::move(data);
  e->temporary = true;
  CatalogState next = state_;
  next[e->schema.name] = e;
  CommitLocked(std::move(next));
}

void Catalog::Append(const std::string& name,
                     std::vector<std::shared_ptr<const RowGroup>> groups) {
  if (Catalog* t = TempHolding(name)) return t->Append(name, std::move(groups));
  if (shared_) return shared_->Append(name, std::move(groups));
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.find(name);
  if (it == state_.end())
    throw UserError(ErrorKind::Catalog, "table \"" + name + "\" does not exist");
  auto data = std::make_shared<TableData>(*it->second->data);
  const std::vector<std::shared_ptr<const RowGroup>> groups_view = groups;
  for (auto& rg : groups) {
    TESSERA_ASSERT(rg->columns.size() == it->second->schema.columns.size(),
                   "appended row group has the wrong column count");
    data->row_count += rg->count;
    data->row_groups.push_back(std::move(rg));
  }
  std::shared_ptr<KeyIndex> index;
  KeyIndex::Pending keys;
  if (!it->second->schema.keys.empty()) {
    index = KeyIndexLocked(name, *it->second);
    keys = index->Check(it->second->schema, groups_view);
  }
  auto e = std::make_shared<TableEntry>(*it->second);
  e->data = data;
  CatalogState next = state_;
  next[name] = e;
  CommitLocked(std::move(next));
  if (index) index->Add(std::move(keys), state_.at(name)->data);
}

std::string Catalog::Describe() const {
  if (parent_) return parent_->Describe();
  if (shared_) return shared_->Describe();
  return backend_ ? backend_->Describe() : std::string("in-memory database");
}

std::string Catalog::Name() const {
  if (parent_) return parent_->Name();
  if (shared_) return shared_->Name();
  return backend_ ? backend_->Name() : std::string("memory"); }

std::shared_ptr<const SequenceEntry> Catalog::GetSequence(const std::string& name) const {
  if (temp_)
    if (auto e = temp_->GetSequence(name)) return e;
  if (shared_) return shared_->GetSequence(name);
  std::lock_guard<std::mutex> g(mu_);
  auto it = state_.sequences.find(name);
  return it == state_.sequences.end() ? nullptr : it->second;
}

void Catalog::CreateSequence(const SequenceDef& def, bool temporary, bool if_not_exists, bool or_replace) {
  if (temporary) {
    if (!temp_) throw InternalError("CREATE TEMP SEQUENCE without a connection's temp catalog");
    return temp_->CreateSequence(def, false, if_not_exists, or_replace);
  }
  if (shared_) return shared_->CreateSequence(def, false, if_not_exists, or_replace);
  std::lock_guard<std::mutex> g(mu_);
  auto old = state_.sequences.find(def.name);
  if (old != state_.sequences.end()) {
    if (if_not_exists) return;
    if (!or_replace) throw UserError(ErrorKind::Catalog, "sequence \"" + def.name + "\" already exists");
  }
  auto e = std::make_shared<SequenceEntry>();
  e->def = def;
  e->counter = std::make_shared<SequenceCounter>(def.start);
  e->temporary = holds_temporary_;
  CatalogState next = state_;
  if (old != state_.sequences.end()) next.sequences.erase(old->first);  // replaced (its name may be spelled otherwise)
  next.sequences[def.name] = std::move(e);
  CommitLocked(std::move(next));
}

bool Catalog::DropSequence(const std::string& name, bool if_exists) {
  if (temp_ && temp_->GetSequence(name)) return temp_->DropSequence(name, if_exists);
  if (shared_) return shared_->DropSequence(name, if_exists);
  std::lock_guard<std::mutex> g(mu_);
  if (!state_.sequences.count(name)) {
    if (if_exists) return false;
    throw UserError(ErrorKind::Catalog, "sequence \"" + name + "\" does not exist");
  }
  CatalogState next = state_;
  next.sequences.erase(name);
  CommitLocked(std::move(next));
  return true;
}

void Catalog::PersistSequences() {
  if (shared_) return shared_->PersistSequences();
  if (parent_ || !backend_) return;
  std::lock_guard<std::mutex> g(mu_);
  bool moved = false;
  for (auto& [name, e] : state_.sequences) moved |= e->counter->TakeDirty();
  if (moved) CommitLocked(state_);
}

}  // namespace tessera
