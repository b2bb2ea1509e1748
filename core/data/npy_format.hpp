// iputrain — the NumPy .npy array format (numpy.lib.format): the magic "\x93NUMPY", a version
// (1.0: 2-byte header length; 2.0, 3.0: 4-byte), a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (N, …), } padded with spaces, then the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/data/convert.hpp"
#include "core/types.hpp"

namespace iputrain::data {

//! A parsed .npy header; the data are `numel(shape) * stored_size(stored)` bytes at `data`.
struct NpyArray {
  StoredType stored = StoredType::F32;
  Shape shape;
  const uint8_t* data = nullptr;
};

//! Parses the .npy file held in `bytes` (`size` bytes), named `file` in messages. Supports the
//! little-endian descrs <f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 (1-byte types with '|',
//! '<' or '='). Throws Error(Data) for a bad magic, a damaged header, fortran_order, big-endian or
//! other dtypes, and a file shorter than its shape promises.
NpyArray parse_npy(const uint8_t* bytes, size_t size, const std::string& file);

}  // namespace iputrain::data
