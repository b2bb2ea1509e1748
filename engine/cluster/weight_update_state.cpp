// The WeightUpdate's optimizer state as checkpoints see it: per parameter, independent of where
// the plan placed it.
#include "engine/cluster/weight_update.hpp"

namespace iputrain::engine {

std::span<float> WeightUpdate::optimizer_state(ir::ValueId p) {
  for (ParamState& ps : params_) {
    if (ps.param == p) {
      return {ps.slot.front().state, static_cast<size_t>(ps.state_floats)};
    }
  }
  return {};
}

planner::ShardRange WeightUpdate::state_block(ir::ValueId p) const {
  for (const ParamState& ps : params_) {
    if (ps.param == p) {
      return ps.block;
    }
  }
  return {};
}

}  // namespace iputrain::engine
