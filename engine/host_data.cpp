// Session::set_data: data the embedding program holds in memory (arrays, copied) or produces on
// demand (a SampleSource), as the split's dataset instead of the config's source. Arrays go
// through the same checks and conversion as files (core/data/array_dataset.hpp).
#include <fmt/format.h>

#include <cstring>
#include <memory>

#include "core/data/array_dataset.hpp"
#include "engine/session_impl.hpp"

namespace iputrain {

namespace {

data::StoredType stored_type(const ArrayData& a) {
  for (int t = 0; t <= static_cast<int>(data::StoredType::Bool); ++t) {
    const auto st = static_cast<data::StoredType>(t);
    if (data::stored_name(st) == a.dtype) {
      return st;
    }
  }
  throw Error(ErrorKind::Data, fmt::format("array `{}` has an unknown dtype \"{}\"", a.name, a.dtype), {},
              "use f64, f32, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64 or bool");
}

template <class T>
ArrayData array_of(std::string name, std::string dtype, std::vector<int64_t> shape, const T* values) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  ArrayData a{std::move(name), std::move(dtype), std::move(shape), {}};
  a.bytes.resize(static_cast<size_t>(n) * sizeof(T));
  std::memcpy(a.bytes.data(), values, a.bytes.size());
  return a;
}

// Samples produced by the embedding program's callback, in the model's input types.
class CallbackDataset final : public data::Dataset {
 public:
  CallbackDataset(SampleSource source, std::vector<data::Field> fields)
      : source_(std::move(source)), fields_(std::move(fields)) {}
  int64_t size() const override { return source_.samples; }
  const std::vector<data::Field>& fields() const override { return fields_; }
  void read(int64_t index, size_t field, void* dst) const override {
    source_.read(index, fields_[field].name, dst);
  }

 private:
  SampleSource source_;
  std::vector<data::Field> fields_;
};

}  // namespace

ArrayData ArrayData::f32(std::string name, std::vector<int64_t> shape, const float* values) {
  return array_of(std::move(name), "f32", std::move(shape), values);
}

ArrayData ArrayData::i32(std::string name, std::vector<int64_t> shape, const int32_t* values) {
  return array_of(std::move(name), "i32", std::move(shape), values);
}

ArrayData ArrayData::u8(std::string name, std::vector<int64_t> shape, const uint8_t* values) {
  return array_of(std::move(name), "u8", std::move(shape), values);
}

void Session::set_data(const std::string& split, const std::vector<ArrayData>& arrays) {
  Impl& s = *impl_;
  s.check_data_split(split);
  // One copy of all the arrays, owned by the dataset.
  auto owned = std::make_shared<std::vector<std::vector<uint8_t>>>();
  std::vector<data::ArrayColumn> columns;
  for (const data::Field& w : s.wanted) {
    const ArrayData* a = nullptr;
    for (const ArrayData& candidate : arrays) {
      a = candidate.name == w.name ? &candidate : a;
    }
    if (a == nullptr) {
      throw Error(ErrorKind::Data, fmt::format("no array for the model's input `{}`", w.name), {},
                  fmt::format("give set_data(\"{}\", …) an array named `{}` of shape [samples, …{}]", split, w.name,
                              fmt::join(w.shape, ", ")));
    }
    const data::StoredType st = stored_type(*a);
    int64_t n = 1;
    for (int64_t d : a->shape) {
      n *= d;
    }
    if (a->shape.empty() || static_cast<size_t>(n) * data::stored_size(st) != a->bytes.size()) {
      throw Error(ErrorKind::Data,
                  fmt::format("array `{}` of shape [{}] and dtype {} needs {} bytes, it has {}", a->name,
                              fmt::join(a->shape, ", "), a->dtype, static_cast<size_t>(n) * data::stored_size(st),
                              a->bytes.size()),
                  {}, "the shape's first dimension is the samples; bytes hold them all, row-major");
    }
    owned->push_back(a->bytes);
    columns.push_back(data::array_column("array `" + a->name + "`", a->name, st, Shape(a->shape.begin(), a->shape.end()),
                                         owned->back().data(), &w));
  }
  s.set_split(split, data::make_array_dataset(std::move(columns), {owned}));
}

void Session::set_data(const std::string& split, SampleSource source) {
  Impl& s = *impl_;
  s.check_data_split(split);
  if (source.samples <= 0 || !source.read) {
    throw Error(ErrorKind::Data, "a SampleSource needs samples > 0 and a read function", {},
                "set SampleSource::samples and SampleSource::read");
  }
  s.set_split(split, std::make_unique<CallbackDataset>(std::move(source), s.wanted));
}

void Session::request_stop() { impl_->stop_requested = true; }

}  // namespace iputrain
