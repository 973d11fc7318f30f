#include "main/sequences.hpp"

#include "main/statement_executor.hpp"
#include "storage/sequence.hpp"

namespace tessera {

QueryResult ExecuteCreateSequence(Database& db, const ast::CreateSequenceStatement& st) {
  SequenceOptions o;
  o.name = st.name;
  o.start = st.start;
  o.increment = st.increment;
  o.min = st.min;
  o.max = st.max;
  o.cycle = st.cycle;
  try {
    db.catalog().CreateSequence(MakeSequenceDef(o), st.temporary, st.if_not_exists, st.or_replace);
  } catch (const UserError& e) {
    throw UserError(e.kind(), e.raw(), st.pos);
  }
  return Status("CREATE SEQUENCE");
}

QueryResult ExecuteDropSequence(Database& db, const ast::DropStatement& st) {
  try {
    db.catalog().DropSequence(st.name, st.if_exists);
  } catch (const UserError& e) {
    throw UserError(e.kind(), e.raw(), st.pos);
  }
  return Status("DROP SEQUENCE");
}

}  // namespace tessera
