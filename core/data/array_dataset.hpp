// iputrain — a dataset of arrays whose first dimension is the sample: what npy, npz and
// safetensors sources hold. Each array is mapped to the model's input of the same name, checked
// (per-sample shape, dtype conversion) at open and converted on read (core/data/convert.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/data/convert.hpp"
#include "core/data/dataset.hpp"

namespace iputrain::data {

//! One array of a file: `samples` rows of `field.shape`, stored as `stored` at `data`.
struct ArrayColumn {
  Field field;  //!< the delivered field: the input's name, dtype and per-sample shape
  StoredType stored = StoredType::F32;
  int64_t samples = 0;
  const uint8_t* data = nullptr;  //!< sample 0; samples are contiguous, row-major
  std::string file;               //!< where the array lives, for messages ("DIR/x.npy", "a.npz:x")
};

//! Checks an array of shape `shape` (first dimension: samples) stored as `stored` in `file` against
//! the model's input `wanted` (if null, delivers the array's own per-sample shape and natural
//! dtype under `name`). Throws Error(Data) naming the file, the input, both shapes and dtypes.
ArrayColumn array_column(const std::string& file, const std::string& name, StoredType stored, const Shape& shape,
                         const uint8_t* data, const Field* wanted);

//! A dataset over `columns`, which must agree on the sample count (else Error(Data) naming two
//! files). `keep` owns the memory the columns point into (mapped files, inflated buffers).
std::unique_ptr<Dataset> make_array_dataset(std::vector<ArrayColumn> columns,
                                            std::vector<std::shared_ptr<const void>> keep);

}  // namespace iputrain::data
