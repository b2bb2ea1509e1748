#include "engine/cluster/memory_account.hpp"

namespace iputrain::engine {

MemoryDeltas arena_deltas(const planner::Arena& arena, size_t instructions) {
  MemoryDeltas out;
  out.acquire.assign(instructions, 0);
  out.release.assign(instructions, 0);
  out.top.assign(instructions, 0);
  for (const planner::Life& life : arena.lives) {
    const auto first = static_cast<size_t>(life.first_instr);
    const auto last = static_cast<size_t>(life.last_instr);
    if (first >= instructions || last >= instructions) {
      continue;
    }
    out.acquire[first] += life.size;
    out.release[last] += life.size;
    out.top[first] = std::max(out.top[first], life.offset + life.size);
  }
  return out;
}

}  // namespace iputrain::engine
