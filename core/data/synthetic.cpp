// Synthetic data: random inputs plus labels from a fixed random linear "teacher", so that a model
// trained on it has something real to learn and a test can assert that the loss falls.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/data/dataset.hpp"
#include "core/data/source_table.hpp"
#include "core/rng.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

// The fields the teacher reads: floats, and u8 (8-bit images, random bytes).
bool feature(DType t) { return is_float(t) || t == DType::U8; }

const char* kSyntheticHint = "synthetic options are samples=N (1024), classes=C (10), dist=normal|uniform (normal)";
constexpr size_t kMaxBytes = size_t{1} << 30;

struct Options {
  int64_t samples = 1024;
  int64_t classes = 10;
  bool uniform = false;
};

int64_t parse_count(const std::string& key, const std::string& value, int64_t min) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc{} || p != value.data() + value.size() || value.empty()) {
    throw Error(ErrorKind::Data, fmt::format("synthetic option `{}` must be an integer, found \"{}\"", key, value), {},
                kSyntheticHint);
  }
  if (v < min) {
    throw Error(ErrorKind::Data, fmt::format("synthetic option `{}` must be >= {}, found {}", key, min, v), {},
                kSyntheticHint);
  }
  return v;
}

Options parse_options(const std::string& text) {
  Options o;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) {
      end = text.size();
    }
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) {
      continue;
    }
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string{} : item.substr(eq + 1);
    if (eq == std::string::npos) {
      throw Error(ErrorKind::Data, fmt::format("synthetic option \"{}\" is not of the form key=value", item), {},
                  kSyntheticHint);
    }
    if (key == "samples") {
      o.samples = parse_count(key, value, 1);
    } else if (key == "classes") {
      o.classes = parse_count(key, value, 1);
    } else if (key == "dist") {
      if (value != "normal" && value != "uniform") {
        throw Error(ErrorKind::Data,
                    fmt::format("synthetic option `dist` must be normal or uniform, found \"{}\"", value), {},
                    kSyntheticHint);
      }
      o.uniform = value == "uniform";
    } else {
      std::string near = nearest_name(key, {"samples", "classes", "dist"});
      throw Error(ErrorKind::Data, fmt::format("unknown synthetic option `{}`", key), {},
                  near.empty() ? std::string(kSyntheticHint) : fmt::format("did you mean `{}`?", near));
    }
  }
  return o;
}

uint16_t to_bf16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even; inputs here are finite
  return static_cast<uint16_t>(u >> 16);
}

uint16_t to_f16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffffu;
  if (exp >= 31) {
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (exp <= 0) {
    if (exp < -10) {
      return static_cast<uint16_t>(sign);
    }
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) {
      ++half;
    }
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) {
    ++half;  // may carry into the exponent, which is the correct rounding
  }
  return static_cast<uint16_t>(sign | half);
}

class SyntheticDataset : public Dataset {
 public:
  SyntheticDataset(const Options& o, std::vector<Field> fields, uint64_t seed)
      : size_(o.samples), fields_(std::move(fields)), data_(fields_.size()) {
    size_t total = 0;
    for (const Field& f : fields_) {
      if (numel(f.shape) < 0) {
        throw Error(ErrorKind::Data,
                    fmt::format("cannot generate field `{}` with shape {}", f.name, shape_str(f.shape)));
      }
      total += f.bytes();
    }
    if (total != 0 && static_cast<size_t>(size_) > kMaxBytes / total) {
      throw Error(
          ErrorKind::Data,
          fmt::format("synthetic data of {} samples x {} bytes would exceed {} MiB", size_, total, kMaxBytes >> 20), {},
          "use fewer samples");
    }
    // All float and u8 fields of a sample, concatenated: the teacher's input.
    size_t features = 0;
    for (const Field& f : fields_) {
      if (feature(f.dtype)) {
        features += static_cast<size_t>(numel(f.shape));
      }
    }
    std::vector<float> x(features * static_cast<size_t>(size_));
    size_t col = 0;
    for (size_t fi = 0; fi < fields_.size(); ++fi) {
      const Field& f = fields_[fi];
      if (!feature(f.dtype)) {
        continue;
      }
      const size_t n = static_cast<size_t>(numel(f.shape));
      Rng rng(seed, "synthetic/" + f.name);
      data_[fi].resize(f.bytes() * static_cast<size_t>(size_));
      for (int64_t s = 0; s < size_; ++s) {
        for (size_t i = 0; i < n; ++i) {
          if (f.dtype == DType::U8) {  // an 8-bit pixel, uniform over 0..255 (the teacher sees it centred)
            const auto b = static_cast<uint8_t>(rng.below(256));
            x[static_cast<size_t>(s) * features + col + i] = (static_cast<float>(b) - 127.5f) / 127.5f;
            data_[fi][static_cast<size_t>(s) * n + i] = b;
            continue;
          }
          const float v = o.uniform ? rng.uniform() : rng.normal();
          // The teacher sees centred values so uniform inputs do not favour one class.
          x[static_cast<size_t>(s) * features + col + i] = o.uniform ? v - 0.5f : v;
          store(f.dtype, v, data_[fi].data() + (static_cast<size_t>(s) * n + i) * dtype_size(f.dtype));
        }
      }
      col += n;
    }
    for (size_t fi = 0; fi < fields_.size(); ++fi) {
      const Field& f = fields_[fi];
      if (!feature(f.dtype)) {
        make_labels(fi, f.dtype == DType::Bool ? 2 : o.classes, x, features, seed);
      }
    }
  }

  int64_t size() const override { return size_; }
  const std::vector<Field>& fields() const override { return fields_; }

  void read(int64_t index, size_t field, void* dst) const override {
    if (index < 0 || index >= size_ || field >= fields_.size()) {
      throw Error(ErrorKind::Internal, fmt::format("synthetic read of sample {} field {} out of range", index, field));
    }
    const size_t b = fields_[field].bytes();
    std::memcpy(dst, data_[field].data() + static_cast<size_t>(index) * b, b);
  }

 private:
  static void store(DType t, float v, uint8_t* dst) {
    if (t == DType::F32) {
      std::memcpy(dst, &v, 4);
    } else {
      const uint16_t h = t == DType::F16 ? to_f16(v) : to_bf16(v);
      std::memcpy(dst, &h, 2);
    }
  }

  //! One label per element of field `fi`: argmax of a random linear map of the sample's features.
  void make_labels(size_t fi, int64_t classes, const std::vector<float>& x, size_t features, uint64_t seed) {
    const Field& f = fields_[fi];
    const size_t n = static_cast<size_t>(numel(f.shape));
    const size_t c = static_cast<size_t>(classes);
    Rng rng(seed, "synthetic/teacher/" + f.name);
    std::vector<float> w(n * c * features);
    std::vector<float> bias(n * c);
    const float scale = features > 0 ? 1.0f / std::sqrt(static_cast<float>(features)) : 0.0f;
    for (float& v : w) {
      v = rng.normal() * scale;
    }
    for (float& v : bias) {
      v = rng.normal() * 0.1f;
    }
    Rng pick(seed, "synthetic/labels/" + f.name);
    data_[fi].resize(f.bytes() * static_cast<size_t>(size_));
    std::vector<float> logits(c);
    for (int64_t s = 0; s < size_; ++s) {
      const float* xs = x.data() + static_cast<size_t>(s) * features;
      for (size_t e = 0; e < n; ++e) {
        int64_t label = 0;
        if (features == 0) {
          label = static_cast<int64_t>(pick.below(c));  // nothing to learn from: plain random labels
        } else {
          for (size_t k = 0; k < c; ++k) {
            const float* wk = w.data() + (e * c + k) * features;
            float acc = bias[e * c + k];
            for (size_t j = 0; j < features; ++j) {
              acc += wk[j] * xs[j];
            }
            logits[k] = acc;
          }
          label = static_cast<int64_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        }
        uint8_t* dst = data_[fi].data() + (static_cast<size_t>(s) * n + e) * dtype_size(f.dtype);
        if (f.dtype == DType::Bool) {
          *dst = static_cast<uint8_t>(label);
        } else {
          const int32_t v = static_cast<int32_t>(label);
          std::memcpy(dst, &v, 4);
        }
      }
    }
  }

  int64_t size_;
  std::vector<Field> fields_;
  std::vector<std::vector<uint8_t>> data_;  // per field, samples back to back
};

}  // namespace

std::unique_ptr<Dataset> open_synthetic(const std::string& options, const std::vector<Field>& wanted, uint64_t seed) {
  const Options o = parse_options(options);
  std::vector<Field> fields = wanted;
  if (fields.empty()) {
    fields = {Field{"x", DType::F32, {16}}, Field{"label", DType::I32, {}}};
  }
  return std::make_unique<SyntheticDataset>(o, std::move(fields), seed);
}

const DataSourceDef kSyntheticSource{
    "synthetic",
    "samples=N,classes=C",
    "generated from the model's inputs and the seed",
    "synthetic:samples=1024,classes=10",
    [](const DataSourceRequest& r) { return open_synthetic(r.rest, r.wanted, r.seed); },
    false};

}  // namespace iputrain::data
