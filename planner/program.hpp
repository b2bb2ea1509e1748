// Program construction: which nodes a step runs, in order.
#pragma once

#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

//! The nodes that `roots` depend on (roots included), in ascending id order — a valid execution
//! order because the IR is appended in topological order. Leaves (inputs, params) are included;
//! the engine skips their (absent) kernels.
std::vector<ir::ValueId> live_program(const ir::Graph& g, const std::vector<ir::ValueId>& roots);

}  // namespace iputrain::planner
