// "safetensors:FILE": one tensor per model input (first dimension: samples), read in place from
// the memory-mapped file.
#include <fmt/format.h>

#include <algorithm>

#include "core/data/array_dataset.hpp"
#include "core/data/mapped_file.hpp"
#include "core/data/safetensors.hpp"
#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

StoredType stored_type(const std::string& dtype) {
  static const struct {
    const char* name;
    StoredType type;
  } kTable[] = {{"F64", StoredType::F64},   {"F32", StoredType::F32}, {"F16", StoredType::F16},
                {"BF16", StoredType::BF16}, {"I64", StoredType::I64}, {"I32", StoredType::I32},
                {"I16", StoredType::I16},   {"I8", StoredType::I8},   {"U64", StoredType::U64},
                {"U32", StoredType::U32},   {"U16", StoredType::U16}, {"U8", StoredType::U8},
                {"BOOL", StoredType::Bool}};
  for (const auto& e : kTable) {
    if (dtype == e.name) {
      return e.type;
    }
  }
  return StoredType::F32;  // parse_safetensors_index admits only the names above
}

}  // namespace

std::unique_ptr<Dataset> open_safetensors_data(const std::string& path, const std::vector<Field>& wanted) {
  auto file = std::make_shared<MappedFile>(path);
  const SafetensorsIndex index = parse_safetensors_index(file->data(), file->size(), path);
  std::vector<std::string> present;
  for (const SafetensorsEntry& e : index.entries) {
    present.push_back(e.name);
  }
  std::vector<Field> fields = wanted;
  if (fields.empty()) {
    for (const std::string& n : present) {
      fields.push_back(Field{n, DType::F32, {}});
    }
  }
  std::vector<ArrayColumn> columns;
  for (const Field& f : fields) {
    const auto it = std::find_if(index.entries.begin(), index.entries.end(),
                                 [&](const SafetensorsEntry& e) { return e.name == f.name; });
    if (it == index.entries.end()) {
      throw Error(
          ErrorKind::Data, fmt::format("`{}` has no tensor `{}` for the model's input `{}`", path, f.name, f.str()), {},
          present.empty()
              ? std::string("the file holds no tensors")
              : fmt::format("the file holds {}; name each tensor after a model input", fmt::join(present, ", ")));
    }
    columns.push_back(array_column(fmt::format("{}:{}", path, f.name), f.name, stored_type(it->dtype), it->shape,
                                   file->data() + index.data_start + it->begin, wanted.empty() ? nullptr : &f));
  }
  return make_array_dataset(std::move(columns), {file});
}

const DataSourceDef kSafetensorsSource{
    "safetensors", "FILE", "tensor NAME for each input, memory-mapped", "safetensors:data/train.safetensors",
    [](const DataSourceRequest& r) { return open_safetensors_data(r.path("file"), r.wanted); }};

}  // namespace iputrain::data
