// The config's `ipu.experimental.multi_replica_distribution` keys and the instances mpirun
// started: the keys are filled from MPI (process count and rank), and a config that names other
// figures than the launch is refused, located at the key.
#pragma once

#include <cstdint>

#include "iputrain/config.hpp"
#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

//! `config` with process_count and process_index taken from the launch (join_instances()).
Config with_instances(const Config& config);

//! This process's instance of `plan`; refuses a plan of several instances in a process that
//! mpirun did not start as one of them (at process_count when the config sets it: `keys`).
int32_t instance_of(const planner::Plan& plan, const KeyLocations& keys);

//! True on the instance that writes the run's files (checkpoints, saved weights, logs): the first.
bool writes_run_files();

}  // namespace iputrain::engine
