#include "engine/distributed/instances_config.hpp"

#include <fmt/format.h>

#include "iputrain/error.hpp"
#include "iputrain/instances.hpp"

namespace iputrain::engine {

namespace {
constexpr const char* kCount = "ipu.experimental.multi_replica_distribution.process_count";
}  // namespace

int32_t instance_of(const planner::Plan& plan, const KeyLocations& keys) {
  const Instances in = current_instances();
  const int32_t wanted = plan.placement.instances;
  if (wanted == in.count) {
    return in.index;
  }
  const std::string hint = wanted > 1 ? fmt::format("launch it with mpirun -n {} (docs/distributed.md)", wanted)
                                      : "remove `process_count`, or set it to mpirun's count";
  if (keys.is_set(kCount)) {
    keys.fail_at(kCount,
                 fmt::format("the plan shares its replicas among {} instances, but this run has {}", wanted, in.count),
                 hint);
  }
  throw Error(ErrorKind::Config,
              fmt::format("the plan shares its replicas among {} instances, but this run has {}", wanted, in.count), {},
              hint);
}

bool writes_run_files() { return current_instances().index == 0; }

}  // namespace iputrain::engine
