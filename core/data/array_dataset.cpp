#include "core/data/array_dataset.hpp"

#include <fmt/format.h>

#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

std::string typed(std::string_view dtype, const Shape& shape) { return fmt::format("{}{}", dtype, shape_str(shape)); }

class ArrayDataset : public Dataset {
 public:
  ArrayDataset(std::vector<ArrayColumn> columns, std::vector<std::shared_ptr<const void>> keep)
      : columns_(std::move(columns)), keep_(std::move(keep)) {
    for (const ArrayColumn& c : columns_) {
      fields_.push_back(c.field);
    }
    size_ = columns_.empty() ? 0 : columns_.front().samples;
  }

  int64_t size() const override { return size_; }
  const std::vector<Field>& fields() const override { return fields_; }

  void read(int64_t index, size_t field, void* dst) const override {
    if (index < 0 || index >= size_ || field >= columns_.size()) {
      throw Error(ErrorKind::Internal, fmt::format("array read of sample {} field {} out of range", index, field));
    }
    const ArrayColumn& c = columns_[field];
    const auto n = static_cast<size_t>(numel(c.field.shape));
    const uint8_t* src = c.data + static_cast<size_t>(index) * n * stored_size(c.stored);
    if (c.stored == stored_of(c.field.dtype)) {
      std::memcpy(dst, src, n * stored_size(c.stored));
      return;
    }
    convert_values(src, c.stored, dst, c.field.dtype, n, fmt::format("`{}`, sample {}", c.file, index));
  }

 private:
  std::vector<ArrayColumn> columns_;
  std::vector<std::shared_ptr<const void>> keep_;
  std::vector<Field> fields_;
  int64_t size_ = 0;
};

}  // namespace

ArrayColumn array_column(const std::string& file, const std::string& name, StoredType stored, const Shape& shape,
                         const uint8_t* data, const Field* wanted) {
  const std::string what = wanted != nullptr ? fmt::format("the model's input `{}`", wanted->str()) : "a sample";
  if (shape.empty()) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` holds a scalar {} but {} needs an array with one row per sample", file,
                            stored_name(stored), what),
                {}, "the first dimension of every array is the sample: store shape [N, …]");
  }
  ArrayColumn c;
  c.file = file;
  c.stored = stored;
  c.samples = shape[0];
  c.data = data;
  const Shape per_sample(shape.begin() + 1, shape.end());
  if (wanted == nullptr) {
    c.field = Field{name, natural_dtype(stored), per_sample};
    return c;
  }
  if (per_sample != wanted->shape) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` holds {} ({} samples of {} {}) but the model's input `{}` is {} per sample", file,
                            typed(stored_name(stored), shape), shape[0], stored_name(stored), shape_str(per_sample),
                            wanted->name, typed(dtype_name(wanted->dtype), wanted->shape)),
                {},
                numel(per_sample) == numel(wanted->shape)
                    ? fmt::format("declare `{}` as {}{} and reshape it in the model, or reshape the array to "
                                  "[N{}{}]",
                                  wanted->name, dtype_name(wanted->dtype), shape_str(per_sample),
                                  wanted->shape.empty() ? "" : ", ", fmt::join(wanted->shape, ", "))
                    : fmt::format("the array must have shape [N{}{}] (the first dimension is the sample)",
                                  wanted->shape.empty() ? "" : ", ", fmt::join(wanted->shape, ", ")));
  }
  check_conversion(stored, wanted->dtype, file, wanted->name);
  c.field = *wanted;
  return c;
}

std::unique_ptr<Dataset> make_array_dataset(std::vector<ArrayColumn> columns,
                                            std::vector<std::shared_ptr<const void>> keep) {
  for (const ArrayColumn& c : columns) {
    if (c.samples != columns.front().samples) {
      throw Error(ErrorKind::Data,
                  fmt::format("`{}` has {} samples but `{}` has {}", columns.front().file, columns.front().samples,
                              c.file, c.samples),
                  {}, "every input's array must have the same first dimension (one row per sample)");
    }
  }
  return std::make_unique<ArrayDataset>(std::move(columns), std::move(keep));
}

}  // namespace iputrain::data
