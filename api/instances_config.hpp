// The config's `ipu.experimental.multi_replica_distribution` keys and the instances mpirun
// started: the keys are filled from MPI (process count and rank), and a config that names other
// figures than the launch is refused, located at the key (moved from engine/distributed/).
#pragma once

#include "iputrain/config.hpp"

namespace iputrain::api {

//! `config` with process_count and process_index taken from the launch (join_instances()).
Config with_instances(const Config& config);

}  // namespace iputrain::api
