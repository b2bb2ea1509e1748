// The files `iputrain predict` writes: NumPy .npy arrays (one per output) and CSV tables (one row
// per sample). Both are written atomically.
#pragma once

#include <string>
#include <vector>

#include "iputrain/session.hpp"

namespace iputrain::cli {

//! The .npy (format 1.0) bytes of one prediction: shape [samples, ...sample_shape], little-endian
//! `<f4`, `<i4` or `|b1` as the output's dtype.
std::string npy_bytes(const Prediction& p);
//! The header of a .npy (format 1.0) file of `descr` ("<f4") elements in shape `dims`, padded so
//! that the data starts on a 64-byte boundary.
std::string npy_header(const std::string& descr, const std::vector<int64_t>& dims);

//! CSV: a header `sample,NAME` (or `NAME[i]`, `NAME[i,j]` per element of a non-scalar sample),
//! then one row per sample. Floats print with 9 significant digits, enough to read back the same f32.
std::string csv_text(const std::vector<Prediction>& predictions);

//! For people: one line per sample, `sample I: NAME = VALUE` per output, a non-scalar sample as
//! nested brackets (`[4, 14]`).
std::string table_text(const std::vector<Prediction>& predictions);

//! "[2,3]": the flat index `flat` of one element inside a sample of `shape`.
std::string index_suffix(const std::vector<int64_t>& shape, int64_t flat);

}  // namespace iputrain::cli
