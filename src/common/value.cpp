#include "common/value.hpp"

#include <cmath>
#include <cstdlib>

#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/interval.hpp"
#include "common/string_cast.hpp"
#include "function/scalar_ops.hpp"  // the order of DOUBLEs (NaN above all)

namespace tessera {

double Value::AsDouble() const {
  switch (type_.id) {
    case TypeId::Double: return d_;
    case TypeId::Decimal: return ops::DecimalToDouble(i_, type_.scale);  // as DuckDB casts
    default: return (double)i_;
  }
}

std::string Value::ToString() const {
  if (null_) return "NULL";
  switch (type_.id) {
    case TypeId::Null: return "NULL";
    case TypeId::Boolean: return i_ ? "true" : "false";
    case TypeId::Integer:
    case TypeId::BigInt: return FormatInt128(i_);
    case TypeId::Decimal: return FormatDecimal(i_, type_.scale);
    case TypeId::Double: return FormatDouble(d_);
    case TypeId::Date: return FormatDate((int32_t)i_);
    case TypeId::Timestamp: return FormatTimestamp((int64_t)i_);
    case TypeId::Time: return FormatTime((int64_t)i_);
    case TypeId::Interval: return FormatInterval(UnpackInterval(i_));
    case TypeId::Blob: return FormatBlob(s_);
    case TypeId::Varchar: return s_;
  }
  return "?";
}

int Value::Compare(const Value& o) const {
  if (null_ || o.null_) return (int)!null_ - (int)!o.null_;
  if (type_.id == TypeId::Varchar || type_.id == TypeId::Blob) return s_ < o.s_ ? -1 : (s_ == o.s_ ? 0 : 1);
  if (type_.id == TypeId::Double || o.type_.id == TypeId::Double) {
    double a = AsDouble(), b = o.AsDouble();
    return ops::LessThan(a, b) ? -1 : (ops::LessThan(b, a) ? 1 : 0);  // NaN above all
  }
  int128_t a = i_, b = o.i_;
  if (type_.id == TypeId::Decimal || o.type_.id == TypeId::Decimal) {
    int sa = type_.id == TypeId::Decimal ? type_.scale : 0;
    int sb = o.type_.id == TypeId::Decimal ? o.type_.scale : 0;
    int s = std::max(sa, sb);
    a = a * Pow10(s - sa);
    b = b * Pow10(s - sb);
  }
  return a < b ? -1 : (a > b ? 1 : 0);
}

static UserError ConversionError(const Value& v, const Type& t) {
  return UserError(ErrorKind::Conversion,
                   "could not convert " + v.type().ToString() + " value '" + v.ToString() +
                       "' to " + t.ToString());
}

static bool FitsInt(int128_t v, const Type& t) {
  if (t.id == TypeId::Integer) return v >= INT32_MIN && v <= INT32_MAX;
  if (t.id == TypeId::BigInt) return v >= INT64_MIN && v <= INT64_MAX;
  return true;
}

Value Value::CastTo(const Type& t) const {
  if (null_) return Null(t);
  if (type_ == t) return *this;
  Value r(t);
  switch (t.id) {
    case TypeId::Null: return Null();
    case TypeId::Boolean:
      if (type_.id == TypeId::Varchar) {
        auto b = ParseBoolean(s_);
        if (!b) throw ConversionError(*this, t);
        r.i_ = *b;
        return r;
      }
      if (type_.id == TypeId::Double) { r.i_ = d_ != 0; return r; }
      r.i_ = i_ != 0;
      return r;
    case TypeId::Integer:
    case TypeId::BigInt: {
      int128_t v;
      if (type_.id == TypeId::Varchar) {
        auto p = ParseDecimal(s_, 38, 0);  // '4.7' rounds to 5, as DuckDB
        if (!p) throw ConversionError(*this, t);
        v = *p;
      } else if (type_.id == TypeId::Double) {
        if (!std::isfinite(d_)) throw ConversionError(*this, t);
        double rd = std::nearbyint(d_);
        if (std::fabs(rd) > 1.7e38) throw ConversionError(*this, t);
        v = (int128_t)rd;
      } else if (type_.id == TypeId::Decimal) {
        v = RescaleDecimal(i_, type_.scale, 0);
      } else if (type_.IsTemporal() || type_.id == TypeId::Interval || type_.id == TypeId::Blob) {
        throw ConversionError(*this, t);
      } else {
        v = i_;
      }
      if (!FitsInt(v, t)) throw ConversionError(*this, t);
      r.i_ = v;
      return r;
    }
    case TypeId::Decimal: {
      int128_t v;
      if (type_.id == TypeId::Varchar) {
        auto p = ParseDecimal(s_, t.precision, t.scale);
        if (!p) throw ConversionError(*this, t);
        v = *p;
      } else if (type_.id == TypeId::Double) {
        double scaled = d_ * (double)Pow10(t.scale);
        if (!std::isfinite(scaled) || std::fabs(scaled) >= (double)Pow10(t.precision))
          throw ConversionError(*this, t);
        v = (int128_t)std::round(scaled);  // halves away from zero, as DuckDB (1.25 -> 1.3)
      } else if (type_.id == TypeId::Decimal) {
        v = RescaleDecimal(i_, type_.scale, t.scale);
      } else if (type_.IsTemporal() || type_.id == TypeId::Interval || type_.id == TypeId::Blob) {
        throw ConversionError(*this, t);
      } else {
        v = i_ * Pow10(t.scale);
      }
      int128_t lim = Pow10(t.precision);
      if (v >= lim || v <= -lim) throw ConversionError(*this, t);
      r.i_ = v;
      return r;
    }
    case TypeId::Double:
      if (type_.id == TypeId::Varchar) {
        auto d = ParseDouble(s_);
        if (!d) throw ConversionError(*this, t);
        r.d_ = *d;
        return r;
      }
      if (type_.IsTemporal() || type_.id == TypeId::Interval || type_.id == TypeId::Blob) throw ConversionError(*this, t);
      r.d_ = AsDouble();
      return r;
    case TypeId::Date:
      if (type_.id == TypeId::Varchar) {
        auto d = ParseDate(s_);
        if (!d) throw ConversionError(*this, t);
        r.i_ = *d;
        return r;
      }
      if (type_.id == TypeId::Timestamp) {
        r.i_ = TimestampDay((int64_t)i_);
        return r;
      }
      throw ConversionError(*this, t);
    case TypeId::Timestamp: {
      if (type_.id == TypeId::Date) {
        r.i_ = (int128_t)i_ * kMicrosPerDay;
        return r;
      }
      if (type_.id != TypeId::Varchar) throw ConversionError(*this, t);
      auto us = ParseTimestamp(s_);
      if (!us) throw ConversionError(*this, t);
      r.i_ = *us;
      return r;
    }
    case TypeId::Time: {
      if (type_.id == TypeId::Timestamp) {
        r.i_ = TimestampTimeOfDay((int64_t)i_);
        return r;
      }
      if (type_.id != TypeId::Varchar) throw ConversionError(*this, t);
      auto us = ParseTime(s_);
      if (!us) throw ConversionError(*this, t);
      r.i_ = *us;
      return r;
    }
    case TypeId::Interval: {
      if (type_.id != TypeId::Varchar) throw ConversionError(*this, t);
      auto iv = ParseInterval(s_);
      if (!iv) throw ConversionError(*this, t);
      r.i_ = PackInterval(*iv);
      return r;
    }
    case TypeId::Blob: {
      if (type_.id != TypeId::Varchar) throw ConversionError(*this, t);
      auto b = ParseBlob(s_);
      if (!b) throw ConversionError(*this, t);
      r.s_ = std::move(*b);
      return r;
    }
    case TypeId::Varchar: return Varchar(ToString());
  }
  throw ConversionError(*this, t);
}

}  // namespace tessera
