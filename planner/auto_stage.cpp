#include "planner/auto_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "iputrain/error.hpp"
#include "planner/blocks.hpp"
#include "planner/host_tables.hpp"
#include "planner/liveness.hpp"

namespace iputrain::planner {

namespace {

// The forward graph seen as a sequence of compute nodes (leaves excluded) in topological order,
// with the cost of each and, for every gap between two neighbours, whether the model may be cut
// there and how many bytes the cut would send to later stages.
struct Sequence {
  std::vector<ir::ValueId> nodes;
  std::vector<double> cost;         // per node: forward cycles, x3 when the backward pass runs it too
  std::vector<double> memory;       // per node: bytes of the parameters it is the first user of
  std::vector<int64_t> crossing;    // per cut k (between nodes k and k + 1): bytes of values crossing it
  std::vector<bool> cuttable;       // per cut k: no parameter has users on both sides
};

// Which nodes the backward pass differentiates (they depend on a parameter), as autodiff decides.
std::vector<bool> trained_nodes(const ir::Graph& g, const std::vector<ir::ValueId>& nodes) {
  std::vector<bool> trained(static_cast<size_t>(g.size()), false);
  for (ir::ValueId p : g.params) {
    trained[static_cast<size_t>(p)] = ir::trainable(g.node(p));
  }
  for (ir::ValueId id : nodes) {
    const ir::Node& node = g.node(id);
    for (ir::ValueId in : node.inputs) {
      trained[static_cast<size_t>(id)] =
          trained[static_cast<size_t>(id)] ||
          (trained[static_cast<size_t>(in)] && is_float(node.type.dtype) && ir::op_def(node.op).backward != nullptr);
    }
  }
  return trained;
}

// Per cut: the bytes of the values crossing it, and whether it keeps every parameter with all its
// users, from the values' lives over the sequence (planner/liveness.hpp).
void crossings(const ir::Graph& g, const Liveness& live, Sequence& seq) {
  const size_t cuts = seq.nodes.empty() ? 0 : seq.nodes.size() - 1;
  std::vector<int64_t> delta(cuts + 1, 0);
  std::vector<int32_t> blocked(cuts + 1, 0);
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    const int32_t last = live.last_reader(v);
    if (last < 0) {
      continue;
    }
    const ir::Node& node = g.node(v);
    if (ir::is_weight(node)) {
      // A parameter stays with all its users: no cut between its first and last user.
      blocked[static_cast<size_t>(live.first_reader(v))] += 1;
      blocked[static_cast<size_t>(last)] -= 1;
    } else if (!op_has(node.op, ir::op_flags::constant)) {
      // Inputs live in stage 0 and cross every cut before their last user; computed values cross
      // the cuts between their producer and their last user. Constants are copied where used.
      const int32_t made = op_has(node.op, ir::op_flags::fed) ? 0 : live.made[static_cast<size_t>(v)];
      const auto bytes = static_cast<int64_t>(node.type.bytes());
      delta[static_cast<size_t>(made)] += bytes;
      delta[static_cast<size_t>(last)] -= bytes;
    }
  }
  int64_t bytes = 0;
  int32_t block = 0;
  for (size_t k = 0; k < cuts; ++k) {
    bytes += delta[k];
    block += blocked[k];
    seq.crossing.push_back(bytes);
    seq.cuttable.push_back(block == 0);
  }
}

// The sequence without costs: what finding the blocks and cutting at them need.
Sequence make_sequence(const ir::Graph& g) {
  Sequence seq;
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    if (!is_leaf(g.node(id))) {
      seq.nodes.push_back(id);
    }
  }
  const Liveness live = liveness(g, seq.nodes);
  seq.memory.assign(seq.nodes.size(), 0.0);
  for (ir::ValueId p : g.params) {
    const int32_t first = live.first_reader(p);
    if (first >= 0 && !is_host_table(g.node(p))) {  // a host table takes no IPU memory
      seq.memory[static_cast<size_t>(first)] += static_cast<double>(g.type(p).bytes());
    }
  }
  crossings(g, live, seq);
  return seq;
}

Sequence make_sequence(const ir::Graph& g, const DeviceModel& device) {
  Sequence seq = make_sequence(g);
  const std::vector<bool> trained = trained_nodes(g, seq.nodes);
  for (ir::ValueId id : seq.nodes) {
    // Backward ops cost about twice their forward op (a matmul's two gradient matmuls).
    seq.cost.push_back(op_cycles(g, id, device) * (trained[static_cast<size_t>(id)] ? 3.0 : 1.0));
  }
  return seq;
}

// The sequence of `g` and its repeated blocks.
std::pair<Sequence, Blocks> with_blocks(const ir::Graph& g) {
  Sequence seq = make_sequence(g);
  const Blocks b = find_blocks(g, seq.nodes, seq.crossing);
  return {std::move(seq), b};
}

// Prefix sums of cost and of parameter memory, and the per-stage memory limit.
struct Prefix {
  std::vector<double> cost;
  std::vector<double> memory;
  double memory_limit = 0;  // 0 = none
  double total = 0;         // cost of all nodes
  double largest = 0;       // cost of the costliest node
  double bytes = 0;         // parameter memory of all nodes

  bool fits(size_t k, double cost_base, double memory_base, double limit) const {
    return cost[k] - cost_base <= limit && (memory_limit <= 0 || memory[k] - memory_base <= memory_limit);
  }
};

// The cuts of the fewest stages whose costs stay within `limit`, each stage running to the last
// cut that keeps it there (greedy is optimal for a fixed limit); nullopt if a node alone, or an
// uncuttable run of nodes, costs more than `limit`.
std::optional<std::vector<size_t>> greedy_cuts(const Prefix& pre, const std::vector<bool>& cuttable, double limit) {
  const std::vector<double>& done = pre.cost;
  std::vector<size_t> cuts;
  double base = 0;       // cost done before the current stage
  double mem_base = 0;   // parameter bytes before the current stage
  int64_t last_ok = -1;  // the latest cut seen that keeps the current stage within the limit
  for (size_t k = 0; k < done.size(); ++k) {
    if (!pre.fits(k, base, mem_base, limit)) {
      if (last_ok < 0 || done[static_cast<size_t>(last_ok)] <= base) {
        return std::nullopt;
      }
      cuts.push_back(static_cast<size_t>(last_ok));
      base = done[static_cast<size_t>(last_ok)];
      mem_base = pre.memory[static_cast<size_t>(last_ok)];
      if (!pre.fits(k, base, mem_base, limit)) {
        return std::nullopt;
      }
    }
    if (k < cuttable.size() && cuttable[k]) {
      last_ok = static_cast<int64_t>(k);
    }
  }
  return cuts;
}

Prefix prefix_sums(const Sequence& seq, double memory_limit) {
  const size_t n = seq.cost.size();
  Prefix pre;
  pre.memory_limit = memory_limit;
  pre.cost.resize(n);
  pre.memory.resize(n);
  for (size_t k = 0; k < n; ++k) {
    pre.total += seq.cost[k];
    pre.largest = std::max(pre.largest, seq.cost[k]);
    pre.cost[k] = pre.total;
    pre.bytes += seq.memory[k];
    pre.memory[k] = pre.bytes;
  }
  return pre;
}

// Under a memory limit: throws unless some split into at most `stages` stages keeps every stage's
// parameters within it.
void check_weights_fit(const Prefix& pre, const std::vector<bool>& cuttable, int32_t stages) {
  const auto cuts = greedy_cuts(pre, cuttable, pre.total);
  if (cuts && cuts->size() < static_cast<size_t>(stages)) {
    return;
  }
  throw Error(ErrorKind::Plan,
              fmt::format("automatic staging cannot split the model into {} stages whose weights, gradients and "
                          "optimizer state ({} bytes in all) fit {} bytes per IPU",
                          stages, static_cast<int64_t>(pre.bytes), static_cast<int64_t>(pre.memory_limit)),
              {},
              fmt::format("raise pipeline.auto_stages (at least {} needed by weight memory alone), or offload the "
                          "optimizer state (pipeline.offload_weight_update_variables)",
                          cuts ? cuts->size() + 1 : static_cast<size_t>(pre.bytes / pre.memory_limit) + 1));
}

// The smallest bottleneck B (the costliest stage) any split into `stages` stages can have, by
// bisection on greedy splits.
double smallest_bottleneck(const Prefix& pre, const std::vector<bool>& cuttable, int32_t stages) {
  double lo = std::max(pre.total / stages, pre.largest);
  double hi = pre.total;
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    const auto cuts = greedy_cuts(pre, cuttable, mid);
    (cuts && cuts->size() < static_cast<size_t>(stages) ? hi : lo) = mid;
  }
  return hi;
}

// How good a set of cuts is: bytes sent across them first, then how far each cut lies from where
// the most balanced split puts it (both add up over the cuts, so a dynamic programme can minimise
// them).
struct Score {
  int64_t bytes = 0;
  double drift = 0;
  bool operator<(const Score& o) const { return bytes != o.bytes ? bytes < o.bytes : drift < o.drift; }
  bool operator>=(const Score& o) const { return !(*this < o); }
  Score operator+(const Score& o) const { return {bytes + o.bytes, drift + o.drift}; }
};

// The dynamic programme over cut positions: best[j][k] is the best Score of cuts 1..j with cut j
// after node k, from[j][k] its cut j - 1. A stage may only span so much cost, so the previous cuts
// a cut can follow form a sliding window, whose minimum a monotone deque keeps.
struct CutTable {
  std::vector<std::vector<std::optional<Score>>> best;
  std::vector<std::vector<int32_t>> from;
};

CutTable best_cuts(const Sequence& seq, const Prefix& pre, const std::vector<double>& target, int32_t stages,
                   double limit) {
  const std::vector<double>& done = pre.cost;
  const size_t cuts = seq.crossing.size();
  auto cut_score = [&](size_t j, size_t k) { return Score{seq.crossing[k], std::abs(done[k] - target[j])}; };
  CutTable t{std::vector<std::vector<std::optional<Score>>>(static_cast<size_t>(stages),
                                                            std::vector<std::optional<Score>>(cuts)),
             std::vector<std::vector<int32_t>>(static_cast<size_t>(stages), std::vector<int32_t>(cuts, -1))};
  for (size_t k = 0; k < cuts; ++k) {
    if (seq.cuttable[k] && pre.fits(k, 0, 0, limit)) {
      t.best[1][k] = cut_score(1, k);
    }
  }
  for (size_t j = 2; j < static_cast<size_t>(stages); ++j) {
    const auto& before = t.best[j - 1];
    std::vector<size_t> window;  // candidate previous cuts with increasing scores, as a deque
    size_t head = 0;
    size_t next = 0;  // the next previous cut to enter the window
    for (size_t k = 0; k < cuts; ++k) {
      for (; next < k; ++next) {
        if (!before[next]) {
          continue;
        }
        while (window.size() > head && *before[window.back()] >= *before[next]) {
          window.pop_back();
        }
        window.push_back(next);
      }
      while (window.size() > head && !pre.fits(k, done[window[head]], pre.memory[window[head]], limit)) {
        ++head;
      }
      if (seq.cuttable[k] && window.size() > head) {
        t.best[j][k] = *before[window[head]] + cut_score(j, k);
        t.from[j][k] = static_cast<int32_t>(window[head]);
      }
    }
  }
  return t;
}

// The best last cut whose final stage fits too; throws if there is none.
size_t last_cut(const Sequence& seq, const Prefix& pre, const CutTable& t, int32_t stages, double limit) {
  const size_t cuts = seq.crossing.size();
  size_t last = cuts;
  const auto& final_cuts = t.best[static_cast<size_t>(stages - 1)];
  for (size_t k = 0; k < cuts; ++k) {
    const bool tail_fits =
        pre.total - pre.cost[k] <= limit && (pre.memory_limit <= 0 || pre.bytes - pre.memory[k] <= pre.memory_limit);
    if (final_cuts[k] && tail_fits && (last == cuts || *final_cuts[k] < *final_cuts[last])) {
      last = k;
    }
  }
  if (last < cuts) {
    return last;
  }
  const auto possible = static_cast<int32_t>(std::count(seq.cuttable.begin(), seq.cuttable.end(), true));
  throw Error(ErrorKind::Plan,
              fmt::format("automatic staging cannot split the model into {} stages: only {} place{} to cut keep "
                          "every parameter with all its users",
                          stages, possible, possible == 1 ? "" : "s"),
              {},
              fmt::format("set pipeline.auto_stages to at most {}, or declare the stages in the model", possible + 1));
}

// Picks stages - 1 cuts. First the smallest bottleneck B any split can have; then, among the splits
// whose every stage costs at most 5% more than B, the best Score.
std::vector<size_t> choose_cuts(const Sequence& seq, int32_t stages, double memory_limit) {
  if (stages == 1) {
    return {};
  }
  const Prefix pre = prefix_sums(seq, memory_limit);
  if (memory_limit > 0) {
    check_weights_fit(pre, seq.cuttable, stages);
  }
  const double bottleneck = smallest_bottleneck(pre, seq.cuttable, stages);
  const double limit = bottleneck * 1.05;
  // Where the cuts of a split with bottleneck B lie; an even split where that needs fewer stages.
  std::vector<double> target(static_cast<size_t>(stages));
  const std::vector<size_t> balanced = greedy_cuts(pre, seq.cuttable, bottleneck).value_or(std::vector<size_t>{});
  for (size_t j = 1; j < target.size(); ++j) {
    target[j] =
        balanced.size() + 1 == target.size() ? pre.cost[balanced[j - 1]] : pre.total * static_cast<double>(j) / stages;
  }
  const CutTable table = best_cuts(seq, pre, target, stages, limit);
  size_t last = last_cut(seq, pre, table, stages, limit);
  std::vector<size_t> out(static_cast<size_t>(stages - 1));
  for (size_t j = static_cast<size_t>(stages - 1); j >= 1; --j) {
    out[j - 1] = last;
    if (j > 1) {
      last = static_cast<size_t>(table.from[j][last]);
    }
  }
  return out;
}

// Cuts at block boundaries first: those of `seq`'s blocks that keep parameters with their users,
// when a split there costs at most 5% more than the best split between any ops.
std::vector<size_t> cuts_at_blocks_first(const Sequence& seq, const Blocks& blocks, int32_t stages,
                                         double memory_limit) {
  std::vector<size_t> anywhere = choose_cuts(seq, stages, memory_limit);
  if (blocks.count < 2 || stages == 1) {
    return anywhere;
  }
  Sequence at_blocks = seq;
  at_blocks.cuttable.assign(seq.cuttable.size(), false);
  for (int64_t k = 0; k <= blocks.count; ++k) {
    const size_t start = blocks.start(k);
    if (start > 0 && start - 1 < seq.cuttable.size()) {
      at_blocks.cuttable[start - 1] = seq.cuttable[start - 1];
    }
  }
  const Prefix pre = prefix_sums(seq, memory_limit);
  auto bottleneck = [&](const std::vector<size_t>& cuts) {
    double worst = 0;
    double done = 0;
    for (size_t j = 0; j <= cuts.size(); ++j) {
      const double upto = j < cuts.size() ? pre.cost[cuts[j]] : pre.total;
      worst = std::max(worst, upto - done);
      done = upto;
    }
    return worst;
  };
  try {
    std::vector<size_t> blockwise = choose_cuts(at_blocks, stages, memory_limit);
    return bottleneck(blockwise) <= 1.05 * bottleneck(anywhere) ? blockwise : anywhere;
  } catch (const Error&) {
    return anywhere;  // too few block boundaries, or none that fits
  }
}

// Every compute node of `nodes` to its stage (cut k ends stage k after node cuts[k]); leaves: inputs
// are fed to stage 0, parameters and constants live with their first user; stages named auto0...
void apply_cuts(ir::Graph& g, const std::vector<ir::ValueId>& nodes, const std::vector<size_t>& cuts, int32_t stages) {
  std::vector<int32_t> stage_of(static_cast<size_t>(g.size()), -1);
  int32_t stage = 0;
  for (size_t k = 0; k < nodes.size(); ++k) {
    stage_of[static_cast<size_t>(nodes[k])] = stage;
    while (static_cast<size_t>(stage) < cuts.size() && cuts[static_cast<size_t>(stage)] == k) {
      ++stage;
    }
  }
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    for (ir::ValueId in : g.node(id).inputs) {
      int32_t& s = stage_of[static_cast<size_t>(in)];
      if (s < 0 && !op_has(g.node(in).op, ir::op_flags::fed)) {
        s = stage_of[static_cast<size_t>(id)];
      }
    }
  }
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    ir::Node& n = g.node(id);
    if (n.model_stage < 0) {
      n.model_stage = n.stage;
    }
    n.stage = std::max(0, stage_of[static_cast<size_t>(id)]);
  }
  g.stages.clear();
  for (int32_t s = 0; s < stages; ++s) {
    g.stages.push_back({fmt::format("auto{}", s), {}, -1});
  }
}

void check_forward_only(const ir::Graph& g) {
  for (const ir::Node& n : g.nodes()) {
    if (n.phase != ir::Phase::Forward) {
      throw Error(ErrorKind::Internal, "automatic staging ran after the backward graph was built", {},
                  "stages must be chosen before autodiff");
    }
  }
}

}  // namespace

void mark_segments(ir::Graph& g) {
  if (g.stages.size() > 1) {
    return;
  }
  const auto [seq, b] = with_blocks(g);
  if (b.count == 0) {
    return;
  }
  for (size_t k = 0; k < seq.nodes.size(); ++k) {
    g.node(seq.nodes[k]).model_stage = b.segment(k);
  }
}

ModelBlocks model_blocks(const ir::Graph& g) {
  const auto [seq, b] = with_blocks(g);
  ModelBlocks out{b.count, static_cast<int64_t>(b.period), false};
  if (b.count == 0) {
    return out;
  }
  // A weight read before the first block and after the last: the tail is tied to the head.
  std::vector<bool> before(static_cast<size_t>(g.size()), false);
  for (size_t k = 0; k < seq.nodes.size(); ++k) {
    for (ir::ValueId in : g.node(seq.nodes[k]).inputs) {
      if (ir::is_weight(g.node(in))) {
        if (b.segment(k) == 0) {
          before[static_cast<size_t>(in)] = true;
        } else if (b.segment(k) == 2 && before[static_cast<size_t>(in)]) {
          out.tied_tail = true;
        }
      }
    }
  }
  return out;
}

void auto_stage(ir::Graph& g, int32_t stages, const DeviceModel& device, double bytes_per_weight_byte) {
  check_forward_only(g);
  const Sequence seq = make_sequence(g, device);
  if (stages < 1 || seq.nodes.size() < static_cast<size_t>(stages)) {
    throw Error(ErrorKind::Plan,
                fmt::format("automatic staging cannot split a model of {} compute op{} into {} stages",
                            seq.nodes.size(), seq.nodes.size() == 1 ? "" : "s", stages),
                {}, fmt::format("set pipeline.auto_stages between 1 and {}", std::max<size_t>(1, seq.nodes.size())));
  }
  Sequence scaled = seq;
  for (double& m : scaled.memory) {
    m *= bytes_per_weight_byte;
  }
  const double limit = bytes_per_weight_byte > 0 ? static_cast<double>(device.memory_bytes()) : 0.0;
  const Blocks blocks = find_blocks(g, seq.nodes, seq.crossing);
  apply_cuts(g, seq.nodes, cuts_at_blocks_first(scaled, blocks, stages, limit), stages);
}

void auto_stage_blocks(ir::Graph& g, const std::vector<int64_t>& blocks_per_stage) {
  check_forward_only(g);
  const auto [seq, b] = with_blocks(g);
  int64_t sum = 0;
  for (int64_t c : blocks_per_stage) {
    sum += c;
  }
  if (sum != b.count) {
    throw Error(ErrorKind::Plan,
                fmt::format("pipeline.auto_stage_blocks places {} block{}, but the model repeats {} block{}{}", sum,
                            sum == 1 ? "" : "s", b.count, b.count == 1 ? "" : "s",
                            b.count > 0 ? fmt::format(" of {} ops", b.period) : ""),
                {},
                b.count > 0 ? fmt::format("give the stages {} blocks in all", b.count)
                            : "set pipeline.auto_stages alone: this model has no repeated blocks to cut between");
  }
  const auto stages = static_cast<int32_t>(blocks_per_stage.size());
  std::vector<size_t> cuts;
  int64_t done = 0;
  for (int32_t s = 0; s + 1 < stages; ++s) {
    done += blocks_per_stage[static_cast<size_t>(s)];
    const size_t start = b.start(done);  // the first node of stage s + 1
    const size_t previous = cuts.empty() ? 0 : cuts.back() + 1;
    if (start <= previous || start >= seq.nodes.size()) {
      const int32_t empty = start <= previous ? s : s + 1;
      throw Error(
          ErrorKind::Plan,
          fmt::format("pipeline.auto_stage_blocks leaves stage {} without an op: it holds no block{}", empty,
                      empty == 0 ? " and the model has nothing before its first block"
                                 : (empty + 1 == stages ? " and the model has nothing after its last block" : "")),
          {}, "give every stage a block, except a first or last stage that holds the model's ends");
    }
    cuts.push_back(start - 1);
  }
  apply_cuts(g, seq.nodes, cuts, stages);
}

}  // namespace iputrain::planner
