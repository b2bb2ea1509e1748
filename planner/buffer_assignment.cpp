#include "planner/buffer_assignment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "iputrain/error.hpp"
#include "planner/memory_model.hpp"
#include "planner/plan.hpp"
#include "planner/precision.hpp"

namespace iputrain::planner {

namespace {

int64_t aligned(int64_t bytes) { return (std::max<int64_t>(bytes, 1) + kArenaAlign - 1) / kArenaAlign * kArenaAlign; }

// Walks one IPU's program and records the lives of the values it makes, receives and reads.
class LifeWalk {
 public:
  LifeWalk(const Plan& plan, int32_t ipu)
      : plan_(plan),
        g_(plan.graph),
        open_(static_cast<size_t>(plan.graph.size())),
        bytes_(static_cast<size_t>(plan.graph.size()), -1),
        accumulates_(accumulator_buffers(plan) > 0) {
    for (size_t k = 0; k < g_.params.size() && k < plan.grads.size(); ++k) {
      if (plan.placement.param_ipu[k] == ipu && !plan.grads[k].empty()) {
        grad_of_.emplace(g_.params[k], plan.grads[k]);
        local_grads_.insert(plan.grads[k].begin(), plan.grads[k].end());
      }
    }
  }

  Arena run(const std::vector<Instr>& program) {
    arena_.instr_ticks.reserve(program.size() + 1);
    for (size_t pos = 0; pos < program.size(); ++pos) {
      arena_.instr_ticks.push_back(tick_);
      visit(program[pos], static_cast<int32_t>(pos));
    }
    arena_.instr_ticks.push_back(tick_);
    // Constants are read from the first instruction to the last; every other life was recorded in
    // order of its first tick, so putting the constants first keeps the lives in that order.
    for (Life& life : constants_) {
      life.first_tick = 0;
      life.first_instr = 0;
      life.last_tick = std::max<int64_t>(0, tick_ - 1);
      life.last_instr = std::max<int32_t>(0, static_cast<int32_t>(program.size()) - 1);
    }
    constants_.insert(constants_.end(), arena_.lives.begin(), arena_.lives.end());
    arena_.lives = std::move(constants_);
    return std::move(arena_);
  }

 private:
  void visit(const Instr& in, int32_t pos) {
    const DevicePrograms& p = plan_.programs;
    const int64_t m = in.micro_batch;
    switch (in.kind) {
      case InstrKind::Forward:
      case InstrKind::Recompute:
      case InstrKind::Backward: {
        const std::vector<ir::ValueId>& nodes = p.stages[static_cast<size_t>(in.stage)].nodes(in.kind);
        if (nodes.empty()) {
          break;
        }
        for (ir::ValueId id : nodes) {
          for (ir::ValueId v : g_.node(id).inputs) {
            read(v, m, pos, in.stage);
          }
          make(id, m, pos, false);
          // Added to its accumulator right after its kernel: nothing later needs this copy.
          if (in.kind == InstrKind::Backward && accumulates_ && local_grads_.count(id) != 0) {
            arena_.lives[static_cast<size_t>(open_life(id, m))].to_accumulator = true;
          }
          ++tick_;
        }
        --tick_;  // the task's last tick
        if (in.kind == InstrKind::Forward) {
          // The outfeed takes the loss and the outputs once the task has run.
          for (ir::ValueId id : nodes) {
            if (id == g_.loss || is_output(id)) {
              read(id, m, pos, -1);
            }
          }
        }
        break;
      }
      case InstrKind::Infeed:
        for (ir::ValueId v : in.values) {
          make(v, m, pos, true);
        }
        break;
      case InstrKind::Recv:
        for (ir::ValueId v : p.messages[static_cast<size_t>(in.message)].values) {
          make(v, m, pos, true);
        }
        break;
      case InstrKind::Send:
        for (ir::ValueId v : p.messages[static_cast<size_t>(in.message)].values) {
          read(v, m, pos, -1);
        }
        break;
      case InstrKind::Outfeed:
        for (ir::ValueId v : in.values) {
          read(v, m, pos, -1);
        }
        break;
      case InstrKind::Accumulate:
        // Gradients that were not added as they were made (none today) are added here.
        for (ir::ValueId param : in.values) {
          const auto parts = grad_of_.find(param);
          if (parts == grad_of_.end()) {
            continue;
          }
          for (ir::ValueId grad : parts->second) {
            if (g_.node(grad).stage != in.stage) {
              continue;  // a part another stage makes, added by that stage's Accumulate
            }
            const int32_t life = open_life(grad, m);
            if (life < 0 || !arena_.lives[static_cast<size_t>(life)].to_accumulator) {
              read(grad, m, pos, in.stage);
            }
          }
        }
        break;
      case InstrKind::UpdateWeights:
        // Without accumulators the optimizer reads micro-batch 0's gradient buffers.
        if (!accumulates_) {
          for (ir::ValueId grad : local_grads_) {
            if (open_life(grad, 0) >= 0) {
              read(grad, 0, pos, -1);
            }
          }
        }
        break;
      case InstrKind::ReduceReplicas: break;
    }
    ++tick_;
  }

  bool is_output(ir::ValueId v) const {
    return std::any_of(g_.outputs.begin(), g_.outputs.end(), [&](const auto& o) { return o.value == v; });
  }

  // The life of `v` for micro-batch `m` begun last, or -1.
  int32_t open_life(ir::ValueId v, int64_t m) const {
    const auto& list = open_[static_cast<size_t>(v)];
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (it->first == m) {
        return it->second;
      }
    }
    return -1;
  }

  // A value made again (by a recompute) starts a second life; the first one stays as it was.
  void make(ir::ValueId v, int64_t m, int32_t pos, bool from_outside) {
    const ir::Node& n = g_.node(v);
    if (n.op == ir::OpKind::Param) {
      return;
    }
    int64_t& bytes = bytes_[static_cast<size_t>(v)];
    if (bytes < 0) {
      bytes = device_bytes(g_, v, plan_.settings.device.compute);
    }
    Life life;
    life.value = v;
    life.micro_batch = m;
    life.first_instr = life.last_instr = pos;
    life.first_tick = life.last_tick = tick_;
    life.bytes = bytes;
    life.size = aligned(bytes);
    life.stage = n.stage;
    life.from_outside = from_outside;
    if (m < 0) {
      open_[static_cast<size_t>(v)].emplace_back(m, -2 - static_cast<int32_t>(constants_.size()));
      constants_.push_back(life);
      return;
    }
    open_[static_cast<size_t>(v)].emplace_back(m, static_cast<int32_t>(arena_.lives.size()));
    arena_.lives.push_back(life);
  }

  void read(ir::ValueId v, int64_t m, int32_t pos, int32_t stage) {
    const ir::Node& n = g_.node(v);
    if (n.op == ir::OpKind::Param) {
      return;
    }
    if (n.op == ir::OpKind::Constant) {
      if (open_life(v, -1) == -1) {
        make(v, -1, pos, false);
      }
      return;  // a whole-cycle life, set in run()
    }
    int32_t index = open_life(v, m);
    if (index < 0) {
      make(v, m, pos, true);  // read without a maker here (should not happen): live at the read only
      index = open_life(v, m);
    }
    Life& life = arena_.lives[static_cast<size_t>(index)];
    life.last_tick = std::max(life.last_tick, tick_);
    life.last_instr = std::max(life.last_instr, pos);
    if (stage >= 0) {
      life.stage = stage;
    }
  }

  const Plan& plan_;
  const ir::Graph& g_;
  std::unordered_map<ir::ValueId, GradParts> grad_of_;  // this IPU's trained parameters -> gradient parts
  std::unordered_set<ir::ValueId> local_grads_;
  // Per value: (micro-batch, life) in the order begun; constants' lives are -2 - their index.
  std::vector<std::vector<std::pair<int64_t, int32_t>>> open_;
  std::vector<int64_t> bytes_;     // per value: device bytes, -1 until needed
  std::vector<Life> constants_;
  bool accumulates_;  // gradients go into accumulators (else the optimizer reads them)
  int64_t tick_ = 0;
  Arena arena_;
};

// Online placement for very long programs: lives in order of their first tick, each into the
// best-fitting free block (ggml-alloc's rule), freed after their last tick. Linear in the lives
// times the logarithm of the free blocks, where the offline placement below looks at every life
// near in time.
class BestFit {
 public:
  int64_t allocate(int64_t size) {
    // The smallest free block that fits (the lowest offset among equals).
    const auto best = by_size_.lower_bound({size, 0});
    if (best != by_size_.end()) {
      const auto [block, offset] = *best;
      take(offset, block);
      if (block > size) {
        give(offset + size, block - size);
      }
      return offset;
    }
    int64_t offset = top_;  // nothing fits: a free block at the top grows into new space
    if (!by_offset_.empty()) {
      const auto last = std::prev(by_offset_.end());
      if (last->first + last->second == top_) {
        offset = last->first;
        take(last->first, last->second);
      }
    }
    top_ = offset + size;
    return offset;
  }

  void release(int64_t offset, int64_t size) {
    const auto next = by_offset_.lower_bound(offset);
    if (next != by_offset_.end() && next->first == offset + size) {
      size += next->second;
      take(next->first, next->second);
    }
    const auto after = by_offset_.lower_bound(offset);
    if (after != by_offset_.begin()) {
      const auto prev = std::prev(after);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        take(prev->first, prev->second);
      }
    }
    give(offset, size);
  }

  int64_t top() const { return top_; }

 private:
  void take(int64_t offset, int64_t size) {
    by_offset_.erase(offset);
    by_size_.erase({size, offset});
  }
  void give(int64_t offset, int64_t size) {
    by_offset_.emplace(offset, size);
    by_size_.emplace(size, offset);
  }

  std::map<int64_t, int64_t> by_offset_;         // free blocks: offset -> size
  std::set<std::pair<int64_t, int64_t>> by_size_;  // the same blocks as (size, offset)
  int64_t top_ = 0;
};

void place_online(Arena& arena) {
  BestFit heap;
  using End = std::pair<int64_t, int32_t>;  // (last tick, life)
  std::priority_queue<End, std::vector<End>, std::greater<>> ending;
  for (size_t i = 0; i < arena.lives.size(); ++i) {
    Life& life = arena.lives[i];
    // A life ends once every life beginning at its last tick is placed.
    while (!ending.empty() && ending.top().first < life.first_tick) {
      const Life& done = arena.lives[static_cast<size_t>(ending.top().second)];
      heap.release(done.offset, done.size);
      ending.pop();
    }
    life.offset = heap.allocate(life.size);
    ending.emplace(life.last_tick, static_cast<int32_t>(i));
  }
  arena.bytes = heap.top();  // the top never comes down
}

// Offline placement, largest life first (the "greedy by size" of TFLite's arena planner and
// XLA's heap simulator): each life goes into the lowest-waste gap left between the lives already
// placed that overlap it in time, or above them all. Big stashes settle first and small values
// fill the gaps around them, which a first-come allocator would fragment. Placed lives are indexed
// by buckets of ticks so that a life only looks at lives near it in time.
void place_offline(Arena& arena) {
  std::vector<Life>& lives = arena.lives;
  const size_t n = lives.size();
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) {
    order[i] = static_cast<int32_t>(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return lives[static_cast<size_t>(a)].size > lives[static_cast<size_t>(b)].size;
  });
  constexpr int64_t kBucket = 64;
  const int64_t ticks = arena.instr_ticks.empty() ? 1 : std::max<int64_t>(1, arena.instr_ticks.back());
  std::vector<std::vector<int32_t>> buckets(static_cast<size_t>(ticks / kBucket + 1));
  std::vector<uint32_t> seen(n, 0);
  uint32_t stamp = 0;
  std::vector<std::pair<int64_t, int64_t>> taken;  // (offset, end) of the placed lives in the way
  int64_t high = 0;
  for (int32_t i : order) {
    Life& life = lives[static_cast<size_t>(i)];
    const auto b0 = static_cast<size_t>(life.first_tick / kBucket);
    const auto b1 = static_cast<size_t>(life.last_tick / kBucket);
    ++stamp;
    taken.clear();
    for (size_t b = b0; b <= b1; ++b) {
      for (int32_t j : buckets[b]) {
        const Life& other = lives[static_cast<size_t>(j)];
        if (seen[static_cast<size_t>(j)] != stamp && other.first_tick <= life.last_tick &&
            life.first_tick <= other.last_tick) {
          seen[static_cast<size_t>(j)] = stamp;
          taken.emplace_back(other.offset, other.offset + other.size);
        }
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t best = -1;
    int64_t best_waste = 0;
    int64_t end = 0;  // highest end so far of the lives in the way
    for (const auto& [offset, stop] : taken) {
      const int64_t gap = offset - end;
      if (gap >= life.size && (best < 0 || gap - life.size < best_waste)) {
        best = end;
        best_waste = gap - life.size;
      }
      end = std::max(end, stop);
    }
    life.offset = best >= 0 ? best : end;
    high = std::max(high, life.offset + life.size);
    for (size_t b = b0; b <= b1; ++b) {
      buckets[b].push_back(i);
    }
  }
  arena.bytes = high;
}

}  // namespace

void Arena::index() {
  ir::ValueId most = -1;
  for (const Life& life : lives) {
    most = std::max(most, life.value);
  }
  by_value_.assign(static_cast<size_t>(most + 1), {});
  for (size_t i = 0; i < lives.size(); ++i) {
    by_value_[static_cast<size_t>(lives[i].value)].push_back(static_cast<int32_t>(i));
  }
}

int32_t Arena::find(ir::ValueId v, int64_t m, int32_t instr) const {
  if (!holds(v)) {
    return -1;
  }
  int32_t found = -1;
  for (int32_t i : by_value_[static_cast<size_t>(v)]) {
    const Life& life = lives[static_cast<size_t>(i)];
    if (life.micro_batch < 0) {
      return i;
    }
    if (life.micro_batch == m && life.first_instr <= instr) {
      found = i;  // lives are in order: the last one begun is the one in use
    }
  }
  return found;
}

Arena assign_buffers(const Plan& plan, int32_t ipu) {
  const auto& program = plan.programs.ipus.at(static_cast<size_t>(ipu));
  Arena arena = LifeWalk(plan, ipu).run(program);
  // The offline placement packs tighter; past this many lives (long accumulations of big
  // models) its cost grows too fast and the online one takes over.
  constexpr size_t kOfflineLives = 5000;
  if (arena.lives.size() <= kOfflineLives) {
    place_offline(arena);
  } else {
    place_online(arena);
  }
  arena.index();
  return arena;
}


int64_t host_scale(const Plan& plan) { return is_half(plan.settings.device.compute) ? 2 : 1; }

}  // namespace iputrain::planner
