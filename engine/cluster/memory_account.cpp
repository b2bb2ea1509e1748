#include "engine/cluster/memory_account.hpp"

namespace iputrain::engine {

MemoryDeltas arena_deltas(const planner::Arena& arena, size_t instructions) {
  // Per instruction of the walked program, then repeated where the program folds.
  const size_t walked = arena.instr_ticks.empty() ? instructions : arena.instr_ticks.size() - 1;
  MemoryDeltas own;
  own.acquire.assign(walked, 0);
  own.release.assign(walked, 0);
  own.top.assign(walked, 0);
  for (const planner::Life& life : arena.lives) {
    const auto first = static_cast<size_t>(life.first_instr);
    const auto last = static_cast<size_t>(life.last_instr);
    if (first >= walked || last >= walked) {
      continue;
    }
    own.acquire[first] += life.size;
    own.release[last] += life.size;
    own.top[first] = std::max(own.top[first], life.offset + life.size);
  }
  if (arena.fold.block == 0 && walked == instructions) {
    return own;
  }
  MemoryDeltas out;
  out.acquire.assign(instructions, 0);
  out.release.assign(instructions, 0);
  out.top.assign(instructions, 0);
  for (size_t i = 0; i < instructions; ++i) {
    const auto r = static_cast<size_t>(arena.walked(static_cast<int32_t>(i)).instr);
    if (r < walked) {
      out.acquire[i] = own.acquire[r];
      out.release[i] = own.release[r];
      out.top[i] = own.top[r];
    }
  }
  return out;
}

}  // namespace iputrain::engine
