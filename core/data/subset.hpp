// A contiguous range of another dataset's samples: data.validation_split holds out the last
// samples of the training set for validation, and training reads only the rest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/data/dataset.hpp"

namespace iputrain::data {

class SubsetDataset final : public Dataset {
 public:
  //! Samples first .. first + size - 1 of `inner` (which must outlive it).
  SubsetDataset(const Dataset& inner, int64_t first, int64_t size) : inner_(inner), first_(first), size_(size) {}
  int64_t size() const override { return size_; }
  const std::vector<Field>& fields() const override { return inner_.fields(); }
  void read(int64_t index, size_t field, void* dst) const override { inner_.read(first_ + index, field, dst); }
  std::vector<std::string> class_names() const override { return inner_.class_names(); }

 private:
  const Dataset& inner_;
  int64_t first_;
  int64_t size_;
};

}  // namespace iputrain::data
