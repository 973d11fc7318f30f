#include "main/explain.hpp"

#include "common/ascii.hpp"
#include <optional>

#include "common/json.hpp"
#include "execution/pipeline.hpp"
#include "gpu/gpu_executor.hpp"
#include "main/prepared_query.hpp"
#include "main/statement_executor.hpp"
#include "model/machine_probe.hpp"
#include "model/pipeline_traffic.hpp"

namespace tessera {

namespace {

struct ExplainOptions {
  bool kernels = false;
  std::string device;  // "" (the session's), "gpu" or "cpu"
  bool json = false;
};

ExplainOptions ParseOptions(const ast::ExplainStatement& ex) {
  ExplainOptions o;
  for (auto& name : ex.options) {
    if (name == "kernels") o.kernels = true;
    else
      throw UserError(ErrorKind::Unsupported,
                      "unknown EXPLAIN option \"" + name + "\" (known: ANALYZE, KERNELS, DEVICE gpu|cpu, FORMAT text|json)",
                      ex.pos);
  }
  for (auto& [name, raw] : ex.values) {
    std::string v = AsciiLower(raw);
    if (name == "device") {
      if (v != "gpu" && v != "cpu") throw UserError(ErrorKind::Input, "EXPLAIN (DEVICE " + raw + "): expected gpu or cpu", ex.pos);
      o.device = v;
    } else if (name == "format") {
      if (v != "text" && v != "json") throw UserError(ErrorKind::Input, "EXPLAIN (FORMAT " + raw + "): expected text or json", ex.pos);
      o.json = v == "json";
    }
  }
  return o;
}

// The plan for the device asked for: DEVICE gpu plans every pipeline for the GPU (code
// generation needs no GPU: column domains come from the host's statistics), DEVICE cpu
// none, no DEVICE as a query of this session would run.
PreparedQuery PrepareFor(Database& db, const ast::SelectStmt& select, const ExplainOptions& o, bool analyze) {
  if (o.device == "cpu") return PrepareSelect(db, select, /*allow_gpu=*/false);
  if (o.device == "gpu") {
    if (analyze) gpu::UseGpu("gpu");  // running it needs a GPU: throws the reason when none
    return PrepareSelectForGpu(db, select);
  }
  return PrepareSelect(db, select);
}

std::string PlacementJson(const PreparedQuery& q, const ExplainOptions& o, const std::vector<gpu::KernelCompilation>* compiled) {
  std::string s = "{\"device\": " + json::Quote(q.gpu ? q.gpu->DeviceLabel() : "cpu") + ", \"pipelines\": [";
  int on_gpu = 0, on_cpu = 0;
  if (q.gpu) {
    auto placement = q.gpu->Placement();
    for (size_t i = 0; i < placement.size(); i++) {
      const auto& p = placement[i];
      (p.gpu ? on_gpu : on_cpu)++;
      s += std::string(i ? ", " : "") + "{\"id\": " + std::to_string(p.id) + ", \"device\": " +
           json::Quote(p.gpu ? "gpu" : "cpu") + (p.gpu ? "" : ", \"reason\": " + json::Quote(p.reason)) +
           ", \"plan\": " + json::Quote(p.plan) + "}";
    }
  } else {
    const auto& pl = q.pipelines->pipelines();
    for (size_t i = 0; i < pl.size(); i++) {
      on_cpu++;
      std::string plan = pl[i]->ToString();
      while (!plan.empty() && plan.back() == '\n') plan.pop_back();
      s += std::string(i ? ", " : "") + "{\"id\": " + std::to_string(pl[i]->id) + ", \"device\": \"cpu\", \"reason\": " +
           json::Quote(o.device == "cpu" ? "DEVICE cpu" : "no usable GPU") + ", \"plan\": " + json::Quote(plan) + "}";
    }
  }
  s += "], \"gpu_pipelines\": " + std::to_string(on_gpu) + ", \"cpu_pipelines\": " + std::to_string(on_cpu);
  if (compiled) {
    s += ", \"kernels\": [";
    for (size_t i = 0; i < compiled->size(); i++) {
      const auto& k = (*compiled)[i];
      s += std::string(i ? ", " : "") + "{\"pipeline\": " + std::to_string(k.pipeline) + ", \"compiled\": " +
           (k.ok ? "true" : "false") + ", \"arch\": \"sm_90\", \"compile_ms\": " + json::Number(k.ms) +
           ", \"cubin_bytes\": " + std::to_string(k.cubin_bytes) + (k.ok ? "" : ", \"error\": " + json::Quote(k.error)) +
           ", \"source\": " + json::Quote(k.kernel_body) + "}";
    }
    s += "]";
  }
  return s + "}";
}

std::string CompiledText(const std::vector<gpu::KernelCompilation>& compiled) {
  std::string s = "kernels compiled with NVRTC for sm_90 (not launched):\n";
  for (auto& k : compiled)
    s += "pipeline " + std::to_string(k.pipeline) + ": " +
         (k.ok ? "compiled in " + json::Number(k.ms) + " ms, cubin " + std::to_string(k.cubin_bytes) + " bytes"
               : "FAILED: " + k.error) +
         "\n";
  return s;
}

}  // namespace

QueryResult ExecuteExplain(Database& db, const ast::ExplainStatement& ex) {
  if (ex.inner->kind != ast::StmtKind::Select)
    throw UserError(ErrorKind::Unsupported, "EXPLAIN supports SELECT statements", ex.pos);
  const auto& select = *static_cast<const ast::SelectStatement&>(*ex.inner).select;
  ExplainOptions o = ParseOptions(ex);
  PreparedQuery q = PrepareFor(db, select, o, ex.analyze);
  // With ANALYZE the plan is rendered after running it (it then shows run-time choices
  // such as the hash table kind).
  std::string note;
  QueryResult run;
  if (ex.analyze) {
    // Its result rows are not shown; the operators keep their state for the plan text.
    run = RunPrepared(db, select, q, /*free_state=*/false);
    note = run.note;
  }
  // EXPLAIN (DEVICE gpu, KERNELS) compiles the kernels for sm_90 without launching them, on
  // any machine with NVRTC: CI checks code generation and compilation this way.
  std::optional<std::vector<gpu::KernelCompilation>> compiled;
  if (o.kernels && o.device == "gpu" && q.gpu && !ex.analyze) compiled = q.gpu->CompileWithoutDevice(9, 0);
  if (o.json) return TextResult("explain", {PlacementJson(q, o, compiled ? &*compiled : nullptr)});

  std::map<const PhysicalOperator*, uint64_t> actual;
  if (ex.analyze) actual = q.pipelines->ActualRows();
  std::string text = std::string(ex.analyze ? "physical plan (estimated and actual rows; actual where the CPU counted them):\n"
                                            : "physical plan:\n") +
                     PhysicalPlanToString(*q.plan, 0, ex.analyze ? &actual : nullptr) + "pipelines:\n";
  text += q.pipelines->ToString();
  if (ex.analyze) {
    // Per pipeline: rows, time, bytes moved and the bandwidth bound (model/).
    std::optional<model::Ceilings> ceilings = model::SavedCeilings();
    text += "pipeline model (rows counted by the executor, bytes from column widths and rows):\n";
    text += model::RenderModel(run.pipelines, ceilings ? &*ceilings : nullptr, db.threads());
  }
  if (q.gpu) {
    text += "device: " + q.gpu->DeviceLabel() + "\n" + q.gpu->Describe();
    if (o.kernels) text += "generated kernels:\n" + q.gpu->Kernels();
    if (compiled) text += CompiledText(*compiled);
  } else {
    text += std::string("device: cpu") +
            (o.device == "cpu" ? " (DEVICE cpu)\n" : db.settings().device == "cpu" ? " (SET device = 'cpu')\n" : " (no usable GPU)\n");
    if (o.kernels) text += "generated kernels: none (the query runs on the CPU)\n";
  }
  if (!note.empty()) text += "note: " + note + "\n";
  return TextResult("explain", SplitLines(text));
}

}  // namespace tessera
