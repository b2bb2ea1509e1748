// The Worker's optimizer state as checkpoints see it: per parameter, independent of where the
// plan placed it.
#include "engine/cluster/worker.hpp"

namespace iputrain::engine {

std::span<float> Worker::optimizer_state(ir::ValueId p) {
  for (ParamState& ps : params_) {
    if (ps.param == p) {
      const ParamSlot& slot = ps.slot.front();
      return {slot.state, static_cast<size_t>(slot.size * optimizer_->state_slots())};
    }
  }
  return {};
}

planner::ShardRange Worker::state_block(ir::ValueId p) const {
  for (const ParamState& ps : params_) {
    if (ps.param == p) {
      return ps.block;
    }
  }
  return {};
}

int32_t Worker::optimizer_state_slots() const { return optimizer_->state_slots(); }

}  // namespace iputrain::engine
