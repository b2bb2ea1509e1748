#include "planner/program.hpp"

namespace iputrain::planner {

std::vector<ir::ValueId> live_program(const ir::Graph& g, const std::vector<ir::ValueId>& roots) {
  std::vector<bool> live(static_cast<size_t>(g.size()), false);
  for (ir::ValueId r : roots) {
    if (r != ir::kNoValue) {
      live[static_cast<size_t>(r)] = true;
    }
  }
  // Walk ids downwards: every input has a smaller id than its user, so one sweep marks the closure.
  for (ir::ValueId id = g.size() - 1; id >= 0; --id) {
    if (!live[static_cast<size_t>(id)]) {
      continue;
    }
    for (ir::ValueId in : g.node(id).inputs) {
      live[static_cast<size_t>(in)] = true;
    }
  }
  std::vector<ir::ValueId> order;
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    if (live[static_cast<size_t>(id)]) {
      order.push_back(id);
    }
  }
  return order;
}

}  // namespace iputrain::planner
