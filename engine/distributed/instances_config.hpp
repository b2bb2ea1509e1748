// The instances mpirun started, as the engine sees them: this process's instance of a plan (a plan
// of other figures than the launch is refused, at the config's process_count key when it is set)
// and the one that writes the run's files. The keys are filled from MPI by ResolvedConfig
// (frontend/config/resolved_config.cpp).
#pragma once

#include <cstdint>

#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

//! This process's instance of `plan`; refuses a plan of several instances in a process that
//! mpirun did not start as one of them (at process_count when the config sets it: `keys`).
int32_t instance_of(const planner::Plan& plan, const KeyLocations& keys);

//! True on the instance that writes the run's files (checkpoints, saved weights, logs): the first.
bool writes_run_files();

}  // namespace iputrain::engine
