#include "cli/line_editor.hpp"

#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace tessera::cli {

namespace {

constexpr char kCtrlA = 1, kCtrlB = 2, kCtrlC = 3, kCtrlD = 4, kCtrlE = 5, kCtrlF = 6,
               kCtrlH = 8, kTab = 9, kCtrlK = 11, kCtrlL = 12, kEnter = 13, kCtrlN = 14,
               kCtrlP = 16, kCtrlU = 21, kCtrlW = 23, kEsc = 27, kBackspace = 127;

// Puts the terminal on stdin into raw mode for its lifetime.
class RawMode {
 public:
  RawMode() {
    if (tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    raw.c_cflag |= CS8;
    raw.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    ok_ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0;
  }
  ~RawMode() {
    if (ok_) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
  }
  bool ok() const { return ok_; }

 private:
  termios saved_{};
  bool ok_ = false;
};

void Write(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += (size_t)n;
  }
}

// Reads one byte; false at end of input or on error.
bool ReadByte(char* c) {
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, c, 1);
    if (n == 1) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

size_t TerminalColumns() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

bool IsContinuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

size_t Width(std::string_view s) {
  size_t w = 0;
  for (char c : s) w += !IsContinuation(c);
  return w;
}

// Byte offset after skipping `n` code points from the start of s.
size_t SkipCodePoints(std::string_view s, size_t n) {
  size_t i = 0;
  while (i < s.size() && n > 0) {
    i++;
    while (i < s.size() && IsContinuation(s[i])) i++;
    n--;
  }
  return i;
}

// The line being edited and how it is shown.
struct EditState {
  std::string prompt;
  std::string buf;
  size_t pos = 0;  // byte offset of the cursor, on a code point boundary

  void Refresh() const {
    const size_t cols = TerminalColumns();
    const size_t plen = Width(prompt);
    std::string_view view(buf);
    size_t cursor = Width(view.substr(0, pos));
    // Scroll horizontally so the cursor stays on screen.
    size_t drop = 0;
    while (plen + cursor - drop >= cols && drop < cursor) drop++;
    view.remove_prefix(SkipCodePoints(view, drop));
    size_t room = cols > plen + 1 ? cols - plen - 1 : 0;
    view = view.substr(0, SkipCodePoints(view, room));
    std::string out = "\r" + prompt;
    out.append(view);
    out += "\x1b[0K\r";
    size_t col = plen + cursor - drop;
    if (col > 0) out += "\x1b[" + std::to_string(col) + "C";
    Write(out);
  }
  void MoveLeft() {
    if (pos == 0) return;
    pos--;
    while (pos > 0 && IsContinuation(buf[pos])) pos--;
  }
  void MoveRight() {
    if (pos >= buf.size()) return;
    pos++;
    while (pos < buf.size() && IsContinuation(buf[pos])) pos++;
  }
  void Backspace() {
    size_t end = pos;
    MoveLeft();
    buf.erase(pos, end - pos);
  }
  void Delete() {
    size_t start = pos;
    MoveRight();
    buf.erase(start, pos - start);
    pos = start;
  }
  void DeleteWord() {
    size_t end = pos;
    while (pos > 0 && buf[pos - 1] == ' ') pos--;
    while (pos > 0 && buf[pos - 1] != ' ') pos--;
    buf.erase(pos, end - pos);
  }
  void Insert(std::string_view s) {
    buf.insert(pos, s);
    pos += s.size();
  }
};

}  // namespace

LineEditor::LineEditor(std::string history_path, size_t max_history)
    : history_path_(std::move(history_path)), max_history_(max_history) {
  const char* term = std::getenv("TERM");
  bool dumb = term && (std::strcmp(term, "dumb") == 0 || std::strcmp(term, "cons25") == 0);
  raw_capable_ = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !dumb;
  LoadHistory();
}

LineEditor::~LineEditor() = default;

void LineEditor::LoadHistory() {
  if (history_path_.empty()) return;
  std::ifstream in(history_path_);
  std::string line;
  size_t total = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    history_.push_back(line);
    total++;
  }
  if (history_.size() > max_history_) {
    history_.erase(history_.begin(), history_.end() - (long)max_history_);
  }
  // Keep the file from growing without bound: rewrite it when it holds twice the limit.
  if (total > 2 * max_history_) {
    std::ofstream out(history_path_, std::ios::trunc);
    for (auto& h : history_) out << h << '\n';
  }
}

void LineEditor::AddHistory(const std::string& entry) {
  std::string e = entry;
  for (char& c : e) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  while (!e.empty() && e.back() == ' ') e.pop_back();
  if (e.empty() || (!history_.empty() && history_.back() == e)) return;
  history_.push_back(e);
  if (history_.size() > max_history_) history_.erase(history_.begin());
  if (!history_path_.empty()) {
    std::ofstream out(history_path_, std::ios::app);
    out << e << '\n';
  }
}

LineEditor::Status LineEditor::ReadLine(const std::string& prompt, std::string* line) {
  if (raw_capable_) {
    std::cout.flush();
    return ReadRaw(prompt, line);
  }
  if (isatty(STDIN_FILENO)) std::cerr << prompt << std::flush;
  if (!std::getline(std::cin, *line)) return Status::Eof;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return Status::Line;
}

LineEditor::Status LineEditor::ReadRaw(const std::string& prompt, std::string* line) {
  RawMode raw;
  if (!raw.ok()) {
    raw_capable_ = false;
    return ReadLine(prompt, line);
  }
  EditState st;
  st.prompt = prompt;
  // History as browsed during this edit: the entries plus the line being typed.
  std::vector<std::string> hist = history_;
  hist.emplace_back();
  size_t hidx = hist.size() - 1;
  auto browse = [&](bool up) {
    if (up ? hidx == 0 : hidx + 1 >= hist.size()) return;
    hist[hidx] = st.buf;
    hidx = up ? hidx - 1 : hidx + 1;
    st.buf = hist[hidx];
    st.pos = st.buf.size();
  };
  st.Refresh();
  for (;;) {
    char c;
    if (!ReadByte(&c)) {
      Write("\n");
      if (st.buf.empty()) return Status::Eof;
      *line = st.buf;
      return Status::Line;
    }
    switch (c) {
      case kEnter:
      case '\n':
        st.pos = st.buf.size();
        st.Refresh();
        Write("\n");
        *line = st.buf;
        return Status::Line;
      case kCtrlC:
        Write("^C\n");
        return Status::Interrupted;
      case kCtrlD:
        if (st.buf.empty()) {
          Write("\n");
          return Status::Eof;
        }
        st.Delete();
        break;
      case kBackspace:
      case kCtrlH: st.Backspace(); break;
      case kCtrlA: st.pos = 0; break;
      case kCtrlE: st.pos = st.buf.size(); break;
      case kCtrlB: st.MoveLeft(); break;
      case kCtrlF: st.MoveRight(); break;
      case kCtrlK: st.buf.erase(st.pos); break;
      case kCtrlU:
        st.buf.erase(0, st.pos);
        st.pos = 0;
        break;
      case kCtrlW: st.DeleteWord(); break;
      case kCtrlP: browse(true); break;
      case kCtrlN: browse(false); break;
      case kCtrlL: Write("\x1b[H\x1b[2J"); break;
      case kTab: {
        if (!completer_) {
          st.Insert(" ");
          break;
        }
        std::vector<std::string> choices;
        completer_(st.buf, st.pos, choices);
        if (!choices.empty()) {  // several fit: list them under the line
          std::string list = "\r\n";
          for (size_t k = 0; k < choices.size(); k++) list += (k ? "  " : "") + choices[k];
          Write(list + "\r\n");
        }
        break;
      }
      case kEsc: {
        char a, b;
        if (!ReadByte(&a) || !ReadByte(&b)) break;
        if (a == '[' && b >= '0' && b <= '9') {
          // CSI with parameters: ESC [ n ~ or ESC [ 1 ; 5 C; read up to the final byte.
          std::string params(1, b);
          char f;
          while (ReadByte(&f) && !(f >= 0x40 && f <= 0x7E)) params += f;
          if (f == '~') {
            if (params == "3") st.Delete();
            else if (params == "1" || params == "7") st.pos = 0;
            else if (params == "4" || params == "8") st.pos = st.buf.size();
          } else if (f == 'C') {
            st.MoveRight();
          } else if (f == 'D') {
            st.MoveLeft();
          } else if (f == 'H') {
            st.pos = 0;
          } else if (f == 'F') {
            st.pos = st.buf.size();
          }
        } else if (a == '[' || a == 'O') {
          switch (b) {
            case 'A': browse(true); break;
            case 'B': browse(false); break;
            case 'C': st.MoveRight(); break;
            case 'D': st.MoveLeft(); break;
            case 'H': st.pos = 0; break;
            case 'F': st.pos = st.buf.size(); break;
          }
        }
        break;
      }
      default: {
        if ((unsigned char)c < 0x20) break;
        // A UTF-8 lead byte: take the whole code point before showing it.
        std::string cp(1, c);
        unsigned char u = (unsigned char)c;
        int more = u >= 0xF0 ? 3 : u >= 0xE0 ? 2 : u >= 0xC0 ? 1 : 0;
        for (char n; more > 0 && ReadByte(&n); more--) cp += n;
        st.Insert(cp);
        break;
      }
    }
    st.Refresh();
  }
}

}  // namespace tessera::cli
