// iputrain — the one place where stored values become the model input's dtype.
//
// Files store many element types (NumPy's f8, u1, i8, …); a model input is f32, f16, bf16, i32,
// bool or u8. Every source describes what it stores as a StoredType and converts with convert_values:
//   integer or bool -> float   the value (exact up to 2^24 for f32, then rounded to nearest)
//   float -> float             rounded to nearest (f64 -> f32, f32 -> f16/bf16, …)
//   integer -> i32             the value; a value outside i32's range is an Error(Data) on read
//   u8 or bool -> bool         0 is false, anything else true
//   float -> integer or bool   refused at open (check_conversion): cast in the model instead
//   other integers -> bool     refused at open
//   u8 -> u8                   the bytes as stored (8-bit images fed as the host holds them)
//   anything else -> u8        refused at open: a u8 input takes only u8 values
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/types.hpp"

namespace iputrain::data {

//! An element type as stored in a file (always little-endian in memory).
enum class StoredType : uint8_t { F64, F32, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64, Bool };

//! "f64", "f32", …, "u8", "bool".
std::string_view stored_name(StoredType t);
//! Bytes per element.
size_t stored_size(StoredType t);
bool stored_is_float(StoredType t);
//! The stored type that holds a model dtype exactly (F32 -> F32, I32 -> I32, Bool -> Bool, …).
StoredType stored_of(DType t);
//! The model dtype a stored type maps to when the model does not say (floats -> f32, ints -> i32).
DType natural_dtype(StoredType t);

//! Why `from` cannot be delivered as `to`, or nullopt if it can.
std::optional<std::string> conversion_refusal(StoredType from, DType to);

//! Throws Error(Data) naming `file` and `input` if `from` cannot be delivered as `to`.
void check_conversion(StoredType from, DType to, const std::string& file, const std::string& input);

//! Converts `n` elements at `src` (stored as `from`, possibly unaligned) to `to` at `dst`. The
//! conversion must have passed check_conversion. An integer out of i32's range throws Error(Data)
//! naming `what` (e.g. "`x.npy`, sample 3").
void convert_values(const void* src, StoredType from, void* dst, DType to, size_t n, const std::string& what);

//! Stores one double (from a text cell) as `to`; integer and bool targets need `v` to be whole and
//! in range (bool: 0 or 1, u8: 0..255) and return false otherwise.
bool store_number(double v, DType to, void* dst);

}  // namespace iputrain::data
