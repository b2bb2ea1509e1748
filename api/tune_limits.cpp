// The limits of `iputrain tune`'s search: the config's [tune] section, the command's flags over it.
// The schema checks each value (types, bounds, names); here, what only a range as a whole can
// get wrong (two bounds, min <= max, IPUs per replica that divide the IPUs), located at the key.
#include <fmt/format.h>

#include <algorithm>

#include "api/tune_search.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain::api::tune {

namespace {

// A [min, max] range key: both bounds, in order.
void read_range(const Config& c, const std::string& key, const std::vector<int64_t>& v, int64_t& lo, int64_t& hi) {
  if (!c.is_set(key)) {
    return;
  }
  if (v.size() != 2) {
    c.fail_at(key, fmt::format("`{}` is a range [min, max], found {} value{}", key, v.size(), v.size() == 1 ? "" : "s"),
              v.size() == 1 ? fmt::format("for exactly {0}, write [{0}, {0}]", v[0]) : "e.g. [1, 8]");
  }
  if (v[0] > v[1]) {
    c.fail_at(key, fmt::format("`{}` = [{}, {}] is an empty range: its min is above its max", key, v[0], v[1]),
              fmt::format("write [{}, {}]", v[1], v[0]));
  }
  lo = v[0];
  hi = v[1];
}

// A knob list: the values the search tries, as the config key's value text.
template <class T>
void read_values(const Config& c, const std::string& key, const std::vector<T>& v, size_t axis, Limits& out) {
  if (!c.is_set(key)) {
    return;
  }
  if (v.empty()) {
    c.fail_at(key, fmt::format("`{}` lists no value: the search could try nothing", key),
              "list the values to try, or remove the key to let the search choose");
  }
  std::vector<std::string>& values = out.values[axis];
  for (const auto& e : v) {
    std::string text = fmt::format("{}", static_cast<T>(e));
    if (std::find(values.begin(), values.end(), text) == values.end()) {
      values.push_back(std::move(text));
    }
  }
}

}  // namespace

Limits read_limits(const Config& c, const TuneRequest& r) {
  Limits l;
  // A flag given on the command line wins over the key of the same name.
  l.ipus = r.ipus > 0 ? r.ipus : c.plain.tune_ipus;
  l.global_batch = r.global_batch > 0 ? r.global_batch : c.plain.tune_global_batch;
  l.tolerance = r.batch_tolerance >= 0 ? r.batch_tolerance : c.plain.tune_batch_tolerance;
  l.time_seconds = r.time_seconds > 0 ? r.time_seconds : c.plain.tune_time;
  l.plans = r.plans > 0 ? r.plans : c.plain.tune_plans;
  l.top = static_cast<int32_t>(r.top > 0 ? r.top : c.plain.tune_top);
  l.vary_layout = r.vary_layout || (c.plain.tune_vary_layout && !r.keep_layout);
  read_range(c, "tune.ipus_per_replica", c.plain.tune_ipus_per_replica, l.min_ipus_per_replica, l.max_ipus_per_replica);
  read_range(c, "tune.stages", c.plain.tune_stages, l.min_stages, l.max_stages);
  read_range(c, "tune.micro_batch", c.plain.tune_micro_batch, l.min_micro_batch, l.max_micro_batch);
  const int64_t ipus = l.ipus > 0 ? l.ipus : config::num_ipus(c);
  bool divides = false;
  for (int64_t p = l.min_ipus_per_replica; p <= std::min(l.max_ipus_per_replica, ipus) && !divides; ++p) {
    divides = ipus % p == 0;
  }
  if (!divides) {
    c.fail_at("tune.ipus_per_replica",
              fmt::format("no number of IPUs per replica in [{}, {}] divides the {} IPUs", l.min_ipus_per_replica,
                          l.max_ipus_per_replica, ipus),
              "a replica's IPUs divide the IPUs in all: widen the range, or change --ipus");
  }
  read_values(c, "tune.schedule", c.plain.tune_schedule, kSchedule, l);
  read_values(c, "tune.recomputation", c.plain.tune_recomputation, kRecomputation, l);
  read_values(c, "tune.available_memory_proportion", c.plain.tune_available_memory_proportion, kMemoryProportion, l);
  read_values(c, "tune.gradient_accumulation_dtype", c.plain.tune_gradient_accumulation_dtype, kAccumulationDtype, l);
  read_values(c, "tune.gradient_accumulation_order", c.plain.tune_gradient_accumulation_order, kAccumulationOrder, l);
  read_values(c, "tune.offload_weight_update_variables", c.plain.tune_offload_weight_update_variables, kOffloadState,
              l);
  read_values(c, "tune.offload_gradient_accumulation_buffers", c.plain.tune_offload_gradient_accumulation_buffers,
              kOffloadAccumulators, l);
  read_values(c, "tune.replicated_optimizer_state_sharding", c.plain.tune_replicated_optimizer_state_sharding,
              kShardState, l);
  read_values(c, "tune.replicated_weight_sharding", c.plain.tune_replicated_weight_sharding, kShardWeights, l);
  read_values(c, "tune.batch_serialization_iterations", c.plain.tune_batch_serialization_iterations,
              kBatchSerialization, l);
  return l;
}

}  // namespace iputrain::api::tune
