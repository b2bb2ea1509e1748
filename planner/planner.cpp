// The pass list: a table of passes (name, what each reads and writes, its function) that make_plan
// walks; run_pass() times each one, verifies the IR after it and dumps the plan when asked
// (`--dump-after=PASS`). `iputrain plan --explain-passes` prints the table.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "core/optim_table.hpp"
#include "planner/auto_stage.hpp"
#include "planner/autodiff.hpp"
#include "planner/buffer_assignment.hpp"
#include "planner/collectives.hpp"
#include "planner/deadline.hpp"
#include "planner/fusion.hpp"
#include "planner/host_tables.hpp"
#include "planner/lowering.hpp"
#include "planner/memory_model.hpp"
#include "planner/op_order.hpp"
#include "planner/op_temporaries.hpp"
#include "planner/placement.hpp"
#include "planner/plan.hpp"
#include "planner/program.hpp"
#include "planner/recurrent_states.hpp"
#include "planner/simulate.hpp"

namespace iputrain::planner {

namespace {

std::string programs_str(const Plan& plan) {
  std::string out;
  for (size_t ipu = 0; ipu < plan.programs.ipus.size(); ++ipu) {
    out += fmt::format("ipu {}:", ipu);
    for (const Instr& in : plan.programs.ipus[ipu]) {
      out += fmt::format(" {};", in.str(plan.programs));
    }
    out += "\n";
  }
  return out;
}

std::string placement_str(const Plan& plan) {
  const Placement& pl = plan.placement;
  std::string out = fmt::format("replicas {} x {} IPUs\n", pl.replicas, pl.pipeline.ipus_per_replica);
  for (size_t s = 0; s < plan.graph.stages.size(); ++s) {
    out += fmt::format("stage {} '{}' -> ipu {}\n", s, plan.graph.stages[s].name, pl.pipeline.stage_ipu[s]);
  }
  for (size_t r = 0; r < pl.physical.size(); ++r) {
    out += fmt::format("replica {} -> physical [{}]\n", r, fmt::join(pl.physical[r], ", "));
  }
  return out;
}

// Every life of every IPU's arena: value, micro-batch, instructions, ticks, offset and size.
std::string arenas_str(const Plan& plan) {
  std::string out;
  for (size_t ipu = 0; ipu < plan.programs.arenas.size(); ++ipu) {
    const Arena& arena = plan.programs.arenas[ipu];
    out += fmt::format("ipu {}: arena {} bytes\n", ipu, arena.bytes);
    const ArenaFold& fold = arena.fold;
    if (fold.block > 0) {
      // The lives are those of the walked program, whose instructions past the split are the
      // program's own `copies` blocks later.
      out += fmt::format("  folded: {} blocks of {} instructions ({} micro-batches each) repeat the block before "
                         "instruction {}; instructions below are the walked program's\n",
                         fold.copies, fold.block, fold.micro_batches, fold.split);
    }
    const auto& program = plan.programs.ipus[ipu];
    auto instr = [&](int32_t pos) {
      return fold.block > 0 ? fmt::format("#{}", pos) : program[static_cast<size_t>(pos)].str(plan.programs);
    };
    for (const Life& life : arena.lives) {
      out += fmt::format("  %{} {} m{} [{} .. {}] ticks [{} .. {}] at {} size {}\n", life.value,
                         ir::op_name(plan.graph.node(life.value).op), life.micro_batch, instr(life.first_instr),
                         instr(life.last_instr), life.first_tick, life.last_tick, life.offset, life.size);
    }
  }
  return out;
}

std::vector<ir::ValueId> output_roots(const ir::Graph& g) {
  std::vector<ir::ValueId> roots;
  if (g.loss != ir::kNoValue) {
    roots.push_back(g.loss);
  }
  for (const auto& o : g.outputs) {
    roots.push_back(o.value);
  }
  // A stateful layer's state_write sets the next micro-batch's start; nothing reads it.
  for (ir::ValueId w : state_writes(g)) {
    roots.push_back(w);
  }
  return roots;
}

int64_t last_stage_outputs(const ir::Graph& g) {
  int64_t n = 0;
  for (const auto& o : g.outputs) {
    n += g.node(o.value).stage == static_cast<int32_t>(g.stages.size()) - 1 ? 1 : 0;
  }
  return n;
}

// A trained or evaluated model is fed batches: it needs inputs, each leading with the same batch,
// which `data.batch_size` (when set) restates. Checked here, where the model is known, so that
// `check`, `plan` and `train` agree; node errors get the model's sources from the caller.
void check_inputs(const ir::Graph& g, const Settings& settings) {
  if (g.inputs.empty()) {
    throw Error(ErrorKind::Semantic, "the model has no `input`, so there is nothing to feed it", {},
                "declare its data with `input NAME: TYPE[batch, ...]`");
  }
  const auto& first = g.type(g.inputs.front()).shape;
  const int64_t batch = first.empty() ? 1 : first.front();
  for (ir::ValueId in : g.inputs) {
    const ir::Node& n = g.node(in);
    if (n.type.shape.empty() || n.type.shape.front() != batch) {
      throw Error(ErrorKind::Semantic,
                  fmt::format("input `{}` has type {}; every input must lead with the batch dimension {}", n.name,
                              n.type.str(), batch),
                  n.span, "give every input the batch as its first dimension");
    }
  }
  // The model is built at the batch the settings resolved: data.batch_size per slice.
  const int64_t slices = settings.plain.pipeline_batch_serialization_iterations;
  if (settings.model_batch != 0 && settings.model_batch != batch) {
    settings.keys.fail_at(
        "data.batch_size",
        fmt::format("data.batch_size is {} but the model's inputs have batch {}{}", settings.plain.data_batch_size,
                    batch, slices > 1 ? fmt::format(" (x {} slices)", slices) : std::string()),
        "give the model the same batch ([model] batch = ...) or remove data.batch_size");
  }
}

// The feeds' staging must fit the I/O tiles' data memory when it is placed there.
void check_io_tiles(const Plan& plan, const KeyLocations& keys) {
  for (size_t ipu = 0; ipu < plan.memory.size(); ++ipu) {
    const IpuMemory& m = plan.memory[ipu];
    if (!plan.decided.device.feeds_on_io_tiles || m.feed_staging <= m.io_tiles_capacity) {
      continue;
    }
    keys.fail_at("ipu.io_tiles.num_io_tiles",
                 fmt::format("the infeed and outfeed staging of IPU {} takes {} bytes, but its {} I/O tiles hold {} "
                             "bytes of data",
                             ipu, m.feed_staging, plan.decided.device.io_tiles, m.io_tiles_capacity),
                 "reserve more I/O tiles, raise `ipu.io_tiles.available_memory_proportion`, or keep the feeds on "
                 "the compute tiles (`place_ops_on_io_tiles = false`)");
  }
}

// `plan` running `program`: the schedule, lowering and buffer passes run on a copy, and its largest
// planned peak over a replica's IPUs.
std::pair<Plan, int64_t> trial_run(const Plan& plan, const std::vector<ir::ValueId>& program) {
  Plan trial = plan;
  const bool training = trial.decided.training;
  (training ? trial.train_program : trial.eval_program) = program;
  if (training) {
    trial.moving_statistics = moving_statistics(trial.graph, trial.train_program);
  }
  trial.timeline = make_timeline(trial.placement.pipeline, trial.decided.schedule, trial.decided.accumulation_count,
                                 training, trial.settings.plain.pipeline_batch_serialization_iterations);
  trial.programs = lower(trial);
  for (int32_t ipu = 0; ipu < static_cast<int32_t>(trial.programs.ipus.size()); ++ipu) {
    check_plan_deadline();
    trial.programs.arenas.push_back(assign_buffers(trial, ipu));
  }
  int64_t peak = 0;
  for (const IpuMemory& m : estimate_memory(trial)) {
    peak = std::max(peak, m.total_peak);
  }
  return {std::move(trial), peak};
}

// What every pass may read and change.
struct PassContext {
  Plan& plan;
  const Settings& settings;  // the config, resolved once (with its keys' locations)
  bool training = false;
  bool keep_unfit = false;  // PlanOptions::keep_unfit
};

// The frontend's graph must already be well-formed; checking here localises frontend bugs.
void verify_pass(PassContext&) {}

// `pipeline.auto_stages` replaces the model's stages by balanced ones before anything is placed; a
// model without declared stages has its segments marked for the gradient parts first.
void auto_stage_pass(PassContext& c) {
  const Settings& run = c.settings;
  if (c.training) {
    mark_segments(c.plan.graph);  // gradient parts per segment of a model without declared stages
  }
  if (run.plain.pipeline_auto_stages > 0) {
    // Each stage must hold its weights, one gradient accumulator and the optimizer's state;
    // activations depend on the schedule and are checked by the memory pass.
    if (!run.plain.pipeline_auto_stage_blocks.empty()) {
      try {
        auto_stage_blocks(c.plan.graph, run.plain.pipeline_auto_stage_blocks);
      } catch (const Error& e) {
        run.keys.fail_at("pipeline.auto_stage_blocks", e.diagnostic().message, e.hint(), ErrorKind::Plan);
      }
      return;
    }
    const bool offloaded = run.plain.pipeline_offload_weight_update_variables.value_or(false);
    const double per_weight_byte = 2.0 + (offloaded ? 0 : optimizer_state_per_weight(c.plan.graph, run.optimizer));
    auto_stage(c.plan.graph, static_cast<int32_t>(run.plain.pipeline_auto_stages), DeviceModel::from_keys(run.plain),
               per_weight_byte);
  }
}

// Stages to IPUs, replicas, physical IPU order; the config's pipeline keys checked against the
// model (layout_check.cpp).
void place_pass(PassContext& c) {
  Plan& plan = c.plan;
  check_inputs(plan.graph, c.settings);
  const PipelineShape shape =
      check_layout(position_names(plan.graph), last_stage_outputs(plan.graph), c.training, c.settings);
  plan.settings = c.settings;
  plan.decided = decide(c.settings, shape);
  plan.decided.training = c.training;
  if (!c.training) {
    // Nothing is updated: no optimizer state, no gradient buffers, no sharded or offloaded weights.
    plan.decided.recompute = Recomputation::Off;
    plan.decided.offload_optimizer_state = false;
    plan.decided.offload_accumulators = false;
    plan.settings.optimizer = OptimizerSettings{};  // sgd: no state
    plan.decided.shard_optimizer_state = false;
    plan.decided.shard_weights = false;
    plan.decided.offload_weights = false;
  }
  plan.placement = make_placement(plan.graph, c.settings, shape);
  const int64_t bn_group = c.settings.plain.ipu_norms_experimental_distributed_batch_norm_replica_group_size;
  if (bn_group > 1 && plan.placement.replicas % bn_group != 0) {
    // Said at the key, before the batch norms' own collectives would be refused inside the stdlib.
    c.settings.keys.fail_at("ipu.norms.experimental.distributed_batch_norm_replica_group_size",
                            fmt::format("batch-norm groups of {} replicas do not divide the plan's {} replicas",
                                        bn_group, plan.placement.replicas),
                            "give a divisor of the replicas (IPUs / IPUs per replica)");
  }
  check_collectives(plan.graph, plan.placement.replicas);
  check_recurrent_states(plan.graph, c.settings, plan.placement.replicas, c.training);
}

// Reverse-mode autodiff appends the backward graph; backward nodes keep their forward node's stage.
void autodiff_pass(PassContext& c) {
  if (c.training) {
    c.plan.grads = differentiate(c.plan.graph);
  }
  check_host_tables(c.plan);
}

// The programs keep only the nodes their results need (dead backward branches are dropped), each
// task's nodes in the order ipu.scheduling.algorithm picks (the fewest live bytes by default).
void programs_pass(PassContext& c) {
  Plan& plan = c.plan;
  plan.eval_program = live_program(plan.graph, output_roots(plan.graph));
  std::vector<ir::ValueId>* ordered = &plan.eval_program;
  if (c.training) {
    std::vector<ir::ValueId> roots = output_roots(plan.graph);
    for (const GradParts& parts : plan.grads) {
      roots.insert(roots.end(), parts.begin(), parts.end());
    }
    plan.train_program = live_program(plan.graph, roots);
    ordered = &plan.train_program;
  }
  const Settings& run = c.settings;
  const auto temporary = [&](ir::ValueId id) {
    const ir::Node& n = plan.graph.node(id);
    return op_temporaries(plan.graph, id, plan.limits(n.stage, n.phase), plan.decided.device).bytes;
  };
  const std::vector<ir::ValueId> written = *ordered;
  *ordered = order_ops(plan.graph, written,
                       {run.plain.ipu_scheduling_algorithm, run.plain.ipu_scheduling_maximum_scheduler_lookahead_depth,
                        run.plain.ipu_scheduling_maximum_scheduler_search_space_size, temporary});
  // The choice is made on an estimate of each task's live bytes, which the arena's packing can
  // belie: choose_best plans both orders and keeps the written one unless the other really
  // packs smaller. The winner's schedule, programs and arenas are kept (the passes below skip).
  if (run.plain.ipu_scheduling_algorithm == SchedulerAlgorithm::ChooseBest && *ordered != written) {
    auto [chosen, chosen_peak] = trial_run(plan, *ordered);
    auto [kept, kept_peak] = trial_run(plan, written);
    Plan& win = chosen_peak < kept_peak ? chosen : kept;
    *ordered = std::move(c.training ? win.train_program : win.eval_program);
    plan.timeline = std::move(win.timeline);
    plan.programs = std::move(win.programs);
  }
  if (c.training) {
    plan.moving_statistics = moving_statistics(plan.graph, plan.train_program);
  }
}

// Which stage runs which micro-batch at which timestep, under the configured schedule.
void schedule_pass(PassContext& c) {
  Plan& plan = c.plan;
  if (plan.timeline.steps.empty()) {
    plan.timeline = make_timeline(plan.placement.pipeline, plan.decided.schedule, plan.decided.accumulation_count,
                                  c.training, plan.settings.plain.pipeline_batch_serialization_iterations);
  }
}

// The timeline as per-IPU instruction lists, with messages, buffers and reduction buckets.
void lower_pass(PassContext& c) {
  if (c.plan.programs.ipus.empty()) {
    c.plan.programs = lower(c.plan);
  }
}

// Which consecutive kernels of each task run as one fused kernel: pairs the op table's flags allow
// (op_flags::fuse_bias_head, fuse_relu_tail) where the graph and the task's order do (fusion.hpp).
void fuse_pass(PassContext& c) { fuse_kernels(c.plan); }

// Where each value lives on its IPU: lives by liveness, packed into one arena per IPU.
void buffers_pass(PassContext& c) {
  Plan& plan = c.plan;
  if (plan.programs.arenas.empty()) {
    for (int32_t ipu = 0; ipu < static_cast<int32_t>(plan.programs.ipus.size()); ++ipu) {
      check_plan_deadline();
      plan.programs.arenas.push_back(assign_buffers(plan, ipu));
    }
  }
}

// Bytes per IPU at every timestep; a plan that does not fit stops here with suggestions.
void memory_pass(PassContext& c) {
  c.plan.memory = estimate_memory(c.plan);
  check_io_tiles(c.plan, c.settings.keys);
  try {
    check_fits(c.plan);
  } catch (const Error& e) {
    if (!c.keep_unfit) {
      throw;
    }
    c.plan.unfit = e.diagnostic().message;
  }
}

// Simulated cycles of the whole plan: throughput, utilisation, bubble (none for a plan kept unfit).
void cost_pass(PassContext& c) {
  if (c.plan.unfit.empty()) {
    c.plan.cost = simulate_plan(c.plan);
  }
}

struct PassDef {
  PassInfo info;
  void (*run)(PassContext&);
};

// The pass list, in the order the passes run: what each reads and writes of the plan.
const std::vector<PassDef>& pass_table() {
  static const std::vector<PassDef> table = {
      {{"verify", "graph", "-", "check the model's graph is well-formed"}, verify_pass},
      {{"auto-stage", "graph, settings", "graph.stages, nodes' model stages",
        "split the model into balanced stages (pipeline.auto_stages); a model without stages: its segments"},
       auto_stage_pass},
      {{"place", "graph, settings", "decided, settings, placement",
        "check the config against the model; stages to IPUs, replicas, physical IPUs"},
       place_pass},
      {{"autodiff", "graph", "graph, grads", "append the backward graph (training)"}, autodiff_pass},
      {{"programs", "graph, grads, settings", "train_program, eval_program, moving_statistics",
        "keep the live nodes, ordered per ipu.scheduling.algorithm"},
       programs_pass},
      {{"schedule", "placement, settings, decided", "timeline", "which stage runs which micro-batch at each timestep"},
       schedule_pass},
      {{"lower", "graph, programs, placement, timeline", "programs", "per-IPU instruction lists with messages"},
       lower_pass},
      {{"fuse", "graph, programs, grads, moving_statistics", "programs.stages' fusions",
        "pair each task's bias adds with the relus after them as one kernel, as the ops' flags allow"},
       fuse_pass},
      {{"buffers", "programs", "programs.arenas", "pack each IPU's values into one arena by liveness"}, buffers_pass},
      {{"memory", "programs, settings, decided", "memory",
        "bytes per IPU per timestep; refuse a plan that does not fit"},
       memory_pass},
      {{"cost", "programs, timeline, memory", "cost", "simulated cycles: throughput, utilisation, bubble"}, cost_pass},
  };
  return table;
}

// Runs one pass: times it, verifies the IR after it and dumps the plan when asked
// (`--dump-after=PASS`).
void run_pass(const PassDef& pass, PassContext& c, const PlanOptions& options) {
  Plan& plan = c.plan;
  const auto start = std::chrono::steady_clock::now();
  check_plan_deadline();  // `tune`'s budget ran out: the plan is no longer needed
  pass.run(c);
  const auto end = std::chrono::steady_clock::now();
  plan.timings.push_back({pass.info.name, std::chrono::duration<double, std::milli>(end - start).count()});
  plan.graph.verify();
  if (options.dumps == nullptr ||
      std::find(options.dump_after.begin(), options.dump_after.end(), pass.info.name) == options.dump_after.end()) {
    return;
  }
  const std::string& want = pass.info.name;
  const std::string what = want == "place"      ? placement_str(plan)
                           : want == "lower"    ? programs_str(plan)
                           : want == "buffers"  ? arenas_str(plan)
                           : want == "fuse"     ? fused_str(plan)
                           : want == "schedule" ? timeline_str(plan.placement.pipeline, plan.timeline)
                                                : plan.graph.str();
  for (const std::string& asked : options.dump_after) {
    if (asked == want) {
      *options.dumps += fmt::format("// after {}\n{}", want, what);
    }
  }
}

}  // namespace

const std::vector<PassInfo>& passes() {
  static const std::vector<PassInfo> infos = [] {
    std::vector<PassInfo> out;
    for (const PassDef& p : pass_table()) {
      out.push_back(p.info);
    }
    return out;
  }();
  return infos;
}

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const PassInfo& p : passes()) {
      out.push_back(p.name);
    }
    return out;
  }();
  return names;
}

Plan make_plan(const ir::Graph& forward, const Settings& settings, const PlanOptions& options) {
  Plan plan;
  plan.graph = forward;
  if (options.inference) {
    plan.graph.loss = ir::kNoValue;  // the forward program only: nothing is differentiated
  }
  if (!options.predict) {
    std::erase_if(plan.graph.outputs, [](const ir::Output& o) { return o.per_sample; });
  }
  const PlanDeadlineScope deadline(options.deadline);
  PassContext context{plan, settings, plan.graph.loss != ir::kNoValue, options.keep_unfit};
  for (const PassDef& pass : pass_table()) {
    run_pass(pass, context, options);
  }
  return plan;
}

}  // namespace iputrain::planner
