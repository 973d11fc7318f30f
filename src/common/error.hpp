// One error hierarchy for the whole engine.
//  - UserError: the user's input is wrong (bad SQL, unknown column, malformed file).
//    Carries an optional source position; what() is the full message the user sees.
//  - InternalError: a bug or an environment failure (CUDA, I/O the user did not cause).
// Library code throws; it never calls exit().
#pragma once
#include <stdexcept>
#include <string>

namespace tessera {

// 1-based line/column in the SQL text; line == 0 means "no position".
struct SourcePos {
  int line = 0;
  int col = 0;
  bool Known() const { return line > 0; }
};

// Transaction: BEGIN/COMMIT/ROLLBACK misuse and write-write conflicts (main/transaction.hpp).
enum class ErrorKind { Syntax, Binder, Type, Catalog, Input, Constraint, Conversion, Unsupported, IO, Transaction };

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class UserError : public Error {
 public:
  UserError(ErrorKind kind, std::string msg, SourcePos pos = {})
      : Error(Format(msg, pos)), kind_(kind), pos_(pos), raw_(std::move(msg)) {}
  ErrorKind kind() const { return kind_; }
  SourcePos pos() const { return pos_; }
  // Message without the position prefix.
  const std::string& raw() const { return raw_; }

  static std::string Format(const std::string& msg, SourcePos pos) {
    if (!pos.Known()) return msg;
    return "line " + std::to_string(pos.line) + ", column " + std::to_string(pos.col) + ": " + msg;
  }

 private:
  ErrorKind kind_;
  SourcePos pos_;
  std::string raw_;
};

class InternalError : public Error {
 public:
  explicit InternalError(const std::string& msg) : Error("internal error: " + msg) {}
};

#define TESSERA_ASSERT(cond, msg)                                                     \
  do {                                                                               \
    if (!(cond)) throw ::tessera::InternalError(std::string(msg) + " (" #cond ")"); \
  } while (0)

}  // namespace tessera
