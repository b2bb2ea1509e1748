#include "planner/device_program.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace iputrain::planner {

std::string_view instr_kind_name(InstrKind kind) {
  switch (kind) {
    case InstrKind::Infeed: return "infeed";
    case InstrKind::Forward: return "forward";
    case InstrKind::Recompute: return "recompute";
    case InstrKind::Backward: return "backward";
    case InstrKind::BackwardWeights:
      return "backward_weights";
    case InstrKind::Send: return "send";
    case InstrKind::Recv: return "recv";
    case InstrKind::Accumulate: return "accumulate";
    case InstrKind::ReduceReplicas: return "reduce";
    case InstrKind::UpdateWeights: return "update";
    case InstrKind::Outfeed: return "outfeed";
  }
  return "?";
}

std::string Instr::str(const DevicePrograms& programs) const {
  switch (kind) {
    case InstrKind::Forward: return fmt::format("F{}.m{}", stage, micro_batch);
    case InstrKind::Recompute: return fmt::format("R{}.m{}", stage, micro_batch);
    case InstrKind::Backward: return fmt::format("B{}.m{}", stage, micro_batch);
    case InstrKind::BackwardWeights:
      return fmt::format("W{}.m{}", stage, micro_batch);
    case InstrKind::Accumulate: return fmt::format("acc{}.m{}", stage, micro_batch);
    case InstrKind::Send: {
      const Message& msg = programs.messages.at(static_cast<size_t>(message));
      return fmt::format("send m{} ->{} #{}", micro_batch, msg.to, message);
    }
    case InstrKind::Recv: {
      const Message& msg = programs.messages.at(static_cast<size_t>(message));
      return fmt::format("recv m{} <-{} #{}", micro_batch, msg.from, message);
    }
    case InstrKind::Infeed: return fmt::format("infeed m{}", micro_batch);
    case InstrKind::Outfeed: return fmt::format("outfeed m{}", micro_batch);
    case InstrKind::ReduceReplicas: return fmt::format("reduce #{}", bucket);
    case InstrKind::UpdateWeights: return "update";
  }
  return "?";
}

std::string_view accumulation_order_name(GradientAccumulationOrder order) {
  return order == GradientAccumulationOrder::Sequential ? "sequential" : "canonical";
}

int32_t tree_stack_depth(int64_t first, int64_t count) {
  // The partial sums pending while leaves arrive in order: maximal aligned blocks, merged with
  // their left sibling as soon as it is complete.
  std::vector<std::pair<int64_t, int64_t>> stack;  // (start, size)
  size_t most = 0;
  for (int64_t leaf = first; leaf < first + count; ++leaf) {
    stack.emplace_back(leaf, 1);
    while (stack.size() >= 2) {
      const auto [start, size] = stack[stack.size() - 2];
      const auto top = stack.back();
      if (top.second != size || start % (2 * size) != 0) {
        break;
      }
      stack.pop_back();
      stack.back().second = 2 * size;
    }
    most = std::max(most, stack.size());
  }
  return static_cast<int32_t>(most);
}

}  // namespace iputrain::planner
