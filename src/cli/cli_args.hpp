// Command-line argument reading shared by `tessera` and its subcommands.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::cli {

// A wrong command line. main() prints the message and the usage text, and exits with 2.
class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& msg, const char* usage)
      : std::runtime_error(msg), usage_(usage) {}
  const char* usage() const { return usage_; }

 private:
  const char* usage_;
};

// Walks over arguments; "--opt=value" is read as "--opt" followed by "value".
class ArgReader {
 public:
  ArgReader(std::vector<std::string> args, const char* usage)
      : args_(std::move(args)), usage_(usage) {}

  bool Done() const;
  // The next argument (an option name or a positional argument).
  std::string Next();
  // The value of the option just read by Next().
  std::string Value(const std::string& opt);
  double DoubleValue(const std::string& opt);
  uint64_t UnsignedValue(const std::string& opt);

  [[noreturn]] void Fail(const std::string& msg) const { throw UsageError(msg, usage_); }
  [[noreturn]] void Unknown(const std::string& arg) const;
  const char* usage() const { return usage_; }

 private:
  void CheckNoInlineValue() const;
  std::vector<std::string> args_;
  size_t next_ = 0;
  const char* usage_;
  std::string current_;
  bool has_inline_ = false;
  std::string inline_;
};

}  // namespace tessera::cli
