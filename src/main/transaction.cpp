#include "main/transaction.hpp"

namespace tessera {

Transaction::Transaction(Database& db, std::shared_ptr<Catalog> temp) : parent_(db), temp_(std::move(temp)) {
  CatalogState snapshot;
  id_ = db.catalog().BeginTransaction(&snapshot);
  auto temp_copy = temp_ ? Catalog::MakeTemp(temp_->Snapshot()) : nullptr;
  view_ = std::make_unique<Database>(
      db, std::make_unique<Catalog>(&db.catalog(), id_, std::move(snapshot), std::move(temp_copy)));
}

Transaction::~Transaction() {
  if (!done_) Rollback();
}

void Transaction::Commit() {
  if (aborted_) {
    Rollback();
    return;
  }
  done_ = true;
  parent_.catalog().CommitTransaction(id_, view_->catalog());
  if (temp_) temp_->ResetState(view_->catalog().temp()->Snapshot());
}

void Transaction::Rollback() {
  done_ = true;
  parent_.catalog().EndTransaction(id_);
}

}  // namespace tessera
