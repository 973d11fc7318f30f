// The SQL shell: runs statements and dot commands from -c, a script or the terminal, and
// prints their results.
#pragma once
#include <fstream>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/result_format.hpp"
#include "main/database.hpp"

namespace tessera::cli {

class Shell {
 public:
  enum class Outcome { Ok, Error, Quit };

  Shell(Database& db, OutputMode mode);

  // Runs SQL text of one or more ';'-separated statements (or a single dot command),
  // printing each result. Stops at the first error, which is printed to stderr.
  Outcome RunCommand(std::string_view text);
  // Runs lines of SQL and dot commands from a stream (a script or a .read file). With
  // stop_on_error it returns at the first error. A statement left without ';' at the end
  // of the stream still runs.
  // `name` is what an error message calls the stream ("" for standard input: "near line
  // N"; a .read file: "FILE:N"). `.bail off` keeps going after an error.
  Outcome RunStream(std::istream& in, bool stop_on_error, const std::string& name = "");
  // The interactive shell on the terminal, with line editing and history. Returns the
  // process exit status.
  int RunInteractive();

 private:
  // `pending` collects statement text from input lines until it ends in ';'.
  Outcome ProcessLine(std::string& pending, const std::string& line);
  Outcome RunStatements(std::string_view text);
  Outcome RunSql(std::string_view sql);
  Outcome RunDotCommand(const std::string& line);
  Outcome ShowTables();
  Outcome ShowGpu();
  Outcome ShowSchema(const std::string& table);
  void PrintHelp() const;
  // Where results go: the .output file, or standard output.
  std::ostream& Out();
  // "Error: [where: ]msg" on standard error; `where` is the statement's script line.
  void PrintError(const std::string& msg) const;

  Database& db_;
  Connection conn_;
  OutputMode mode_;
  TableStyle style_;
  bool timer_ = false;
  bool interactive_ = false;  // RunInteractive: Ctrl-C interrupts the running statement
  int read_depth_ = 0;
  std::ofstream output_file_;  // .output FILE; closed: standard output
  bool bail_ = true;           // scripts stop at the first error (.bail on|off)
  bool echo_ = false;          // print each command before running it (.echo on|off)
  std::string where_;          // the script line being run, for error messages
};

}  // namespace tessera::cli
