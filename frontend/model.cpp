// iputrain::Model: the public face of a loaded model file.
#include "iputrain/model.hpp"

#include <fmt/format.h>

#include "core/ir/graph.hpp"
#include "frontend/frontend.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain {

struct Model::Impl {
  frontend::LoadedModel loaded;
};

int64_t TensorInfo::numel() const {
  return iputrain::numel(shape);
}

Model Model::load(const std::string& path, const std::map<std::string, ParamValue>& overrides) {
  auto impl = std::make_shared<Impl>();
  impl->loaded = frontend::load_model(path, nullptr, {overrides});
  return Model(std::move(impl));
}

namespace {

// What a config sets in a model: its `[model]` table, `batch` and the distributed batch-norm group.
frontend::ParamOverrides overrides_for(const Config& config, const Settings& settings) {
  return {config.model, &settings.keys, settings.model_batch,
          settings.plain.ipu_norms_experimental_distributed_batch_norm_replica_group_size};
}

}  // namespace

// Ties a model to the config it trains under: the elaborator checks the `[model]` overrides
// against the model's parameters, at their keys, and builds an int `batch` that [model] leaves
// alone at the batch the settings resolved (data.batch_size per slice).
Model Model::load(const std::string& path, const ResolvedConfig& config) {
  auto impl = std::make_shared<Impl>();
  impl->loaded = frontend::load_model(path, nullptr, overrides_for(config.config(), config.settings()));
  return Model(std::move(impl));
}

Model Model::parse(const std::string& text, const std::string& path, const ResolvedConfig& config) {
  auto impl = std::make_shared<Impl>();
  impl->loaded = frontend::load_model(path, &text, overrides_for(config.config(), config.settings()));
  return Model(std::move(impl));
}

Model Model::parse(const std::string& text, const std::string& path,
                   const std::map<std::string, ParamValue>& overrides) {
  auto impl = std::make_shared<Impl>();
  impl->loaded = frontend::load_model(path, &text, {overrides});
  return Model(std::move(impl));
}

namespace {

TensorInfo info_of(const ir::Graph& g, ir::ValueId id) {
  const ir::Node& n = g.node(id);
  return TensorInfo{n.name, std::string(dtype_name(n.type.dtype)), n.type.shape,
                    g.stages.at(static_cast<size_t>(n.stage)).name, ir::trainable(n)};
}

}  // namespace

const std::string& Model::name() const {
  return impl_->loaded.name;
}

std::map<std::string, ParamValue> Model::compile_time_params() const {
  return impl_->loaded.params;
}

std::vector<TensorInfo> Model::parameters() const {
  std::vector<TensorInfo> out;
  for (ir::ValueId id : impl_->loaded.graph.params) {
    out.push_back(info_of(impl_->loaded.graph, id));
  }
  return out;
}

std::vector<TensorInfo> Model::inputs() const {
  std::vector<TensorInfo> out;
  for (ir::ValueId id : impl_->loaded.graph.inputs) {
    out.push_back(info_of(impl_->loaded.graph, id));
  }
  return out;
}

std::vector<std::string> Model::outputs() const {
  std::vector<std::string> out;
  for (const ir::Output& o : impl_->loaded.graph.outputs) {
    out.push_back(o.name);
  }
  return out;
}

std::vector<std::string> Model::stages() const {
  std::vector<std::string> out;
  for (const ir::Stage& s : impl_->loaded.graph.stages) {
    out.push_back(s.name);
  }
  return out;
}

bool Model::trainable() const {
  return impl_->loaded.graph.loss != ir::kNoValue;
}

int64_t Model::parameter_count() const {
  int64_t n = 0;
  for (ir::ValueId id : impl_->loaded.graph.params) {
    n += impl_->loaded.graph.type(id).numel();
  }
  return n;
}

double Model::flops_per_sample() const {
  const ir::Graph& g = impl_->loaded.graph;
  double flops = 0;
  for (const ir::Node& n : g.nodes()) {
    const ir::OpDef& def = ir::op_def(n.op);
    if (n.phase == ir::Phase::Forward && def.cost != nullptr) {
      flops += def.cost(g, n).flops;
    }
  }
  return flops / static_cast<double>(batch_size());
}

int64_t Model::batch_size() const {
  const ir::Graph& g = impl_->loaded.graph;
  if (g.inputs.empty() || g.type(g.inputs.front()).shape.empty()) {
    return 1;
  }
  return g.type(g.inputs.front()).shape.front();
}

std::vector<std::string> Model::warnings() const {
  std::vector<std::string> out;
  for (const Diagnostic& d : impl_->loaded.warnings) {
    out.push_back(render(d, impl_->loaded.sources.get()));
  }
  return out;
}

std::string Model::ir_text() const {
  return impl_->loaded.graph.str();
}

const ir::Graph& ModelAccess::graph(const Model& m) { return m.impl_->loaded.graph; }

const ir::Graph& ModelAccess::graph_for(const Model& m, const Settings& settings) {
  const frontend::LoadedModel& loaded = m.impl_->loaded;
  const int64_t group = settings.plain.ipu_norms_experimental_distributed_batch_norm_replica_group_size;
  if (group != loaded.batch_norm_group) {
    // Only batch norms read the group: their moving statistics are the model's MovingAverage nodes.
    for (const ir::Node& n : loaded.graph.nodes()) {
      if (ir::op_has(n.op, ir::op_flags::state_update)) {
        settings.keys.fail_at(
            "ipu.norms.experimental.distributed_batch_norm_replica_group_size",
            fmt::format("the model's batch norms were built for groups of {} replica{}, not {}: it was loaded "
                        "without this config",
                        loaded.batch_norm_group, loaded.batch_norm_group == 1 ? "" : "s", group),
            "load the model with its config: Model::load(path, config) or Model::parse(text, path, config)");
      }
    }
  }
  return loaded.graph;
}

std::shared_ptr<const SourceManager> Model::sources() const {
  return impl_->loaded.sources;
}

}  // namespace iputrain
