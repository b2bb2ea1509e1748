#include "planner/op_order.hpp"

#include "planner/liveness.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace iputrain::planner {

namespace {

// One (stage, phase) group as local indices 0..n-1 in written order, with who reads what in it
// (planner/liveness.hpp).
struct Group : NodeSet {
  std::vector<ir::ValueId> nodes;  // written order
  std::vector<size_t> slots;       // their positions in the program
};

// Ready ops in written order, as a scheduler takes them.
class Ready {
 public:
  explicit Ready(const Group& g) : g_(g), waiting_(g.nodes.size()) {
    for (size_t v = 0; v < g.nodes.size(); ++v) {
      waiting_[v] = static_cast<int32_t>(g.ins[v].size());
      if (waiting_[v] == 0) {
        set_.insert(static_cast<int32_t>(v));
      }
    }
  }
  bool empty() const { return set_.empty(); }
  const std::set<int32_t>& ops() const { return set_; }
  void take(int32_t v) {
    set_.erase(v);
    for (int32_t out : g_.outs[static_cast<size_t>(v)]) {
      if (--waiting_[static_cast<size_t>(out)] == 0) {
        set_.insert(out);
      }
    }
  }
  void give_back(int32_t v) {
    for (int32_t out : g_.outs[static_cast<size_t>(v)]) {
      if (waiting_[static_cast<size_t>(out)]++ == 0) {
        set_.erase(out);
      }
    }
    set_.insert(v);
  }

 private:
  const Group& g_;
  std::vector<int32_t> waiting_;
  std::set<int32_t> set_;
};

std::vector<int32_t> written(const Group& g) {
  std::vector<int32_t> out(g.nodes.size());
  for (size_t v = 0; v < out.size(); ++v) {
    out[v] = static_cast<int32_t>(v);
  }
  return out;
}

std::vector<int32_t> post_order(const Group& g) {
  const size_t n = g.nodes.size();
  std::vector<int32_t> out;
  std::vector<bool> done(n, false);
  for (size_t sink = 0; sink < n; ++sink) {
    if (!g.outs[sink].empty() || done[sink]) {
      continue;
    }
    // Iterative depth-first walk: (node, next input to visit).
    std::vector<std::pair<int32_t, size_t>> stack = {{static_cast<int32_t>(sink), 0}};
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& ins = g.ins[static_cast<size_t>(v)];
      if (next < ins.size()) {
        const int32_t in = ins[next++];
        if (!done[static_cast<size_t>(in)]) {
          done[static_cast<size_t>(in)] = true;  // claimed: emitted when its own walk ends
          stack.emplace_back(in, 0);
        }
        continue;
      }
      done[static_cast<size_t>(v)] = true;
      out.push_back(v);
      stack.pop_back();
    }
  }
  return out;
}

std::vector<int32_t> clustering(const Group& g) {
  Ready ready(g);
  std::vector<int32_t> out;
  int32_t last = -1;
  while (!ready.empty()) {
    // A reader of the value made last, the first in written order; else the first ready op.
    int32_t pick = -1;
    if (last >= 0) {
      for (int32_t reader : g.outs[static_cast<size_t>(last)]) {
        if (ready.ops().count(reader) != 0 && (pick < 0 || reader < pick)) {
          pick = reader;
        }
      }
    }
    if (pick < 0) {
      pick = *ready.ops().begin();
    }
    ready.take(pick);
    out.push_back(pick);
    last = pick;
  }
  return out;
}

std::vector<int32_t> shortest_path(const Group& g) {
  const size_t n = g.nodes.size();
  std::vector<int64_t> height(n, 0);  // ops on the longest chain of readers after this one
  for (size_t v = n; v-- > 0;) {
    for (int32_t out : g.outs[v]) {
      height[v] = std::max(height[v], height[static_cast<size_t>(out)] + 1);
    }
  }
  Ready ready(g);
  std::vector<int32_t> out;
  while (!ready.empty()) {
    int32_t pick = -1;
    for (int32_t v : ready.ops()) {
      if (pick < 0 || height[static_cast<size_t>(v)] > height[static_cast<size_t>(pick)]) {
        pick = v;
      }
    }
    ready.take(pick);
    out.push_back(pick);
  }
  return out;
}

std::vector<int32_t> look_ahead(const Group& g, int64_t depth, int64_t space) {
  Ready ready(g);
  LiveSet live(g);
  std::vector<int32_t> out;
  // The ready op with the smallest delta among the first `space` (written order breaks ties).
  const auto greedy = [&]() {
    int32_t best = -1;
    int64_t best_delta = 0;
    int64_t seen = 0;
    for (int32_t v : ready.ops()) {
      if (seen++ >= space) {
        break;
      }
      const int64_t d = live.delta(v);
      if (best < 0 || d < best_delta) {
        best = v;
        best_delta = d;
      }
    }
    return best;
  };
  while (!ready.empty()) {
    int32_t pick = -1;
    int64_t pick_peak = 0;
    const std::vector<int32_t> candidates(ready.ops().begin(),
                                          std::next(ready.ops().begin(), std::min<int64_t>(space, static_cast<int64_t>(ready.ops().size()))));
    for (int32_t c : candidates) {
      // Run c, then depth - 1 greedy ops, note the peak, and undo them all.
      std::vector<int32_t> ran = {c};
      ready.take(c);
      int64_t peak = live.run(c);
      for (int64_t k = 1; k < depth && !ready.empty(); ++k) {
        const int32_t v = greedy();
        ready.take(v);
        peak = std::max(peak, live.run(v));
        ran.push_back(v);
      }
      for (auto it = ran.rbegin(); it != ran.rend(); ++it) {
        live.undo(*it);
        ready.give_back(*it);
      }
      if (pick < 0 || peak < pick_peak) {
        pick = c;
        pick_peak = peak;
      }
    }
    ready.take(pick);
    live.run(pick);
    out.push_back(pick);
  }
  return out;
}

std::vector<int32_t> ordered(const Group& g, const OpOrderSettings& s) {
  switch (s.algorithm) {
    case SchedulerAlgorithm::PostOrder:
      return post_order(g);
    case SchedulerAlgorithm::Clustering:
      return clustering(g);
    case SchedulerAlgorithm::ShortestPath:
      return shortest_path(g);
    case SchedulerAlgorithm::LookAhead:
      return look_ahead(g, std::max<int64_t>(1, s.lookahead_depth), std::max<int64_t>(1, s.search_space));
    case SchedulerAlgorithm::ChooseBest:
      break;
  }
  // The written order first, so that a tie keeps it. look_ahead, whose cost grows with its search,
  // runs only when asked for.
  std::vector<int32_t> best = written(g);
  int64_t best_peak = peak_live_bytes(g, best);
  for (auto candidate : {post_order(g), clustering(g), shortest_path(g)}) {
    const int64_t peak = peak_live_bytes(g, candidate);
    if (peak < best_peak) {
      best = std::move(candidate);
      best_peak = peak;
    }
  }
  return best;
}

// The program's groups; a value's readers come from the program's liveness.
std::vector<Group> groups_of(const ir::Graph& g, const std::vector<ir::ValueId>& program,
                             const std::function<int64_t(ir::ValueId)>& temporary_bytes) {
  std::map<std::pair<int32_t, int32_t>, size_t> index;
  std::vector<Group> groups;
  std::vector<std::pair<size_t, int32_t>> where(static_cast<size_t>(g.size()), {SIZE_MAX, -1});  // group, local
  for (size_t pos = 0; pos < program.size(); ++pos) {
    const ir::Node& n = g.node(program[pos]);
    if (is_leaf(n)) {
      continue;
    }
    const auto key = std::pair{n.stage, static_cast<int32_t>(n.phase)};
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      groups.emplace_back();
    }
    Group& grp = groups[it->second];
    where[static_cast<size_t>(program[pos])] = {it->second, static_cast<int32_t>(grp.nodes.size())};
    grp.nodes.push_back(program[pos]);
    grp.slots.push_back(pos);
    grp.bytes.push_back(static_cast<int64_t>(n.type.bytes()));
    grp.temporary.push_back(temporary_bytes ? temporary_bytes(program[pos]) : 0);
  }
  const Liveness live = liveness(g, program);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    Group& grp = groups[gi];
    const size_t n = grp.nodes.size();
    grp.ins.assign(n, {});
    grp.outs.assign(n, {});
    grp.escapes.assign(n, false);
    for (size_t local = 0; local < n; ++local) {
      // Readers in program order, so in local order; one read by another task keeps it to the end.
      for (int32_t pos : live.readers[static_cast<size_t>(grp.nodes[local])]) {
        const auto [reader_group, reader] = where[static_cast<size_t>(program[static_cast<size_t>(pos)])];
        if (reader_group == gi && reader >= 0) {
          grp.outs[local].push_back(reader);
        } else {
          grp.escapes[local] = true;
        }
      }
      for (ir::ValueId in : g.node(grp.nodes[local]).inputs) {
        const auto [input_group, input] = where[static_cast<size_t>(in)];
        auto& ins = grp.ins[local];
        if (input_group == gi && input >= 0 && std::find(ins.begin(), ins.end(), input) == ins.end()) {
          ins.push_back(input);
        }
      }
    }
  }
  for (const ir::Output& o : g.outputs) {
    const auto [gi, local] = where[static_cast<size_t>(o.value)];
    if (local >= 0) {
      groups[gi].escapes[static_cast<size_t>(local)] = true;
    }
  }
  return groups;
}

}  // namespace

std::vector<ir::ValueId> order_ops(const ir::Graph& g, const std::vector<ir::ValueId>& program,
                                   const OpOrderSettings& s) {
  std::vector<ir::ValueId> out = program;
  for (const Group& grp : groups_of(g, program, s.temporary_bytes)) {
    const std::vector<int32_t> order = ordered(grp, s);
    for (size_t k = 0; k < order.size(); ++k) {
      out[grp.slots[k]] = grp.nodes[static_cast<size_t>(order[k])];
    }
  }
  return out;
}

int64_t group_peak_bytes(const ir::Graph& g, const std::vector<ir::ValueId>& order,
                         const std::vector<ir::ValueId>& program) {
  // `order` is one group's nodes in some order; its dependencies and escapes come from `program`.
  const std::set<ir::ValueId> members(order.begin(), order.end());
  for (const Group& grp : groups_of(g, program, {})) {
    if (grp.nodes.empty() || members.count(grp.nodes.front()) == 0) {
      continue;
    }
    std::map<ir::ValueId, int32_t> local;
    for (size_t v = 0; v < grp.nodes.size(); ++v) {
      local[grp.nodes[v]] = static_cast<int32_t>(v);
    }
    std::vector<int32_t> ids;
    for (ir::ValueId v : order) {
      ids.push_back(local.at(v));
    }
    return peak_live_bytes(grp, ids);
  }
  return 0;
}

}  // namespace iputrain::planner
