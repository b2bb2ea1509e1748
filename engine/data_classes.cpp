// What `iputrain check` reports about each data source: a session's (Session::data_sources), or
// without a Session (engine::inspect_sources, for inspect_data_sources in api/session_api.cpp); and
// what both open a source with (engine::input_fields, engine::open_source).
#include <fmt/format.h>

#include "core/data/dataset.hpp"
#include "engine/session_impl.hpp"
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

namespace engine {

std::vector<data::Field> input_fields(const ir::Graph& g) {
  std::vector<data::Field> out;
  for (ir::ValueId in : g.inputs) {
    const ir::Node& n = g.node(in);
    out.push_back(data::Field{n.name, n.type.dtype, Shape(n.type.shape.begin() + 1, n.type.shape.end())});
  }
  return out;
}

std::unique_ptr<data::Dataset> open_source(const std::string& key, const DataSpec& source,
                                           const std::vector<data::Field>& fields, uint64_t seed,
                                           const KeyLocations& keys) {
  try {
    return data::open_dataset(source.spec, source.base_dir, fields, seed);
  } catch (const Error& e) {
    if (e.span().valid()) {
      throw;
    }
    keys.fail_at(key, e.diagnostic().message, data_hint(source, e), e.kind());
  }
}

std::vector<DataSourceInfo> inspect_sources(const ir::Graph& g, const std::map<std::string, DataSpec>& data,
                                            const KeyLocations& keys) {
  const std::vector<data::Field> wanted = input_fields(g);
  std::vector<DataSourceInfo> out;
  for (const char* key : {"data.train", "data.test", "data.validation"}) {
    const DataSpec& source = data.at(key);
    if (!source.spec.empty()) {
      const std::unique_ptr<data::Dataset> ds = open_source(key, source, wanted, 0, keys);
      out.push_back(described(key, source.spec, source.resolved, *ds));
    }
  }
  return out;
}

}  // namespace engine

}  // namespace iputrain
