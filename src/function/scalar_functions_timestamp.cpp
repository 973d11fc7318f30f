// TIMESTAMP, TIME and INTERVAL functions of the registry, with DuckDB's results and types:
// the arithmetic the binder makes of `x +/- INTERVAL` (timestamp_add_micros,
// timestamp_add_months, time_add_micros for a literal's unit; timestamp_add_interval,
// timestamp_sub_interval, time_add_interval, time_sub_interval, interval_add,
// interval_sub, interval_mul, timestamp_diff for INTERVAL values; no SQL names), date_trunc, epoch_ms, epoch_us,
// make_timestamp, make_time, strftime, strptime, age and to_timestamp. The calendar is function/date_core.hpp's
// and common/date.hpp's (the DATE functions' too).
#include <cmath>
#include <cstdint>
#include <string>

#include "common/ascii.hpp"
#include "common/date.hpp"
#include "common/error.hpp"
#include "common/interval.hpp"
#include "function/scalar_function_sets.hpp"
#include "function/timestamp_format.hpp"
#include "planner/binder.hpp"

namespace tessera {

namespace {

[[noreturn]] void OutOfRange(const std::string& what) {
  throw UserError(ErrorKind::Conversion, what + " is out of range");
}

// TIMESTAMP + microseconds (an INTERVAL of days, hours, ... seconds), overflow checked.
void TimestampAddMicrosCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    int64_t r;
    if (__builtin_add_overflow(args[0].data<int64_t>()[i], args[1].data<int64_t>()[i], &r))
      OutOfRange("TIMESTAMP " + args[0].GetValue(i).ToString() + " + INTERVAL");
    out.data<int64_t>()[i] = r;
  }
}

// TIMESTAMP + months: the day's months (clamped to the end of the month), the time kept.
void TimestampAddMonthsCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t us = args[0].data<int64_t>()[i];
    out.data<int64_t>()[i] =
        (int64_t)AddMonths(TimestampDay(us), args[1].data<int32_t>()[i]) * kMicrosPerDay + TimestampTimeOfDay(us);
  }
}

// TIME + microseconds wraps around midnight (DuckDB: 23:00 + 2 hours is 01:00).
void TimeAddMicrosCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t t = args[0].data<int64_t>()[i] % kMicrosPerDay + args[1].data<int64_t>()[i] % kMicrosPerDay;
    out.data<int64_t>()[i] = TimestampTimeOfDay(t);
  }
}

// TIMESTAMP +/- INTERVAL (TimestampPlusInterval); overflow is an error.
int64_t AddInterval(int64_t us, IntervalParts iv, const Vector& ts, uint32_t i) {
  int64_t r;
  if (!TimestampPlusInterval(us, iv, &r)) OutOfRange("TIMESTAMP " + ts.GetValue(i).ToString() + " + INTERVAL");
  return r;
}

IntervalParts Negated(IntervalParts p) {
  if (p.months == INT32_MIN || p.days == INT32_MIN || p.micros == INT64_MIN) OutOfRange("INTERVAL");
  return {-p.months, -p.days, -p.micros};
}

template <bool Sub>
void TimestampIntervalCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    IntervalParts iv = UnpackInterval(args[1].data<int128_t>()[i]);
    if (Sub) iv = Negated(iv);
    out.data<int64_t>()[i] = AddInterval(args[0].data<int64_t>()[i], iv, args[0], i);
  }
}

// TIME +/- INTERVAL: the microseconds only, around midnight (months and days do not move a
// time of day, as DuckDB).
template <bool Sub>
void TimeIntervalCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t d = UnpackInterval(args[1].data<int128_t>()[i]).micros % kMicrosPerDay;
    out.data<int64_t>()[i] = TimestampTimeOfDay(args[0].data<int64_t>()[i] % kMicrosPerDay + (Sub ? -d : d));
  }
}

template <bool Sub>
void IntervalAddCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    IntervalParts b = UnpackInterval(args[1].data<int128_t>()[i]), r;
    if (Sub) b = Negated(b);
    if (!AddIntervals(UnpackInterval(args[0].data<int128_t>()[i]), b, &r)) OutOfRange("INTERVAL");
    out.data<int128_t>()[i] = PackInterval(r);
  }
}

void IntervalMulCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    IntervalParts r;
    if (!MultiplyInterval(UnpackInterval(args[0].data<int128_t>()[i]), args[1].data<int64_t>()[i], &r))
      OutOfRange("INTERVAL");
    out.data<int128_t>()[i] = PackInterval(r);
  }
}

// TIMESTAMP - TIMESTAMP: whole days and the rest in microseconds (DuckDB's; no months).
void TimestampDiffCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    int64_t d;
    if (__builtin_sub_overflow(args[0].data<int64_t>()[i], args[1].data<int64_t>()[i], &d)) OutOfRange("INTERVAL");
    out.data<int128_t>()[i] = PackInterval({0, (int32_t)(d / kMicrosPerDay), d % kMicrosPerDay});
  }
}

// age(a, b): a - b in years, months, days and time (DuckDB's, as PostgreSQL's): the
// difference of each calendar and clock field, taken from the later timestamp's fields
// and negated when a is the earlier; a negative field borrows from the next larger (a day
// borrows the length of the earlier timestamp's month).
IntervalParts Age(int64_t a, int64_t b) {
  struct Fields {
    int64_t year, month, day, micros;
  };
  auto split = [](int64_t us) {
    int y;
    unsigned m, d;
    CivilFromDays(TimestampDay(us), y, m, d);
    return Fields{y, (int64_t)m, (int64_t)d, TimestampTimeOfDay(us)};
  };
  const bool negative = a < b;
  const Fields late = split(negative ? b : a), early = split(negative ? a : b);
  int64_t years = late.year - early.year, months = late.month - early.month, days = late.day - early.day;
  int64_t micros = late.micros - early.micros;
  if (micros < 0) {
    micros += kMicrosPerDay;
    days--;
  }
  if (days < 0) {
    days += DaysInMonth((int)early.year, (int)early.month);
    months--;
  }
  if (months < 0) {
    months += 12;
    years--;
  }
  const int64_t total_months = years * 12 + months;
  if (total_months > INT32_MAX) OutOfRange("age");
  IntervalParts r{(int32_t)total_months, (int32_t)days, micros};
  return negative ? IntervalParts{-r.months, -r.days, -r.micros} : r;
}

void AgeCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    out.data<int128_t>()[i] = PackInterval(Age(args[0].data<int64_t>()[i], args[1].data<int64_t>()[i]));
  }
}

// to_timestamp(seconds since 1970-01-01): rounded to the microsecond. DuckDB's result is a
// TIMESTAMP WITH TIME ZONE (UTC); tessera has no time zones and returns the TIMESTAMP.
void ToTimestampCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const double us = args[0].data<double>()[i] * 1e6;
    if (!std::isfinite(us) || std::fabs(us) >= 9.2e18)
      throw UserError(ErrorKind::Conversion, "Epoch seconds out of range for TIMESTAMP");
    out.data<int64_t>()[i] = std::llround(us);
  }
}

// The units date_trunc knows, and their DuckDB synonyms.
enum class Trunc { Millennium, Century, Decade, Year, Quarter, Month, Week, Day, Hour, Minute, Second, Millisecond,
                   Microsecond };

bool TruncNamed(std::string_view p, Trunc& u) {
  static const std::pair<const char*, Trunc> k[] = {
      {"millennium", Trunc::Millennium}, {"millennia", Trunc::Millennium}, {"century", Trunc::Century},
      {"centuries", Trunc::Century},     {"decade", Trunc::Decade},        {"decades", Trunc::Decade},
      {"year", Trunc::Year},             {"years", Trunc::Year},           {"y", Trunc::Year},
      {"yr", Trunc::Year},               {"yrs", Trunc::Year},             {"quarter", Trunc::Quarter},
      {"quarters", Trunc::Quarter},      {"month", Trunc::Month},          {"months", Trunc::Month},
      {"mon", Trunc::Month},             {"mons", Trunc::Month},           {"week", Trunc::Week},
      {"weeks", Trunc::Week},            {"w", Trunc::Week},               {"day", Trunc::Day},
      {"days", Trunc::Day},              {"d", Trunc::Day},                {"dayofmonth", Trunc::Day},
      {"hour", Trunc::Hour},             {"hours", Trunc::Hour},           {"h", Trunc::Hour},
      {"hr", Trunc::Hour},               {"minute", Trunc::Minute},        {"minutes", Trunc::Minute},
      {"m", Trunc::Minute},              {"min", Trunc::Minute},           {"second", Trunc::Second},
      {"seconds", Trunc::Second},        {"s", Trunc::Second},             {"sec", Trunc::Second},
      {"millisecond", Trunc::Millisecond}, {"milliseconds", Trunc::Millisecond}, {"ms", Trunc::Millisecond},
      {"microsecond", Trunc::Microsecond}, {"microseconds", Trunc::Microsecond}, {"us", Trunc::Microsecond},
  };
  for (auto& [name, unit] : k)
    if (p == name) {
      u = unit;
      return true;
    }
  return false;
}

int64_t TruncateTimestamp(int64_t us, Trunc u) {
  auto floor_to = [&](int64_t unit) { return (us / unit - (us % unit < 0)) * unit; };
  const int day = TimestampDay(us);
  int y;
  unsigned m, d;
  CivilFromDays(day, y, m, d);
  auto at = [](int yy, unsigned mm, unsigned dd) { return (int64_t)DaysFromCivil(yy, mm, dd) * kMicrosPerDay; };
  auto floor_years = [&](int k) { return y >= 0 ? y / k * k : -((-y + k - 1) / k * k); };
  switch (u) {
    case Trunc::Millennium: return at(floor_years(1000), 1, 1);
    case Trunc::Century: return at(floor_years(100), 1, 1);
    case Trunc::Decade: return at(floor_years(10), 1, 1);
    case Trunc::Year: return at(y, 1, 1);
    case Trunc::Quarter: return at(y, (m - 1) / 3 * 3 + 1, 1);
    case Trunc::Month: return at(y, m, 1);
    case Trunc::Week: {  // the ISO week's Monday
      const int w = ops::DayOfWeek(day);
      return (int64_t)(day - (w == 0 ? 6 : w - 1)) * kMicrosPerDay;
    }
    case Trunc::Day: return (int64_t)day * kMicrosPerDay;
    case Trunc::Hour: return floor_to(3600 * kMicrosPerSecond);
    case Trunc::Minute: return floor_to(60 * kMicrosPerSecond);
    case Trunc::Second: return floor_to(kMicrosPerSecond);
    case Trunc::Millisecond: return floor_to(1000);
    case Trunc::Microsecond: return us;
  }
  return us;
}

// date_trunc(part, DATE | TIMESTAMP) -> TIMESTAMP (DuckDB's type for a DATE too).
Type BindDateTrunc(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 2);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  c.args[1] = Binder::Coerce(std::move(c.args[1]), Type::Timestamp(), c.pos);
  return Type::Timestamp();
}

void DateTruncCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const StrRef part = args[0].data<StrRef>()[i];
    Trunc u;
    if (!TruncNamed(AsciiLower(std::string(part)), u))
      throw UserError(ErrorKind::Conversion, "unknown date part \"" + std::string(part) + "\" for date_trunc");
    out.data<int64_t>()[i] = TruncateTimestamp(args[1].data<int64_t>()[i], u);
  }
}

// epoch_ms(BIGINT) -> TIMESTAMP; epoch_ms(TIMESTAMP) -> BIGINT (milliseconds, truncated);
// epoch_us the same in microseconds.
template <int64_t Unit>
Type BindEpochUnit(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  if (c.args[0]->type.id == TypeId::Timestamp || c.args[0]->type.id == TypeId::Date) {
    c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Timestamp(), c.pos);
    return Type::BigInt();
  }
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::BigInt(), c.pos);
  return Type::Timestamp();
}

template <int64_t Unit>
void EpochUnitCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const bool from_ts = args[0].type().id == TypeId::Timestamp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t x = args[0].data<int64_t>()[i];
    int64_t r;
    if (from_ts) r = x / Unit;  // truncated toward zero, as DuckDB
    else if (__builtin_mul_overflow(x, Unit, &r)) OutOfRange("epoch value " + std::to_string(x));
    out.data<int64_t>()[i] = r;
  }
}

// make_timestamp(year, month, day, hour, minute, seconds DOUBLE), or of microseconds.
Type BindMakeTimestamp(ScalarCall& c) {
  if (c.args.size() == 1) {
    c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::BigInt(), c.pos);
    return Type::Timestamp();
  }
  ExpectScalarArgs(c, 6, 6);
  for (size_t i = 0; i < 5; i++) c.args[i] = Binder::Coerce(std::move(c.args[i]), Type::BigInt(), c.pos);
  c.args[5] = Binder::Coerce(std::move(c.args[5]), Type::Double(), c.pos);
  return Type::Timestamp();
}

// Microseconds of hour:minute:seconds; false when a field is out of range.
bool ClockMicros(int64_t h, int64_t mi, double s, int64_t* us) {
  if (h < 0 || h > 24 || mi < 0 || mi > 59 || !(s >= 0) || s >= 60) return false;
  const int64_t whole = (int64_t)s;
  const int64_t frac = (int64_t)std::llround((s - (double)whole) * 1e6);
  *us = ((h * 60 + mi) * 60 + whole) * kMicrosPerSecond + frac;
  return *us <= kMicrosPerDay;
}

void MakeTimestampCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    if (args.size() == 1) {
      out.data<int64_t>()[i] = args[0].data<int64_t>()[i];
      continue;
    }
    int64_t f[5];
    for (int k = 0; k < 5; k++) f[k] = args[k].data<int64_t>()[i];
    const double s = args[5].data<double>()[i];
    int64_t tod;
    if (f[0] < -290000 || f[0] > 290000 || f[1] < 1 || f[1] > 12 || f[2] < 1 ||
        f[2] > DaysInMonth((int)f[0], (int)f[1]) || !ClockMicros(f[3], f[4], s, &tod))
      throw UserError(ErrorKind::Conversion, "Timestamp out of range: " + std::to_string(f[0]) + "-" + std::to_string(f[1]) +
                                                 "-" + std::to_string(f[2]) + " " + std::to_string(f[3]) + ":" +
                                                 std::to_string(f[4]) + ":" + std::to_string(s));
    out.data<int64_t>()[i] = (int64_t)DaysFromCivil((int)f[0], (unsigned)f[1], (unsigned)f[2]) * kMicrosPerDay + tod;
  }
}

Type BindMakeTime(ScalarCall& c) {
  ExpectScalarArgs(c, 3, 3);
  for (size_t i = 0; i < 2; i++) c.args[i] = Binder::Coerce(std::move(c.args[i]), Type::BigInt(), c.pos);
  c.args[2] = Binder::Coerce(std::move(c.args[2]), Type::Double(), c.pos);
  return Type::Time();
}

void MakeTimeCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t h = args[0].data<int64_t>()[i], mi = args[1].data<int64_t>()[i];
    const double s = args[2].data<double>()[i];
    if (!ClockMicros(h, mi, s, &out.data<int64_t>()[i]))
      throw UserError(ErrorKind::Conversion, "Time out of range: " + std::to_string(h) + ":" + std::to_string(mi) + ":" +
                                                 std::to_string(s));
  }
}

// strftime(DATE | TIMESTAMP, format) -> VARCHAR.
Type BindStrftime(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 2);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Timestamp(), c.pos);
  c.args[1] = Binder::Coerce(std::move(c.args[1]), Type::Varchar(), c.pos);
  return Type::Varchar();
}

void StrftimeCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    FormatTimestampAs(args[0].data<int64_t>()[i], args[1].data<StrRef>()[i], tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

// strptime(text, format) -> TIMESTAMP.
Type BindStrptime(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 2);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  c.args[1] = Binder::Coerce(std::move(c.args[1]), Type::Varchar(), c.pos);
  return Type::Timestamp();
}

void StrptimeCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const StrRef text = args[0].data<StrRef>()[i], fmt = args[1].data<StrRef>()[i];
    auto us = ParseTimestampAs(text, fmt);
    if (!us)
      throw UserError(ErrorKind::Conversion, "could not parse string \"" + std::string(text) + "\" according to format \"" +
                                                 std::string(fmt) + "\"");
    out.data<int64_t>()[i] = *us;
  }
}

}  // namespace

bool TimestampPlusInterval(int64_t us, IntervalParts iv, int64_t* out) {
  int64_t r = us;
  if (iv.months) r = (int64_t)AddMonths(TimestampDay(us), iv.months) * kMicrosPerDay + TimestampTimeOfDay(us);
  int64_t days_us;
  if (__builtin_mul_overflow((int64_t)iv.days, kMicrosPerDay, &days_us) || __builtin_add_overflow(r, days_us, &r) ||
      __builtin_add_overflow(r, iv.micros, &r))
    return false;
  *out = r;
  return true;
}

std::vector<ScalarFunction> TimestampFunctions() {
  return {
      {"timestamp_add_micros", {}, BindFixed<Type::Timestamp, Type::Timestamp, Type::BigInt>, false, TimestampAddMicrosCpu},
      {"timestamp_add_months", {}, BindFixed<Type::Timestamp, Type::Timestamp, Type::Integer>, false, TimestampAddMonthsCpu},
      {"time_add_micros", {}, BindFixed<Type::Time, Type::Time, Type::BigInt>, false, TimeAddMicrosCpu},
      {"timestamp_add_interval", {}, BindFixed<Type::Timestamp, Type::Timestamp, Type::Interval>, false,
       TimestampIntervalCpu<false>},
      {"timestamp_sub_interval", {}, BindFixed<Type::Timestamp, Type::Timestamp, Type::Interval>, false,
       TimestampIntervalCpu<true>},
      {"time_add_interval", {}, BindFixed<Type::Time, Type::Time, Type::Interval>, false, TimeIntervalCpu<false>},
      {"time_sub_interval", {}, BindFixed<Type::Time, Type::Time, Type::Interval>, false, TimeIntervalCpu<true>},
      {"interval_add", {}, BindFixed<Type::Interval, Type::Interval, Type::Interval>, false, IntervalAddCpu<false>},
      {"interval_sub", {}, BindFixed<Type::Interval, Type::Interval, Type::Interval>, false, IntervalAddCpu<true>},
      {"interval_mul", {}, BindFixed<Type::Interval, Type::Interval, Type::BigInt>, false, IntervalMulCpu},
      {"timestamp_diff", {}, BindFixed<Type::Interval, Type::Timestamp, Type::Timestamp>, false, TimestampDiffCpu},
      {"date_trunc", {"date_trunc", "datetrunc"}, BindDateTrunc, false, DateTruncCpu},
      {"epoch_ms", {"epoch_ms"}, BindEpochUnit<1000>, false, EpochUnitCpu<1000>},
      {"epoch_us", {"epoch_us"}, BindEpochUnit<1>, false, EpochUnitCpu<1>},
      {"make_timestamp", {"make_timestamp"}, BindMakeTimestamp, false, MakeTimestampCpu},
      {"make_time", {"make_time"}, BindMakeTime, false, MakeTimeCpu},
      {"strftime", {"strftime"}, BindStrftime, false, StrftimeCpu},
      {"strptime", {"strptime"}, BindStrptime, false, StrptimeCpu},
      {"age", {"age"}, BindFixed<Type::Interval, Type::Timestamp, Type::Timestamp>, false, AgeCpu},
      {"to_timestamp", {"to_timestamp"}, BindFixed<Type::Timestamp, Type::Double>, false, ToTimestampCpu},
  };
}

}  // namespace tessera
