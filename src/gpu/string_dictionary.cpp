#include "gpu/string_dictionary.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <functional>
#include <stdexcept>

#include "common/parallel.hpp"
#include "storage/compression/gpu_stream_core.hpp"

namespace tessera::gpu {

namespace {

static_assert(std::endian::native == std::endian::little, "sort keys load string bytes as little-endian words");

// A string to sort by: 16 of its bytes after the prefix all the strings share, as two
// big-endian numbers (zero-padded), so that most comparisons load no string bytes; then
// the bytes themselves.
struct Keyed {
  uint64_t key, key2;
  const char* p;
  uint32_t len;
  uint32_t slot;
};

uint64_t PrefixKey(const char* p, size_t len) {
  uint64_t k = 0;
  const size_t n = len < 8 ? len : 8;
  for (size_t i = 0; i < n; i++) k |= (uint64_t)(uint8_t)p[i] << (56 - 8 * i);
  return k;
}

// `skip`: the length of the prefix every string sorted together shares (at most any one's
// length).
Keyed MakeKeyed(std::string_view s, size_t skip, uint32_t slot) {
  const char* p = s.data() + skip;
  const size_t n = s.size() - skip;
  if (n >= 16) {  // both words loaded whole (within the string)
    uint64_t w[2];
    std::memcpy(w, p, 16);
    return {__builtin_bswap64(w[0]), __builtin_bswap64(w[1]), s.data(), (uint32_t)s.size(), slot};
  }
  return {PrefixKey(p, n), n > 8 ? PrefixKey(p + 8, n - 8) : 0, s.data(), (uint32_t)s.size(), slot};
}

// The sort's order of two strings whose bytes before `skip` are equal: their next 16 bytes
// (the keys), then, where those are equal and one string ends within them, the shorter
// first (a string ending there is a prefix of the other, or equal to it). Strings longer
// than the keys with equal keys are equivalent here; SortTies orders them.
struct KeyedLess {
  size_t skip;
  bool operator()(const Keyed& a, const Keyed& b) const {
    if (a.key != b.key) return a.key < b.key;
    if (a.key2 != b.key2) return a.key2 < b.key2;
    const size_t cap = skip + 17;
    return (a.len < cap ? a.len : cap) < (b.len < cap ? b.len : cap);
  }
};

// Sorts e[0, m): strings whose bytes before `from` are equal, each longer than `from`, by
// their bytes from `from` on. Their next 16 bytes become keys of a sort held apart (the
// entries' own keys stay, DistinctStarts compares them), then ties recurse 16 bytes on: each
// string's bytes are read once a level, not once a comparison (TPC-H's comments share many
// 16-byte prefixes).
void SortTail(Keyed* e, size_t m, size_t from) {
  if (m < 2) return;
  if (m <= 8) {
    std::sort(e, e + m, [from](const Keyed& a, const Keyed& b) {
      return std::string_view(a.p + from, a.len - from) < std::string_view(b.p + from, b.len - from);
    });
    return;
  }
  std::vector<Keyed> t(m);
  for (size_t i = 0; i < m; i++) t[i] = MakeKeyed(std::string_view(e[i].p, e[i].len), from, (uint32_t)i);
  const KeyedLess less{from};
  std::sort(t.begin(), t.end(), less);
  std::vector<Keyed> sorted(m);
  for (size_t i = 0; i < m; i++) sorted[i] = e[t[i].slot];
  std::copy(sorted.begin(), sorted.end(), e);
  for (size_t i = 0; i < m;) {
    size_t j = i + 1;
    while (j < m && t[j].key == t[i].key && t[j].key2 == t[i].key2 && !less(t[i], t[j])) j++;
    if (j - i > 1 && e[i].len > from + 16) SortTail(e + i, j - i, from + 16);
    i = j;
  }
}

// Sorts v (by KeyedLess, `skip`), then the runs of equivalent entries by their tails.
void SortTies(Keyed* v, size_t n, size_t skip) {
  const KeyedLess less{skip};
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && !less(v[i], v[j])) j++;
    if (j - i > 1 && v[i].len > skip + 16) SortTail(v + i, j - i, skip + 16);
    i = j;
  }
}

// Of strings sorted with the same `skip`.
bool KeyedEqual(const Keyed& a, const Keyed& b, size_t skip) {
  if (a.key != b.key || a.key2 != b.key2 || a.len != b.len) return false;
  const size_t from = skip + 16;
  return a.len <= from || std::memcmp(a.p + from, b.p + from, a.len - from) == 0;
}

size_t CommonPrefix(std::string_view a, std::string_view b, size_t limit) {
  size_t i = 0;
  while (i < limit && i < a.size() && i < b.size() && a[i] == b[i]) i++;
  return i;
}

// An uninitialised array (no single-threaded zero fill of tens of MB: the threads that
// write it first fault its pages in).
template <class T>
struct Buffer {
  explicit Buffer(size_t n) : p(new T[n]), n(n) {}  // T trivial: left uninitialised
  T& operator[](size_t i) const { return p[i]; }
  T* begin() const { return p.get(); }
  T* end() const { return p.get() + n; }
  std::unique_ptr<T[]> p;
  size_t n;
};

// Sorts v on all host threads by sample sort: splitters from a sorted sample cut v into
// buckets (each thread counts and scatters its slice), then the buckets sort side by side.
void ParallelSort(Buffer<Keyed>& v, const KeyedLess& less) {
  const size_t n = v.n;
  const size_t threads = std::min<size_t>(HardwareThreads(), n / 32768);
  if (threads <= 1) {
    std::sort(v.begin(), v.end(), less);
    SortTies(v.begin(), n, less.skip);
    return;
  }
  const size_t buckets = threads * 4, per_bucket = 16;
  std::vector<Keyed> sample;
  const size_t stride = n / (buckets * per_bucket);
  for (size_t i = 0; i < buckets * per_bucket; i++) sample.push_back(v[i * stride + (i * 7919) % stride]);
  std::sort(sample.begin(), sample.end(), less);
  std::vector<Keyed> split;
  for (size_t b = 1; b < buckets; b++) split.push_back(sample[b * per_bucket]);
  // Bucket of each entry: the splitters not above it.
  Buffer<uint16_t> bucket_of(n);
  std::vector<std::vector<size_t>> count(threads, std::vector<size_t>(buckets, 0));
  auto slice = [&](size_t t) { return std::make_pair(n * t / threads, n * (t + 1) / threads); };
  ParallelFor(threads, (unsigned)threads, [&](uint64_t t, unsigned) {
    auto [lo, hi] = slice(t);
    for (size_t i = lo; i < hi; i++) {
      const size_t b = std::upper_bound(split.begin(), split.end(), v[i], less) - split.begin();
      bucket_of[i] = (uint16_t)b;
      count[t][b]++;
    }
  });
  std::vector<size_t> bucket_start(buckets + 1, 0);
  std::vector<std::vector<size_t>> at(threads, std::vector<size_t>(buckets));
  size_t pos = 0;
  for (size_t b = 0; b < buckets; b++) {
    bucket_start[b] = pos;
    for (size_t t = 0; t < threads; t++) {
      at[t][b] = pos;
      pos += count[t][b];
    }
  }
  bucket_start[buckets] = pos;
  Buffer<Keyed> out(n);
  ParallelFor(threads, (unsigned)threads, [&](uint64_t t, unsigned) {
    auto [lo, hi] = slice(t);
    for (size_t i = lo; i < hi; i++) out[at[t][bucket_of[i]]++] = v[i];
  });
  ParallelFor(buckets, (unsigned)threads, [&](uint64_t b, unsigned) {
    std::sort(out.begin() + bucket_start[b], out.begin() + bucket_start[b + 1], less);
    // Equivalent entries compare alike against every splitter: a run lies in one bucket.
    SortTies(out.begin() + bucket_start[b], bucket_start[b + 1] - bucket_start[b], less.skip);
  });
  std::swap(v, out);
}

// Positions in sorted v where a value differs from the one before it (v[0] included), found
// on all threads.
std::vector<uint32_t> DistinctStarts(const Buffer<Keyed>& v, size_t skip) {
  const size_t n = v.n;
  const size_t parts = std::max<size_t>(1, std::min<size_t>(HardwareThreads(), n / 65536));
  std::vector<std::vector<uint32_t>> found(parts);
  ParallelFor(parts, (unsigned)parts, [&](uint64_t t, unsigned) {
    for (size_t i = n * t / parts; i < n * (t + 1) / parts; i++)
      if (i == 0 || !KeyedEqual(v[i], v[i - 1], skip)) found[t].push_back((uint32_t)i);
  });
  std::vector<uint32_t> all;
  for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
  return all;
}

}  // namespace

DictStrings::DictStrings(size_t n, const std::function<std::string_view(size_t)>& get)
    : n_(n), offsets_(new uint64_t[n + 1]) {
  const uint64_t per = 65536, parts = (n + per - 1) / per;
  std::vector<uint64_t> part_bytes(parts + 1, 0);
  ParallelFor(parts, 0, [&](uint64_t t, unsigned) {
    uint64_t b = 0;
    for (size_t i = t * per; i < std::min<size_t>(n, (t + 1) * per); i++) b += get(i).size();
    part_bytes[t + 1] = b;
  });
  for (size_t t = 0; t < parts; t++) part_bytes[t + 1] += part_bytes[t];
  offsets_[n] = part_bytes[parts];
  bytes_.reset(new char[part_bytes[parts] ? part_bytes[parts] : 1]);
  ParallelFor(parts, 0, [&](uint64_t t, unsigned) {
    uint64_t at = part_bytes[t];
    for (size_t i = t * per; i < std::min<size_t>(n, (t + 1) * per); i++) {
      const std::string_view s = get(i);
      offsets_[i] = at;
      if (!s.empty()) std::memcpy(bytes_.get() + at, s.data(), s.size());
      at += s.size();
    }
  });
}

size_t DictStrings::LowerBound(std::string_view v) const {
  size_t lo = 0, hi = size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if ((*this)[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

std::shared_ptr<const DictStrings> SortedDistinct(size_t n, const StringVisitor& visit, std::vector<int32_t>* codes) {
  if (n > UINT32_MAX) throw std::length_error("GPU string dictionary: more than 2^32 values");
  const uint64_t per = 65536, parts = (n + per - 1) / per;
  auto range = [&](uint64_t t, const std::function<void(size_t, std::string_view)>& fn) {
    visit(t * per, std::min<size_t>(n, (t + 1) * per), fn);
  };
  // The prefix every value shares (TPC-H's c_name: "Customer#"), skipped by the sort keys.
  std::string first_value;
  if (n) visit(0, 1, [&](size_t, std::string_view s) { first_value = s; });
  const std::string_view first = first_value;
  std::vector<size_t> shared(parts, first.size());
  ParallelFor(parts, 0, [&](uint64_t t, unsigned) {
    size_t s = first.size();
    range(t, [&](size_t, std::string_view v) { s = CommonPrefix(v, first, s); });
    shared[t] = s;
  });
  const size_t skip = parts ? *std::min_element(shared.begin(), shared.end()) : 0;
  Buffer<Keyed> k(n);
  ParallelFor(parts, 0, [&](uint64_t t, unsigned) {
    range(t, [&](size_t i, std::string_view v) { k[i] = MakeKeyed(v, skip, (uint32_t)i); });
  });
  ParallelSort(k, KeyedLess{skip});
  // Codes in sorted order: a new code where a value differs from the one before it.
  const std::vector<uint32_t> starts = DistinctStarts(k, skip);
  if (codes) {
    codes->resize(n);
    const uint64_t per_code = 16384;
    ParallelFor((starts.size() + per_code - 1) / per_code, 0, [&](uint64_t t, unsigned) {
      for (size_t c = t * per_code; c < std::min<size_t>(starts.size(), (t + 1) * per_code); c++) {
        const size_t end = c + 1 < starts.size() ? starts[c + 1] : n;
        for (size_t i = starts[c]; i < end; i++) (*codes)[k[i].slot] = (int32_t)c;
      }
    });
  }
  return std::make_shared<const DictStrings>(starts.size(), [&](size_t c) {
    const Keyed& e = k[starts[c]];
    return std::string_view(e.p, e.len);
  });
}

std::shared_ptr<const DictStrings> SortedDistinct(const std::vector<std::string_view>& v, std::vector<int32_t>* codes) {
  return SortedDistinct(
      v.size(),
      [&](size_t from, size_t to, const std::function<void(size_t, std::string_view)>& fn) {
        for (size_t i = from; i < to; i++) fn(i, v[i]);
      },
      codes);
}

ColumnDictionary BuildColumnDictionary(const TableData& data, int column, const std::vector<ChunkStrings>* stored) {
  ColumnDictionary d;
  const auto& groups = data.row_groups;
  d.slot_base.resize(groups.size() + 1, 0);
  for (size_t g = 0; g < groups.size(); g++) {
    const ColumnChunk& ch = *groups[g]->columns[column];
    d.slot_base[g + 1] = d.slot_base[g] + (ch.str_enc == StringEncoding::Dictionary ? ch.dict_size : ch.count);
  }
  // Slots [from, to): their row groups' values, a row group after another.
  auto visit = [&](size_t from, size_t to, const std::function<void(size_t, std::string_view)>& fn) {
    size_t g = std::upper_bound(d.slot_base.begin(), d.slot_base.end(), (uint64_t)from) - d.slot_base.begin() - 1;
    for (size_t i = from; i < to; g++) {
      const ColumnChunk& ch = *groups[g]->columns[column];
      const ChunkStrings* own = stored && !(*stored)[g].offsets.empty() ? &(*stored)[g] : nullptr;
      const size_t end = std::min<size_t>(to, d.slot_base[g + 1]);
      for (; i < end; i++) {
        const uint32_t at = (uint32_t)(i - d.slot_base[g]);
        fn(i, own ? own->Entry(at) : ch.str_enc == StringEncoding::Dictionary ? ch.DictEntry(at) : ch.GetString(at));
      }
    }
  };
  d.dict = SortedDistinct(d.slot_base.back(), visit, &d.slot_codes);
  return d;
}

void ColumnDictionary::ChunkCodes(size_t g, const ColumnChunk& ch, int32_t* out) const {
  const int32_t* codes = slot_codes.data() + slot_base[g];
  if (ch.str_enc == StringEncoding::Dictionary) {
    const uint32_t* local = reinterpret_cast<const uint32_t*>(ch.data);
    for (uint32_t i = 0; i < ch.count; i++)
      if (!gpustream::MapCode(reinterpret_cast<const unsigned*>(codes), ch.dict_size, local[i],
                              reinterpret_cast<unsigned*>(out + i)))
        throw std::runtime_error("a dictionary code out of range");
  } else {
    std::memcpy(out, codes, (size_t)ch.count * 4);
  }
}

}  // namespace tessera::gpu
