// Tab completion for the shell's line editor: the word before the cursor completed from
// SQL keywords, the function registry's names, the dot commands, and the catalog's table
// and column names.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "main/database.hpp"

namespace tessera::cli {

// Every word a completion may produce, for a database's current catalog.
std::vector<std::string> CompletionWords(Database& db);

struct Completion {
  std::string line;                  // the line after completing
  size_t pos = 0;                    // the cursor after completing
  std::vector<std::string> choices;  // several words fit and none was added: show these
};

// Completes the word ending at byte `pos` of `line` (letters, digits, '_' and a leading
// '.') from `words`, matched case-insensitively: one match replaces the word (upper-case
// where the word was typed in upper case, for keywords), several extend it to their common
// prefix, or else are listed in `choices`.
Completion Complete(std::string_view line, size_t pos, const std::vector<std::string>& words);

}  // namespace tessera::cli
