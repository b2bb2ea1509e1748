// inspect_data_sources: what `iputrain check` reports about each data source, without a Session.
#include <fmt/format.h>

#include "engine/data/dataset.hpp"
#include "engine/session_impl.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/session.hpp"

namespace iputrain {

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
    DataSourceInfo info{key, spec, spec, 0, {}, {}};
    try {
      const std::unique_ptr<data::Dataset> ds = data::open_dataset(spec, config.base_dir_of(key), wanted, 0);
      info.samples = ds->size();
      for (const data::Field& f : ds->fields()) {
        info.fields.push_back(TensorInfo{f.name, std::string(dtype_name(f.dtype)), f.shape, {}, false});
      }
      info.classes = ds->class_names();
    } catch (const Error& e) {
      if (e.span().valid()) {
        throw;
      }
      config.fail_at(key, e.diagnostic().message, engine::data_hint(config.base_dir_of(key), e), e.kind());
    }
    info.path = config.resolve_data_spec(key, spec);
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace iputrain
