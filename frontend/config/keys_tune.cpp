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
  const std::string bools = "The values tried for `pipeline.";
  return {
      key(IPUTRAIN_KEY(tune.ipus), Int, 0, Runs, "IPUs in all (`--ipus`); 0 = the config's.", Range::at_least(0)),
      key(IPUTRAIN_KEY(tune.global_batch), Int, 0, Runs,
          "Samples per weight update the plans hold (`--global-batch`); 0 = the input plan's.", Range::at_least(0)),
      key(IPUTRAIN_KEY(tune.batch_tolerance), Float, 0.0, Runs,
          "Relative distance from the global batch a plan may have (`--batch-tolerance`).", Range::between(0, 1)),
      key(IPUTRAIN_KEY(tune.time), Float, 60.0, Runs,
          "Search budget in seconds (`--time`, or the REPL's `tune SECONDS`; the REPL's default where this is "
          "unset: 30); the search stops at it with the best plan found.",
          Range::at_least(0, true)),
      key(IPUTRAIN_KEY(tune.plans), Int, 0, Runs,
          "Candidates planned at most (`--plans`); 0 = no limit but the time. Counted in plans, the search stops at "
          "the same candidate on any machine and under any load, where a time budget does not.",
          Range::at_least(0)),
      key(IPUTRAIN_KEY(tune.top), Int, 5, Runs, "Ranked plans listed (`--top`).", Range::at_least(1)),
      key(IPUTRAIN_KEY(tune.vary_layout), Bool, false, Runs,
          "Also vary the layout keys the config sets: stages, mapping, batch, schedule, recomputation, memory "
          "knobs (`--vary-layout`; `--keep-layout` turns it off for one run)."),
      key(IPUTRAIN_KEY(tune.ipus_per_replica), IntList, ValueList{}, Runs,
          "[min, max] IPUs of one replica (the pipeline's depth); the rest of the IPUs are replicas. Set, "
          "it lets the search re-cut a model whose config fixes the stages.",
          Range::at_least(1)),
      key(IPUTRAIN_KEY(tune.stages), IntList, ValueList{}, Runs,
          "[min, max] pipeline stages (positions of the schedule; a stage back on IPU 0 counts).", Range::at_least(1)),
      key(IPUTRAIN_KEY(tune.micro_batch), IntList, ValueList{}, Runs,
          "[min, max] of `data.batch_size`; unset = 1 to 256, or the config's value when it sets one.",
          Range::at_least(1)),
      key(IPUTRAIN_KEY(tune.schedule), StringList, ValueList{}, Runs,
          "The schedules tried; unset = all, or the config's `pipeline.schedule` when it sets one." + values, {},
          pipeline_schedules::schedule_names()),
      key(IPUTRAIN_KEY(tune.recomputation), StringList, ValueList{}, Runs,
          "The recomputation tried: off or a `pipeline.recomputation_mode`; unset = all three, or the config's "
          "when it sets `ipu.allow_recompute` or the mode." +
              values,
          {}, {"off", "recompute_then_backpropagate", "recompute_and_backpropagate_interleaved"}),
      key(IPUTRAIN_KEY(tune.available_memory_proportion), FloatList, ValueList{}, Runs,
          "availableMemoryProportion values tried for every matmul and convolution, then per stage around the "
          "best; unset = 0.6, 0.45, 0.3, 0.2, 0.1, or the config's when it sets one." +
              values,
          Range{0, true, 1, false}),
      key(IPUTRAIN_KEY(tune.gradient_accumulation_dtype), StringList, ValueList{}, Runs,
          "The accumulator types tried; unset = the config's only (fp16 accumulators trade an accuracy the "
          "models cannot price).",
          {}, {"same", "fp32", "fp16"}),
      key(IPUTRAIN_KEY(tune.gradient_accumulation_order), StringList, ValueList{}, Runs,
          "The accumulation orders tried; unset = the config's only (canonical keeps a tuned plan's bits equal "
          "to the one-IPU run's).",
          {}, {"canonical", "sequential"}),
      key(IPUTRAIN_KEY(tune.offload_weight_update_variables), BoolList, ValueList{}, Runs,
          bools + "offload_weight_update_variables`; unset = both, or the config's when set." + values),
      key(IPUTRAIN_KEY(tune.offload_gradient_accumulation_buffers), BoolList, ValueList{}, Runs,
          bools + "offload_gradient_accumulation_buffers`; unset = both, or the config's when set." + values),
      key(IPUTRAIN_KEY(tune.replicated_optimizer_state_sharding), BoolList, ValueList{}, Runs,
          bools + "replicated_optimizer_state_sharding` (with replicas); unset = both, or the config's." + values),
      key(IPUTRAIN_KEY(tune.replicated_weight_sharding), BoolList, ValueList{}, Runs,
          bools + "replicated_weight_sharding` (with replicas); unset = both, or the config's." + values),
      key(IPUTRAIN_KEY(tune.batch_serialization_iterations), IntList, ValueList{}, Runs,
          "The `pipeline.batch_serialization_iterations` tried (plans with every stage on one IPU and the "
          "sequential schedule); unset = the config's only (the models price slices as a smaller micro-batch plus "
          "buffers: docs/tune.md)." +
              values,
          Range::at_least(1)),
  };
}

}  // namespace iputrain::config
