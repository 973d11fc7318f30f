// Vectors and data chunks: the unit of data flowing between operators on the CPU.
//
// A Vector holds up to `capacity` values of one type in physical form (see types.hpp),
// plus a byte-per-row validity array that is empty when all rows are valid. Strings are
// StrRef views; the bytes live in storage (kept alive via `keepalive`) or in `heap`.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "common/string_heap.hpp"
#include "common/types.hpp"
#include "common/uninitialized.hpp"
#include "common/value.hpp"

namespace tessera {

inline constexpr uint32_t kVectorSize = 2048;

class Vector {
 public:
  Vector() = default;
  explicit Vector(Type t, uint32_t capacity = kVectorSize) { Init(t, capacity); }

  void Init(Type t, uint32_t capacity = kVectorSize) {
    type_ = t;
    capacity_ = capacity;
    data_.assign((size_t)capacity * t.width() + 16, 0);
    valid_.clear();
  }
  // Init without zeroing the values, for a vector whose rows [0, capacity) are all written
  // next (e.g. by parallel copies): no pass over the memory on this thread.
  void InitForOverwrite(Type t, uint32_t capacity) {
    type_ = t;
    capacity_ = capacity;
    data_.clear();
    data_.resize((size_t)capacity * t.width() + 16);
    valid_.clear();
  }
  const Type& type() const { return type_; }
  uint32_t capacity() const { return capacity_; }

  template <class T> T* data() { return reinterpret_cast<T*>(data_.data()); }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(data_.data()); }
  uint8_t* raw() { return data_.data(); }
  const uint8_t* raw() const { return data_.data(); }

  bool has_nulls() const { return !valid_.empty(); }
  bool IsValid(uint32_t i) const { return valid_.empty() || valid_[i]; }
  // Materialises the validity array (all valid) so single rows can be set null.
  uint8_t* validity() {
    if (valid_.empty()) valid_.assign(capacity_, 1);
    return valid_.data();
  }
  const uint8_t* validity_or_null() const { return valid_.empty() ? nullptr : valid_.data(); }
  void SetNull(uint32_t i) { validity()[i] = 0; }
  void ClearNulls() { valid_.clear(); }

  StringHeap& heap() {
    if (!heap_) heap_ = std::make_shared<StringHeap>();
    return *heap_;
  }
  // Keeps storage (or another vector's heap) alive while StrRefs point into it.
  void KeepAlive(std::shared_ptr<const void> p) {
    if (!p) return;
    for (auto& k : keepalive_)
      if (k == p) return;
    keepalive_.push_back(std::move(p));
  }
  // Shares string ownership of `other` (used when copying StrRefs between vectors).
  void ShareStrings(const Vector& other) {
    if (&other == this) return;
    if (other.heap_) KeepAlive(other.heap_);
    for (auto& k : other.keepalive_) KeepAlive(k);
  }
  void ResetOwnership() {
    heap_.reset();
    keepalive_.clear();
  }

  Value GetValue(uint32_t i) const;
  // Sets row i from a Value of this vector's type (cast beforehand).
  void SetValue(uint32_t i, const Value& v);

 private:
  Type type_;
  uint32_t capacity_ = 0;
  UninitVector<uint8_t> data_;
  std::vector<uint8_t> valid_;
  std::shared_ptr<StringHeap> heap_;
  std::vector<std::shared_ptr<const void>> keepalive_;
};

struct DataChunk {
  std::vector<Vector> cols;
  uint32_t size = 0;
  // Where the chunk's rows stand in the source's order (a table scan: row group index << 32
  // | first row), carried through a pipeline's operators, so that the result can be put
  // back in the table's order (DuckDB keeps insertion order); 0 where there is none.
  uint64_t batch = 0;

  void Init(const std::vector<Type>& types, uint32_t capacity = kVectorSize) {
    cols.resize(types.size());
    for (size_t i = 0; i < types.size(); i++) cols[i].Init(types[i], capacity);
    size = 0;
  }
  size_t ColumnCount() const { return cols.size(); }
};

}  // namespace tessera
