#include "core/data/dataset.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

std::string resolve_path(const std::string& path, const std::string& base_dir) {
  std::filesystem::path p(path);
  if (p.is_relative() && !base_dir.empty()) {
    p = std::filesystem::path(base_dir) / p;
  }
  return p.string();
}

std::string quoted_form(const DataSourceDef* d) { return fmt::format("\"{}:{}\"", d->kind, d->where); }

// "a, b, c or d"
std::string listed(const std::vector<std::string>& items) {
  if (items.size() < 2) {
    return items.empty() ? std::string() : items.front();
  }
  return fmt::format("{} or {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

}  // namespace

std::string Field::str() const { return fmt::format("{}: {}{}", name, dtype_name(dtype), shape_str(shape)); }

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
    throw Error(ErrorKind::Data, fmt::format("invalid data source \"{}\"", spec), {}, data_source_hint());
  }
  const std::string kind = spec.substr(0, colon);
  const std::string rest = spec.substr(colon + 1);
  const DataSourceDef* def = find_data_source(kind);
  if (def == nullptr) {
    std::vector<std::string> kinds;
    for (const DataSourceDef* d : data_source_table()) {
      kinds.emplace_back(d->kind);
    }
    const std::string near = nearest_name(kind, kinds);
    throw Error(
        ErrorKind::Data, fmt::format("unknown kind of data source \"{}\" in \"{}\"", kind, spec), {},
        near.empty() ? data_source_hint() : fmt::format("did you mean \"{}:{}\"? {}", near, rest, data_source_hint()));
  }
  std::unique_ptr<Dataset> ds = def->open(DataSourceRequest{spec, rest, base_dir, wanted, seed});
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
                             ? fmt::format("declare the input as {}{} and reshape it in the model", dtype_name(f.dtype),
                                           shape_str(f.shape))
                             : fmt::format("declare the input as {}{} per sample, or use another data source",
                                           dtype_name(f.dtype), shape_str(f.shape));
      throw Error(ErrorKind::Data,
                  fmt::format("field `{}` of {} is {}{} per sample but the model's input is {}{}", w.name, source,
                              dtype_name(f.dtype), shape_str(f.shape), dtype_name(w.dtype), shape_str(w.shape)),
                  {}, hint);
    }
  }
}

}  // namespace iputrain::data

namespace iputrain {

const std::vector<const DataSourceDef*>& data_source_table() {
  static const std::vector<const DataSourceDef*> all = {
#define IPUTRAIN_DATA_SOURCE(Name) &data::k##Name##Source,
#include "core/data/source_list.hpp"
#undef IPUTRAIN_DATA_SOURCE
  };
  return all;
}

const DataSourceDef* find_data_source(std::string_view kind) {
  for (const DataSourceDef* d : data_source_table()) {
    if (d->kind == kind) {
      return d;
    }
  }
  return nullptr;
}

std::string data_source_forms() {
  std::vector<std::string> forms;
  for (const DataSourceDef* d : data_source_table()) {
    forms.push_back(data::quoted_form(d));
  }
  return data::listed(forms);
}

std::string data_source_hint() { return fmt::format("data sources are {} (docs/data.md)", data_source_forms()); }

std::string data_source_docs() {
  std::vector<std::string> forms;
  for (const DataSourceDef* d : data_source_table()) {
    forms.push_back(fmt::format("{} ({})", data::quoted_form(d), d->doc));
  }
  return data::listed(forms);
}

std::string DataSourceRequest::resolved(const std::string& p) const { return data::resolve_path(p, base_dir); }

std::string DataSourceRequest::path(std::string_view what, size_t end) const {
  const std::string p = rest.substr(0, end);
  if (p.empty()) {
    throw Error(ErrorKind::Data, fmt::format("data source \"{}\" names no {}", spec, what), {}, data_source_hint());
  }
  return data::resolve_path(p, base_dir);
}

}  // namespace iputrain
