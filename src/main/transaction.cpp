#include "main/transaction.hpp"

namespace tessera {

Transaction::Transaction(Database& db) : parent_(db) {
  CatalogState snapshot;
  id_ = db.catalog().BeginTransaction(&snapshot);
  view_ = std::make_unique<Database>(db, std::make_unique<Catalog>(&db.catalog(), id_, std::move(snapshot)));
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
}

void Transaction::Rollback() {
  done_ = true;
  parent_.catalog().EndTransaction(id_);
}

}  // namespace tessera
