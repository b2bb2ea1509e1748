// data_class_names: what `iputrain check` prints about a source's classes, without a Session.
#include <fmt/format.h>

#include "engine/data/dataset.hpp"
#include "engine/session_impl.hpp"
#include "iputrain/session.hpp"
#include "frontend/model_access.hpp"

namespace iputrain {

std::vector<std::string> data_class_names(const Model& model, const Config& config,
                                          const std::string& split) {
  const std::string key = split == "test" ? "data.test" : "data.train";
  const std::string& spec = split == "test" ? config.data.test : config.data.train;
  // Only image folders name their classes; other sources are not read just to say nothing.
  if (spec.rfind("images:", 0) != 0) {
    return {};
  }
  const ir::Graph& g = graph_of(model);
  std::vector<data::Field> wanted;
  for (ir::ValueId in : g.inputs) {
    const ir::Node& n = g.node(in);
    wanted.push_back(data::Field{n.name, n.type.dtype, Shape(n.type.shape.begin() + 1, n.type.shape.end())});
  }
  try {
    return data::open_dataset(spec, session_detail::base_dir(config), wanted, 0)->class_names();
  } catch (const Error& e) {
    if (e.span().valid()) {
      throw;
    }
    config.fail_at(key, e.diagnostic().message, e.hint(), e.kind());
  }
}

}  // namespace iputrain
