// INTERVAL values (months, days, microseconds, as DuckDB keeps them: '1 month' and
// '30 days' stay apart) packed into one __int128 whose signed order is the fields' order
// (months, then days, then microseconds; DuckDB compares intervals normalised to 30-day
// months and 24-hour days instead, so tessera's order differs for un-normalised values).
// Also BLOB's text form ('\xAA' escapes for bytes outside printable ASCII).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/types.hpp"

namespace tessera {

struct IntervalParts {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
};

inline int128_t PackInterval(IntervalParts p) {
  using u128 = unsigned __int128;
  const uint32_t d = (uint32_t)p.days ^ 0x80000000u;                 // biased: unsigned order = signed order
  const uint64_t us = (uint64_t)p.micros ^ 0x8000000000000000ull;
  return (int128_t)(((u128)(uint64_t)(int64_t)p.months << 96) | ((u128)d << 64) | (u128)us);
}

inline IntervalParts UnpackInterval(int128_t v) {
  using u128 = unsigned __int128;
  const u128 u = (u128)v;
  IntervalParts p;
  p.months = (int32_t)(uint32_t)(u >> 96);
  p.days = (int32_t)((uint32_t)(u >> 64) ^ 0x80000000u);
  p.micros = (int64_t)((uint64_t)u ^ 0x8000000000000000ull);
  return p;
}

// '1 year 2 months 3 days 04:05:06.5', '36 hours', '-1 day', '10:00:00', '1.5 days', ...
// (DuckDB's units and synonyms); nullopt when malformed or out of range.
std::optional<IntervalParts> ParseInterval(std::string_view s);
// DuckDB's text: '1 year 2 months 3 days 04:05:06.5', '00:00:00' for zero.
std::string FormatInterval(IntervalParts p);

// The sum of two intervals and an interval times a whole number, field by field; false on
// overflow.
bool AddIntervals(IntervalParts a, IntervalParts b, IntervalParts* out);
bool MultiplyInterval(IntervalParts a, int64_t k, IntervalParts* out);
// A TIMESTAMP (microseconds) plus an interval: its months (the day clamped to the month's
// end), then its days and microseconds, DuckDB's order; false on overflow. Defined with the
// timestamp functions (function/scalar_functions_timestamp.cpp); generate_series uses it too.
bool TimestampPlusInterval(int64_t us, IntervalParts iv, int64_t* out);

// BLOB: bytes -> text ('\xAA' for bytes outside printable ASCII and for backslash) and
// back (nullopt for a malformed escape or a non-ASCII character, as DuckDB).
std::string FormatBlob(std::string_view bytes);
std::optional<std::string> ParseBlob(std::string_view text);

}  // namespace tessera
