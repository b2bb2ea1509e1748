#include "planner/arena_placement.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <utility>

namespace iputrain::planner {

namespace {

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

  std::map<int64_t, int64_t> by_offset_;           // free blocks: offset -> size
  std::set<std::pair<int64_t, int64_t>> by_size_;  // the same blocks as (size, offset)
  int64_t top_ = 0;
};

}  // namespace

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
    if (life.view_of >= 0) {
      continue;  // no bytes of its own (settle_views)
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
// by buckets of ticks so that a life only looks at lives near it in time. A unit of several lives
// (the copies of one life in the blocks of a folded program) takes one offset, free for all of them.
void place_offline(Arena& arena, const std::vector<std::vector<int32_t>>& units) {
  std::vector<Life>& lives = arena.lives;
  const size_t n = lives.size();
  std::vector<int32_t> order(units.size());
  for (size_t i = 0; i < units.size(); ++i) {
    order[i] = static_cast<int32_t>(i);
  }
  auto size_of = [&](int32_t u) { return lives[static_cast<size_t>(units[static_cast<size_t>(u)].front())].size; };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return size_of(a) > size_of(b); });
  constexpr int64_t kBucket = 64;
  const int64_t ticks = arena.instr_ticks.empty() ? 1 : std::max<int64_t>(1, arena.instr_ticks.back());
  std::vector<std::vector<int32_t>> buckets(static_cast<size_t>(ticks / kBucket + 1));
  // Units in the way are counted once: all their lives sit at one offset.
  std::vector<int32_t> unit_of(n, -1);
  for (size_t u = 0; u < units.size(); ++u) {
    for (int32_t i : units[u]) {
      unit_of[static_cast<size_t>(i)] = static_cast<int32_t>(u);
    }
  }
  std::vector<uint32_t> seen(units.size(), 0);
  uint32_t stamp = 0;
  std::vector<std::pair<int64_t, int64_t>> taken;  // (offset, end) of the placed lives in the way
  int64_t high = 0;
  for (int32_t u : order) {
    const std::vector<int32_t>& unit = units[static_cast<size_t>(u)];
    const int64_t size = size_of(u);
    if (lives[static_cast<size_t>(unit.front())].view_of >= 0) {
      continue;  // no bytes of its own (settle_views)
    }
    ++stamp;
    taken.clear();
    for (int32_t i : unit) {
      const Life& life = lives[static_cast<size_t>(i)];
      const auto b0 = static_cast<size_t>(life.first_tick / kBucket);
      const auto b1 = static_cast<size_t>(life.last_tick / kBucket);
      for (size_t b = b0; b <= b1; ++b) {
        for (int32_t j : buckets[b]) {
          const Life& other = lives[static_cast<size_t>(j)];
          uint32_t& mark = seen[static_cast<size_t>(unit_of[static_cast<size_t>(j)])];
          if (mark != stamp && other.first_tick <= life.last_tick && life.first_tick <= other.last_tick) {
            mark = stamp;
            taken.emplace_back(other.offset, other.offset + other.size);
          }
        }
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t best = -1;
    int64_t best_waste = 0;
    int64_t end = 0;  // highest end so far of the lives in the way
    for (const auto& [offset, stop] : taken) {
      const int64_t gap = offset - end;
      if (gap >= size && (best < 0 || gap - size < best_waste)) {
        best = end;
        best_waste = gap - size;
      }
      end = std::max(end, stop);
    }
    const int64_t offset = best >= 0 ? best : end;
    high = std::max(high, offset + size);
    for (int32_t i : unit) {
      Life& life = lives[static_cast<size_t>(i)];
      life.offset = offset;
      const auto b0 = static_cast<size_t>(life.first_tick / kBucket);
      const auto b1 = static_cast<size_t>(life.last_tick / kBucket);
      for (size_t b = b0; b <= b1; ++b) {
        buckets[b].push_back(i);
      }
    }
  }
  arena.bytes = high;
}

// A view sits at its root's offset (lives are in order of first tick: the root was placed first).
void settle_views(Arena& arena) {
  for (Life& life : arena.lives) {
    if (life.view_of >= 0) {
      life.offset = arena.lives[static_cast<size_t>(life.view_of)].offset;
    }
  }
}

void place_offline(Arena& arena) {
  std::vector<std::vector<int32_t>> units(arena.lives.size());
  for (size_t i = 0; i < units.size(); ++i) {
    units[i] = {static_cast<int32_t>(i)};
  }
  place_offline(arena, units);
}

}  // namespace iputrain::planner
