// What `iputrain check` reports about each data source: a session's (Session::data_sources), or
// without a Session (inspect_data_sources).
#include <fmt/format.h>

#include "core/data/dataset.hpp"
#include "engine/session_impl.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/session.hpp"

namespace iputrain {

namespace {
DataSourceInfo described(const std::string& key, const std::string& spec, const std::string& path,
                         const data::Dataset& ds) {
  DataSourceInfo info{key, spec, path, ds.size(), {}, ds.class_names()};
  for (const data::Field& f : ds.fields()) {
    info.fields.push_back(TensorInfo{f.name, std::string(dtype_name(f.dtype)), f.shape, {}, false});
  }
  return info;
}
}  // namespace

std::vector<DataSourceInfo> Session::data_sources() {
  Impl& s = *impl_;
  std::vector<DataSourceInfo> out;
  for (const char* key : {"data.train", "data.test", "data.validation"}) {
    const engine::DataSpec& source = s.data.at(key);
    if (!source.spec.empty()) {
      out.push_back(described(key, source.spec, source.resolved, s.source(key)));
    }
  }
  return out;
}

std::vector<DataSourceInfo> inspect_data_sources(const Model& model, const Config& config) {
  const ir::Graph& g = graph_of(model);
  std::vector<data::Field> wanted;
  for (ir::ValueId in : g.inputs) {
    const ir::Node& n = g.node(in);
    wanted.push_back(data::Field{n.name, n.type.dtype, Shape(n.type.shape.begin() + 1, n.type.shape.end())});
  }
  std::vector<DataSourceInfo> out;
  for (const auto& [key, spec] : {std::pair<std::string, std::string>{"data.train", config.data.train},
                                  {"data.test", config.data.test},
                                  {"data.validation", config.data.validation}}) {
    if (spec.empty()) {
      continue;
    }
    try {
      const std::unique_ptr<data::Dataset> ds = data::open_dataset(spec, config.base_dir_of(key), wanted, 0);
      out.push_back(described(key, spec, config.resolve_data_spec(key, spec), *ds));
    } catch (const Error& e) {
      if (e.span().valid()) {
        throw;
      }
      config.fail_at(key, e.diagnostic().message, engine::data_hint(config.base_dir_of(key), e), e.kind());
    }
  }
  return out;
}

}  // namespace iputrain
