// Little-endian fields in and out of the encoded streams of storage/compression: appending
// to a std::string, and a reader that checks every read against the end of its bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tessera::codec {

// An encoded stream that does not decode (a corrupt file): what is wrong with it.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

class ByteReader {
 public:
  ByteReader(const uint8_t* p, size_t n) : p_(p), end_(p + n), start_(p) {}
  template <class T>
  T Get() {
    T v;
    std::memcpy(&v, Take(sizeof(T)), sizeof(T));
    return v;
  }
  const uint8_t* Take(size_t n) {
    if ((size_t)(end_ - p_) < n) throw DecodeError("encoded column data is truncated");
    const uint8_t* q = p_;
    p_ += n;
    return q;
  }
  const uint8_t* at() const { return p_; }
  size_t left() const { return (size_t)(end_ - p_); }
  size_t consumed() const { return (size_t)(p_ - start_); }
  bool AtEnd() const { return p_ == end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* start_;
};

}  // namespace tessera::codec
