#include "planner/auto_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "iputrain/error.hpp"

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

Sequence make_sequence(const ir::Graph& g, const DeviceModel& device) {
  Sequence seq;
  const auto n = static_cast<size_t>(g.size());
  std::vector<int32_t> pos(n, -1);
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    if (!is_leaf(g.node(id))) {
      pos[static_cast<size_t>(id)] = static_cast<int32_t>(seq.nodes.size());
      seq.nodes.push_back(id);
    }
  }
  // Which nodes the backward pass differentiates (they depend on a parameter), as autodiff decides.
  std::vector<bool> trained(n, false);
  for (ir::ValueId p : g.params) {
    trained[static_cast<size_t>(p)] = ir::trainable(g.node(p));
  }
  std::vector<int32_t> first_use(n, std::numeric_limits<int32_t>::max());
  std::vector<int32_t> last_use(n, -1);
  for (ir::ValueId id : seq.nodes) {
    const ir::Node& node = g.node(id);
    const int32_t k = pos[static_cast<size_t>(id)];
    for (ir::ValueId in : node.inputs) {
      first_use[static_cast<size_t>(in)] = std::min(first_use[static_cast<size_t>(in)], k);
      last_use[static_cast<size_t>(in)] = std::max(last_use[static_cast<size_t>(in)], k);
      trained[static_cast<size_t>(id)] = trained[static_cast<size_t>(id)] ||
                                         (trained[static_cast<size_t>(in)] && is_float(node.type.dtype) &&
                                          ir::op_def(node.op).backward != nullptr);
    }
    // Backward ops cost about twice their forward op (a matmul's two gradient matmuls).
    seq.cost.push_back(op_cycles(g, id, device) * (trained[static_cast<size_t>(id)] ? 3.0 : 1.0));
  }
  seq.memory.assign(seq.nodes.size(), 0.0);
  for (ir::ValueId p : g.params) {
    const int32_t first = first_use[static_cast<size_t>(p)];
    if (first < static_cast<int32_t>(seq.nodes.size())) {
      seq.memory[static_cast<size_t>(first)] += static_cast<double>(g.type(p).bytes());
    }
  }

  const size_t cuts = seq.nodes.empty() ? 0 : seq.nodes.size() - 1;
  std::vector<int64_t> delta(cuts + 1, 0);
  std::vector<int32_t> blocked(cuts + 1, 0);
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    const int32_t last = last_use[static_cast<size_t>(v)];
    if (last < 0) {
      continue;
    }
    const ir::Node& node = g.node(v);
    if (ir::is_weight(node)) {
      // A parameter stays with all its users: no cut between its first and last user.
      blocked[static_cast<size_t>(first_use[static_cast<size_t>(v)])] += 1;
      blocked[static_cast<size_t>(last)] -= 1;
    } else if (!op_has(node.op, ir::op_flags::constant)) {
      // Inputs live in stage 0 and cross every cut before their last user; computed values cross
      // the cuts between their producer and their last user. Constants are copied where used.
      const int32_t made = op_has(node.op, ir::op_flags::fed) ? 0 : pos[static_cast<size_t>(v)];
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
  return seq;
}

// The cuts of the fewest stages whose costs stay within `limit`, each stage running to the last
// cut that keeps it there (greedy is optimal for a fixed limit); nullopt if a node alone, or an
// uncuttable run of nodes, costs more than `limit`.
// Prefix sums of cost and of parameter memory, and the per-stage memory limit.
struct Prefix {
  std::vector<double> cost;
  std::vector<double> memory;
  double memory_limit = 0;  // 0 = none

  bool fits(size_t k, double cost_base, double memory_base, double limit) const {
    return cost[k] - cost_base <= limit && (memory_limit <= 0 || memory[k] - memory_base <= memory_limit);
  }
};

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

// Picks stages - 1 cuts. First the smallest bottleneck B (the costliest stage) any split can
// have, by bisection; then, among the splits whose every stage costs at most 5% more than B, the
// best Score (a dynamic programme over cut positions, with a sliding window minimum since a stage
// may only span so much cost).
std::vector<size_t> choose_cuts(const Sequence& seq, int32_t stages, double memory_limit) {
  if (stages == 1) {
    return {};
  }
  const size_t n = seq.cost.size();
  Prefix pre;
  pre.memory_limit = memory_limit;
  std::vector<double>& done = pre.cost;  // cost of nodes 0..k
  done.resize(n);
  pre.memory.resize(n);
  double total = 0;
  double largest = 0;
  double bytes = 0;
  for (size_t k = 0; k < n; ++k) {
    total += seq.cost[k];
    largest = std::max(largest, seq.cost[k]);
    done[k] = total;
    bytes += seq.memory[k];
    pre.memory[k] = bytes;
  }
  double lo = std::max(total / stages, largest);
  double hi = total;
  if (memory_limit > 0) {
    const auto cuts = greedy_cuts(pre, seq.cuttable, total);
    if (!cuts || cuts->size() >= static_cast<size_t>(stages)) {
      throw Error(ErrorKind::Plan,
                  fmt::format("automatic staging cannot split the model into {} stages whose weights, gradients and "
                              "optimizer state ({} bytes in all) fit {} bytes per IPU",
                              stages, static_cast<int64_t>(bytes), static_cast<int64_t>(memory_limit)),
                  {},
                  fmt::format("raise pipeline.auto_stages (at least {} needed by weight memory alone), or offload the "
                              "optimizer state (pipeline.offload_weight_update_variables)",
                              cuts ? cuts->size() + 1 : static_cast<size_t>(bytes / memory_limit) + 1));
    }
  }
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    const auto cuts = greedy_cuts(pre, seq.cuttable, mid);
    (cuts && cuts->size() < static_cast<size_t>(stages) ? hi : lo) = mid;
  }
  const double limit = hi * 1.05;
  // Where the cuts of a split with bottleneck B lie; an even split where that needs fewer stages.
  std::vector<double> target(static_cast<size_t>(stages));
  const std::vector<size_t> balanced = greedy_cuts(pre, seq.cuttable, hi).value_or(std::vector<size_t>{});
  for (size_t j = 1; j < target.size(); ++j) {
    target[j] = balanced.size() + 1 == target.size() ? done[balanced[j - 1]] : total * static_cast<double>(j) / stages;
  }

  // best[j][k]: the best Score of cuts 1..j with cut j after node k; from[j][k]: cut j - 1.
  const size_t cuts = seq.crossing.size();
  auto cut_score = [&](size_t j, size_t k) {
    return Score{seq.crossing[k], std::abs(done[k] - target[j])};
  };
  std::vector<std::vector<std::optional<Score>>> best(static_cast<size_t>(stages),
                                                      std::vector<std::optional<Score>>(cuts));
  std::vector<std::vector<int32_t>> from(static_cast<size_t>(stages), std::vector<int32_t>(cuts, -1));
  for (size_t k = 0; k < cuts; ++k) {
    if (seq.cuttable[k] && pre.fits(k, 0, 0, limit)) {
      best[1][k] = cut_score(1, k);
    }
  }
  for (size_t j = 2; j < static_cast<size_t>(stages); ++j) {
    std::vector<size_t> window;  // candidate previous cuts with increasing scores, as a deque
    size_t head = 0;
    size_t next = 0;  // the next previous cut to enter the window
    for (size_t k = 0; k < cuts; ++k) {
      for (; next < k; ++next) {
        if (!best[j - 1][next]) {
          continue;
        }
        while (window.size() > head && *best[j - 1][window.back()] >= *best[j - 1][next]) {
          window.pop_back();
        }
        window.push_back(next);
      }
      while (window.size() > head && !pre.fits(k, done[window[head]], pre.memory[window[head]], limit)) {
        ++head;
      }
      if (seq.cuttable[k] && window.size() > head) {
        best[j][k] = *best[j - 1][window[head]] + cut_score(j, k);
        from[j][k] = static_cast<int32_t>(window[head]);
      }
    }
  }
  size_t last = cuts;
  const auto& final_cuts = best[static_cast<size_t>(stages - 1)];
  for (size_t k = 0; k < cuts; ++k) {
    const bool tail_fits = total - done[k] <= limit && (memory_limit <= 0 || bytes - pre.memory[k] <= memory_limit);
    if (final_cuts[k] && tail_fits && (last == cuts || *final_cuts[k] < *final_cuts[last])) {
      last = k;
    }
  }
  if (last == cuts) {
    int32_t possible = 0;
    for (bool c : seq.cuttable) {
      possible += c ? 1 : 0;
    }
    throw Error(ErrorKind::Plan,
                fmt::format("automatic staging cannot split the model into {} stages: only {} place{} to cut keep "
                            "every parameter with all its users",
                            stages, possible, possible == 1 ? "" : "s"),
                {}, fmt::format("set pipeline.auto_stages to at most {}, or declare the stages in the model", possible + 1));
  }
  std::vector<size_t> out(static_cast<size_t>(stages - 1));
  for (size_t j = static_cast<size_t>(stages - 1); j >= 1; --j) {
    out[j - 1] = last;
    if (j > 1) {
      last = static_cast<size_t>(from[j][last]);
    }
  }
  return out;
}

}  // namespace

void auto_stage(ir::Graph& g, int32_t stages, const DeviceModel& device, double bytes_per_weight_byte) {
  for (const ir::Node& n : g.nodes()) {
    if (n.phase != ir::Phase::Forward) {
      throw Error(ErrorKind::Internal, "automatic staging ran after the backward graph was built", {},
                  "stages must be chosen before autodiff");
    }
  }
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
  const std::vector<size_t> cuts = choose_cuts(scaled, stages, limit);

  std::vector<int32_t> stage_of(static_cast<size_t>(g.size()), -1);
  int32_t stage = 0;
  for (size_t k = 0; k < seq.nodes.size(); ++k) {
    stage_of[static_cast<size_t>(seq.nodes[k])] = stage;
    if (static_cast<size_t>(stage) < cuts.size() && cuts[static_cast<size_t>(stage)] == k) {
      ++stage;
    }
  }
  // Leaves: inputs are fed to stage 0; parameters and constants live with their first user.
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

}  // namespace iputrain::planner
