#include "common/vector.hpp"

namespace tessera {

Value Vector::GetValue(uint32_t i) const {
  if (!IsValid(i)) return Value::Null(type_);
  switch (type_.id) {
    case TypeId::Null: return Value::Null();
    case TypeId::Boolean: return Value::Boolean(data<uint8_t>()[i] != 0);
    case TypeId::Integer: return Value::Integer(data<int32_t>()[i]);
    case TypeId::Date: return Value::Date(data<int32_t>()[i]);
    case TypeId::BigInt: return Value::BigInt(data<int64_t>()[i]);
    case TypeId::Timestamp: return Value::Timestamp(data<int64_t>()[i]);
    case TypeId::Time: return Value::Time(data<int64_t>()[i]);
    case TypeId::Interval: return Value::Interval(data<int128_t>()[i]);
    case TypeId::Blob: return Value::Blob(std::string(data<StrRef>()[i]));
    case TypeId::Double: return Value::Double(data<double>()[i]);
    case TypeId::Varchar: return Value::Varchar(std::string(data<StrRef>()[i]));
    case TypeId::Decimal:
      if (type_.physical() == PhysType::I64)
        return Value::Decimal(data<int64_t>()[i], type_.precision, type_.scale);
      return Value::Decimal(data<int128_t>()[i], type_.precision, type_.scale);
  }
  return Value::Null();
}

void Vector::CopyViewRows() {
  const size_t bytes = (size_t)capacity_ * type_.width();
  data_.clear();
  data_.resize(bytes + 16);
  std::memcpy(data_.data(), view_data_, bytes);
  valid_.clear();
  if (view_valid_) valid_.assign(view_valid_, view_valid_ + capacity_);
  DropView();
}

void Vector::SetValue(uint32_t i, const Value& v) {
  Materialize();
  if (v.is_null()) {
    SetNull(i);
    return;
  }
  if (!valid_.empty()) valid_[i] = 1;
  switch (type_.physical()) {
    case PhysType::Bool: data<uint8_t>()[i] = (uint8_t)(v.int_value() != 0); break;
    case PhysType::I32: data<int32_t>()[i] = (int32_t)v.int_value(); break;
    case PhysType::I64: data<int64_t>()[i] = (int64_t)v.int_value(); break;
    case PhysType::I128: data<int128_t>()[i] = v.int_value(); break;
    case PhysType::F64: data<double>()[i] = v.double_value(); break;
    case PhysType::Str: data<StrRef>()[i] = heap().Add(v.str_value()); break;
  }
}

}  // namespace tessera
