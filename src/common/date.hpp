// Calendar arithmetic on DATE values (days since 1970-01-01, proleptic Gregorian): the
// host's parsing, formatting and month arithmetic around the core both backends share
// (function/date_core.hpp: DaysFromCivil, CivilFromDays, EXTRACT).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "function/date_core.hpp"

namespace tessera {


inline bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
inline int DaysInMonth(int y, int m) {
  static const int k[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : k[m - 1];
}

// Parses 'YYYY-MM-DD' (1-4 digit year). Returns nullopt when malformed or out of range.
std::optional<int32_t> ParseDate(std::string_view s);
std::string FormatDate(int32_t days);
// TIMESTAMP: 'YYYY-MM-DD[ |T]HH:MM[:SS[.ffffff]]' (a date alone is midnight; a trailing
// 'Z', 'UTC' or '+HH[:MM]' offset is accepted and ignored, as DuckDB does). nullopt if malformed.
std::optional<int64_t> ParseTimestamp(std::string_view s);
// 'YYYY-MM-DD HH:MM:SS[.ffffff]', the fraction without trailing zeros; years BC as DuckDB
// writes them ('0045-03-15 (BC) 01:02:03').
std::string FormatTimestamp(int64_t us);
// TIME: 'HH:MM[:SS[.ffffff]]', 00:00:00 .. 24:00:00. nullopt if malformed.
std::optional<int64_t> ParseTime(std::string_view s);
std::string FormatTime(int64_t us);
// Parses the time part 'HH:MM[:SS[.ffffff]]' at the start of s; returns the characters read
// (0: none) and the microseconds in *us.
size_t ParseTimeOfDay(std::string_view s, int64_t* us);
// Adds months, clamping the day to the end of the month (as SQL INTERVAL does).
int32_t AddMonths(int32_t days, int months);

}  // namespace tessera
