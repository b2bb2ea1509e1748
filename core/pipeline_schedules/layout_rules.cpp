#include "core/pipeline_schedules/layout_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace iputrain::pipeline_schedules {

int64_t mapped_ipus(const std::vector<std::vector<int64_t>>& mapping) {
  int64_t most = -1;
  for (const auto& position : mapping) {
    for (int64_t ipu : position) {
      most = std::max(most, ipu);
    }
  }
  return most == std::numeric_limits<int64_t>::max() ? most : most + 1;
}

int64_t replica_ipus(const std::vector<std::vector<int64_t>>& mapping, int64_t batch_serialization, int64_t ipus,
                     int64_t positions) {
  if (batch_serialization > 1) {
    return 1;
  }
  if (!mapping.empty()) {
    return mapped_ipus(mapping);
  }
  return ipus == 1 ? 1 : positions;
}

std::optional<LayoutBreach> replicas_breach(int64_t per_replica, int64_t ipus, bool select_ipus,
                                            const std::string& what) {
  if (per_replica > 0 && ipus % per_replica == 0) {
    return std::nullopt;
  }
  return LayoutBreach{
      {"pipeline.device_mapping", "ipu.auto_select_ipus", "ipu.select_ipus"},
      fmt::format("{} needs {} IPUs per replica, but the device has {} IPUs ({}), not a whole number of replicas", what,
                  per_replica, ipus, select_ipus ? "ipu.select_ipus" : "ipu.auto_select_ipus"),
      select_ipus ? fmt::format("IPUs = IPUs per replica x replicas: list devices in `ipu.select_ipus` whose IPUs "
                                "number a multiple of {} (0-15 hold 1 IPU, 16-23 2, 24-27 4, 28-29 8, 30 16)",
                                per_replica)
                  : fmt::format("IPUs = IPUs per replica x replicas: set `ipu.auto_select_ipus` to a multiple of {}",
                                per_replica)};
}

std::optional<LayoutBreach> accumulation_breach(const ScheduleDef& def, int64_t count, int64_t positions,
                                                int64_t per_replica, bool training) {
  if (count == 0) {
    return std::nullopt;  // the planner uses the minimum
  }
  const AccumulationRule rule = def.accumulation(positions, per_replica, training);
  if (count >= rule.minimum && count % rule.multiple == 0) {
    return std::nullopt;
  }
  const int64_t fix = std::max(rule.minimum, rule.multiple * ((count + rule.multiple - 1) / rule.multiple));
  return LayoutBreach{
      {"pipeline.gradient_accumulation_count"},
      fmt::format("`pipeline.gradient_accumulation_count` = {} does not suit the {} schedule: {}", count, def.name,
                  rule.why),
      rule.multiple > 1
          ? fmt::format("use {} (or another multiple of it), or unset the key to get {}", fix, rule.minimum)
          : fmt::format("use {} or more, or unset the key to get {}", rule.minimum, rule.minimum)};
}

std::optional<LayoutBreach> sharing_breach(const ScheduleDef& def, const std::vector<std::vector<int64_t>>& mapping) {
  if (!def.one_position_per_ipu) {
    return std::nullopt;
  }
  // An entry is one position: a parallel block's stages may share its IPU.
  std::map<int64_t, size_t> owner;
  for (size_t s = 0; s < mapping.size(); ++s) {
    for (int64_t ipu : std::set<int64_t>(mapping[s].begin(), mapping[s].end())) {
      auto [it, fresh] = owner.emplace(ipu, s);
      if (!fresh) {
        return LayoutBreach{{"pipeline.device_mapping", "pipeline.schedule"},
                            fmt::format("the {} schedule cannot train two stages on one IPU: stages {} and {} are "
                                        "both on IPU {}",
                                        def.name, it->second, s, ipu),
                            "give each stage its own IPU, or use `pipeline.schedule = \"grouped\"`"};
      }
    }
  }
  return std::nullopt;
}

int64_t min_gradient_accumulation(const ScheduleDef& def, int64_t positions, int64_t per_replica, bool training) {
  return def.accumulation(positions, per_replica, training).minimum;
}

}  // namespace iputrain::pipeline_schedules
