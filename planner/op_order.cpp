#include "planner/op_order.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace iputrain::planner {

namespace {

// One (stage, phase) group as local indices 0..n-1 in written order.
struct Group {
  std::vector<ir::ValueId> nodes;         // written order
  std::vector<size_t> slots;              // their positions in the program
  std::vector<int64_t> bytes;             // each node's output
  std::vector<int64_t> temporary;         // each node's working memory while it runs
  std::vector<std::vector<int32_t>> ins;  // in-group inputs (local), one entry per distinct input
  std::vector<std::vector<int32_t>> outs; // in-group readers (local), distinct
  std::vector<bool> escapes;              // read outside the group (or a graph output): lives to the end
};

// Live bytes as an order runs: a value appears when its op runs and goes when its last reader in
// the group has run (never, if it escapes; at once, if nothing reads it).
class LiveBytes {
 public:
  explicit LiveBytes(const Group& g) : g_(g), remaining_(g.nodes.size()) {
    for (size_t v = 0; v < g.nodes.size(); ++v) {
      remaining_[v] = static_cast<int32_t>(g.outs[v].size());
    }
  }
  //! Runs `v`; returns the live bytes while it runs (its output and everything still alive).
  int64_t run(int32_t v) {
    const auto u = static_cast<size_t>(v);
    live_ += g_.bytes[u];
    const int64_t during = live_ + g_.temporary[u];
    for (int32_t in : g_.ins[u]) {
      const auto i = static_cast<size_t>(in);
      if (--remaining_[i] == 0 && !g_.escapes[i]) {
        live_ -= g_.bytes[i];
      }
    }
    if (g_.outs[u].empty() && !g_.escapes[u]) {
      live_ -= g_.bytes[u];
    }
    return during;
  }
  //! Undoes run(v) (the last run).
  void undo(int32_t v) {
    const auto u = static_cast<size_t>(v);
    if (g_.outs[u].empty() && !g_.escapes[u]) {
      live_ += g_.bytes[u];
    }
    for (int32_t in : g_.ins[u]) {
      const auto i = static_cast<size_t>(in);
      if (remaining_[i]++ == 0 && !g_.escapes[i]) {
        live_ += g_.bytes[i];
      }
    }
    live_ -= g_.bytes[u];
  }
  //! Bytes run(v) would leave alive minus those alive now.
  int64_t delta(int32_t v) const {
    const auto u = static_cast<size_t>(v);
    int64_t d = g_.outs[u].empty() && !g_.escapes[u] ? 0 : g_.bytes[u];
    for (int32_t in : g_.ins[u]) {
      const auto i = static_cast<size_t>(in);
      d -= remaining_[i] == 1 && !g_.escapes[i] ? g_.bytes[i] : 0;
    }
    return d;
  }

 private:
  const Group& g_;
  std::vector<int32_t> remaining_;
  int64_t live_ = 0;
};

int64_t peak_of(const Group& g, const std::vector<int32_t>& order) {
  LiveBytes live(g);
  int64_t peak = 0;
  for (int32_t v : order) {
    peak = std::max(peak, live.run(v));
  }
  return peak;
}

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
  LiveBytes live(g);
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
  int64_t best_peak = peak_of(g, best);
  for (auto candidate : {post_order(g), clustering(g), shortest_path(g)}) {
    const int64_t peak = peak_of(g, candidate);
    if (peak < best_peak) {
      best = std::move(candidate);
      best_peak = peak;
    }
  }
  return best;
}

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
  for (Group& grp : groups) {
    grp.ins.assign(grp.nodes.size(), {});
    grp.outs.assign(grp.nodes.size(), {});
    grp.escapes.assign(grp.nodes.size(), false);
  }
  for (const ir::Output& o : g.outputs) {
    const auto [gi, local] = where[static_cast<size_t>(o.value)];
    if (local >= 0) {
      groups[gi].escapes[static_cast<size_t>(local)] = true;
    }
  }
  for (ir::ValueId id : program) {
    const auto [gi, local] = where[static_cast<size_t>(id)];
    for (ir::ValueId in : g.node(id).inputs) {
      const auto [gin, lin] = where[static_cast<size_t>(in)];
      if (lin < 0) {
        continue;  // a leaf or a value of no group
      }
      if (local < 0 || gin != gi) {
        groups[gin].escapes[static_cast<size_t>(lin)] = true;  // read by another task
        continue;
      }
      auto& ins = groups[gi].ins[static_cast<size_t>(local)];
      if (std::find(ins.begin(), ins.end(), lin) == ins.end()) {
        ins.push_back(lin);
        groups[gi].outs[static_cast<size_t>(lin)].push_back(local);
      }
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
    return peak_of(grp, ids);
  }
  return 0;
}

}  // namespace iputrain::planner
