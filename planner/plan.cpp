// The plan's own figures (planner/plan.hpp): its batch sizes, from its graph and its layout.
#include "planner/plan.hpp"

namespace iputrain::planner {

int64_t Plan::micro_batch() const {
  for (ir::ValueId v : graph.inputs) {
    const auto& shape = graph.type(v).shape;
    if (!shape.empty()) {
      return shape[0];
    }
  }
  return 1;
}

int64_t Plan::global_batch() const { return micro_batch() * decided.accumulation_count * placement.replicas; }

}  // namespace iputrain::planner
