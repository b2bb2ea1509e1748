// The [tune] keys: what `iputrain tune` may vary and over what (docs/tune.md). Only `tune` reads
// them; its flags (--ipus, --global-batch, --batch-tolerance, --time, --plans, --top, --vary-layout, and
// --keep-layout against vary_layout) override the keys of the same name.
#include "core/pipeline_schedules/schedule_def.hpp"
#include "frontend/config/bind.hpp"

namespace iputrain::config {

std::vector<KeySpec> tune_keys() {
  using detail::key;
  using enum KeyType;
  using enum Effect;
  const std::string values = " Listing values lets the search vary the key even where the config sets it.";
  return {
      key(IPUTRAIN_KEY(tune.schedule), StringList, ValueList{}, Runs,
          "The schedules tried; unset = all, or the config's `pipeline.schedule` when it sets one." + values, {},
          pipeline_schedules::schedule_names()),
      key(IPUTRAIN_KEY(tune.recomputation), StringList, ValueList{}, Runs,
          "The recomputation tried: off or a `pipeline.recomputation_mode`; unset = all three, or the config's "
          "when it sets `ipu.allow_recompute` or the mode." +
              values,
          {}, {"off", "recompute_then_backpropagate", "recompute_and_backpropagate_interleaved"}),
      key(IPUTRAIN_KEY(tune.gradient_accumulation_dtype), StringList, ValueList{}, Runs,
          "The accumulator types tried; unset = the config's only (fp16 accumulators trade an accuracy the "
          "models cannot price).",
          {}, {"same", "fp32", "fp16"}),
      key(IPUTRAIN_KEY(tune.gradient_accumulation_order), StringList, ValueList{}, Runs,
          "The accumulation orders tried; unset = the config's only (canonical keeps a tuned plan's bits equal "
          "to the one-IPU run's).",
          {}, {"canonical", "sequential"}),
  };
}

}  // namespace iputrain::config
