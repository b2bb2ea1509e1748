// The memory model: bytes each IPU of a replica holds at every timestep of a cycle, by kind
// (weights, optimizer state, gradient accumulators, activations, I/O buffers), from the buffer
// table of the per-IPU programs. A plan that does not fit is an error that names the IPU, the
// bytes needed against the capacity, the largest contributors and what would make it fit.
#pragma once

#include <vector>

#include "planner/plan.hpp"

namespace iputrain::planner {

//! Per-IPU memory of `plan` (uses plan.programs, plan.placement and plan.settings).
std::vector<IpuMemory> estimate_memory(const Plan& plan);

//! Throws Error(Plan) if some IPU's peak exceeds its capacity.
void check_fits(const Plan& plan);

}  // namespace iputrain::planner
