#include "cli/cli_args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tessera::cli {

bool ArgReader::Done() const {
  CheckNoInlineValue();
  return next_ >= args_.size();
}

void ArgReader::CheckNoInlineValue() const {
  if (has_inline_) Fail("option " + current_ + " takes no value");
}

std::string ArgReader::Next() {
  CheckNoInlineValue();
  current_ = args_.at(next_++);
  size_t eq = current_.find('=');
  if (current_.rfind("--", 0) == 0 && eq != std::string::npos) {
    inline_ = current_.substr(eq + 1);
    current_.resize(eq);
    has_inline_ = true;
  }
  return current_;
}

std::string ArgReader::Value(const std::string& opt) {
  if (has_inline_) {
    has_inline_ = false;
    return inline_;
  }
  if (next_ >= args_.size()) Fail("option " + opt + " needs a value");
  return args_[next_++];
}

double ArgReader::DoubleValue(const std::string& opt) {
  std::string v = Value(opt);
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || errno != 0 || !std::isfinite(d))
    Fail("option " + opt + " needs a number, not '" + v + "'");
  return d;
}

uint64_t ArgReader::UnsignedValue(const std::string& opt) {
  std::string v = Value(opt);
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || errno != 0)
    Fail("option " + opt + " needs a non-negative integer, not '" + v + "'");
  return n;
}

void ArgReader::Unknown(const std::string& arg) const {
  if (!arg.empty() && arg[0] == '-') Fail("unknown option '" + arg + "'");
  Fail("unexpected argument '" + arg + "'");
}

}  // namespace tessera::cli
