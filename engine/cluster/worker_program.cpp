// Program compilation for the Worker: the IPU's instruction list resolved into direct pointers
// (its tasks, mailboxes, copies, accumulator leaves and outfeed values), so that running a cycle
// neither allocates nor looks anything up.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "engine/cluster/worker.hpp"
#include "iputrain/error.hpp"
#include "planner/memory_model.hpp"
#include "planner/sharding.hpp"
#include "planner/simulate.hpp"

namespace iputrain::engine {

using planner::InstrKind;

namespace {

// The live copy of gradient part `grad` at instruction `pos`, if the buffer assignment says it goes
// into its accumulator as it is made (right after its kernel, in the backward task); any other is
// added by its Accumulate.
const planner::Life* to_accumulator(const planner::Arena& arena, ir::ValueId grad, int64_t m, int32_t pos) {
  const int32_t life = arena.find(grad, m, pos);
  return life >= 0 && arena.lives[static_cast<size_t>(life)].to_accumulator ? &arena.lives[static_cast<size_t>(life)]
                                                                            : nullptr;
}

// Enqueued values no Outfeed instruction carries (the loss under pipeline.outfeed_loss when it is
// not a model output): taken right after the forward task that computes them.
std::vector<ir::ValueId> uncovered_values(const HostOutfeed& outfeed, const planner::DevicePrograms& dp) {
  std::vector<ir::ValueId> uncovered = outfeed.spec().values;
  for (const auto& prog : dp.ipus) {
    for (const planner::Instr& in : prog) {
      if (in.kind != InstrKind::Outfeed) {
        continue;
      }
      for (ir::ValueId v : in.values) {
        uncovered.erase(std::remove(uncovered.begin(), uncovered.end(), v), uncovered.end());
      }
    }
  }
  return uncovered;
}

// Every output of the graph whose value is v, in order.
std::vector<int32_t> output_indices(const ir::Graph& g, ir::ValueId v) {
  std::vector<int32_t> out;
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (g.outputs[k].value == v) {
      out.push_back(static_cast<int32_t>(k));
    }
  }
  return out;
}

int32_t output_index(const ir::Graph& g, ir::ValueId v) {
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (g.outputs[k].value == v) {
      return static_cast<int32_t>(k);
    }
  }
  return -1;
}

}  // namespace

// What compiling one instruction needs besides the instruction.
struct Worker::ProgramContext {
  const std::map<ir::ValueId, ir::Tensor>& substitutes;
  std::vector<ir::ValueId> uncovered;                   // uncovered_values()
  std::vector<WeightUpdate::Accumulator> accumulators;  // where the gradient parts accumulate
  std::vector<WeightUpdate::StatisticTree> statistics;  // the moving statistics this IPU holds
  std::vector<int64_t> statistic_leaves;                // per moving statistic: the forward tasks that push it
};

void Worker::build_ops(const std::map<ir::ValueId, ir::Tensor>& substitutes) {
  const planner::DevicePrograms& dp = plan_.programs;
  const auto& program = dp.ipus[static_cast<size_t>(ipu_)];
  if (memory_.arena().instructions() != program.size()) {
    throw Error(ErrorKind::Internal, fmt::format("IPU {}'s arena was assigned for another program", ipu_));
  }
  const MemoryDeltas deltas = arena_deltas(memory_.arena(), program.size());
  ProgramContext ctx{
      substitutes, uncovered_values(*shared_.outfeed, dp), update_.accumulators(), update_.statistics(), {}};
  ctx.statistic_leaves.assign(ctx.statistics.size(), 0);
  ops_.reserve(program.size());
  for (size_t i = 0; i < program.size(); ++i) {
    const planner::Instr& in = program[i];
    Op op;
    op.instr = &in;
    op.kind = in.kind;
    op.m = in.micro_batch;
    op.cycles = planner::instr_cycles(plan_, in);
    op.acquire = deltas.acquire[i];
    op.release = deltas.release[i];
    op.top = deltas.top[i];
    build_op(op, static_cast<int32_t>(i), ctx);
    ops_.push_back(std::move(op));
  }
  for (size_t k = 0; k < ctx.statistics.size(); ++k) {
    if (ctx.statistic_leaves[k] != shared_.micro_batches) {
      throw Error(
          ErrorKind::Internal,
          fmt::format("IPU {} holds the moving statistic '{}' but computes it for {} of {} micro-batches", ipu_,
                      plan_.graph.node(ctx.statistics[k].state).name, ctx.statistic_leaves[k], shared_.micro_batches));
    }
  }
}

void Worker::build_op(Op& op, int32_t pos, ProgramContext& ctx) {
  const ir::Graph& g = plan_.graph;
  const planner::Instr& in = *op.instr;
  switch (in.kind) {
    case InstrKind::Forward:
    case InstrKind::Recompute:
    case InstrKind::Backward:
    case InstrKind::BackwardWeights:
      build_task(op, pos, ctx);
      break;
    case InstrKind::Send:
    case InstrKind::Recv:
      build_transfer(op, pos);
      break;
    case InstrKind::Infeed:
      if (infeed_inputs_.empty()) {
        infeed_inputs_ = in.values;
      } else if (infeed_inputs_ != in.values) {
        throw Error(ErrorKind::Internal, fmt::format("IPU {} infeeds different inputs in one cycle", ipu_));
      }
      for (size_t k = 0; k < in.values.size(); ++k) {
        const ir::Tensor t = memory_.tensor(in.values[k], op.m, pos);
        op.copies.push_back({static_cast<std::byte*>(t.data), t.type->bytes(), k});
      }
      break;
    case InstrKind::Outfeed: {
      // Several outputs may name one value (`output y = x`, `output z = identity(x)`): each output
      // and each queue entry of the value gets an item of its own.
      std::vector<ir::ValueId> seen;
      for (ir::ValueId v : in.values) {
        if (std::find(seen.begin(), seen.end(), v) != seen.end()) {
          continue;
        }
        seen.push_back(v);
        const ir::Tensor t = memory_.tensor(v, op.m, pos);
        const std::vector<int32_t> outputs = output_indices(g, v);
        const std::vector<int32_t> queues = shared_.outfeed->indices_of(v);
        for (size_t j = 0; j < std::max(outputs.size(), queues.size()); ++j) {
          op.outs.push_back({t, j < outputs.size() ? outputs[j] : -1, j < queues.size() ? queues[j] : -1});
        }
      }
      break;
    }
    case InstrKind::Accumulate:
      build_accumulate(op, pos, ctx);
      break;
    case InstrKind::ReduceReplicas:
    case InstrKind::UpdateWeights:
      break;
  }
}

void Worker::build_task(Op& op, int32_t pos, ProgramContext& ctx) {
  const ir::Graph& g = plan_.graph;
  const planner::Instr& in = *op.instr;
  const auto& nodes = plan_.programs.stages.at(static_cast<size_t>(in.stage)).nodes(in.kind);
  const int64_t leaf = static_cast<int64_t>(replica_) * shared_.micro_batches + op.m;
  std::vector<GradPush> pushes;
  if (in.kind == InstrKind::Forward) {
    // A moving statistic joins its tree as soon as its micro-batch's forward has made it (a
    // Recompute makes the same bits again and pushes nothing).
    for (size_t k = 0; k < ctx.statistics.size(); ++k) {
      const WeightUpdate::StatisticTree& st = ctx.statistics[k];
      if (std::find(nodes.begin(), nodes.end(), st.statistic) != nodes.end()) {
        pushes.push_back({st.statistic, st.tree, leaf});
        ++ctx.statistic_leaves[k];
      }
    }
  }
  if (planner::is_backward(in.kind)) {
    const planner::Arena& arena = memory_.arena();
    for (const WeightUpdate::Accumulator& a : ctx.accumulators) {
      const planner::Life* made = to_accumulator(arena, a.part, op.m, pos);
      if (made != nullptr && made->first_instr == arena.walked(pos).instr) {
        pushes.push_back({a.part, a.tree, leaf});
      } else if (a.host && std::find(nodes.begin(), nodes.end(), a.part) != nodes.end()) {
        // A host table's gradient, scattered by the host into its one buffer there: it joins the
        // tree before the next micro-batch's scatter writes the buffer again.
        pushes.push_back({a.part, a.tree, leaf});
      }
    }
  }
  std::vector<StateSink> sinks;
  if (in.kind == InstrKind::Forward) {
    // A stateful layer's final states become the next micro-batch's start (a Recompute makes no
    // state_write: stateful nodes are never recomputed).
    for (ir::ValueId v : nodes) {
      if (op_has(g.node(v).op, ir::op_flags::state_write)) {
        const ir::ValueId state = g.node(v).inputs[1];
        const auto copy = ctx.substitutes.find(state);
        sinks.push_back({v, memory_.tensor(state).f32(), copy != ctx.substitutes.end() ? copy->second.f32() : nullptr});
      }
    }
  }
  const auto& fused = plan_.programs.stages.at(static_cast<size_t>(in.stage)).fused(in.kind);
  tasks_.push_back(std::make_unique<TaskProgram>(g, nodes, memory_, op.m, pos, ctx.substitutes, pushes, sinks, fused));
  op.task = tasks_.back().get();
  if (in.kind != InstrKind::Forward) {
    return;
  }
  for (ir::ValueId v : ctx.uncovered) {
    if (!memory_.has(v) || g.node(v).stage != in.stage) {
      continue;
    }
    if (v != g.loss && output_index(g, v) < 0) {
      throw Error(ErrorKind::Internal, fmt::format("value %{} is taken by the outfeed outside an Outfeed", v));
    }
    op.outs.push_back({memory_.tensor(v, op.m, pos), -1, shared_.outfeed->index_of(v)});
  }
}

void Worker::build_transfer(Op& op, int32_t pos) {
  const planner::Instr& in = *op.instr;
  const planner::Message& msg = plan_.programs.messages.at(static_cast<size_t>(in.message));
  op.mailbox = &shared_.mailbox(replica_, msg.from, msg.to);
  size_t offset = 0;
  for (ir::ValueId v : msg.values) {
    const ir::Tensor t = memory_.tensor(v, op.m, pos);
    op.copies.push_back({static_cast<std::byte*>(t.data), t.type->bytes(), offset});
    offset += t.type->bytes();
  }
  if (static_cast<int64_t>(offset) > op.mailbox->slot_bytes()) {
    throw Error(ErrorKind::Internal, fmt::format("message #{} ({} bytes) exceeds its channel's {} bytes", in.message,
                                                 offset, op.mailbox->slot_bytes()));
  }
}

void Worker::build_accumulate(Op& op, int32_t pos, const ProgramContext& ctx) {
  const ir::Graph& g = plan_.graph;
  const planner::Instr& in = *op.instr;
  for (ir::ValueId p : in.values) {
    for (const WeightUpdate::Accumulator& a : ctx.accumulators) {
      if (a.param == p && g.node(a.part).stage == in.stage && !a.host &&
          to_accumulator(memory_.arena(), a.part, op.m, pos) == nullptr) {
        op.leaves.push_back({a.tree, memory_.tensor(a.part, op.m, pos).f32()});
      }
    }
  }
}

void Worker::build_gathers() {
  if (!shared_.shard_weights) {
    return;
  }
  for (Op& op : ops_) {
    if (!planner::is_task(op.kind)) {
      continue;
    }
    for (ir::ValueId p : planner::task_weights(plan_, op.instr->stage, op.kind)) {
      if (const std::optional<size_t> k = update_.find(p)) {
        op.gathers.push_back(*k);
      }
    }
  }
}

}  // namespace iputrain::engine
