// ResolvedConfig (iputrain/config_loader.hpp): a config resolved once, with the instances of an
// mpirun run folded into its `ipu.experimental.multi_replica_distribution` keys first; a config
// that names other figures than the launch is refused at the key.
#include <fmt/format.h>

#include "iputrain/config_loader.hpp"

namespace iputrain {

namespace {

constexpr const char* kCount = "ipu.experimental.multi_replica_distribution.process_count";
constexpr const char* kIndex = "ipu.experimental.multi_replica_distribution.process_index";

// `config` with process_count and process_index taken from the launch.
Config with_instances(const Config& config, const Instances& in) {
  if (!in.launched) {
    return config;
  }
  const int64_t count = config.plain.ipu_experimental_multi_replica_distribution_process_count;
  const int64_t index = config.plain.ipu_experimental_multi_replica_distribution_process_index;
  if (config.is_set(kCount) && count != in.count) {
    config.fail_at(kCount,
                   fmt::format("`process_count` = {}, but mpirun started {} instance{}", count, in.count,
                               in.count == 1 ? "" : "s"),
                   fmt::format("launch with mpirun -n {}, or remove the key: mpirun's count fills it", count));
  }
  if (config.is_set(kIndex) && index != in.index) {
    config.fail_at(
        kIndex, fmt::format("`process_index` = {}, but this is instance {} of mpirun's {}", index, in.index, in.count),
        "remove the key: each instance takes its index from mpirun's rank");
  }
  Config out = config;
  out.plain.ipu_experimental_multi_replica_distribution_process_count = in.count;
  out.plain.ipu_experimental_multi_replica_distribution_process_index = in.index;
  return out;
}

}  // namespace

ResolvedConfig::ResolvedConfig(const Config& config) : ResolvedConfig(config, Instances{}) {}

ResolvedConfig::ResolvedConfig(const Config& config, const Instances& launched)
    : config_(std::make_shared<const Config>(config)),
      settings_(std::make_shared<const Settings>(config::resolve(with_instances(config, launched)))),
      instances_(launched) {}

}  // namespace iputrain
