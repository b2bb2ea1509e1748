#include "planner/auto_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "iputrain/error.hpp"

namespace iputrain::planner {

namespace {

bool is_leaf(const ir::Node& n) { return ir::op_def(n.op).forward == nullptr; }

// The forward graph seen as a sequence of compute nodes (leaves excluded) in topological order,
// with the cost of each and, for every gap between two neighbours, whether the model may be cut
// there and how many bytes the cut would send to later stages.
struct Sequence {
  std::vector<ir::ValueId> nodes;
  std::vector<double> cost;         // per node: forward cycles, x3 when the backward pass runs it too
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
    trained[static_cast<size_t>(p)] = true;
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

  const size_t cuts = seq.nodes.empty() ? 0 : seq.nodes.size() - 1;
  std::vector<int64_t> delta(cuts + 1, 0);
  std::vector<int32_t> blocked(cuts + 1, 0);
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    const int32_t last = last_use[static_cast<size_t>(v)];
    if (last < 0) {
      continue;
    }
    const ir::Node& node = g.node(v);
    if (node.op == ir::OpKind::Param) {
      // A parameter stays with all its users: no cut between its first and last user.
      blocked[static_cast<size_t>(first_use[static_cast<size_t>(v)])] += 1;
      blocked[static_cast<size_t>(last)] -= 1;
    } else if (node.op != ir::OpKind::Constant) {
      // Inputs live in stage 0 and cross every cut before their last user; computed values cross
      // the cuts between their producer and their last user. Constants are copied where used.
      const int32_t made = node.op == ir::OpKind::Input ? 0 : pos[static_cast<size_t>(v)];
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

// Picks stages - 1 cuts: cut j goes near the point where j / stages of the total cost is done;
// within a tenth of a stage's cost of that point the cut that sends the fewest bytes wins.
std::vector<size_t> choose_cuts(const Sequence& seq, int32_t stages) {
  std::vector<double> done(seq.cost.size());  // cost of nodes 0..k
  double total = 0;
  for (size_t k = 0; k < seq.cost.size(); ++k) {
    total += seq.cost[k];
    done[k] = total;
  }
  const double per_stage = total / stages;
  const double window = 0.1 * per_stage;
  std::vector<size_t> cuts;
  size_t lowest = 0;  // the first cut still allowed: every stage keeps at least one node
  for (int32_t j = 1; j < stages; ++j) {
    const double target = per_stage * j;
    // The last cut still allowed leaves one node for each of the stages after this one.
    const size_t highest = seq.crossing.size() - static_cast<size_t>(stages - 1 - j);
    size_t best = seq.crossing.size();
    auto better = [&](size_t k) {
      if (best == seq.crossing.size()) {
        return true;
      }
      const bool in = std::abs(done[k] - target) <= window;
      const bool best_in = std::abs(done[best] - target) <= window;
      if (in != best_in) {
        return in;
      }
      if (in && seq.crossing[k] != seq.crossing[best]) {
        return seq.crossing[k] < seq.crossing[best];
      }
      return std::abs(done[k] - target) < std::abs(done[best] - target);
    };
    for (size_t k = lowest; k < highest; ++k) {
      if (seq.cuttable[k] && better(k)) {
        best = k;
      }
    }
    if (best == seq.crossing.size()) {
      throw Error(ErrorKind::Plan,
                  fmt::format("automatic staging cannot split the model into {} stages: only {} cut{} keep every "
                              "parameter with all its users",
                              stages, j - 1, j == 2 ? "" : "s"),
                  {}, fmt::format("set pipeline.auto_stages to at most {}, or declare the stages in the model", j));
    }
    cuts.push_back(best);
    lowest = best + 1;
  }
  return cuts;
}

}  // namespace

void auto_stage(ir::Graph& g, int32_t stages, const DeviceModel& device) {
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
  const std::vector<size_t> cuts = choose_cuts(seq, stages);

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
      if (s < 0 && g.node(in).op != ir::OpKind::Input) {
        s = stage_of[static_cast<size_t>(id)];
      }
    }
  }
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    g.node(id).stage = std::max(0, stage_of[static_cast<size_t>(id)]);
  }
  g.stages.clear();
  for (int32_t s = 0; s < stages; ++s) {
    g.stages.push_back({fmt::format("auto{}", s), {}, -1});
  }
}

}  // namespace iputrain::planner
