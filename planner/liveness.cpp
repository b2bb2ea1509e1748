#include "planner/liveness.hpp"

#include <algorithm>

namespace iputrain::planner {

int32_t LiveRanges::begin(ir::ValueId v, int64_t copy, Step at) {
  const auto index = static_cast<int32_t>(spans_.size());
  spans_.push_back({v, copy, at, at});
  open_[static_cast<size_t>(v)].emplace_back(copy, index);
  return index;
}

int32_t LiveRanges::open(ir::ValueId v, int64_t copy) const {
  const auto& list = open_[static_cast<size_t>(v)];
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    if (it->first == copy) {
      return it->second;
    }
  }
  return -1;
}

void LiveRanges::read(int32_t life, Step at) {
  Span& span = spans_[static_cast<size_t>(life)];
  span.last.tick = std::max(span.last.tick, at.tick);
  span.last.instr = std::max(span.last.instr, at.instr);
}

Liveness liveness(const ir::Graph& g, const std::vector<ir::ValueId>& sequence) {
  const auto n = static_cast<size_t>(g.size());
  Liveness out;
  out.made.assign(n, -1);
  out.readers.assign(n, {});
  out.lives = LiveRanges(n);
  out.life.assign(n, -1);
  for (size_t k = 0; k < sequence.size(); ++k) {
    const auto pos = static_cast<int32_t>(k);
    const Step at{pos, pos};
    const ir::ValueId id = sequence[k];
    for (ir::ValueId in : g.node(id).inputs) {
      int32_t& life = out.life[static_cast<size_t>(in)];
      if (life < 0) {
        life = out.lives.begin(in, 0, at);  // made outside the sequence: lives from its first reader
      }
      out.lives.read(life, at);
      std::vector<int32_t>& readers = out.readers[static_cast<size_t>(in)];
      if (readers.empty() || readers.back() != pos) {
        readers.push_back(pos);
      }
    }
    out.made[static_cast<size_t>(id)] = pos;
    out.life[static_cast<size_t>(id)] = out.lives.begin(id, 0, at);
  }
  return out;
}

std::pair<int32_t, int32_t> Liveness::span(ir::ValueId v) const {
  const int32_t index = life[static_cast<size_t>(v)];
  if (index < 0) {
    return {-1, -1};
  }
  const Span& s = lives[index];
  return {s.first.instr, s.last.instr};
}

int32_t Liveness::last_reader(ir::ValueId v) const {
  const std::vector<int32_t>& r = readers[static_cast<size_t>(v)];
  return r.empty() ? -1 : r.back();
}

int32_t Liveness::first_reader(ir::ValueId v) const {
  const std::vector<int32_t>& r = readers[static_cast<size_t>(v)];
  return r.empty() ? -1 : r.front();
}

LiveSet::LiveSet(const NodeSet& s) : s_(s), remaining_(s.outs.size()) {
  for (size_t v = 0; v < s.outs.size(); ++v) {
    remaining_[v] = static_cast<int32_t>(s.outs[v].size());
  }
}

int64_t LiveSet::run(int32_t v) {
  const auto u = static_cast<size_t>(v);
  live_ += s_.bytes[u];
  const int64_t during = live_ + s_.temporary[u];
  for (int32_t in : s_.ins[u]) {
    const auto i = static_cast<size_t>(in);
    if (--remaining_[i] == 0 && !s_.escapes[i]) {
      live_ -= s_.bytes[i];
    }
  }
  if (s_.outs[u].empty() && !s_.escapes[u]) {
    live_ -= s_.bytes[u];
  }
  return during;
}

void LiveSet::undo(int32_t v) {
  const auto u = static_cast<size_t>(v);
  if (s_.outs[u].empty() && !s_.escapes[u]) {
    live_ += s_.bytes[u];
  }
  for (int32_t in : s_.ins[u]) {
    const auto i = static_cast<size_t>(in);
    if (remaining_[i]++ == 0 && !s_.escapes[i]) {
      live_ += s_.bytes[i];
    }
  }
  live_ -= s_.bytes[u];
}

int64_t LiveSet::delta(int32_t v) const {
  const auto u = static_cast<size_t>(v);
  int64_t d = s_.outs[u].empty() && !s_.escapes[u] ? 0 : s_.bytes[u];
  for (int32_t in : s_.ins[u]) {
    const auto i = static_cast<size_t>(in);
    d -= remaining_[i] == 1 && !s_.escapes[i] ? s_.bytes[i] : 0;
  }
  return d;
}

int64_t peak_live_bytes(const NodeSet& s, const std::vector<int32_t>& order) {
  LiveSet live(s);
  int64_t peak = 0;
  for (int32_t v : order) {
    peak = std::max(peak, live.run(v));
  }
  return peak;
}

ArenaUse arena_use(const Arena& arena) {
  ArenaUse use;
  use.fold = arena.fold;
  const std::vector<int64_t>& ticks_at = arena.instr_ticks;
  const size_t walked = ticks_at.empty() ? 0 : ticks_at.size() - 1;
  const int64_t ticks = ticks_at.empty() ? 0 : ticks_at.back();
  use.rows.assign(walked, {});
  // Bytes in use change where a life begins and after its last tick.
  std::vector<int64_t> change(static_cast<size_t>(ticks) + 1, 0);
  for (const Life& life : arena.lives) {
    change[static_cast<size_t>(life.first_tick)] += life.size;
    change[static_cast<size_t>(life.last_tick) + 1] -= life.size;
    const auto first = static_cast<size_t>(life.first_instr);
    const auto last = static_cast<size_t>(life.last_instr);
    if (first < walked && last < walked) {
      use.rows[first].acquire += life.size;
      use.rows[last].release += life.size;
      use.rows[first].top = std::max(use.rows[first].top, life.offset + life.size);
    }
  }
  int64_t live = 0;
  for (size_t r = 0; r < walked; ++r) {
    ArenaUse::Row& row = use.rows[r];
    const int64_t end = ticks_at[r + 1];
    for (int64_t tick = ticks_at[r]; tick < end; ++tick) {
      live += change[static_cast<size_t>(tick)];
      if (live > row.most) {
        row.most = live;
        row.most_tick = tick;
      }
    }
    row.left = live + change[static_cast<size_t>(end)];
  }
  return use;
}

const ArenaUse::Row* ArenaUse::at(int32_t instr, int32_t* walked) const {
  const int32_t r = fold.walked(instr).instr;
  if (walked != nullptr) {
    *walked = r;
  }
  return r >= 0 && static_cast<size_t>(r) < rows.size() ? &rows[static_cast<size_t>(r)] : nullptr;
}

}  // namespace iputrain::planner
