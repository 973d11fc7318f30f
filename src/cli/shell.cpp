#include "cli/shell.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <vector>

#include "cli/completion.hpp"
#include "cli/interrupt_signal.hpp"
#include "cli/line_editor.hpp"
#include "cli/version.hpp"
#include "gpu/column_cache.hpp"
#include "gpu/gpu_context.hpp"
#include "gpu/kernel_cache.hpp"
#include "model/machine_probe.hpp"
#include "parser/parser.hpp"

namespace tessera::cli {

namespace {

constexpr const char* kPrompt = "tessera> ";
constexpr const char* kContinuePrompt = "     ...> ";

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace((unsigned char)s[b])) b++;
  while (e > b && std::isspace((unsigned char)s[e - 1])) e--;
  return std::string(s.substr(b, e - b));
}

// Splits a dot command into words; '...' and "..." group words with spaces.
std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace((unsigned char)line[i])) i++;
    if (i >= line.size()) break;
    std::string w;
    if (line[i] == '\'' || line[i] == '"') {
      char q = line[i++];
      while (i < line.size() && line[i] != q) w += line[i++];
      i++;
    } else {
      while (i < line.size() && !std::isspace((unsigned char)line[i])) w += line[i++];
    }
    words.push_back(std::move(w));
  }
  return words;
}

std::string FormatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms >= 1 ? "%.1f" : "%.3f", ms);
  return buf;
}


std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return "";
  return std::string(home) + "/.tessera_history";
}

}  // namespace

Shell::Shell(Database& db, OutputMode mode) : db_(db), conn_(db), mode_(mode) {}

std::ostream& Shell::Out() { return output_file_.is_open() ? static_cast<std::ostream&>(output_file_) : std::cout; }

void Shell::PrintError(const std::string& msg) const {
  std::cout.flush();
  std::cerr << "Error: " << (where_.empty() ? "" : where_ + ": ") << msg << std::endl;
}

Shell::Outcome Shell::RunSql(std::string_view sql) {
  if (echo_) Out() << Trim(sql) << '\n';
  try {
    auto start = std::chrono::steady_clock::now();
    QueryResult result;
    std::ostream& out = Out();
    // The rows print as they come (csv, json) or once counted (table: ResultPrinter).
    ResultPrinter printer(out, mode_, style_);
    {
      // Interactive: Ctrl-C while it runs (or prints) stops the statement ("query
      // interrupted").
      std::optional<InterruptOnSigint> on_sigint;
      if (interactive_) on_sigint.emplace(conn_);
      result = conn_.Stream(sql, printer);
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    if (result.has_rows) printer.End();
    else PrintResult(out, result, mode_, style_);
    if (!result.note.empty()) std::cerr << "note: " << result.note << '\n';
    if (timer_) {
      out << "Run Time: " << FormatMs(ms) << " ms";
      if (result.has_rows && result.device != "cpu") {
        // Where a cold run's time goes: planning (GPU planning includes the column cache's
        // host pass over new columns), opening the GPU, compiling, uploading, the kernels.
        const auto& ph = result.phases;
        out << " (" << result.device << "; kernels " << FormatMs(result.gpu_kernel_ms) << " ms, compile "
                  << FormatMs(result.gpu_compile_ms) << " ms, column upload " << FormatMs(result.gpu_transfer_ms) << " ms";
        if (result.gpu_transfer_bytes) {
          const double gbps = result.gpu_transfer_bytes / 1e6 / std::max(result.gpu_transfer_ms, 1e-3);
          out << " for " << FormatMs(result.gpu_transfer_bytes / 1e6) << " MB";
          if (result.gpu_column_bytes > result.gpu_transfer_bytes)
            out << " (" << FormatMs(result.gpu_column_bytes / 1e6) << " MB decoded on the GPU)";
          out << " (" << FormatMs(gbps) << " GB/s";
          // Against the probed pinned host-to-device bandwidth (`tessera probe`), when saved.
          if (auto c = model::SavedCeilings(); c && c->h2d_pinned_gbps > 0)
            out << ", " << FormatMs(100 * gbps / c->h2d_pinned_gbps) << "% of pinned " << FormatMs(c->h2d_pinned_gbps) << " GB/s";
          out << ")";
        }
        if (!ph.plan_cached)
          out << ", plan " << FormatMs(ph.plan_ms) << " ms, GPU plan " << FormatMs(ph.gpu_plan_ms) << " ms";
        if (result.gpu_open_ms >= 0.05) out << ", GPU open " << FormatMs(result.gpu_open_ms) << " ms";
        out << ")";
      }
      out << '\n';
    }
    out.flush();
    return Outcome::Ok;
  } catch (const std::exception& e) {
    PrintError(e.what());
    return Outcome::Error;
  }
}

Shell::Outcome Shell::RunCommand(std::string_view text) {
  std::string trimmed = Trim(text);
  if (!trimmed.empty() && trimmed[0] == '.') return RunDotCommand(trimmed);
  return RunStatements(text);
}

// Runs every statement in `text`, the last one even without its ';'.
Shell::Outcome Shell::RunStatements(std::string_view text) {
  for (const std::string& s : SplitStatements(text)) {
    if (RunSql(s) == Outcome::Error) return Outcome::Error;
  }
  return Outcome::Ok;
}

Shell::Outcome Shell::ProcessLine(std::string& pending, const std::string& line) {
  if (pending.empty()) {
    std::string trimmed = Trim(line);
    if (!trimmed.empty() && trimmed[0] == '.') return RunDotCommand(trimmed);
  }
  pending += line;
  pending += '\n';
  bool complete = false;
  std::vector<std::string> statements = SplitStatements(pending, &complete);
  // The statements that ended in ';' run now; an unfinished last one waits for more lines.
  pending.clear();
  if (!complete && !statements.empty()) {
    pending = statements.back() + "\n";
    statements.pop_back();
  }
  for (const std::string& s : statements) {
    if (RunSql(s) == Outcome::Error) return Outcome::Error;
  }
  return Outcome::Ok;
}

Shell::Outcome Shell::RunStream(std::istream& in, bool stop_on_error, const std::string& name) {
  const std::string outer_where = where_;
  auto at_line = [&](int n) {
    where_ = name.empty() ? "near line " + std::to_string(n) : name + ":" + std::to_string(n);
  };
  std::string pending;
  std::string line;
  bool failed = false;
  int number = 0, pending_from = 0;  // line numbers: this line, where `pending` began
  Outcome result = Outcome::Ok;
  while (std::getline(in, line)) {
    number++;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // An error names the line its statement began on.
    at_line(pending.empty() ? number : pending_from);
    const std::string before = pending;
    Outcome o = ProcessLine(pending, line);
    if (pending.empty()) pending_from = 0;
    else if (before.empty() || pending.compare(0, before.size(), before) != 0) pending_from = number;
    if (o == Outcome::Quit) {
      result = o;
      break;
    }
    if (o == Outcome::Error) {
      failed = true;
      if (stop_on_error && bail_) {
        result = o;
        break;
      }
    }
  }
  if (result == Outcome::Ok) {
    at_line(pending_from ? pending_from : number);
    if (RunStatements(pending) == Outcome::Error) failed = true;
    if (failed) result = Outcome::Error;
  }
  where_ = outer_where;
  return result;
}

int Shell::RunInteractive() {
  LineEditor editor(HistoryPath());
  editor.SetCompleter([this](std::string& line, size_t& pos, std::vector<std::string>& choices) {
    Completion c = Complete(line, pos, CompletionWords(db_));
    line = std::move(c.line);
    pos = c.pos;
    choices = std::move(c.choices);
  });
  interactive_ = true;
  std::cout << "tessera " << kVersion << " - enter .help for usage hints, .quit to exit.\n";
  if (db_.path().empty() || db_.path() == ":memory:") {
    std::cout << "Connected to a transient in-memory database.\n";
  } else {
    std::cout << "Database: " << db_.path() << "\n";
  }
  std::string pending;
  std::string entry;  // the lines of the current statement, for the history
  std::string line;
  for (;;) {
    auto status = editor.ReadLine(pending.empty() ? kPrompt : kContinuePrompt, &line);
    if (status == LineEditor::Status::Eof) break;
    if (status == LineEditor::Status::Interrupted) {
      pending.clear();
      entry.clear();
      continue;
    }
    if (!entry.empty()) entry += ' ';
    entry += Trim(line);
    Outcome o = ProcessLine(pending, line);
    if (pending.empty()) {
      editor.AddHistory(entry);
      entry.clear();
    }
    if (o == Outcome::Quit) break;
  }
  return 0;
}

void Shell::PrintHelp() const {
  std::cout <<
      "SQL statements end with ';' and may span several lines.\n"
      "Dot commands:\n"
      "  .help                 show this text\n"
      "  .tables               list the tables\n"
      "  .schema [TABLE]       show CREATE TABLE and CREATE VIEW statements\n"
      "  .timer on|off         print the run time after each statement\n"
      "  .mode table|csv|json  choose the result format\n"
      "  .maxrows N            rows shown by table mode (0: all)\n"
      "  .read FILE            run SQL and dot commands from FILE\n"
      "  .output [FILE]        write results to FILE (none: back to standard output)\n"
      "  .headers on|off       show the column names above the rows (table, csv)\n"
      "  .nullvalue TEXT       print NULL as TEXT (table, csv)\n"
      "  .bail on|off          stop a script at its first error (default on)\n"
      "  .echo on|off          print each command before running it\n"
      "  .gpu                  the GPU, the device setting, resident columns, cached kernels\n"
      "  .quit, .exit          leave the shell\n"
      "Editing: arrows, Home/End, Ctrl-A/E/K/U/W; history with up/down (~/.tessera_history);\n"
      "Tab completes keywords, dot commands, table and column names.\n";
}

Shell::Outcome Shell::ShowGpu() {
  Out() << gpu::GpuStatusLine() << '\n' << "device setting: " << db_.settings().device << '\n';
  auto& cache = gpu::ColumnCache::Instance();
  auto lines = cache.Describe();
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", cache.resident_bytes() / 1048576.0);
  Out() << "column cache: " << mib << " MiB resident, " << lines.size()
            << " column" << (lines.size() == 1 ? "" : "s") << " known\n";
  for (auto& l : lines) Out() << "  " << l << '\n';
  Out() << "kernel cache: " << gpu::KernelCache::Instance().size() << " kernels in memory; on disk in "
            << (gpu::KernelCache::DiskDir().empty() ? std::string("(none)") : gpu::KernelCache::DiskDir()) << '\n';
  Out().flush();
  return Outcome::Ok;
}

Shell::Outcome Shell::ShowTables() {
  for (const std::string& name : conn_.database().catalog().TableNames()) Out() << name << '\n';
  Out().flush();
  return Outcome::Ok;
}

Shell::Outcome Shell::ShowSchema(const std::string& table) {
  std::vector<std::string> names;
  if (table.empty()) {
    names = conn_.database().catalog().TableNames();
  } else {
    names.push_back(table);
  }
  for (const std::string& name : names) {
    auto entry = conn_.database().catalog().GetEntry(name);  // any case
    if (!entry) {
      PrintError("table \"" + name + "\" does not exist");
      return Outcome::Error;
    }
    if (entry->is_view()) {  // its stored query text
      Out() << "CREATE VIEW " << entry->schema.name;
      for (size_t i = 0; i < entry->view_columns.size(); i++)
        Out() << (i ? ", " : " (") << entry->view_columns[i] << (i + 1 == entry->view_columns.size() ? ")" : "");
      Out() << " AS " << entry->view_sql << ";\n";
      continue;
    }
    const TableSchema& s = entry->schema;
    Out() << "CREATE TABLE " << s.name << " (\n";
    for (size_t i = 0; i < s.columns.size(); i++) {
      const ColumnDef& c = s.columns[i];
      Out() << "  " << c.name << ' ' << c.type.ToString() << (c.not_null ? " NOT NULL" : "")
                << (i + 1 < s.columns.size() ? ",\n" : "\n");
    }
    Out() << ");\n";
  }
  Out().flush();
  return Outcome::Ok;
}

Shell::Outcome Shell::RunDotCommand(const std::string& line) {
  std::vector<std::string> w = SplitWords(line);
  const std::string cmd = w.empty() ? "" : w[0];
  const size_t nargs = w.size() - 1;
  auto usage = [this](const std::string& text) {
    PrintError("usage: " + text);
    return Outcome::Error;
  };
  if (echo_) Out() << line << '\n';
  if (cmd == ".quit" || cmd == ".exit") return Outcome::Quit;
  if (cmd == ".help") {
    PrintHelp();
    return Outcome::Ok;
  }
  if (cmd == ".tables") return nargs == 0 ? ShowTables() : usage(".tables");
  if (cmd == ".gpu") return nargs == 0 ? ShowGpu() : usage(".gpu");
  if (cmd == ".schema") return nargs <= 1 ? ShowSchema(nargs ? w[1] : "") : usage(".schema [TABLE]");
  if (cmd == ".timer") {
    if (nargs != 1 || (w[1] != "on" && w[1] != "off")) return usage(".timer on|off");
    timer_ = w[1] == "on";
    return Outcome::Ok;
  }
  // .headers / .bail / .echo on|off
  for (auto [name, flag] : {std::pair<const char*, bool*>{".headers", &style_.headers}, {".bail", &bail_}, {".echo", &echo_}}) {
    if (cmd != name) continue;
    if (nargs != 1 || (w[1] != "on" && w[1] != "off")) return usage((std::string(name) + " on|off").c_str());
    *flag = w[1] == "on";
    return Outcome::Ok;
  }
  if (cmd == ".nullvalue") {
    if (nargs != 1) return usage(".nullvalue TEXT");
    style_.null_text = w[1];
    return Outcome::Ok;
  }
  if (cmd == ".output") {
    if (nargs > 1) return usage(".output [FILE]");
    if (output_file_.is_open()) output_file_.close();
    if (nargs == 0) return Outcome::Ok;  // back to standard output
    output_file_.open(w[1], std::ios::out | std::ios::trunc);
    if (!output_file_) {
      output_file_ = std::ofstream();
      PrintError("cannot open file '" + w[1] + "' for writing");
      return Outcome::Error;
    }
    return Outcome::Ok;
  }
  if (cmd == ".mode") {
    if (nargs == 0) {
      Out() << OutputModeName(mode_) << '\n';
      return Outcome::Ok;
    }
    if (nargs != 1 || !ParseOutputMode(w[1], &mode_)) return usage(".mode table|csv|json");
    return Outcome::Ok;
  }
  if (cmd == ".maxrows") {
    if (nargs != 1 || w[1].empty() || w[1].find_first_not_of("0123456789") != std::string::npos)
      return usage(".maxrows N");
    if (w[1].size() > 18) return usage(".maxrows N (at most 18 digits)");
    style_.max_rows = (size_t)std::strtoull(w[1].c_str(), nullptr, 10);
    return Outcome::Ok;
  }
  if (cmd == ".read") {
    if (nargs != 1) return usage(".read FILE");
    std::ifstream in(w[1]);
    if (!in) {
      PrintError("cannot open file '" + w[1] + "'");
      return Outcome::Error;
    }
    if (read_depth_ >= 16) {
      PrintError(".read nested too deeply");
      return Outcome::Error;
    }
    read_depth_++;
    Outcome o = RunStream(in, /*stop_on_error=*/true, w[1]);
    read_depth_--;
    return o;
  }
  PrintError("unknown command '" + cmd + "'. Enter .help for usage hints.");
  return Outcome::Error;
}

}  // namespace tessera::cli
