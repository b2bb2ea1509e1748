#include "core/types.hpp"

#include <fmt/format.h>

#include <limits>

namespace iputrain {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::I32: return "i32";
    case DType::Bool: return "bool";
    case DType::U8:
      return "u8";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes) {
    if (dtype_name(t) == name) {
      return t;
    }
  }
  return std::nullopt;
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::F32:
    case DType::I32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    case DType::Bool:
    case DType::U8:
      return 1;
  }
  return 0;
}

bool is_float(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

int64_t numel(const Shape& s) {
  // Shapes can come from files: a zero anywhere gives 0 (even after dimensions whose product would
  // overflow), and a product beyond int64 saturates instead of wrapping (which is undefined).
  for (int64_t d : s) {
    if (d == 0) {
      return 0;
    }
  }
  int64_t n = 1;
  for (int64_t d : s) {
    if (__builtin_mul_overflow(n, d, &n)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return n;
}

std::string shape_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

std::string TensorType::str() const { return fmt::format("{}{}", dtype_name(dtype), shape_str(shape)); }

std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < 0) {
    axis += rank;
  }
  if (axis < 0 || axis >= rank) {
    return std::nullopt;
  }
  return axis;
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      return std::nullopt;
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace iputrain
