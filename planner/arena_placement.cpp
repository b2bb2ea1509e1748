#include "planner/arena_placement.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <utility>

#include "planner/deadline.hpp"

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

namespace {

// Placed lives indexed by buckets of ticks, so that a life only looks at lives near it in time.
// Buckets come in levels of doubling width, and a life is kept at the narrowest level where it
// spans at most two buckets: a search then reads, besides lives that overlap it, only those near
// its two ends, where one bucket per level keeps every long life once instead of in each bucket
// it spans. A unit whose lives span much of the program (a constant, a long stash) overlaps most
// placed units: it reads all of them in the order of their offsets instead, which needs no sort.
class PlacedIndex {
 public:
  PlacedIndex(const std::vector<Life>& lives, const std::vector<std::vector<int32_t>>& units, int64_t ticks)
      : ticks_(ticks), seen_(units.size(), 0) {
    for (int64_t width = kBucket;; width *= 2) {
      levels_.emplace_back(static_cast<size_t>(ticks / width + 1));
      if (width > ticks) {
        break;
      }
    }
    ranges_of_.push_back(0);
    for (const std::vector<int32_t>& unit : units) {
      for (int32_t i : unit) {
        ranges_.emplace_back(lives[static_cast<size_t>(i)].first_tick, lives[static_cast<size_t>(i)].last_tick);
      }
      ranges_of_.push_back(static_cast<int32_t>(ranges_.size()));
    }
  }

  // (offset, end) of every placed unit that overlaps a life of `unit` in time, each unit once,
  // sorted by offset.
  const std::vector<std::pair<int64_t, int64_t>>& in_the_way(int32_t unit) {
    taken_.clear();
    int64_t span = 0;
    for (const auto& [first, last] : ranges(unit)) {
      span += last - first + 1;
    }
    if (span * kLong >= ticks_) {
      const Range bounds = bounds_of(unit);
      for (const Entry& e : by_offset()) {
        // Most units lie wholly inside or wholly outside a long one's lives: the bounds decide.
        const bool maybe = e.first <= bounds.second && bounds.first <= e.last;
        if (maybe && (covered(unit, e.first, e.last) || overlap(unit, e.unit))) {
          taken_.emplace_back(e.offset, e.end);
        }
      }
      return taken_;
    }
    ++stamp_;
    for (const auto& [first, last] : ranges(unit)) {
      for (size_t level = 0; level < levels_.size(); ++level) {
        auto& buckets = levels_[level];
        for (size_t b = bucket(first, level); b <= bucket(last, level); ++b) {
          collect(buckets[b], first, last);
        }
      }
    }
    // By offset alone: of two lives at one offset only the first can bound a gap, whatever their ends.
    std::sort(taken_.begin(), taken_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return taken_;
  }

  // `unit` (`size` bytes), its lives at `offset`.
  void add(int32_t unit, int64_t offset, int64_t size) {
    const Range bounds = bounds_of(unit);
    pending_.push_back({offset, offset + size, bounds.first, bounds.second, unit});
    for (const auto& [first, last] : ranges(unit)) {
      size_t level = 0;
      while (bucket(last, level) > bucket(first, level) + 1) {
        ++level;
      }
      for (size_t b = bucket(first, level); b <= bucket(last, level); ++b) {
        levels_[level][b].push_back({first, last, offset, offset + size, unit});
      }
    }
  }

 private:
  // A placed life as a search reads it: copied into every bucket it spans, so a search streams
  // through its buckets without looking anything up elsewhere.
  struct Placed {
    int64_t first_tick;
    int64_t last_tick;
    int64_t offset;
    int64_t end;
    int32_t unit;
  };
  struct Entry {
    int64_t offset;
    int64_t end;
    int64_t first;  // first tick of the unit's first life
    int64_t last;   // last tick of its last life
    int32_t unit;
  };
  using Range = std::pair<int64_t, int64_t>;  // first and last tick of a life

  static constexpr int64_t kBucket = 64;  // ticks of the narrowest buckets
  static constexpr int64_t kLong = 8;     // a unit spanning 1 / kLong of the ticks reads every placed unit
  static size_t bucket(int64_t tick, size_t level) { return static_cast<size_t>((tick / kBucket) >> level); }

  std::pair<const Range*, const Range*> ranges_span(int32_t unit) const {
    const Range* base = ranges_.data();
    return {base + ranges_of_[static_cast<size_t>(unit)], base + ranges_of_[static_cast<size_t>(unit) + 1]};
  }
  struct Ranges {
    const Range* b;
    const Range* e;
    const Range* begin() const { return b; }
    const Range* end() const { return e; }
  };
  Ranges ranges(int32_t unit) const {
    const auto [b, e] = ranges_span(unit);
    return {b, e};
  }

  Range bounds_of(int32_t unit) const {
    Range bounds{ticks_, 0};
    for (const auto& [first, last] : ranges(unit)) {
      bounds = {std::min(bounds.first, first), std::max(bounds.second, last)};
    }
    return bounds;
  }

  // A life of `unit` spans the ticks first .. last.
  bool covered(int32_t unit, int64_t first, int64_t last) const {
    for (const auto& [f, l] : ranges(unit)) {
      if (f <= first && last <= l) {
        return true;
      }
    }
    return false;
  }

  bool overlap(int32_t a, int32_t b) const {
    for (const auto& [f, l] : ranges(a)) {
      for (const auto& [g, m] : ranges(b)) {
        if (f <= m && g <= l) {
          return true;
        }
      }
    }
    return false;
  }

  // The placed units in the order of their offsets: the ones placed since the last call merged in.
  const std::vector<Entry>& by_offset() {
    const auto by = [](const Entry& x, const Entry& y) { return x.offset < y.offset; };
    std::sort(pending_.begin(), pending_.end(), by);
    const auto middle = static_cast<std::ptrdiff_t>(sorted_.size());
    sorted_.insert(sorted_.end(), pending_.begin(), pending_.end());
    std::inplace_merge(sorted_.begin(), sorted_.begin() + middle, sorted_.end(), by);
    pending_.clear();
    return sorted_;
  }

  void collect(const std::vector<Placed>& bucket, int64_t first, int64_t last) {
    for (const Placed& other : bucket) {
      if (other.first_tick <= last && first <= other.last_tick && seen_[static_cast<size_t>(other.unit)] != stamp_) {
        seen_[static_cast<size_t>(other.unit)] = stamp_;
        taken_.emplace_back(other.offset, other.end);
      }
    }
  }

  int64_t ticks_;
  std::vector<Range> ranges_;       // the lives of every unit, unit after unit
  std::vector<int32_t> ranges_of_;  // per unit: where its lives start in ranges_; one more entry: the end
  std::vector<std::vector<std::vector<Placed>>> levels_;  // [level][bucket] -> lives kept there
  std::vector<Entry> sorted_;                             // placed units by offset
  std::vector<Entry> pending_;                            // placed since sorted_ was last brought up to date
  std::vector<uint32_t> seen_;                            // per unit: the stamp of the last search that took it
  uint32_t stamp_ = 0;
  std::vector<std::pair<int64_t, int64_t>> taken_;
};

// The lowest-waste gap of `size` bytes between `taken` (sorted by offset), or the top of them all.
int64_t best_gap(const std::vector<std::pair<int64_t, int64_t>>& taken, int64_t size) {
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
  return best >= 0 ? best : end;
}

}  // namespace

// Offline placement, largest life first (the "greedy by size" of TFLite's arena planner and
// XLA's heap simulator): each life goes into the lowest-waste gap left between the lives already
// placed that overlap it in time, or above them all. Big stashes settle first and small values
// fill the gaps around them, which a first-come allocator would fragment. A unit of several lives
// (the copies of one life in the blocks of a folded program) takes one offset, free for all of them.
void place_offline(Arena& arena, const std::vector<std::vector<int32_t>>& units) {
  std::vector<Life>& lives = arena.lives;
  std::vector<int32_t> order(units.size());
  for (size_t i = 0; i < units.size(); ++i) {
    order[i] = static_cast<int32_t>(i);
  }
  auto size_of = [&](int32_t u) { return lives[static_cast<size_t>(units[static_cast<size_t>(u)].front())].size; };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return size_of(a) > size_of(b); });
  const int64_t ticks = arena.instr_ticks.empty() ? 1 : std::max<int64_t>(1, arena.instr_ticks.back());
  PlacedIndex placed(lives, units, ticks);
  int64_t high = 0;
  int64_t done = 0;
  for (int32_t u : order) {
    if (++done % 256 == 0) {
      check_plan_deadline();  // the placement of many lives is the longest loop of a plan
    }
    const std::vector<int32_t>& unit = units[static_cast<size_t>(u)];
    if (lives[static_cast<size_t>(unit.front())].view_of >= 0) {
      continue;  // no bytes of its own (settle_views)
    }
    const int64_t size = size_of(u);
    const int64_t offset = best_gap(placed.in_the_way(u), size);
    high = std::max(high, offset + size);
    for (int32_t i : unit) {
      lives[static_cast<size_t>(i)].offset = offset;
    }
    placed.add(u, offset, size);
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
