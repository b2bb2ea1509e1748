// Shared by the data-source fuzz targets: the model inputs a fuzz input's selector asks for, and a
// read of every field of the first samples of an opened source.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/data/dataset.hpp"

namespace iputrain::fuzz {

//! Model inputs named `x` and `label` with a shape and dtype chosen by `selector`.
inline std::vector<data::Field> wanted_fields(uint8_t selector) {
  using data::Field;
  switch (selector % 6) {
    case 0: return {Field{"x", DType::F32, {2, 2}}, Field{"label", DType::I32, {}}};
    case 1: return {Field{"x", DType::F32, {3}}, Field{"label", DType::F32, {}}};
    case 2: return {Field{"x", DType::I32, {4}}};
    case 3: return {Field{"x", DType::Bool, {2}}, Field{"label", DType::I32, {}}};
    case 4: return {Field{"x", DType::F16, {1, 2, 2}}, Field{"label", DType::I32, {}}};
    default: return {Field{"x", DType::F32, {}}};
  }
}

//! Reads every field of the first 64 samples (and the last one) of `ds`.
inline void read_samples(const data::Dataset& ds) {
  std::vector<uint8_t> buffer;
  const int64_t n = ds.size();
  for (int64_t i = 0; i < n; i = (i < 63 || i == n - 1) ? i + 1 : n - 1) {
    for (size_t f = 0; f < ds.fields().size(); ++f) {
      buffer.resize(std::max<size_t>(ds.fields()[f].bytes(), 1));
      ds.read(i, f, buffer.data());
    }
  }
  (void)ds.class_names();
}

}  // namespace iputrain::fuzz
