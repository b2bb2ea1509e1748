#include "planner/memory_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/optim_table.hpp"
#include "iputrain/error.hpp"
#include "planner/buffer_assignment.hpp"
#include "planner/host_tables.hpp"
#include "planner/liveness.hpp"
#include "planner/moving_statistics.hpp"
#include "planner/op_temporaries.hpp"
#include "planner/precision.hpp"
#include "planner/report/report.hpp"
#include "planner/sharding.hpp"

namespace iputrain::planner {

namespace {

// Everything the memory model derives for one IPU; IpuMemory is its summary, check_fits reads the rest.
struct IpuAnalysis {
  IpuMemory memory;
  std::shared_ptr<const Arena> owned;  // the arena, when the plan has none yet
  const Arena* arena = nullptr;        // the plan's, or owned
  int64_t live_peak = 0;   // most bytes of the arena in use at one tick
  int64_t peak_tick = -1;  // where that is (-1: nothing lives in the arena)
  int32_t peak_pos = -1;   // its instruction
  int32_t peak_step = -1;  // its timestep
  int32_t accumulator_depth = 0;
  int64_t tied_weights = 0;  // weights whose gradient has several parts (one accumulator each)
  int64_t weight_tensors = 0;
  int64_t gather_buffer = 0;  // weight sharding: the full weights of the task that reads the most
  std::string largest_value;  // name of the largest single value and its bytes
  int64_t largest_value_bytes = 0;

  bool live_at_peak(const Life& life) const { return life.first_tick <= peak_tick && peak_tick <= life.last_tick; }
  // Kept across instructions for one micro-batch (a stash, a message, a stage input).
  static bool carried(const Life& life) { return life.micro_batch >= 0 && life.first_instr != life.last_instr; }
};

std::string value_name(const ir::Graph& g, ir::ValueId v) {
  const ir::Node& n = g.node(v);
  if (!n.name.empty()) {
    return fmt::format("value '{}'", n.name);
  }
  return fmt::format("value %{} ({} of stage '{}')", v, ir::op_name(n.op), g.stages[static_cast<size_t>(n.stage)].name);
}

int64_t values_bytes(const ir::Graph& g, const std::vector<ir::ValueId>& values, DType compute) {
  int64_t bytes = 0;
  for (ir::ValueId v : values) {
    bytes += device_bytes(g, v, compute);
  }
  return bytes;
}


int32_t num_timesteps(const Plan& plan) {
  auto steps = static_cast<int32_t>(plan.timeline.timesteps());
  for (const auto& program : plan.programs.ipus) {
    for (const Instr& in : program) {
      steps = std::max(steps, in.timestep + 1);
    }
  }
  return steps;
}

// The IPU's weights, and its largest single buffer.
void weigh_buffers(const Plan& plan, const std::vector<Buffer>& buffers, IpuAnalysis& a) {
  const ir::Graph& g = plan.graph;
  const Settings& s = plan.settings;
  const PlanDecisions& d = plan.decided;
  const DType compute = d.device.compute;
  IpuMemory& mem = a.memory;
  for (const Buffer& b : buffers) {
    if (b.cls != BufferClass::Param) {
      mem.host_tables += b.bytes;  // a host table or its gradient: the host's memory (f32)
      continue;
    }
    const int64_t one = b.cls == BufferClass::Param
                            ? device_weight_bytes(g, b.value, compute, s.plain.training_master_weights)
                            : device_bytes(g, b.value, compute);
    if (b.cls == BufferClass::Param) {
      // Under weight sharding a trained weight keeps its block; the gather buffer is added below.
      mem.weights += resident_weight_bytes(plan, b.value) + statistic_sum_bytes(plan, b.value);
      mem.weights_offloaded += remote_weight_bytes(plan, b.value);
      ++a.weight_tensors;
      if (s.plain.training_master_weights == MasterWeightsPlace::Offloaded && is_half(compute)) {
        mem.weights_offloaded += static_cast<int64_t>(g.type(b.value).bytes());
      }
    }
    if (one > a.largest_value_bytes) {
      a.largest_value_bytes = one;
      a.largest_value = value_name(g, b.value);
    }
  }
}

// A host table's optimizer state and accumulators, in host memory, and what its lookup moves over
// the host link per micro-batch: the rows to the IPU and, when trained, their gradients back.
void weigh_host_table(const Plan& plan, size_t k, int32_t depth, IpuMemory& mem) {
  const ir::Graph& g = plan.graph;
  const Settings& s = plan.settings;
  const ir::ValueId p = g.params[k];
  const int64_t parts = k < plan.grads.size() ? static_cast<int64_t>(plan.grads[k].size()) : 0;
  if (plan.decided.training && parts > 0) {
    mem.host_tables += optimizer_state_bytes(1, state_floats_held(plan, p), state_dtype_of(s)) +
                       depth * parts * g.type(p).numel() * static_cast<int64_t>(dtype_size(accumulation_dtype(s)));
  }
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const int64_t bytes = host_link_bytes(plan, id);
    if (ir::op_has(g.node(id).op, ir::op_flags::row_gather) && g.node(id).inputs[0] == p) {
      mem.host_rows_in += static_cast<int64_t>(g.type(id).bytes());  // the rows (their ids go out too)
    } else if (bytes > 0 && parts > 0 &&
               std::find(plan.grads[k].begin(), plan.grads[k].end(), id) != plan.grads[k].end()) {
      mem.host_grads_out += bytes;
    }
  }
}

// Optimizer state and gradient accumulators, which shadow the trainable parameters only (not constants).
void weigh_state(const Plan& plan, size_t ipu, int32_t depth, IpuAnalysis& a) {
  const ir::Graph& g = plan.graph;
  const Settings& s = plan.settings;
  const PlanDecisions& d = plan.decided;
  IpuMemory& mem = a.memory;
  int64_t state_floats = 0;  // per replica: its blocks when sharded (planner/sharding.hpp)
  int64_t accumulated_elements = 0;
  for (size_t k = 0; k < g.params.size() && k < plan.placement.param_ipu.size(); ++k) {
    if (plan.placement.param_ipu[k] == static_cast<int32_t>(ipu) && is_host_table(g.node(g.params[k]))) {
      weigh_host_table(plan, k, depth, mem);
      continue;
    }
    if (plan.placement.param_ipu[k] != static_cast<int32_t>(ipu) || !ir::trainable(g.node(g.params[k]))) {
      continue;
    }
    state_floats += state_floats_held(plan, g.params[k]);
    if (k < plan.grads.size()) {
      // One accumulator (or tree of them) per gradient part: two for a weight tied across stages.
      accumulated_elements += g.type(g.params[k]).numel() * static_cast<int64_t>(plan.grads[k].size());
      a.tied_weights += plan.grads[k].size() > 1 ? 1 : 0;
    }
  }
  if (d.training) {
    // Sharded across replicas, each keeps (and updates) its block of every tensor's state.
    const int64_t state = optimizer_state_bytes(1, state_floats, state_dtype_of(s));
    (d.offload_optimizer_state ? mem.optimizer_state_offloaded : mem.optimizer_state) = state;
    a.accumulator_depth = depth;
    (d.offload_accumulators ? mem.accumulators_offloaded : mem.accumulators) =
        depth * accumulated_elements * static_cast<int64_t>(dtype_size(accumulation_dtype(s)));
  }
}

// Channels are buffered at the receiving end; the infeed keeps prefetch_depth micro-batches.
void weigh_io(const Plan& plan, size_t ipu, const std::vector<Instr>& program, IpuMemory& mem) {
  const ir::Graph& g = plan.graph;
  const Settings& s = plan.settings;
  const PlanDecisions& d = plan.decided;
  const DType compute = d.device.compute;
  for (const Channel& c : plan.programs.channels) {
    if (c.to == static_cast<int32_t>(ipu)) {
      mem.io_buffers += c.capacity * device_message_bytes(g, plan.programs, c, compute);
    }
  }
  int64_t infeed = 0;
  int64_t outfeed = 0;
  for (const Instr& in : program) {
    if (in.kind == InstrKind::Infeed) {
      infeed = std::max(infeed, values_bytes(g, in.values, compute));
    } else if (in.kind == InstrKind::Outfeed) {
      outfeed = std::max(outfeed, values_bytes(g, in.values, compute));
    }
  }
  mem.io_buffers += s.plain.data_prefetch_depth * infeed + outfeed;
  mem.feed_staging = s.plain.data_prefetch_depth * infeed + outfeed;
}

// The IPU's arena (the plan's, or assigned here when the plan has none yet) and its largest life.
void take_arena(const Plan& plan, size_t ipu, IpuAnalysis& a) {
  if (ipu < plan.programs.arenas.size()) {
    a.arena = &plan.programs.arenas[ipu];
  } else {
    a.owned = std::make_shared<const Arena>(assign_buffers(plan, static_cast<int32_t>(ipu)));
    a.arena = a.owned.get();
  }
  for (const Life& life : a.arena->lives) {
    if (life.bytes > a.largest_value_bytes) {
      a.largest_value_bytes = life.bytes;
      a.largest_value = value_name(plan.graph, life.value);
    }
  }
}

// The bytes held at every timestep: the fixed kinds plus the arena bytes in use, the most during
// each timestep's instructions (planner/liveness.hpp's sweep of the arena), and where the peak is.
void timeline(const std::vector<Instr>& program, int32_t steps, int64_t fixed, IpuAnalysis& a) {
  const ArenaUse use = arena_use(*a.arena);
  std::vector<int64_t> during(static_cast<size_t>(steps), -1);
  std::vector<int64_t> after(static_cast<size_t>(steps), -1);
  for (size_t pos = 0; pos < program.size() && !use.rows.empty(); ++pos) {
    const int32_t t = program[pos].timestep;
    int32_t walked = -1;
    const ArenaUse::Row* at = use.at(static_cast<int32_t>(pos), &walked);
    if (at == nullptr) {
      continue;
    }
    const ArenaUse::Row& row = *at;
    if (row.most >= 0 && (row.most > a.live_peak || a.peak_tick < 0)) {
      a.live_peak = row.most;
      a.peak_tick = row.most_tick;
      a.peak_pos = walked;
      a.peak_step = t;
    }
    if (t >= 0 && t < steps) {
      during[static_cast<size_t>(t)] = std::max(during[static_cast<size_t>(t)], row.most);
      after[static_cast<size_t>(t)] = row.left;
    }
  }
  // A timestep in which this IPU has nothing to do holds what the one before it left.
  IpuMemory& mem = a.memory;
  mem.per_timestep.resize(static_cast<size_t>(steps));
  int64_t carried_over = 0;
  for (size_t t = 0; t < static_cast<size_t>(steps); ++t) {
    mem.per_timestep[t] = fixed + (during[t] >= 0 ? during[t] : carried_over);
    carried_over = after[t] >= 0 ? after[t] : carried_over;
  }
}

IpuAnalysis analyse(const Plan& plan, size_t ipu, int32_t depth, int32_t steps) {
  const PlanDecisions& d = plan.decided;
  IpuAnalysis a;
  IpuMemory& mem = a.memory;
  static const std::vector<Buffer> kNone;
  static const std::vector<Instr> kEmpty;
  const std::vector<Instr>& program = ipu < plan.programs.ipus.size() ? plan.programs.ipus[ipu] : kEmpty;
  weigh_buffers(plan, ipu < plan.programs.buffers.size() ? plan.programs.buffers[ipu] : kNone, a);
  a.gather_buffer = gather_buffer_bytes(plan, static_cast<int32_t>(ipu));
  mem.weights += a.gather_buffer;
  weigh_state(plan, ipu, depth, a);
  weigh_io(plan, ipu, program, mem);
  take_arena(plan, ipu, a);
  const int64_t fixed = mem.weights + mem.optimizer_state + mem.accumulators + mem.io_buffers;
  timeline(program, steps, fixed, a);
  mem.activations_peak = a.arena->bytes;
  mem.activations_live = a.live_peak;
  mem.total_peak = fixed + a.arena->bytes;
  // The feeds' staging on I/O tiles takes nothing from the compute tiles; the total still counts
  // it (the bytes the IPU holds), so the compute tiles' capacity is raised by what it takes there.
  mem.io_tiles_capacity = d.device.io_memory_bytes();
  mem.capacity = d.device.memory_bytes() + (d.device.feeds_on_io_tiles ? mem.feed_staging : 0);
  return a;
}

struct Contributor {
  std::string what;
  int64_t bytes = 0;
};

// What one stage keeps across instructions at the IPU's peak (stashes, messages, its inputs).
struct Stashed {
  int64_t bytes = 0;
  std::set<int64_t> micro_batches;
  int64_t from_outside = 0;  // of the bytes, what arrived by Recv or Infeed
};

std::map<int32_t, Stashed> stashed_at_peak(const IpuAnalysis& a) {
  std::map<int32_t, Stashed> out;  // by the stage it is kept for
  for (const Life& life : a.arena->lives) {
    if (a.live_at_peak(life) && IpuAnalysis::carried(life)) {
      Stashed& s = out[life.stage];
      s.bytes += life.size;
      s.micro_batches.insert(life.micro_batch);
      s.from_outside += life.from_outside ? life.size : 0;
    }
  }
  return out;
}

// What the IPU holds at its peak: the fixed kinds, then the arena at its busiest tick by what its
// lives are (kept for a stage across instructions, inside the running task, constants) and the
// free space the allocator could not use there.
std::vector<Contributor> contributors(const Plan& plan, const IpuAnalysis& a) {
  const IpuMemory& m = a.memory;
  std::vector<Contributor> out;
  out.push_back({fmt::format("weights ({} tensor{}{})", a.weight_tensors, a.weight_tensors == 1 ? "" : "s",
                             weights_sharded(plan)
                                 ? fmt::format("; 1/{} of each trained one per replica and a {} gather buffer",
                                               plan.placement.replicas, human_bytes(a.gather_buffer))
                                 : ""),
                 m.weights});
  const int32_t slots = optimizer_state_slots(plan.settings.optimizer);
  out.push_back({fmt::format("optimizer state ({}, {}{})",
                             optimizer_def(plan.settings.optimizer).shardable
                                 ? fmt::format("{} cop{} of the weights", slots, slots == 1 ? "y" : "ies")
                                 : fmt::format("{}'s state by each weight's shape", plan.settings.optimizer.type),
                             dtype_name(state_dtype_of(plan.settings)),
                             state_sharded(plan) ? fmt::format(", 1/{} per replica", plan.placement.replicas) : ""),
                 m.optimizer_state});
  out.push_back({fmt::format("gradient accumulators ({} per weight, {}, {} order{})", a.accumulator_depth,
                             dtype_name(accumulation_dtype(plan.settings)),
                             accumulation_order_name(plan.settings.plain.pipeline_gradient_accumulation_order),
                             a.tied_weights > 0 ? fmt::format("; one per reading stage for {} tied weight{}",
                                                              a.tied_weights, a.tied_weights == 1 ? "" : "s")
                                                : ""),
                 m.accumulators});
  out.push_back({"I/O buffers (links, infeed, outfeed)", m.io_buffers});
  int64_t in_task = 0;
  int64_t constants = 0;
  int64_t temporaries = 0;
  int64_t working = 0;  // what other ops declare they hold while they run: loop bodies, registered ops
  for (const Life& life : a.arena->lives) {
    if (a.live_at_peak(life) && !IpuAnalysis::carried(life)) {
      const bool limited = life.temporary && has_temporaries(plan.graph.node(life.value).op);
      (limited ? temporaries : life.temporary ? working : life.micro_batch < 0 ? constants : in_task) += life.size;
    }
  }
  out.push_back({"values of the running task", in_task});
  out.push_back({"matmul and convolution temporaries (availableMemoryProportion)", temporaries});
  out.push_back({"working memory of the running op (a loop's body, a registered op's scratch)", working});
  out.push_back({"constants", constants});
  out.push_back({"free arena space at the peak (fragmentation)", a.arena->bytes - a.live_peak});
  for (const auto& [stage, kept] : stashed_at_peak(a)) {
    const auto count = kept.micro_batches.size();
    out.push_back({fmt::format("activations of {} micro-batch{} of stage '{}'", count, count == 1 ? "" : "es",
                               plan.graph.stages[static_cast<size_t>(stage)].name),
                   kept.bytes});
  }
  std::stable_sort(out.begin(), out.end(), [](const Contributor& x, const Contributor& y) { return x.bytes > y.bytes; });
  out.erase(std::remove_if(out.begin(), out.end(), [](const Contributor& c) { return c.bytes == 0; }), out.end());
  return out;
}

}  // namespace

int32_t accumulator_buffers(const Plan& plan, GradientAccumulationOrder order) {
  const int64_t a = plan.decided.accumulation_count;
  const int32_t replicas = plan.placement.replicas;
  // One micro-batch, one replica: the optimizer reads the gradient itself, nothing accumulates.
  if (!plan.decided.training || (a <= 1 && replicas <= 1)) {
    return 0;
  }
  if (order == GradientAccumulationOrder::Sequential) {
    return 1;
  }
  int32_t depth = 0;
  for (int32_t r = 0; r < replicas; ++r) {
    depth = std::max(depth, tree_stack_depth(static_cast<int64_t>(r) * a, a));
  }
  return depth;
}

int32_t accumulator_buffers(const Plan& plan) {
  return accumulator_buffers(plan, plan.settings.plain.pipeline_gradient_accumulation_order);
}

int64_t state_floats_held(const Plan& plan, ir::ValueId p) {
  const Shape& shape = plan.graph.type(p).shape;
  const int64_t floats = optimizer_state_floats(plan.settings.optimizer, shape);
  const int64_t n = numel(shape);
  if (!state_sharded(plan) || n == 0) {
    return floats;
  }
  // Sharded state is element-wise (the config rules refuse the rest): copies of the weight.
  return floats / n * shard_capacity(n, plan.placement.replicas);
}

double optimizer_state_per_weight(const ir::Graph& g, const OptimizerSettings& o) {
  int64_t floats = 0;
  int64_t elements = 0;
  for (ir::ValueId p : g.params) {
    floats += optimizer_state_floats(o, g.type(p).shape);
    elements += g.type(p).numel();
  }
  return elements > 0 ? static_cast<double>(floats) / static_cast<double>(elements)
                      : static_cast<double>(optimizer_state_slots(o));
}

std::vector<IpuMemory> estimate_memory(const Plan& plan) {
  const int32_t depth = accumulator_buffers(plan);
  const int32_t steps = num_timesteps(plan);
  std::vector<IpuMemory> out;
  const auto ipus = static_cast<size_t>(plan.placement.pipeline.ipus_per_replica);
  for (size_t ipu = 0; ipu < ipus; ++ipu) {
    IpuAnalysis a = analyse(plan, ipu, depth, steps);
    for (const Contributor& c : contributors(plan, a)) {
      if (a.memory.contributors.size() < 6) {
        a.memory.contributors.emplace_back(c.what, c.bytes);
      }
    }
    out.push_back(std::move(a.memory));
  }
  return out;
}

namespace {

std::string bytes_str(int64_t bytes) { return fmt::format("{} ({} bytes)", human_bytes(bytes), bytes); }

// Streaming memory for what does not change within a micro-batch: the weights (sharded across the
// replicas and offloaded, pipeline.offload_weights) and the gradient accumulators
// (pipeline.offload_gradient_accumulation_buffers) leave the IPU, and come back at the modelled
// streaming bandwidth (device.host_bandwidth): the weights for each micro-batch's forward and
// backward pass, the accumulators in and out once per micro-batch, the weights once more for the
// update. The time is what the cycle model charges such a plan (simulate.cpp, InstrCost::remote)
// before the replicas share the blocks. Empty when both already stream or nothing is there.
std::optional<std::pair<int64_t, std::string>> streaming_suggestion(const Plan& plan, const IpuMemory& m) {
  const PlanDecisions& d = plan.decided;
  const int64_t weights = d.offload_weights ? 0 : m.weights;
  const int64_t accumulators = d.offload_accumulators ? 0 : m.accumulators;
  if (!d.training || weights + accumulators == 0) {
    return std::nullopt;
  }
  const auto count = static_cast<double>(std::max<int64_t>(1, d.accumulation_count));
  const double streamed = count * (2.0 * static_cast<double>(weights) + 2.0 * static_cast<double>(accumulators)) +
                          2.0 * static_cast<double>(weights);
  const double seconds = streamed / d.device.host_bytes_per_second;
  std::vector<std::string> keys;
  if (weights > 0) {
    keys.emplace_back("pipeline.replicated_weight_sharding = true with pipeline.offload_weights = true");
  }
  if (accumulators > 0) {
    keys.emplace_back("pipeline.offload_gradient_accumulation_buffers = true");
  }
  // The replica without them, spread evenly: the IPUs it would still need.
  int64_t rest = 0;
  for (const IpuMemory& other : plan.memory) {
    rest +=
        other.total_peak - (d.offload_weights ? 0 : other.weights) - (d.offload_accumulators ? 0 : other.accumulators);
  }
  const int64_t cap = std::max<int64_t>(1, m.capacity);
  const int64_t ipus = (rest + cap - 1) / cap;
  const SystemSection& system = plan.placement.topology.system;
  return std::pair{
      m.total_peak - weights - accumulators,
      fmt::format("streaming memory ({}): the weights ({}) and gradient accumulators ({}) stream in and out of this "
                  "IPU at the modelled {:.0f} GB/s (device.host_bandwidth), {} per weight update ({} forward and "
                  "backward passes and the update), {:.2f} s per update; the replica would still hold {} without "
                  "them, at least {} IPUs of {} per replica ({} has {} IPUs)",
                  fmt::join(keys, " and "), human_bytes(weights), human_bytes(accumulators),
                  d.device.host_bytes_per_second / 1e9, human_bytes(static_cast<int64_t>(streamed)),
                  d.accumulation_count, seconds, human_bytes(rest), ipus, human_bytes(cap),
                  plan.placement.topology.preset, system.ipus())};
}

// A suggestion: the peak the change would give, and the advice.
using Suggestion = std::pair<int64_t, std::string>;

// The sequential accumulation order and the offloaded optimizer state, each freeing what it says.
void state_suggestions(const IpuAnalysis& a, std::vector<Suggestion>& found) {
  const IpuMemory& m = a.memory;
  if (a.accumulator_depth > 1) {
    // The sequential order sums into one buffer per weight; the bytes are buffers x elements.
    const int64_t one = m.accumulators / a.accumulator_depth;
    found.emplace_back(m.total_peak - m.accumulators + one,
                       fmt::format("pipeline.gradient_accumulation_order = \"sequential\" keeps 1 gradient accumulator "
                                   "per weight instead of {} ({} instead of {})",
                                   a.accumulator_depth, human_bytes(one), human_bytes(m.accumulators)));
  }
  if (m.optimizer_state > 0) {
    found.emplace_back(
        m.total_peak - m.optimizer_state,
        fmt::format("pipeline.offload_weight_update_variables = true keeps the optimizer state ({}) in host memory",
                    human_bytes(m.optimizer_state)));
  }
}

// Each other pipelined schedule that accepts this plan keeps, by its memory rule, in_flight()
// micro-batches at each position (interleaved P - p where grouped keeps up to 2P - 2p).
void schedule_suggestions(const Plan& plan, const IpuMemory& m, const std::map<int32_t, Stashed>& at_peak,
                          std::vector<Suggestion>& found) {
  const PlanDecisions& d = plan.decided;
  const Pipeline& pipe = plan.placement.pipeline;
  const bool one_stage_per_ipu = std::set<int32_t>(pipe.stage_ipu.begin(), pipe.stage_ipu.end()).size() ==
                                 pipe.stage_ipu.size();
  std::vector<int32_t> position_of(pipe.stage_ipu.size(), 0);
  for (size_t pos = 0; pos < pipe.positions.size(); ++pos) {
    for (int32_t st : pipe.positions[pos]) {
      position_of[static_cast<size_t>(st)] = static_cast<int32_t>(pos);
    }
  }
  const auto positions = static_cast<int64_t>(pipe.positions.size());
  for (const ScheduleDef* def : schedule_table()) {
    const AccumulationRule rule = def->accumulation(positions, pipe.ipus_per_replica, true);
    const int64_t count = d.accumulation_count;
    if (def->kind == d.schedule || def->unpipelined || (def->one_position_per_ipu && !one_stage_per_ipu) ||
        count < rule.minimum || count % rule.multiple != 0) {
      continue;
    }
    int64_t peak = m.total_peak;
    std::string counts;
    for (const auto& [stage, kept] : at_peak) {
      const auto now = static_cast<int64_t>(kept.micro_batches.size());
      const int64_t later = def->in_flight(pipe, position_of[static_cast<size_t>(stage)], count);
      peak += kept.bytes / now * later - kept.bytes;
      if (later < now) {
        counts += fmt::format("{}stage '{}' {} micro-batches instead of {}", counts.empty() ? "" : ", ",
                              plan.graph.stages[static_cast<size_t>(stage)].name, later, now);
      }
    }
    if (!counts.empty() && peak < m.total_peak) {
      found.emplace_back(peak, fmt::format("pipeline.schedule = \"{}\" stashes {}", def->name, counts));
    }
  }
}

// Recomputation keeps only what a stage received; its own activations come back one micro-batch
// at a time.
void recompute_suggestion(const IpuMemory& m, const std::map<int32_t, Stashed>& at_peak,
                          std::vector<Suggestion>& found) {
  int64_t stashed = 0;
  int64_t inputs = 0;
  for (const auto& [stage, kept] : at_peak) {
    stashed += kept.bytes;
    inputs += kept.from_outside;
  }
  if (stashed <= inputs) {
    return;
  }
  int64_t one_micro_batch = 0;
  for (const auto& [stage, kept] : at_peak) {
    one_micro_batch =
        std::max(one_micro_batch, (kept.bytes - kept.from_outside) / static_cast<int64_t>(kept.micro_batches.size()));
  }
  found.emplace_back(m.total_peak - stashed + inputs + one_micro_batch,
                     fmt::format("ipu.allow_recompute = true stashes only the stages' inputs ({} instead of {})",
                                 human_bytes(inputs), human_bytes(stashed)));
}

// Activations and I/O scale with the micro-batch; weights, optimizer state and accumulators do not.
void batch_suggestion(const Plan& plan, const IpuMemory& m, std::vector<Suggestion>& found) {
  const int64_t cap = m.capacity;
  const int64_t batch = plan.micro_batch();
  const int64_t fixed = m.weights + m.optimizer_state + m.accumulators;
  const int64_t scaled = m.total_peak - fixed;
  if (batch > 1 && scaled > 0 && fixed < cap) {
    const auto smaller = static_cast<int64_t>(static_cast<double>(cap - fixed) / static_cast<double>(scaled) *
                                              static_cast<double>(batch));
    if (smaller >= 1 && smaller < batch) {
      found.emplace_back(fixed + scaled / batch * smaller,
                         fmt::format("a micro-batch of {} instead of {} (data.batch_size)", smaller, batch));
    }
  }
}

// More IPUs: a lower bound, as if the replica's bytes could be spread evenly.
std::string more_ipus(const Plan& plan, const IpuMemory& m) {
  const int64_t cap = m.capacity;
  int64_t replica_bytes = 0;
  for (const IpuMemory& other : plan.memory) {
    replica_bytes += other.total_peak;
  }
  replica_bytes = std::max(replica_bytes, m.total_peak);
  const int64_t ipus_needed = std::max<int64_t>(plan.placement.pipeline.ipus_per_replica + 1,
                                                (replica_bytes + cap - 1) / std::max<int64_t>(cap, 1));
  return fmt::format(
      "more stages on more IPUs: the replica holds {}, so at least {} IPUs of {} "
      "(pipeline.auto_stages = {}, or more stages in the model and pipeline.device_mapping)",
      human_bytes(replica_bytes), ipus_needed, human_bytes(cap), ipus_needed);
}

// What would bring one IPU under its capacity, each with the peak it would give. Estimates scale
// the figures of this plan (stashes by micro-batch counts, activations by batch size) instead of
// re-planning, so they are close but not exact.
std::vector<std::string> suggestions(const Plan& plan, const IpuAnalysis& a) {
  const IpuMemory& m = a.memory;
  const PlanDecisions& d = plan.decided;
  std::vector<Suggestion> found;  // (peak after the change, advice)
  state_suggestions(a, found);
  const std::map<int32_t, Stashed> at_peak = stashed_at_peak(a);
  if (d.training && d.pipelined && !at_peak.empty()) {
    schedule_suggestions(plan, m, at_peak, found);
  }
  if (d.training && d.recompute == Recomputation::Off) {
    recompute_suggestion(m, at_peak, found);
  }
  batch_suggestion(plan, m, found);
  if (auto streaming = streaming_suggestion(plan, m)) {
    found.push_back(std::move(*streaming));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [peak, advice] : found) {
    out.push_back(fmt::format("{}: peak about {}{}", advice, human_bytes(peak), peak <= m.capacity ? " (fits)" : ""));
  }
  out.push_back(more_ipus(plan, m));
  return out;
}

}  // namespace

void check_fits(const Plan& plan) {
  const std::vector<IpuMemory> memory = plan.memory.empty() ? estimate_memory(plan) : plan.memory;
  std::vector<size_t> over;
  for (size_t i = 0; i < memory.size(); ++i) {
    if (memory[i].total_peak > memory[i].capacity) {
      over.push_back(i);
    }
  }
  if (over.empty()) {
    return;
  }
  // Report the IPU that misses by the most; name the others.
  const size_t worst = *std::max_element(over.begin(), over.end(), [&](size_t x, size_t y) {
    return memory[x].total_peak - memory[x].capacity < memory[y].total_peak - memory[y].capacity;
  });
  const IpuAnalysis a = analyse(plan, worst, accumulator_buffers(plan), num_timesteps(plan));
  auto ipu_name = [&](size_t i) {
    const auto& phys = plan.placement.physical;
    if (!phys.empty() && i < phys[0].size()) {
      return fmt::format("IPU {} (physical IPU {} in replica 0)", i, phys[0][i]);
    }
    return fmt::format("IPU {}", i);
  };
  std::string message = fmt::format("the plan does not fit in memory: {} needs {} at its peak{} but holds {}",
                                    ipu_name(worst), bytes_str(a.memory.total_peak),
                                    a.peak_step >= 0 ? fmt::format(" (timestep {})", a.peak_step) : "",
                                    bytes_str(a.memory.capacity));
  message += "\n  largest contributors:";
  const std::vector<Contributor> top = contributors(plan, a);
  for (size_t k = 0; k < top.size() && k < 5; ++k) {
    message += fmt::format("\n    {:>11}  {}", human_bytes(top[k].bytes), top[k].what);
  }
  if (!a.largest_value.empty()) {
    message += fmt::format("\n  largest single value: {} ({})", a.largest_value, human_bytes(a.largest_value_bytes));
  }
  if (over.size() > 1) {
    std::string others;
    for (size_t i : over) {
      if (i != worst) {
        others += fmt::format("{}{} needs {}", others.empty() ? "" : "; ", ipu_name(i), human_bytes(memory[i].total_peak));
      }
    }
    message += "\n  also over capacity: " + others;
  }
  std::string hint = "what would help, smallest estimated peak first:";
  for (const std::string& s : suggestions(plan, a)) {
    hint += "\n  - " + s;
  }
  throw Error(ErrorKind::Plan, message, {}, hint);
}

}  // namespace iputrain::planner
