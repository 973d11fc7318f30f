// `*` and `t.*` in the select list: the columns of every FROM item (or of t), with
// DuckDB's star modifiers: EXCLUDE (cols) leaves columns out, REPLACE (expr AS col) puts
// an expression in a column's place, under the column's name.
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "common/identifier.hpp"

namespace tessera {

void Binder::ExpandStar(const ast::Expr& star, const Scope& scope, std::vector<SelectListItem>& items) {
  const bool qualified = !star.table.empty();
  std::vector<bool> excluded_used(star.star_exclude.size()), replaced_used(star.star_replace.size());
  bool any = false;
  for (auto& s : scope.entries) {
    if (qualified && !IdentEquals(s.alias, star.table)) continue;
    any = true;
    for (size_t i = 0; i < s.names.size(); i++) {
      if (!qualified && s.Hidden(i)) continue;
      bool skip = false;
      for (size_t k = 0; k < star.star_exclude.size(); k++) {
        auto& [q, n] = star.star_exclude[k];
        if (IdentEquals(n, s.names[i]) && (q.empty() || IdentEquals(q, s.alias))) {
          excluded_used[k] = true;
          skip = true;
        }
      }
      if (skip) continue;
      size_t r = 0;
      while (r < star.star_replace.size() && !IdentEquals(star.star_replace[r], s.names[i])) r++;
      if (r < star.star_replace.size()) {
        replaced_used[r] = true;
        items.push_back({star.children[r].get(), qualified ? s.names[i] : s.UnqualifiedName(i), nullptr});
      } else if (qualified) {
        items.push_back({nullptr, s.names[i], MakeColumn(s.bindings[i], s.types[i], s.names[i])});
      } else {
        items.push_back({nullptr, s.UnqualifiedName(i), s.Unqualified(i)});
      }
    }
  }
  if (!any)
    throw BindError(qualified ? "missing FROM-clause entry for table \"" + star.table + "\""
                              : "SELECT * with no tables specified",
                    star.pos);
  for (size_t k = 0; k < excluded_used.size(); k++)
    if (!excluded_used[k])
      throw BindError("Column \"" + star.star_exclude[k].second + "\" in EXCLUDE list not found in FROM clause",
                      star.pos);
  for (size_t r = 0; r < replaced_used.size(); r++)
    if (!replaced_used[r])
      throw BindError("Column \"" + star.star_replace[r] + "\" in REPLACE list not found in FROM clause",
                      star.children[r]->pos);
}

}  // namespace tessera
