// Date functions of the registry, with DuckDB's results and types: the date parts (EXTRACT,
// date_part and the functions named after a part: year, month, day / dayofmonth, quarter,
// dayofweek / weekday, isodow, dayofyear, week / weekofyear, isoyear, yearweek, decade, century,
// millennium, era, and of a TIMESTAMP or TIME hour, minute, second, millisecond,
// microsecond; of an INTERVAL year, month, day, quarter, decade, century, millennium and
// the time fields; BIGINT; epoch DOUBLE seconds), date_diff / datediff (part boundaries
// crossed between two dates, BIGINT), date_sub / datesub (whole parts between them,
// BIGINT), make_date, last_day, dayname, monthname. The parts are `ops::ExtractDateField`
// of date_core.hpp, which the GPU's kernels compile too.
#include <string>

#include "common/date.hpp"
#include "common/error.hpp"
#include "common/interval.hpp"
#include "execution/expression_executor.hpp"
#include "function/scalar_function_sets.hpp"
#include "planner/binder.hpp"

namespace tessera {

namespace {

constexpr int kEpochField = -1;

// A part of a DATE, TIMESTAMP, TIME (the time fields of a DATE are 0, as DuckDB's) or INTERVAL.
template <int Field>
void ExtractCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const TypeId t = args[0].type().id;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    int64_t& r = out.data<int64_t>()[i];
    if (t == TypeId::Timestamp) r = ops::ExtractTimestampField(args[0].data<int64_t>()[i], Field);
    else if (t == TypeId::Time) r = ops::ExtractTimeField(args[0].data<int64_t>()[i], Field);
    else if (t == TypeId::Interval) {
      const IntervalParts p = UnpackInterval(args[0].data<int128_t>()[i]);
      r = ops::ExtractIntervalField(p.months, p.days, p.micros, Field);
    }
    else r = ops::IsTimeField(Field) ? 0 : ops::ExtractDateField(args[0].data<int32_t>()[i], Field);
  }
}

// The argument of a part: a TIMESTAMP, a TIME (time fields only) or else a DATE.
template <int Field, Type (*Out)()>
Type BindPart(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  const TypeId t = c.args[0]->type.id;
  if (t == TypeId::Time && !ops::IsTimeField(Field) && Field != kEpochField)
    throw UserError(ErrorKind::Type, std::string(c.written) + " is not a part of a TIME", c.pos);
  if (t == TypeId::Interval && Field != kEpochField && !ops::IsIntervalField(Field))
    throw UserError(ErrorKind::Type, std::string(c.written) + " is not a part of an INTERVAL", c.pos);
  if (t != TypeId::Timestamp && t != TypeId::Time && t != TypeId::Interval)
    c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Date(), c.pos);
  return Out();
}

template <int Field>
std::string ExtractDevice(std::span<const std::string> args) {
  return "tessera::ops::ExtractDateField((int)" + args[0] + ", " + std::to_string(Field) + ")";
}

template <int Field>
std::string ExtractTimestampDevice(std::span<const std::string> args) {
  return "tessera::ops::ExtractTimestampField((long long)" + args[0] + ", " + std::to_string(Field) + ")";
}

template <int Lo, int Hi>
ValueRange FixedRange(std::span<const ValueRange>) { return {true, Lo, Hi}; }

// A monotone part's range over a TIMESTAMP range: the parts of its ends.
template <int Field>
ValueRange MonotoneTimestampRange(std::span<const ValueRange> args) {
  const ValueRange& d = args[0];
  if (!d.known || d.hi < d.lo) return {};
  return {true, ops::ExtractTimestampField(d.lo, Field), ops::ExtractTimestampField(d.hi, Field)};
}

// A monotone part's range is the parts of the date range's ends.
template <int Field>
ValueRange MonotoneRange(std::span<const ValueRange> args) {
  const ValueRange& d = args[0];
  if (!d.known || d.hi < d.lo) return {};
  return {true, ops::ExtractDateField((int)d.lo, Field), ops::ExtractDateField((int)d.hi, Field)};
}

// Seconds since 1970-01-01 (a TIME: since midnight; an INTERVAL: its length, a month as 30
// days), with the microseconds as a fraction.
void EpochCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const TypeId t = args[0].type().id;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    double& r = out.data<double>()[i];
    if (t == TypeId::Date) {
      r = (double)args[0].data<int32_t>()[i] * 86400.0;
    } else if (t == TypeId::Interval) {
      const IntervalParts p = UnpackInterval(args[0].data<int128_t>()[i]);
      r = ((double)p.months * 30 + (double)p.days) * 86400.0 + (double)p.micros / 1e6;
    } else {
      r = (double)args[0].data<int64_t>()[i] / 1e6;
    }
  }
}

Type BindMakeDate(ScalarCall& c) {
  ExpectScalarArgs(c, 3, 3);
  for (auto& a : c.args) a = Binder::Coerce(std::move(a), Type::BigInt(), c.pos);
  return Type::Date();
}

void MakeDateCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t y = args[0].data<int64_t>()[i], m = args[1].data<int64_t>()[i], d = args[2].data<int64_t>()[i];
    const std::string shown = std::to_string(y) + "-" + std::to_string(m) + "-" + std::to_string(d);
    if (y < -290000 || y > 290000 || m < 1 || m > 12 || d < 1 || d > DaysInMonth((int)y, (int)m))
      throw UserError(ErrorKind::Conversion, "Date out of range: " + shown);
    out.data<int32_t>()[i] = DaysFromCivil((int)y, (unsigned)m, (unsigned)d);
  }
}

void LastDayCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    int y;
    unsigned m, d;
    CivilFromDays(args[0].data<int32_t>()[i], y, m, d);
    out.data<int32_t>()[i] = DaysFromCivil(y, m, (unsigned)DaysInMonth(y, (int)m));
  }
}

const char* const kDayNames[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
const char* const kMonthNames[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};

template <bool Month>
void NameCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int32_t days = args[0].data<int32_t>()[i];
    out.data<StrRef>()[i] = Month ? kMonthNames[ops::ExtractDateField(days, ops::kMonth) - 1]
                                  : kDayNames[ops::DayOfWeek(days)];
  }
}

// date_diff(part, start, end): the part's boundaries crossed from start to end.
enum class DiffUnit { Year, Quarter, Month, Week, Day, Decade, Century, Millennium, Hour, Minute, Second,
                      Millisecond, Microsecond };

bool DiffUnitNamed(std::string_view p, DiffUnit& u) {
  static const std::pair<const char*, DiffUnit> k[] = {
      {"year", DiffUnit::Year},       {"years", DiffUnit::Year},         {"y", DiffUnit::Year},
      {"yr", DiffUnit::Year},         {"yrs", DiffUnit::Year},           {"quarter", DiffUnit::Quarter},
      {"quarters", DiffUnit::Quarter}, {"month", DiffUnit::Month},       {"months", DiffUnit::Month},
      {"mon", DiffUnit::Month},       {"mons", DiffUnit::Month},         {"week", DiffUnit::Week},
      {"weeks", DiffUnit::Week},      {"w", DiffUnit::Week},             {"day", DiffUnit::Day},
      {"days", DiffUnit::Day},        {"d", DiffUnit::Day},              {"dayofmonth", DiffUnit::Day},
      {"decade", DiffUnit::Decade},   {"decades", DiffUnit::Decade},     {"century", DiffUnit::Century},
      {"centuries", DiffUnit::Century}, {"millennium", DiffUnit::Millennium},
      {"millennia", DiffUnit::Millennium}, {"hour", DiffUnit::Hour},     {"hours", DiffUnit::Hour},
      {"h", DiffUnit::Hour},          {"minute", DiffUnit::Minute},      {"minutes", DiffUnit::Minute},
      {"m", DiffUnit::Minute},        {"second", DiffUnit::Second},      {"seconds", DiffUnit::Second},
      {"s", DiffUnit::Second},        {"millisecond", DiffUnit::Millisecond},
      {"milliseconds", DiffUnit::Millisecond}, {"ms", DiffUnit::Millisecond},
      {"microsecond", DiffUnit::Microsecond}, {"microseconds", DiffUnit::Microsecond},
      {"us", DiffUnit::Microsecond},
  };
  for (auto& [name, unit] : k)
    if (p == name) {
      u = unit;
      return true;
    }
  return false;
}

Type BindDateDiff(ScalarCall& c) {
  ExpectScalarArgs(c, 3, 3);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  // Two DATEs, else two TIMESTAMPs (a DATE is its midnight).
  const Type t = c.args[1]->type.id == TypeId::Timestamp || c.args[2]->type.id == TypeId::Timestamp
                     ? Type::Timestamp() : Type::Date();
  c.args[1] = Binder::Coerce(std::move(c.args[1]), t, c.pos);
  c.args[2] = Binder::Coerce(std::move(c.args[2]), t, c.pos);
  return Type::BigInt();
}

// The unit a date_diff / date_sub part names (any case), or the error naming `fn`.
DiffUnit DiffUnitArgument(StrRef name, const char* fn) {
  std::string part(name);
  for (char& ch : part) ch = (char)std::tolower((unsigned char)ch);
  DiffUnit u;
  if (!DiffUnitNamed(part, u))
    throw UserError(ErrorKind::Conversion, "unknown date part \"" + std::string(name) + "\" for " + fn);
  return u;
}

void DateDiffCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const DiffUnit u = DiffUnitArgument(args[0].data<StrRef>()[i], "date_diff");
    const bool ts = args[1].type().id == TypeId::Timestamp;
    // Timestamps: the calendar units count the boundaries between their days, the clock
    // units those between their microseconds (floor division: 10:59 to 12:00 is 2 hours).
    const int64_t ua = ts ? args[1].data<int64_t>()[i] : 0, ub = ts ? args[2].data<int64_t>()[i] : 0;
    const int32_t a = ts ? TimestampDay(ua) : args[1].data<int32_t>()[i];
    const int32_t b = ts ? TimestampDay(ub) : args[2].data<int32_t>()[i];
    auto floor_diff = [&](int64_t unit) {
      auto fl = [&](int64_t x) { return x / unit - (x % unit < 0); };
      return fl(ub) - fl(ua);
    };
    auto part_of = [&](int field, int32_t d) { return (int64_t)ops::ExtractDateField(d, field); };
    const int64_t ya = part_of(ops::kYear, a), yb = part_of(ops::kYear, b);
    const int64_t days = (int64_t)b - a;
    int64_t r = 0;
    switch (u) {
      case DiffUnit::Year: r = yb - ya; break;
      case DiffUnit::Quarter: r = (yb * 4 + part_of(ops::kQuarter, b)) - (ya * 4 + part_of(ops::kQuarter, a)); break;
      case DiffUnit::Month: r = (yb * 12 + part_of(ops::kMonth, b)) - (ya * 12 + part_of(ops::kMonth, a)); break;
      case DiffUnit::Week: r = days / 7; break;
      case DiffUnit::Day: r = days; break;
      // DuckDB counts these from year 0: years / 10, / 100, / 1000.
      case DiffUnit::Decade: r = yb / 10 - ya / 10; break;
      case DiffUnit::Century: r = yb / 100 - ya / 100; break;
      case DiffUnit::Millennium: r = yb / 1000 - ya / 1000; break;
      case DiffUnit::Hour: r = ts ? floor_diff(3600 * kMicrosPerSecond) : days * 24; break;
      case DiffUnit::Minute: r = ts ? floor_diff(60 * kMicrosPerSecond) : days * 1440; break;
      case DiffUnit::Second: r = ts ? floor_diff(kMicrosPerSecond) : days * 86400; break;
      case DiffUnit::Millisecond: r = ts ? floor_diff(1000) : days * 86400000LL; break;
      case DiffUnit::Microsecond: r = ts ? ub - ua : days * 86400000000LL; break;
    }
    out.data<int64_t>()[i] = r;
  }
}

// date_sub(part, start, end): the whole parts from start to end (DuckDB's), where
// date_diff counts the boundaries crossed. Calendar parts count whole months: the months
// between, less one where end's day and time of day come before start's (an end on its
// month's last day counts as reaching any later day of start's); negative when end is
// before start. Day and shorter parts divide the microseconds between, truncated.
int64_t WholeMonths(int64_t start, int64_t end) {
  if (start > end) return -WholeMonths(end, start);
  int y0, y1;
  unsigned m0, d0, m1, d1;
  CivilFromDays(TimestampDay(start), y0, m0, d0);
  CivilFromDays(TimestampDay(end), y1, m1, d1);
  int64_t months = ((int64_t)y1 - y0) * 12 + (int64_t)m1 - (int64_t)m0;
  unsigned day0 = d0;
  if ((int)d1 == DaysInMonth(y1, (int)m1) && day0 > d1) day0 = d1;
  if (d1 < day0 || (d1 == day0 && TimestampTimeOfDay(end) < TimestampTimeOfDay(start))) months--;
  return months;
}

void DateSubCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const DiffUnit u = DiffUnitArgument(args[0].data<StrRef>()[i], "date_sub");
    auto micros = [&](const Vector& v) {
      return v.type().id == TypeId::Timestamp ? v.data<int64_t>()[i] : (int64_t)v.data<int32_t>()[i] * kMicrosPerDay;
    };
    const int64_t a = micros(args[1]), b = micros(args[2]);
    int64_t d;
    if (__builtin_sub_overflow(b, a, &d)) throw UserError(ErrorKind::Conversion, "date_sub is out of range");
    int64_t r = 0;
    switch (u) {
      case DiffUnit::Year: r = WholeMonths(a, b) / 12; break;
      case DiffUnit::Quarter: r = WholeMonths(a, b) / 3; break;
      case DiffUnit::Month: r = WholeMonths(a, b); break;
      case DiffUnit::Decade: r = WholeMonths(a, b) / 120; break;
      case DiffUnit::Century: r = WholeMonths(a, b) / 1200; break;
      case DiffUnit::Millennium: r = WholeMonths(a, b) / 12000; break;
      case DiffUnit::Week: r = d / (7 * kMicrosPerDay); break;
      case DiffUnit::Day: r = d / kMicrosPerDay; break;
      case DiffUnit::Hour: r = d / (3600 * kMicrosPerSecond); break;
      case DiffUnit::Minute: r = d / (60 * kMicrosPerSecond); break;
      case DiffUnit::Second: r = d / kMicrosPerSecond; break;
      case DiffUnit::Millisecond: r = d / 1000; break;
      case DiffUnit::Microsecond: r = d; break;
    }
    out.data<int64_t>()[i] = r;
  }
}

// `range` over DATEs; `monotone`: a part that grows with time (year, isoyear, yearweek),
// whose range over TIMESTAMPs comes from the range's ends too. A TIME argument never reaches
// the GPU (its columns are not on it).
template <int Field>
ScalarFunction DatePart(const char* name, std::vector<std::string_view> sql_names,
                        ValueRange (*range)(std::span<const ValueRange>), bool monotone = false) {
  ScalarFunction f{name, std::move(sql_names), BindPart<Field, Type::BigInt>, false, ExtractCpu<Field>,
                   ops::IsTimeField(Field) ? nullptr : ExtractDevice<Field>, range};
  f.device_timestamp = ExtractTimestampDevice<Field>;
  f.range_timestamp = monotone ? MonotoneTimestampRange<Field> : range;
  return f;
}

}  // namespace

std::vector<ScalarFunction> DateFunctions() {
  return {
      DatePart<ops::kYear>("extract_year", {"year"}, MonotoneRange<ops::kYear>, true),
      DatePart<ops::kMonth>("extract_month", {"month"}, FixedRange<1, 12>),
      DatePart<ops::kDay>("extract_day", {"day", "dayofmonth"}, FixedRange<1, 31>),
      DatePart<ops::kQuarter>("extract_quarter", {"quarter"}, FixedRange<1, 4>),
      DatePart<ops::kDow>("extract_dow", {"dayofweek", "weekday"}, FixedRange<0, 6>),
      DatePart<ops::kIsoDow>("extract_isodow", {"isodow"}, FixedRange<1, 7>),
      DatePart<ops::kDoy>("extract_doy", {"dayofyear"}, FixedRange<1, 366>),
      DatePart<ops::kWeek>("extract_week", {"week", "weekofyear"}, FixedRange<1, 53>),
      DatePart<ops::kIsoYear>("extract_isoyear", {"isoyear"}, MonotoneRange<ops::kIsoYear>, true),
      DatePart<ops::kYearWeek>("extract_yearweek", {"yearweek"}, MonotoneRange<ops::kYearWeek>, true),
      DatePart<ops::kDecade>("extract_decade", {"decade"}, MonotoneRange<ops::kDecade>, true),
      DatePart<ops::kCentury>("extract_century", {"century"}, MonotoneRange<ops::kCentury>, true),
      DatePart<ops::kMillennium>("extract_millennium", {"millennium"}, MonotoneRange<ops::kMillennium>, true),
      DatePart<ops::kEra>("extract_era", {"era"}, FixedRange<0, 1>),
      DatePart<ops::kHour>("extract_hour", {"hour"}, FixedRange<0, 24>),
      DatePart<ops::kMinute>("extract_minute", {"minute"}, FixedRange<0, 59>),
      DatePart<ops::kSecond>("extract_second", {"second"}, FixedRange<0, 59>),
      DatePart<ops::kMillisecond>("extract_millisecond", {"millisecond"}, FixedRange<0, 59999>),
      DatePart<ops::kMicrosecond>("extract_microsecond", {"microsecond"}, FixedRange<0, 59999999>),
      {"extract_epoch", {"epoch"}, BindPart<kEpochField, Type::Double>, false, EpochCpu},
      {"make_date", {"make_date"}, BindMakeDate, false, MakeDateCpu},
      {"last_day", {"last_day"}, BindFixed<Type::Date, Type::Date>, false, LastDayCpu},
      {"dayname", {"dayname"}, BindFixed<Type::Varchar, Type::Date>, false, NameCpu<false>},
      {"monthname", {"monthname"}, BindFixed<Type::Varchar, Type::Date>, false, NameCpu<true>},
      {"date_diff", {"date_diff", "datediff"}, BindDateDiff, false, DateDiffCpu},
      {"date_sub", {"date_sub", "datesub"}, BindDateDiff, false, DateSubCpu},
  };
}

const ScalarFunction* FindDatePart(std::string_view part) {
  static const std::pair<const char*, const char*> k[] = {
      {"year", "extract_year"},       {"years", "extract_year"},       {"y", "extract_year"},
      {"yr", "extract_year"},         {"yrs", "extract_year"},         {"month", "extract_month"},
      {"months", "extract_month"},    {"mon", "extract_month"},        {"mons", "extract_month"},
      {"day", "extract_day"},         {"days", "extract_day"},         {"d", "extract_day"},
      {"dayofmonth", "extract_day"},  {"quarter", "extract_quarter"},  {"quarters", "extract_quarter"},
      {"dow", "extract_dow"},         {"dayofweek", "extract_dow"},    {"weekday", "extract_dow"},
      {"isodow", "extract_isodow"},   {"doy", "extract_doy"},          {"dayofyear", "extract_doy"},
      {"week", "extract_week"},       {"weeks", "extract_week"},       {"w", "extract_week"},
      {"weekofyear", "extract_week"}, {"isoyear", "extract_isoyear"},  {"yearweek", "extract_yearweek"},
      {"decade", "extract_decade"},   {"decades", "extract_decade"},   {"century", "extract_century"},
      {"centuries", "extract_century"}, {"millennium", "extract_millennium"},
      {"millennia", "extract_millennium"}, {"era", "extract_era"},     {"epoch", "extract_epoch"},
      {"hour", "extract_hour"},       {"hours", "extract_hour"},       {"h", "extract_hour"},
      {"hr", "extract_hour"},         {"hrs", "extract_hour"},         {"minute", "extract_minute"},
      {"minutes", "extract_minute"},  {"m", "extract_minute"},         {"min", "extract_minute"},
      {"mins", "extract_minute"},     {"second", "extract_second"},    {"seconds", "extract_second"},
      {"s", "extract_second"},        {"sec", "extract_second"},       {"secs", "extract_second"},
      {"millisecond", "extract_millisecond"}, {"milliseconds", "extract_millisecond"},
      {"ms", "extract_millisecond"},  {"msec", "extract_millisecond"}, {"msecs", "extract_millisecond"},
      {"microsecond", "extract_microsecond"}, {"microseconds", "extract_microsecond"},
      {"us", "extract_microsecond"},  {"usec", "extract_microsecond"}, {"usecs", "extract_microsecond"},
  };
  for (auto& [name, fn] : k)
    if (part == name) return &ScalarFunctionNamed(fn);
  return nullptr;
}

}  // namespace tessera
