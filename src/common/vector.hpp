// Vectors and data chunks: the unit of data flowing between operators on the CPU.
//
// A Vector holds up to `capacity` values of one type in physical form (see types.hpp),
// plus a byte-per-row validity array that is empty when all rows are valid. Strings are
// StrRef views; the bytes live in storage (kept alive via `keepalive`) or in `heap`.
//
// Dictionary form: a VARCHAR vector read from a dictionary-encoded column chunk also
// carries each row's code into the chunk's dictionary (`dict_codes`, `dict`). The StrRefs
// are always there as well (the scan expands them through ColumnChunk::Read and its
// gather, the one decode of a chunk's strings), so a consumer that does not know the codes
// reads the vector as any other; one that does (the hash aggregate's group keys,
// dict_group_keys.hpp) works on small integers. Every mutable accessor (data(), raw(),
// SetValue, Init) drops the codes, so a vector written after the scan never carries stale
// ones; the codes of NULL rows are meaningless (read the validity first).
//
// View form: a vector may read another vector's values and validity in place (SetView: a
// hash join's build columns handed on under a selection, execution/selection.hpp); the
// viewed vector must outlive it (it belongs to an operator of the running plan). Every
// mutable accessor first copies the rows into the vector's own memory.
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

// A dictionary of strings (a dictionary-encoded column chunk's): entry c is
// bytes[offsets[c], offsets[c + 1]); the entries are distinct.
struct StringDict {
  const uint32_t* offsets = nullptr;
  const char* bytes = nullptr;
  uint32_t size = 0;
  StrRef Entry(uint32_t c) const { return {bytes + offsets[c], offsets[c + 1] - offsets[c]}; }
  bool SameAs(const StringDict& o) const { return offsets == o.offsets && bytes == o.bytes && size == o.size; }
};

class Vector {
 public:
  Vector() = default;
  explicit Vector(Type t, uint32_t capacity = kVectorSize) { Init(t, capacity); }

  void Init(Type t, uint32_t capacity = kVectorSize) {
    DropDict();
    DropView();
    type_ = t;
    capacity_ = capacity;
    data_.assign((size_t)capacity * t.width() + 16, 0);
    valid_.clear();
  }
  // Init without zeroing the values, for a vector whose rows [0, capacity) are all written
  // next (e.g. by parallel copies): no pass over the memory on this thread.
  void InitForOverwrite(Type t, uint32_t capacity) {
    DropDict();
    DropView();
    type_ = t;
    capacity_ = capacity;
    data_.clear();
    data_.resize((size_t)capacity * t.width() + 16);
    valid_.clear();
  }
  const Type& type() const { return type_; }
  uint32_t capacity() const { return capacity_; }

  template <class T> T* data() {
    Materialize();
    has_dict_ = false;
    return reinterpret_cast<T*>(data_.data());
  }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(raw()); }
  uint8_t* raw() {
    Materialize();
    has_dict_ = false;
    return data_.data();
  }
  const uint8_t* raw() const { return view_data_ ? view_data_ : data_.data(); }

  bool has_nulls() const { return view_data_ ? view_valid_ != nullptr : !valid_.empty(); }
  bool IsValid(uint32_t i) const {
    const uint8_t* v = validity_or_null();
    return !v || v[i];
  }
  // Materialises the validity array (all valid) so single rows can be set null.
  uint8_t* validity() {
    Materialize();
    if (valid_.empty()) valid_.assign(capacity_, 1);
    return valid_.data();
  }
  const uint8_t* validity_or_null() const {
    if (view_data_) return view_valid_;
    return valid_.empty() ? nullptr : valid_.data();
  }
  void SetNull(uint32_t i) { validity()[i] = 0; }
  void ClearNulls() {
    Materialize();
    valid_.clear();
  }

  // ---- View form (see the file's header) ----
  // Reads src's rows in place (its type, capacity, values, validity; its strings' owners
  // shared); src must outlive this vector and not change meanwhile.
  void SetView(const Vector& src) {
    Init(src.type(), 0);
    data_.clear();
    capacity_ = src.capacity();
    view_data_ = src.raw();
    view_valid_ = src.validity_or_null();
    ShareStrings(src);
  }
  bool is_view() const { return view_data_ != nullptr; }

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
    DropDict();
  }

  // ---- Dictionary form (see the file's header) ----
  bool has_dict() const { return has_dict_; }
  const StringDict& dict() const { return dict_; }
  // Row i's code (rows [0, the rows written)); meaningless for NULL rows.
  const uint32_t* dict_codes() const { return dict_ext_codes_ ? dict_ext_codes_ : dict_codes_.data(); }
  bool dict_codes_external() const { return dict_ext_codes_ != nullptr; }
  // What keeps the dictionary's memory alive (while held, equal pointers mean one dictionary).
  const std::shared_ptr<const void>& dict_owner() const { return dict_owner_; }
  // Marks the vector's rows (already written as StrRefs) as codes into `d`: `codes` is
  // external (kept alive by `owner`), or null when the codes were written into
  // DictCodesBuffer(). `owner` must not be null.
  void SetDict(const StringDict& d, std::shared_ptr<const void> owner, const uint32_t* codes) {
    dict_ = d;
    dict_owner_ = std::move(owner);
    dict_ext_codes_ = codes;
    has_dict_ = true;
  }
  // The vector's own code buffer (capacity rows), for codes gathered row by row; its
  // contents stay while the dictionary form is dropped and set again (appending rows).
  uint32_t* DictCodesBuffer() {
    if (dict_codes_.size() < capacity_) dict_codes_.resize(capacity_);
    return dict_codes_.data();
  }
  void DropDict() {
    has_dict_ = false;
    dict_ext_codes_ = nullptr;
    dict_owner_.reset();
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
  // Dictionary form: see the file's header.
  bool has_dict_ = false;
  StringDict dict_;
  const uint32_t* dict_ext_codes_ = nullptr;
  UninitVector<uint32_t> dict_codes_;
  std::shared_ptr<const void> dict_owner_;
  // View form: see the file's header.
  const uint8_t* view_data_ = nullptr;
  const uint8_t* view_valid_ = nullptr;
  void DropView() { view_data_ = view_valid_ = nullptr; }
  // A view's rows copied into the vector's own memory (before it is written).
  void Materialize() {
    if (view_data_) [[unlikely]] CopyViewRows();
  }
  void CopyViewRows();
};

// A selection: row i of a chunk's column is physical row (*sel)[i] of its vector (repeats
// allowed: an inner join's probe row with several matches). Immutable once made, so the
// columns that were selected together share one (see DataChunk::sel).
using SelVec = std::vector<uint32_t>;
using SelPtr = std::shared_ptr<const SelVec>;

// Reading a vector through an optional selection with one loop body: `at[i]` is the physical
// row of the batch's row i, DenseRows's i itself, SelRows's sel[i]. WithRows(sel, f) calls
// f(at) with the one that applies, so the loop is compiled once for each and tests nothing
// per row (the hash aggregate's keys and arguments, execution/hashing.hpp and
// operators/group_table.hpp).
struct DenseRows {
  uint32_t operator[](uint32_t i) const { return i; }
};
struct SelRows {
  const uint32_t* sel;
  uint32_t operator[](uint32_t i) const { return sel[i]; }
};
template <class F>
decltype(auto) WithRows(const uint32_t* sel, F&& f) {
  if (sel) return f(SelRows{sel});
  return f(DenseRows{});
}

struct DataChunk {
  std::vector<Vector> cols;
  uint32_t size = 0;
  // Per column, the selection of its vector's rows that are the chunk's rows (a filter's
  // passing rows, a join probe's matched rows: execution/selection.hpp); a null entry, or
  // no entries at all, means rows [0, size) (dense: the chunk behaves as without it).
  // Entries are either none or one per column. The vectors keep their strings and
  // dictionary codes (per physical row). Only operators that say so take a selected chunk
  // (PhysicalOperator::ExecuteTakesSelection); the pipeline flattens it for the others.
  std::vector<SelPtr> sel;
  // Where the chunk's rows stand in the source's order (a table scan: row group index << 32
  // | first row), carried through a pipeline's operators, so that the result can be put
  // back in the table's order (DuckDB keeps insertion order); 0 where there is none.
  uint64_t batch = 0;

  void Init(const std::vector<Type>& types, uint32_t capacity = kVectorSize) {
    cols.resize(types.size());
    for (size_t i = 0; i < types.size(); i++) cols[i].Init(types[i], capacity);
    size = 0;
    sel.clear();
  }
  size_t ColumnCount() const { return cols.size(); }
  bool HasSelection() const {
    for (const SelPtr& s : sel)
      if (s) return true;
    return false;
  }
  // Column c's selection (the physical row of each of the chunk's rows), or null if dense.
  const uint32_t* ColumnSel(size_t c) const { return c < sel.size() && sel[c] ? sel[c]->data() : nullptr; }
};

}  // namespace tessera
