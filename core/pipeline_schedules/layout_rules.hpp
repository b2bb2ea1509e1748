// The rules a pipeline layout must follow, written once: how many IPUs a replica uses, whether the
// device holds whole replicas, the schedule's gradient accumulation rule and its one position per
// IPU. The config checks them when it names its stages (frontend/config/rules.cpp), and the
// planner's place pass against the model (planner/layout_check.cpp); each turns a breach into an
// error at the first of its keys that the config sets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

//! A broken layout rule: what to say, and the keys it relates (shown at the first one set, else
//! at the first).
struct LayoutBreach {
  std::vector<std::string> keys;
  std::string message;
  std::string hint;
};

//! IPUs per replica that a `pipeline.device_mapping` uses: its highest IPU + 1 (0 when empty;
//! saturates at INT64_MAX, refused later as too many IPUs).
int64_t mapped_ipus(const std::vector<std::vector<int64_t>>& mapping);

//! IPUs one replica uses for `positions` pipeline positions: one under batch serialization, as
//! `mapping` says, else position i on IPU i (the seeds' default) unless the device has a single
//! IPU, which then runs every position.
int64_t replica_ipus(const std::vector<std::vector<int64_t>>& mapping, int64_t batch_serialization, int64_t ipus,
                     int64_t positions);

//! The device's `ipus` must be a whole number of replicas of `per_replica` IPUs; `what` says what
//! asks for them, `select_ipus` whether `ipu.select_ipus` (not auto_select_ipus) acquired them.
std::optional<LayoutBreach> replicas_breach(int64_t per_replica, int64_t ipus, bool select_ipus,
                                            const std::string& what);

//! `count` (pipeline.gradient_accumulation_count; 0 = unset, always fine) against the schedule's
//! accumulation rule for `positions` positions on `per_replica` IPUs.
std::optional<LayoutBreach> accumulation_breach(const ScheduleDef& def, int64_t count, int64_t positions,
                                                int64_t per_replica, bool training);

//! A schedule that trains one position per IPU refuses a mapping that puts two positions on one IPU.
std::optional<LayoutBreach> sharing_breach(const ScheduleDef& def, const std::vector<std::vector<int64_t>>& mapping);

//! A breach, if any, as an error at the first of its keys that `keys` says the config sets, else at
//! its first key. Keys is the config (frontend) or the settings' key locations (planner): anything
//! with is_set(key) and fail_at(key, message, hint), the latter throwing.
template <class Keys>
void fail_on(const Keys& keys, const std::optional<LayoutBreach>& breach) {
  if (!breach) {
    return;
  }
  for (const std::string& key : breach->keys) {
    if (keys.is_set(key)) {
      keys.fail_at(key, breach->message, breach->hint);
    }
  }
  keys.fail_at(breach->keys.front(), breach->message, breach->hint);
}

//! The smallest count the schedule accepts (also the multiple it needs, for the built-in ones).
int64_t min_gradient_accumulation(const ScheduleDef& def, int64_t positions, int64_t per_replica, bool training);

}  // namespace iputrain::pipeline_schedules
