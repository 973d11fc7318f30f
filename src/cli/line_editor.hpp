// A small line editor for the interactive shell.
//
// When stdin and stdout are terminals it puts the terminal in raw mode (termios) while a
// line is read and supports: left/right (Ctrl-B/F), home/end (Ctrl-A/E), backspace,
// delete, up/down history (Ctrl-P/N), Ctrl-K (kill to end), Ctrl-U (kill to start),
// Ctrl-W (delete previous word), Ctrl-L (clear screen), Ctrl-C (drop the line) and Ctrl-D
// (end of input on an empty line, else delete), Tab (completion, SetCompleter). Otherwise it falls back to std::getline.
// History is kept in a file (one entry per line), appended to as entries are added.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace tessera::cli {

class LineEditor {
 public:
  enum class Status { Line, Interrupted, Eof };

  // history_path "" keeps history in memory only.
  explicit LineEditor(std::string history_path, size_t max_history = 1000);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // Shows `prompt` and reads one line (without its newline) into `line`.
  Status ReadLine(const std::string& prompt, std::string* line);
  // Adds an entry (newlines become spaces) unless it repeats the previous one.
  void AddHistory(const std::string& entry);
  // Tab: completes the line in place (the line and the cursor's byte offset), or leaves it
  // and names the choices to list. Without one, Tab inserts a space.
  using Completer = std::function<void(std::string& line, size_t& pos, std::vector<std::string>& choices)>;
  void SetCompleter(Completer completer) { completer_ = std::move(completer); }

 private:
  Status ReadRaw(const std::string& prompt, std::string* line);
  void LoadHistory();

  std::string history_path_;
  size_t max_history_;
  std::vector<std::string> history_;
  bool raw_capable_ = false;
  Completer completer_;
};

}  // namespace tessera::cli
