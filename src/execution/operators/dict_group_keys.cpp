#include "execution/operators/dict_group_keys.hpp"

#include <algorithm>

#include "execution/expression_executor.hpp"

namespace tessera {

bool DictGroupKeys::FindOrCreate(GroupTable& table, const Vector* const* keys, size_t nk, uint32_t n,
                                 uint32_t* gids, const uint32_t* const* sels) {
  if (nk == 0 || n == 0) return false;
  uint64_t combos = 1;
  for (size_t k = 0; k < nk; k++) {
    const Vector& v = *keys[k];
    if (!v.has_dict() || v.type().physical() != PhysType::Str) return false;
    combos *= (uint64_t)v.dict().size + 1;  // + NULL
    if (combos > kMaxCombinations) return false;
  }
  // A new set of dictionaries (a new row group): a new, empty translation table.
  bool same = dicts_.size() == nk;
  for (size_t k = 0; k < nk && same; k++)
    same = dicts_[k].SameAs(keys[k]->dict()) && owners_[k] == keys[k]->dict_owner();
  if (!same) {
    dicts_.resize(nk);
    owners_.resize(nk);
    for (size_t k = 0; k < nk; k++) {
      dicts_[k] = keys[k]->dict();
      owners_[k] = keys[k]->dict_owner();
    }
    map_.assign(combos, kUnknown);
  }
  chunks_++;
  // Each row's combination, a key at a time (the last key's code is the most significant).
  combo_.resize(n);
  uint32_t* combo = combo_.data();
  for (size_t k = nk; k-- > 0;) {
    const Vector& v = *keys[k];
    const uint32_t* codes = v.dict_codes();
    const uint32_t radix = dicts_[k].size + 1, null_code = dicts_[k].size;
    const uint8_t* valid = v.validity_or_null();
    const bool first = k == nk - 1;
    WithRows(sels ? sels[k] : nullptr, [&](auto at) {
      if (!valid) {
        if (first) for (uint32_t i = 0; i < n; i++) combo[i] = codes[at[i]];
        else for (uint32_t i = 0; i < n; i++) combo[i] = combo[i] * radix + codes[at[i]];
      } else {
        auto code = [&](uint32_t r) { return valid[r] ? codes[r] : null_code; };
        if (first) for (uint32_t i = 0; i < n; i++) combo[i] = code(at[i]);
        else for (uint32_t i = 0; i < n; i++) combo[i] = combo[i] * radix + code(at[i]);
      }
    });
  }
  // Known combinations: one load a row.
  uint32_t* map = map_.data();
  bool missing = false;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t g = map[combo[i]];
    gids[i] = g;
    missing |= g == kUnknown;
  }
  if (!missing) return true;
  // New combinations: their first rows, in order, looked up by their strings.
  first_.clear();
  constexpr uint32_t kPending = kUnknown - 1;
  for (uint32_t i = 0; i < n; i++) {
    if (map[combo[i]] != kUnknown) continue;
    map[combo[i]] = kPending;
    first_.push_back(i);
  }
  const uint32_t m = (uint32_t)first_.size();
  scratch_.resize(nk);
  std::vector<const Vector*> ptrs(nk);
  for (size_t k = 0; k < nk; k++) {
    scratch_[k].ResetOwnership();
    scratch_[k].Init(keys[k]->type(), std::max<uint32_t>(m, 1));
    const uint32_t* rows = first_.data();
    if (const uint32_t* s = sels ? sels[k] : nullptr) {
      first_phys_.resize(m);
      for (uint32_t j = 0; j < m; j++) first_phys_[j] = s[first_[j]];
      rows = first_phys_.data();
    }
    CopyRows(*keys[k], rows, m, scratch_[k], 0);
    ptrs[k] = &scratch_[k];
  }
  new_gids_.resize(m);
  table.FindOrCreate(ptrs.data(), m, new_gids_.data());
  for (uint32_t j = 0; j < m; j++) map[combo[first_[j]]] = new_gids_[j];
  for (uint32_t i = 0; i < n; i++) gids[i] = map[combo[i]];
  return true;
}

}  // namespace tessera
