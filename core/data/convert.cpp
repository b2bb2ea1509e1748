#include "core/data/convert.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ff;
  float out = 0;
  if (exp == 0) {
    out = std::ldexp(static_cast<float>(man), -24);  // zero or subnormal
  } else if (exp == 31) {
    out = man == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else {
    out = std::ldexp(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  }
  return sign != 0 ? -out : out;
}

// Round to nearest, ties to even, through the float's bits (the IEEE conversion).
uint16_t float_to_half_bits(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) {  // rounds to beyond 65504
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal
    const float a = std::fabs(f);
    const float q = std::nearbyint(a * 16777216.0f);  // units of 2^-24, current mode is nearest-even
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));
  }
  const uint32_t mant = abs & 0x7fffffu;
  uint32_t half = ((abs >> 23) - 112) << 10 | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) {
    ++half;  // carries into the exponent correctly
  }
  return static_cast<uint16_t>(sign | half);
}

float bf16_bits_to_float(uint16_t h) {
  const uint32_t x = uint32_t{h} << 16;
  float f = 0;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bf16_bits(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // keep NaN a NaN
  }
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double load_double(const uint8_t* p, StoredType t) {
  switch (t) {
    case StoredType::F64:
      return load<double>(p);
    case StoredType::F32:
      return load<float>(p);
    case StoredType::F16:
      return half_bits_to_float(load<uint16_t>(p));
    case StoredType::BF16:
      return bf16_bits_to_float(load<uint16_t>(p));
    case StoredType::I8:
      return load<int8_t>(p);
    case StoredType::I16:
      return load<int16_t>(p);
    case StoredType::I32:
      return load<int32_t>(p);
    case StoredType::I64:
      return static_cast<double>(load<int64_t>(p));
    case StoredType::U8:
      return load<uint8_t>(p);
    case StoredType::U16:
      return load<uint16_t>(p);
    case StoredType::U32:
      return load<uint32_t>(p);
    case StoredType::U64:
      return static_cast<double>(load<uint64_t>(p));
    case StoredType::Bool:
      return load<uint8_t>(p) != 0 ? 1.0 : 0.0;
  }
  return 0;
}

// Integers through 64 bits so that i64/u64 are compared exactly before narrowing to i32.
bool load_int(const uint8_t* p, StoredType t, int64_t& out) {
  switch (t) {
    case StoredType::I8:
      out = load<int8_t>(p);
      return true;
    case StoredType::I16:
      out = load<int16_t>(p);
      return true;
    case StoredType::I32:
      out = load<int32_t>(p);
      return true;
    case StoredType::I64:
      out = load<int64_t>(p);
      return true;
    case StoredType::U8:
      out = load<uint8_t>(p);
      return true;
    case StoredType::U16:
      out = load<uint16_t>(p);
      return true;
    case StoredType::U32:
      out = load<uint32_t>(p);
      return true;
    case StoredType::U64: {
      const uint64_t u = load<uint64_t>(p);
      out = u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
      return true;
    }
    case StoredType::Bool:
      out = load<uint8_t>(p) != 0 ? 1 : 0;
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view stored_name(StoredType t) {
  switch (t) {
    case StoredType::F64:
      return "f64";
    case StoredType::F32:
      return "f32";
    case StoredType::F16:
      return "f16";
    case StoredType::BF16:
      return "bf16";
    case StoredType::I8:
      return "i8";
    case StoredType::I16:
      return "i16";
    case StoredType::I32:
      return "i32";
    case StoredType::I64:
      return "i64";
    case StoredType::U8:
      return "u8";
    case StoredType::U16:
      return "u16";
    case StoredType::U32:
      return "u32";
    case StoredType::U64:
      return "u64";
    case StoredType::Bool:
      return "bool";
  }
  return "?";
}

size_t stored_size(StoredType t) {
  switch (t) {
    case StoredType::F64:
    case StoredType::I64:
    case StoredType::U64:
      return 8;
    case StoredType::F32:
    case StoredType::I32:
    case StoredType::U32:
      return 4;
    case StoredType::F16:
    case StoredType::BF16:
    case StoredType::I16:
    case StoredType::U16:
      return 2;
    case StoredType::I8:
    case StoredType::U8:
    case StoredType::Bool:
      return 1;
  }
  return 1;
}

bool stored_is_float(StoredType t) {
  return t == StoredType::F64 || t == StoredType::F32 || t == StoredType::F16 || t == StoredType::BF16;
}

StoredType stored_of(DType t) {
  switch (t) {
    case DType::F32:
      return StoredType::F32;
    case DType::F16:
      return StoredType::F16;
    case DType::BF16:
      return StoredType::BF16;
    case DType::I32:
      return StoredType::I32;
    case DType::Bool:
      return StoredType::Bool;
    case DType::U8:
      return StoredType::U8;
  }
  return StoredType::F32;
}

DType natural_dtype(StoredType t) {
  if (stored_is_float(t)) {
    return t == StoredType::F16 ? DType::F16 : t == StoredType::BF16 ? DType::BF16 : DType::F32;
  }
  return t == StoredType::Bool ? DType::Bool : DType::I32;
}

std::optional<std::string> conversion_refusal(StoredType from, DType to) {
  if (is_float(to)) {
    return std::nullopt;
  }
  if (to == DType::U8 && from != StoredType::U8) {
    return fmt::format("a u8 input takes u8 values as stored, not {}", stored_name(from));
  }
  if (stored_is_float(from)) {
    return fmt::format("{} values would have to be truncated to {}", stored_name(from), dtype_name(to));
  }
  if (to == DType::Bool && from != StoredType::Bool && from != StoredType::U8) {
    return fmt::format("only bool and u8 values convert to bool, not {}", stored_name(from));
  }
  return std::nullopt;
}

void check_conversion(StoredType from, DType to, const std::string& file, const std::string& input) {
  if (auto why = conversion_refusal(from, to)) {
    throw Error(
        ErrorKind::Data,
        fmt::format("`{}` stores {} values but the model's input `{}` is {}: {}", file, stored_name(from), input,
                    dtype_name(to), *why),
        {},
        to == DType::U8
            ? fmt::format("store `{}` as uint8 (0..255), or declare the input as {} and normalise it in the model",
                          input, stored_is_float(from) ? "f32" : "i32")
        : stored_is_float(from)
            ? fmt::format("declare `{}` as f32 and cast it in the model (cast(x, dtype = {})), or store "
                          "integers in the file",
                          input, dtype_name(to))
            : fmt::format("declare `{}` as i32 and compare it in the model, or store u8 or bool values", input));
  }
}

void convert_values(const void* src, StoredType from, void* dst, DType to, size_t n, const std::string& what) {
  const auto* s = static_cast<const uint8_t*>(src);
  const size_t step = stored_size(from);
  if (from == stored_of(to)) {
    std::memcpy(dst, src, n * step);
    return;
  }
  switch (to) {
    case DType::F32: {
      auto* d = static_cast<float*>(dst);
      for (size_t i = 0; i < n; ++i) {
        d[i] = static_cast<float>(load_double(s + i * step, from));
      }
      return;
    }
    case DType::F16:
    case DType::BF16: {
      auto* d = static_cast<uint16_t*>(dst);
      for (size_t i = 0; i < n; ++i) {
        const float f = static_cast<float>(load_double(s + i * step, from));
        d[i] = to == DType::F16 ? float_to_half_bits(f) : float_to_bf16_bits(f);
      }
      return;
    }
    case DType::I32: {
      auto* d = static_cast<int32_t*>(dst);
      for (size_t i = 0; i < n; ++i) {
        int64_t v = 0;
        if (!load_int(s + i * step, from, v)) {
          throw Error(ErrorKind::Internal,
                      fmt::format("{}: unchecked conversion of {} to i32", what, stored_name(from)));
        }
        if (v < INT32_MIN || v > INT32_MAX) {
          throw Error(ErrorKind::Data, fmt::format("{}: value {} of element {} does not fit i32", what, v, i), {},
                      "store values in i32's range, e.g. class indices from 0");
        }
        d[i] = static_cast<int32_t>(v);
      }
      return;
    }
    case DType::Bool: {
      auto* d = static_cast<uint8_t*>(dst);
      for (size_t i = 0; i < n; ++i) {
        d[i] = s[i * step] != 0 ? 1 : 0;
      }
      return;
    }
    case DType::U8:  // only from u8, copied above (check_conversion refuses the rest)
      throw Error(ErrorKind::Internal, fmt::format("{}: unchecked conversion of {} to u8", what, stored_name(from)));
  }
}

bool store_number(double v, DType to, void* dst) {
  switch (to) {
    case DType::F32: {
      const float f = static_cast<float>(v);
      std::memcpy(dst, &f, 4);
      return true;
    }
    case DType::F16:
    case DType::BF16: {
      const float f = static_cast<float>(v);
      const uint16_t h = to == DType::F16 ? float_to_half_bits(f) : float_to_bf16_bits(f);
      std::memcpy(dst, &h, 2);
      return true;
    }
    case DType::I32: {
      if (!(v == std::floor(v)) || v < INT32_MIN || v > INT32_MAX) {
        return false;
      }
      const auto i = static_cast<int32_t>(v);
      std::memcpy(dst, &i, 4);
      return true;
    }
    case DType::Bool: {
      if (v != 0 && v != 1) {
        return false;
      }
      *static_cast<uint8_t*>(dst) = v != 0 ? 1 : 0;
      return true;
    }
    case DType::U8: {
      if (!(v == std::floor(v)) || v < 0 || v > 255) {
        return false;
      }
      *static_cast<uint8_t*>(dst) = static_cast<uint8_t>(v);
      return true;
    }
  }
  return false;
}

}  // namespace iputrain::data
