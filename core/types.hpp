// Element types, shapes and tensor types: the vocabulary every stage shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iputrain {

//! Element type of a tensor. Bool is stored as one byte per element. U8 (unsigned 8-bit) is for
//! model inputs only, 8-bit images as the host holds them: `cast` converts it and the ops that only
//! move elements (reshape, transpose, slice) carry it; every other op refuses it (Graph::add).
enum class DType : uint8_t { F32, F16, BF16, I32, Bool, U8 };

//! Every dtype, in the enum's order.
inline constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool, DType::U8};

//! "f32", "f16", "bf16", "i32", "bool", "u8".
std::string_view dtype_name(DType t);
//! Parses a dtype name as written in model files; nullopt if unknown.
std::optional<DType> parse_dtype(std::string_view name);
//! Bytes per element in host memory (f16/bf16: 2, bool/u8: 1).
size_t dtype_size(DType t);
bool is_float(DType t);

using Shape = std::vector<int64_t>;

//! Number of elements of a shape (1 for a scalar).
int64_t numel(const Shape& s);
//! "[32, 784]"; "[]" for a scalar.
std::string shape_str(const Shape& s);

//! The static type of an IR value: element type and fully known shape.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  int64_t numel() const { return iputrain::numel(shape); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  //! "f32[32, 784]"
  std::string str() const;
  bool operator==(const TensorType&) const = default;
};

//! Normalises a possibly negative axis against `rank`; nullopt if out of range.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank);

//! NumPy broadcasting of two shapes; nullopt if they are incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace iputrain
