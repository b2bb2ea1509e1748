#include "api/instances_config.hpp"

#include <fmt/format.h>

#include "iputrain/error.hpp"
#include "iputrain/instances.hpp"

namespace iputrain::api {

namespace {
constexpr const char* kCount = "ipu.experimental.multi_replica_distribution.process_count";
constexpr const char* kIndex = "ipu.experimental.multi_replica_distribution.process_index";
}  // namespace

Config with_instances(const Config& config) {
  const Instances in = current_instances();
  if (!in.launched) {
    return config;
  }
  auto& mrd = config.ipu.experimental.multi_replica_distribution;
  if (config.is_set(kCount) && mrd.process_count != in.count) {
    config.fail_at(
        kCount,
        fmt::format("`process_count` = {}, but mpirun started {} instance{}", mrd.process_count, in.count,
                    in.count == 1 ? "" : "s"),
        fmt::format("launch with mpirun -n {}, or remove the key: mpirun's count fills it", mrd.process_count));
  }
  if (config.is_set(kIndex) && mrd.process_index != in.index) {
    config.fail_at(kIndex,
                   fmt::format("`process_index` = {}, but this is instance {} of mpirun's {}", mrd.process_index,
                               in.index, in.count),
                   "remove the key: each instance takes its index from mpirun's rank");
  }
  Config out = config;
  out.ipu.experimental.multi_replica_distribution.process_count = in.count;
  out.ipu.experimental.multi_replica_distribution.process_index = in.index;
  return out;
}

}  // namespace iputrain::api
