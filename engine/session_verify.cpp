// What `iputrain verify` compares: the training state replica by replica, with where each tensor
// lives, and the test hook that breaks one replica on purpose so the comparison can be tested.
#include <fmt/format.h>

#include <algorithm>

#include "core/ir/graph.hpp"
#include "engine/checkpoint.hpp"
#include "engine/cluster/cluster.hpp"
#include "engine/session_impl.hpp"
#include "iputrain/session.hpp"
#include "planner/plan.hpp"

namespace iputrain {

namespace {

// A replica held by another instance (mpirun) has no state here to read or change.
void check_replica(const engine::Cluster* cluster, int32_t replica) {
  if (cluster == nullptr) {
    throw Error(ErrorKind::Semantic, "the model has no `minimize` objective, so it has no training state", {},
                "verify and compare training state of a model that trains");
  }
  if (replica < cluster->first_replica() || replica >= cluster->first_replica() + cluster->local_replicas()) {
    throw Error(ErrorKind::Usage,
                fmt::format("replica {} is not held by this process (it holds {} to {})", replica,
                            cluster->first_replica(), cluster->first_replica() + cluster->local_replicas() - 1),
                {}, "ask for a replica of this instance");
  }
}

}  // namespace

int32_t Session::replicas() const { return impl_->plan.placement.replicas; }

std::vector<StateTensor> Session::training_state(int32_t replica) const {
  const Impl& s = *impl_;
  check_replica(s.cluster.get(), replica);
  const ir::Graph& g = s.plan.graph;
  std::vector<StateTensor> out;
  for (size_t k = 0; k < g.params.size(); ++k) {
    const ir::ValueId p = g.params[k];
    const ir::Node& node = g.node(p);
    StateTensor base;
    base.weight = node.name;
    base.stage = g.stages.at(static_cast<size_t>(node.stage)).name;
    base.ipu = s.plan.placement.param_ipu.at(k);
    base.physical_ipu = s.plan.placement.physical.at(static_cast<size_t>(replica)).at(static_cast<size_t>(base.ipu));
    const ir::Tensor w = s.cluster->param(replica, p);
    base.shape = w.shape();
    StateTensor weight = base;
    weight.name = node.name;
    weight.values.assign(w.f32(), w.f32() + w.numel());
    out.push_back(std::move(weight));
    const std::vector<float> state = s.cluster->optimizer_state(p);
    const std::vector<Shape> arrays = s.cluster->optimizer_state_shapes(p);
    int64_t offset = 0;
    for (size_t k = 0; k < arrays.size() && !state.empty(); ++k) {
      StateTensor t = base;
      t.name = engine::optimizer_state_name(static_cast<int32_t>(k), node.name);
      t.optimizer_state = true;
      t.shape = arrays[k];
      t.values.assign(state.begin() + offset, state.begin() + offset + numel(arrays[k]));
      offset += numel(arrays[k]);
      out.push_back(std::move(t));
    }
  }
  return out;
}

void Session::perturb_replica_for_test(int32_t replica, const std::string& weight, float delta) {
  Impl& s = *impl_;
  check_replica(s.cluster.get(), replica);
  const ir::Graph& g = s.plan.graph;
  const auto it =
      std::find_if(g.params.begin(), g.params.end(), [&](ir::ValueId p) { return g.node(p).name == weight; });
  if (it == g.params.end()) {
    throw Error(ErrorKind::Usage, fmt::format("the model has no weight `{}`", weight), {},
                "name a weight as `iputrain repl`'s `weights` lists it");
  }
  ir::Tensor t = s.cluster->param(replica, *it);
  float* values = t.f32();
  std::transform(values, values + t.numel(), values, [delta](float v) { return v + delta; });
}

}  // namespace iputrain
