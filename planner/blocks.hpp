// A model's repeated blocks, found in its forward graph whatever the source called them: the
// longest run of equal consecutive blocks of ops (a `for` over a layer, or the same layer written
// out by hand). Automatic staging cuts at their boundaries first; `tune` spreads them over IPUs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

//! The largest family of equal consecutive blocks of a sequence of compute nodes.
struct Blocks {
  size_t first = 0;   //!< position of the first block's first node in the sequence
  size_t period = 0;  //!< nodes per block
  int64_t count = 0;  //!< blocks (0: the model repeats nothing)

  //! Position of the node that starts block k (k = count: the node after the last block).
  size_t start(int64_t k) const { return first + static_cast<size_t>(k) * period; }
  //! The segment of the node at `position`: 0 before the blocks, 1 in them, 2 after them.
  int32_t segment(size_t position) const { return position < first ? 0 : (position < start(count) ? 1 : 2); }
};

//! The family of `nodes` (compute nodes of `g` in the order they run) covering the most nodes, at
//! least two blocks; the smaller block on ties. Two blocks are equal when their nodes, in order, have
//! the same op, attributes and type, and read the same outside value, a leaf of the same kind and
//! type, or the node one block back. Of the ways to phase the blocks in a periodic run, the one with
//! the most whole blocks, then the fewest bytes crossing between blocks (`crossing[k]`: the bytes
//! live across the cut after node k), then a boundary after a recomputation checkpoint.
Blocks find_blocks(const ir::Graph& g, const std::vector<ir::ValueId>& nodes, const std::vector<int64_t>& crossing);

}  // namespace iputrain::planner
