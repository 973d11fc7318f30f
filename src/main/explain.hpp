// EXPLAIN [ANALYZE] [(option, ...)] SELECT ...: the plan as text or JSON.
//
// Options: ANALYZE (run it, then show rows, times and the bandwidth model), KERNELS (the
// generated kernels; with DEVICE gpu and without ANALYZE they are also compiled with NVRTC
// for sm_90, nothing launched, on any machine), DEVICE gpu|cpu (plan for that device whatever
// this machine has: a GPU plan needs no GPU, only ANALYZE runs it), FORMAT text|json.
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteExplain(Database& db, const ast::ExplainStatement& ex);

}  // namespace tessera
