#include "planner/blocks.hpp"

#include <functional>
#include <limits>
#include <tuple>

namespace iputrain::planner {

namespace {

// The same attributes but for `name` (a scope path, such as a dropout site's, one per layer).
bool same_attrs(const ir::Attrs& a, const ir::Attrs& b) {
  const auto& x = a.items();
  const auto& y = b.items();
  if (x.size() != y.size()) {
    return false;
  }
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k].first != y[k].first || (x[k].first != "name" && x[k].second != y[k].second)) {
      return false;
    }
  }
  return true;
}

// Compares node positions one period apart.
struct Matcher {
  const ir::Graph& g;
  const std::vector<ir::ValueId>& nodes;
  std::vector<int64_t> position;  // per value id: its position in `nodes`, -1 for none
  std::vector<size_t> key;        // per position: a hash of op and type, to reject most pairs at once

  Matcher(const ir::Graph& graph, const std::vector<ir::ValueId>& seq)
      : g(graph), nodes(seq), position(static_cast<size_t>(graph.size()), -1) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const ir::Node& n = g.node(nodes[i]);
      position[static_cast<size_t>(nodes[i])] = static_cast<int64_t>(i);
      size_t h = std::hash<int32_t>{}(static_cast<int32_t>(n.op)) ^ (std::hash<size_t>{}(n.inputs.size()) << 1U);
      for (int64_t d : n.type.shape) {
        h = h * 1000003U + std::hash<int64_t>{}(d);
      }
      key.push_back(h * 31U + static_cast<size_t>(n.type.dtype));
    }
  }

  // Input x of node i and y of node i + period play the same part: one outside value both read
  // (an attention mask), each block's own leaf of one kind and type (its weights), the node one
  // block back, or, for the first block of a run, what flows into it (x made before node i or fed,
  // y made by the block before).
  bool same_input(ir::ValueId x, ir::ValueId y, size_t i, size_t period) const {
    if (x == y) {
      return true;
    }
    const ir::Node& a = g.node(x);
    const ir::Node& b = g.node(y);
    const int64_t px = position[static_cast<size_t>(x)];
    const int64_t py = position[static_cast<size_t>(y)];
    if (py >= 0 && px >= 0 && py - px == static_cast<int64_t>(period)) {
      return true;
    }
    const bool before = op_has(a.op, ir::op_flags::fed) || (px >= 0 && px < static_cast<int64_t>(i));
    if (before && py >= static_cast<int64_t>(i) && py < static_cast<int64_t>(i + period)) {
      return a.type == b.type;
    }
    return ir::is_leaf(a) && ir::is_leaf(b) && a.op == b.op && a.type == b.type;
  }

  bool same(size_t i, size_t period) const {
    if (key[i] != key[i + period]) {
      return false;
    }
    const ir::Node& a = g.node(nodes[i]);
    const ir::Node& b = g.node(nodes[i + period]);
    if (a.op != b.op || a.type != b.type || a.inputs.size() != b.inputs.size() || !same_attrs(a.attrs, b.attrs)) {
      return false;
    }
    for (size_t k = 0; k < a.inputs.size(); ++k) {
      if (!same_input(a.inputs[k], b.inputs[k], i, period)) {
        return false;
      }
    }
    return true;
  }
};

// The phase of the blocks in the periodic run [s, e) of `period`: the most whole blocks, then the
// fewest bytes crossing between them, then the most boundaries right after a checkpoint.
Blocks phase(const ir::Graph& g, const std::vector<ir::ValueId>& nodes, const std::vector<int64_t>& crossing, size_t s,
             size_t e, size_t period) {
  const int64_t count = static_cast<int64_t>((e - s) / period);
  Blocks best;
  std::tuple<int64_t, int64_t> best_score{std::numeric_limits<int64_t>::max(), 0};
  for (size_t phi = 0; s + phi + static_cast<size_t>(count) * period <= e; ++phi) {
    const Blocks b{s + phi, period, count};
    int64_t bytes = 0;
    int64_t after_checkpoint = 0;
    for (int64_t k = 1; k < count; ++k) {
      const size_t cut = b.start(k) - 1;
      bytes += cut < crossing.size() ? crossing[cut] : 0;
      after_checkpoint += ir::op_has(g.node(nodes[cut]).op, ir::op_flags::recompute_mark) ? 1 : 0;
    }
    const std::tuple<int64_t, int64_t> score{bytes, -after_checkpoint};
    if (score < best_score) {
      best = b;
      best_score = score;
    }
  }
  return best;
}

}  // namespace

Blocks find_blocks(const ir::Graph& g, const std::vector<ir::ValueId>& nodes, const std::vector<int64_t>& crossing) {
  const Matcher m(g, nodes);
  const size_t n = nodes.size();
  Blocks best;
  for (size_t period = 1; 2 * period <= n; ++period) {
    size_t i = 0;
    while (i + period < n) {
      if (!m.same(i, period)) {
        ++i;
        continue;
      }
      const size_t s = i;
      while (i + period < n && m.same(i, period)) {
        ++i;
      }
      // Nodes s .. i + period - 1 repeat with this period: (i - s) / period + 1 whole blocks.
      const size_t e = i + period;
      const auto count = static_cast<int64_t>((e - s) / period);
      if (count >= 2 && static_cast<size_t>(count) * period > static_cast<size_t>(best.count) * best.period) {
        best = phase(g, nodes, crossing, s, e, period);
      }
    }
  }
  return best;
}

}  // namespace iputrain::planner
