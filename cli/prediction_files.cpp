#include "cli/prediction_files.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

namespace iputrain::cli {

namespace {

// f16 and bf16 outputs (a cast of a u8 input) are written as f32, which holds their values exactly.
bool floating(const std::string& dtype) { return dtype == "f32" || dtype == "f16" || dtype == "bf16"; }

std::string npy_descr(const std::string& dtype) {
  if (floating(dtype)) {
    return "<f4";
  }
  if (dtype == "i32") {
    return "<i4";
  }
  return dtype == "u8" ? "|u1" : "|b1";
}

// Appends the element in the output's own type, so the file holds exactly the model's values.
void append(std::string& out, const std::string& dtype, double v) {
  if (floating(dtype)) {
    const float f = static_cast<float>(v);
    out.append(reinterpret_cast<const char*>(&f), sizeof f);
  } else if (dtype == "i32") {
    const int32_t i = static_cast<int32_t>(v);
    out.append(reinterpret_cast<const char*>(&i), sizeof i);
  } else if (dtype == "u8") {
    out.push_back(static_cast<char>(static_cast<uint8_t>(v)));
  } else {
    out.push_back(v != 0 ? '\1' : '\0');
  }
}

}  // namespace

std::string index_suffix(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return fmt::format("[{}]", fmt::join(idx, ","));
}

namespace {

std::string csv_value(const std::string& dtype, double v) {
  if (floating(dtype)) {
    return fmt::format("{:.9g}", static_cast<float>(v));
  }
  return fmt::format("{}", static_cast<int64_t>(v));
}

int64_t row_size(const Prediction& p) {
  int64_t n = 1;
  for (int64_t d : p.sample_shape) {
    n *= d;
  }
  return n;
}

}  // namespace

std::string npy_header(const std::string& descr, const std::vector<int64_t>& dims) {
  std::string shape;
  for (size_t i = 0; i < dims.size(); ++i) {
    shape += fmt::format("{}{}", i == 0 ? "" : ", ", dims[i]);
  }
  if (dims.size() == 1) {
    shape += ",";  // a one-element Python tuple
  }
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, shape);
  // Magic (6) + version (2) + header length (2) + header, padded with spaces and ended by a
  // newline so the data starts on a 64-byte boundary.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<uint16_t>(header.size());
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>(len >> 8));
  out += header;
  return out;
}

std::string npy_bytes(const Prediction& p) {
  std::vector<int64_t> dims = {p.samples};
  dims.insert(dims.end(), p.sample_shape.begin(), p.sample_shape.end());
  std::string out = npy_header(npy_descr(p.dtype), dims);
  for (double v : p.values) {
    append(out, p.dtype, v);
  }
  return out;
}

std::string csv_text(const std::vector<Prediction>& predictions) {
  std::string out = "sample";
  for (const Prediction& p : predictions) {
    const int64_t row = row_size(p);
    for (int64_t e = 0; e < row; ++e) {
      out += "," + p.name + (p.sample_shape.empty() ? "" : index_suffix(p.sample_shape, e));
    }
  }
  out += "\n";
  const int64_t samples = predictions.empty() ? 0 : predictions.front().samples;
  for (int64_t i = 0; i < samples; ++i) {
    out += fmt::format("{}", i);
    for (const Prediction& p : predictions) {
      const int64_t row = row_size(p);
      for (int64_t e = 0; e < row; ++e) {
        out += "," + csv_value(p.dtype, p.values[static_cast<size_t>(i * row + e)]);
      }
    }
    out += "\n";
  }
  return out;
}

namespace {

// Elements first .. of `p`'s sample as nested brackets over dims[d..].
std::string nested(const Prediction& p, const double* v, size_t d) {
  if (d == p.sample_shape.size()) {
    return csv_value(p.dtype, *v);
  }
  int64_t inner = 1;
  for (size_t e = d + 1; e < p.sample_shape.size(); ++e) {
    inner *= p.sample_shape[e];
  }
  std::string out = "[";
  for (int64_t i = 0; i < p.sample_shape[d]; ++i) {
    out += (i > 0 ? ", " : "") + nested(p, v + i * inner, d + 1);
  }
  return out + "]";
}

}  // namespace

std::string table_text(const std::vector<Prediction>& predictions) {
  std::string out;
  const int64_t samples = predictions.empty() ? 0 : predictions.front().samples;
  for (int64_t i = 0; i < samples; ++i) {
    out += fmt::format("sample {}:", i);
    for (const Prediction& p : predictions) {
      out += fmt::format(" {} = {}", p.name, nested(p, p.values.data() + i * row_size(p), 0));
    }
    out += "\n";
  }
  return out;
}

}  // namespace iputrain::cli
