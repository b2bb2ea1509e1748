// The config's pipeline keys checked against the model, in the place pass: the stages it names,
// one device_mapping entry and one options table per position, the outfeed mask, distributed
// batch norm, whole replicas and the schedule's rules (core/pipeline_schedules/layout_rules.hpp).
// Each error points at the key in the config (Settings::keys).
#include <fmt/format.h>

#include <algorithm>

#include "core/pipeline_schedules/layout_rules.hpp"
#include "planner/placement.hpp"

namespace iputrain::planner {

namespace {

// `pipeline.stages` and the per-position lists against the model's positions.
void check_lists(const std::vector<std::vector<std::string>>& positions, int64_t last_stage_outputs,
                 const Settings& settings) {
  const PipelineSettings& p = settings.pipeline;
  const KeyLocations& keys = settings.keys;
  // A parallel block is named by its stages joined with '+' in `pipeline.stages`.
  std::vector<std::string> stage_names;
  for (const auto& members : positions) {
    stage_names.push_back(fmt::format("{}", fmt::join(members, "+")));
  }
  const int64_t stages = std::max<int64_t>(1, static_cast<int64_t>(positions.size()));
  if (!settings.plain.pipeline_stages.empty() && settings.plain.pipeline_stages != stage_names) {
    keys.fail_at("pipeline.stages",
                 fmt::format("`pipeline.stages` is [{}] but the model's stages are [{}]",
                             fmt::join(settings.plain.pipeline_stages, ", "), fmt::join(stage_names, ", ")),
                 "list the model's stages in order, or remove `pipeline.stages`");
  }
  if (!settings.plain.pipeline_device_mapping.empty() &&
      static_cast<int64_t>(settings.plain.pipeline_device_mapping.size()) != stages) {
    keys.fail_at("pipeline.device_mapping",
                 fmt::format("`pipeline.device_mapping` has {} entries but the model has {} stages",
                             settings.plain.pipeline_device_mapping.size(), stages),
                 "give one IPU (or list of IPUs) per stage");
  }
  for (size_t i = 0; i < settings.plain.pipeline_device_mapping.size() && i < positions.size(); ++i) {
    const size_t given = settings.plain.pipeline_device_mapping[i].size();
    const size_t members = positions[i].size();
    if (given != 1 && given != members) {
      keys.fail_at("pipeline.device_mapping",
                   fmt::format("`pipeline.device_mapping` entry {} lists {} IPUs, but that position holds {} "
                               "stage{} [{}]",
                               i, given, members, members == 1 ? "" : "s", fmt::join(positions[i], ", ")),
                   members == 1 ? "give a single IPU for a stage"
                                : "give one IPU for the whole parallel block, or one per stage of it");
    }
  }
  for (const char* k :
       {"pipeline.forward_propagation_stages_poplar_options", "pipeline.backward_propagation_stages_poplar_options"}) {
    const auto& list = std::string(k).find("forward") != std::string::npos ? p.forward_memory : p.backward_memory;
    if (!list.empty() && static_cast<int64_t>(list.size()) != stages) {
      keys.fail_at(k, fmt::format("`{}` has {} entries but the model has {} stages", k, list.size(), stages),
                   "give one options table per stage (`{}` for none)");
    }
  }
  const auto& mask = settings.plain.pipeline_outfeed_mask;
  if (last_stage_outputs >= 0 && !mask.empty() && static_cast<int64_t>(mask.size()) != last_stage_outputs) {
    keys.fail_at("pipeline.outfeed_mask",
                 fmt::format("`pipeline.outfeed_mask` has {} flags but the last stage has {} outputs", mask.size(),
                             last_stage_outputs),
                 "give one flag per output (true = not outfed)");
  }
}

}  // namespace

PipelineShape check_layout(const std::vector<std::vector<std::string>>& positions, int64_t last_stage_outputs,
                           bool training, const Settings& settings) {
  check_lists(positions, last_stage_outputs, settings);
  const PipelineSettings& p = settings.pipeline;
  const KeyLocations& keys = settings.keys;
  const pipeline_schedules::ScheduleDef* asked = pipeline_schedules::find_schedule(settings.plain.pipeline_schedule);
  if (asked == nullptr) {  // a Config built in code (the loader admits the table's names only)
    keys.fail_at("pipeline.schedule",
                 fmt::format("no pipeline schedule is named \"{}\"", settings.plain.pipeline_schedule),
                 fmt::format("name one of: {}", fmt::join(pipeline_schedules::schedule_names(), ", ")));
  }
  const pipeline_schedules::ScheduleDef& def = *asked;
  const int64_t stages = std::max<int64_t>(1, static_cast<int64_t>(positions.size()));
  const int64_t ipus = settings.ipu.count;
  PipelineShape shape;
  shape.stages = stages;
  shape.ipus_per_replica = pipeline_schedules::replica_ipus(
      settings.plain.pipeline_device_mapping, settings.plain.pipeline_batch_serialization_iterations, ipus, stages);
  pipeline_schedules::fail_on(
      keys, pipeline_schedules::replicas_breach(shape.ipus_per_replica, ipus, keys.is_set("ipu.select_ipus"),
                                                settings.plain.pipeline_device_mapping.empty()
                                                    ? fmt::format("the model's {} stages (one IPU each)", stages)
                                                    : "`pipeline.device_mapping`"));
  shape.replicas = ipus / shape.ipus_per_replica;
  pipeline_schedules::fail_on(keys, pipeline_schedules::sharing_breach(def, settings.plain.pipeline_device_mapping));
  if (training && def.one_position_per_ipu && stages > shape.ipus_per_replica) {  // every stage on one IPU
    pipeline_schedules::fail_on(
        keys, pipeline_schedules::LayoutBreach{
                  {"pipeline.schedule", "ipu.auto_select_ipus", "ipu.select_ipus"},
                  fmt::format("the {} schedule cannot train the model's {} stages on {} IPU per replica", def.name,
                              stages, shape.ipus_per_replica),
                  "give each stage its own IPU (`ipu.auto_select_ipus`), or use `pipeline.schedule = \"grouped\"`"});
  }
  // Pipelined when a replica spans several IPUs, or when a schedule or a mapping is asked for;
  // otherwise the micro-batches of an update run one after another, one per update unless
  // `pipeline.gradient_accumulation_count` says more.
  shape.pipelined = p.pipelined || shape.ipus_per_replica > 1;
  const int64_t count = settings.plain.pipeline_gradient_accumulation_count;
  if (shape.pipelined) {
    pipeline_schedules::fail_on(
        keys, pipeline_schedules::accumulation_breach(def, count, stages, shape.ipus_per_replica, training));
  }
  shape.gradient_accumulation_count = count > 0 ? count
                                                : (shape.pipelined ? pipeline_schedules::min_gradient_accumulation(
                                                                         def, stages, shape.ipus_per_replica, training)
                                                                   : 1);
  // Without pipelining the stages of one micro-batch simply run one after another.
  shape.schedule = shape.pipelined ? def.kind : pipeline_schedules::unpipelined_schedule().kind;
  return shape;
}

}  // namespace iputrain::planner
