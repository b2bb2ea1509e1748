#include "engine/data/dataset.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

const char* kSpecHint =
    "data sources are \"idx:PREFIX\", \"npy:DIR\", \"npz:FILE\", \"csv:FILE\", \"safetensors:FILE\", "
    "\"images:DIR\", \"text:FILE\" or \"synthetic:samples=N,classes=C\" (docs/data.md)";

std::string resolve(const std::string& path, const std::string& base_dir) {
  std::filesystem::path p(path);
  if (p.is_relative() && !base_dir.empty()) {
    p = std::filesystem::path(base_dir) / p;
  }
  return p.string();
}

const Field* find_wanted(const std::vector<Field>& wanted, const std::string& name) {
  for (const Field& f : wanted) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace

std::string Field::str() const {
  return fmt::format("{}: {}{}", name, dtype_name(dtype), shape_str(shape));
}

Dataset::~Dataset() = default;

std::vector<std::string> Dataset::class_names() const { return {}; }

int64_t Dataset::field_index(const std::string& name) const {
  const auto& f = fields();
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i].name == name) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

std::unique_ptr<Dataset> open_dataset(const std::string& spec, const std::string& base_dir,
                                      const std::vector<Field>& wanted, uint64_t seed) {
  const size_t colon = spec.find(':');
  if (spec.empty() || colon == std::string::npos) {
    throw Error(ErrorKind::Data, fmt::format("invalid data source \"{}\"", spec), {}, kSpecHint);
  }
  const std::string kind = spec.substr(0, colon);
  const std::string rest = spec.substr(colon + 1);
  std::unique_ptr<Dataset> ds;
  if (kind == "idx") {
    if (rest.empty()) {
      throw Error(ErrorKind::Data, fmt::format("data source \"{}\" names no files", spec), {},
                  "write \"idx:DIR/train\" for DIR/train-images-idx3-ubyte[.gz] and "
                  "DIR/train-labels-idx1-ubyte[.gz]");
    }
    std::filesystem::path prefix(rest);
    if (prefix.is_relative() && !base_dir.empty()) {
      prefix = std::filesystem::path(base_dir) / prefix;
    }
    const Field* image = find_wanted(wanted, "image");
    ds = open_idx(prefix.string(), image != nullptr ? image->dtype : DType::F32);
  } else if (kind == "text") {
    if (rest.empty()) {
      throw Error(ErrorKind::Data, fmt::format("data source \"{}\" names no file", spec), {},
                  "write \"text:FILE\", e.g. \"text:/usr/share/common-licenses/GPL-3\"");
    }
    std::filesystem::path file(rest);
    if (file.is_relative() && !base_dir.empty()) {
      file = std::filesystem::path(base_dir) / file;
    }
    ds = open_text(file.string(), wanted);
  } else if (kind == "npy" || kind == "npz" || kind == "csv" || kind == "safetensors" || kind == "images") {
    std::string path = rest;
    std::string option;
    if (kind == "images" && rest.find(',') != std::string::npos) {
      path = rest.substr(0, rest.find(','));
      option = rest.substr(rest.find(',') + 1);
    }
    if (path.empty()) {
      throw Error(ErrorKind::Data, fmt::format("data source \"{}\" names no {}", spec,
                                               kind == "npy" || kind == "images" ? "directory" : "file"),
                  {}, kSpecHint);
    }
    path = resolve(path, base_dir);
    if (kind == "npy") {
      ds = open_npy(path, wanted);
    } else if (kind == "npz") {
      ds = open_npz(path, wanted);
    } else if (kind == "csv") {
      ds = open_csv(path, wanted);
    } else if (kind == "safetensors") {
      ds = open_safetensors_data(path, wanted);
    } else {
      ds = open_images(path, option, wanted);
    }
  } else if (kind == "synthetic") {
    ds = open_synthetic(rest, wanted, seed);
  } else {
    const std::string near =
        nearest_name(kind, {"idx", "npy", "npz", "csv", "safetensors", "images", "text", "synthetic"});
    throw Error(
        ErrorKind::Data, fmt::format("unknown kind of data source \"{}\" in \"{}\"", kind, spec), {},
        near.empty() ? std::string(kSpecHint) : fmt::format("did you mean \"{}:{}\"? {}", near, rest, kSpecHint));
  }
  check_fields(*ds, wanted, spec);
  return ds;
}

void check_fields(const Dataset& ds, const std::vector<Field>& wanted, const std::string& spec) {
  const std::string source = spec.empty() ? std::string("the data source") : fmt::format("\"{}\"", spec);
  for (const Field& w : wanted) {
    const int64_t i = ds.field_index(w.name);
    if (i < 0) {
      std::vector<std::string> have;
      for (const Field& f : ds.fields()) {
        have.push_back(f.str());
      }
      throw Error(ErrorKind::Data,
                  fmt::format("{} has no field `{}` for the model's input `{}`", source, w.name, w.str()), {},
                  fmt::format("its fields are {}; rename the model's input to match", fmt::join(have, ", ")));
    }
    const Field& f = ds.fields()[static_cast<size_t>(i)];
    if (f.dtype != w.dtype || f.shape != w.shape) {
      std::string hint = numel(f.shape) == numel(w.shape) && f.dtype == w.dtype
                             ? fmt::format("declare the input as {}{} and reshape it in the model",
                                           dtype_name(f.dtype), shape_str(f.shape))
                             : fmt::format("declare the input as {}{} per sample, or use another data source",
                                           dtype_name(f.dtype), shape_str(f.shape));
      throw Error(
          ErrorKind::Data,
          fmt::format("field `{}` of {} is {}{} per sample but the model's input is {}{}", w.name, source,
                      dtype_name(f.dtype), shape_str(f.shape), dtype_name(w.dtype), shape_str(w.shape)),
          {}, hint);
    }
  }
}

}  // namespace iputrain::data
