#include "engine/cluster/memory_account.hpp"

#include "planner/liveness.hpp"

namespace iputrain::engine {

MemoryDeltas arena_deltas(const planner::Arena& arena, size_t instructions) {
  // The planner's sweep of the arena (the one its memory model reads), per instruction of the
  // full program.
  const planner::ArenaUse use = planner::arena_use(arena);
  MemoryDeltas out;
  out.acquire.assign(instructions, 0);
  out.release.assign(instructions, 0);
  out.top.assign(instructions, 0);
  for (size_t i = 0; i < instructions; ++i) {
    if (const planner::ArenaUse::Row* row = use.at(static_cast<int32_t>(i))) {
      out.acquire[i] = row->acquire;
      out.release[i] = row->release;
      out.top[i] = row->top;
    }
  }
  return out;
}

}  // namespace iputrain::engine
