// Placing an arena's lives at offsets (buffer_assignment.cpp walks the lives, these place them):
// two lives that overlap in time never overlap in memory.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/buffer_assignment.hpp"

namespace iputrain::planner {

//! Online: lives in order of first tick, each into the best-fitting free block, freed after its
//! last tick. For very long programs: far cheaper than the offline placement, a little looser.
void place_online(Arena& arena);

//! Offline, largest unit first, each into the lowest-waste gap between the lives already placed
//! that overlap it in time. A unit (indices into `arena.lives`, all of one size) is the copies of
//! one life in the blocks of a folded program: one offset, free for all of them.
void place_offline(Arena& arena, const std::vector<std::vector<int32_t>>& units);
//! Every life a unit of its own.
void place_offline(Arena& arena);

//! Views take the offset of the life they view (after placement).
void settle_views(Arena& arena);

}  // namespace iputrain::planner
