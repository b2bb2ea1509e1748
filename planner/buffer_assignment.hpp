// Buffer assignment by liveness: where each value an IPU computes lives in its activation arena.
//
// One walk over an IPU's program gives every value its lives. Ticks number the nodes of each task
// (Forward, Recompute, Backward) one by one and every other instruction once, in program order; a
// life starts at the tick its maker runs (a node, a Recv, an Infeed) and ends at the last tick that
// reads it. So values inside one task share memory as well as values of different tasks and
// micro-batches. A recomputed value has a second life. A weight gradient is added to its
// accumulator as soon as its node has run (the engine does exactly that), so it lives one tick;
// without accumulation (one micro-batch, one replica) the optimizer reads it at the end of the cycle.
// The loss and the model's outputs live at least to the end of the forward task that makes them
// (the outfeed takes them from there). Constants live throughout; parameters are not in the arena.
// The walk times the lives with planner/liveness.hpp, as the other passes that need lives do.
//
// A reshape's output is a view: it takes no memory of its own, and the life of the value it reshapes
// lasts until the view's last read (values are written once, by their maker, so sharing the bytes is
// safe). The lives are then placed in one arena, largest first, each in the tightest gap left by the
// lives placed before it that overlap it in time: two lives that overlap in time never overlap in
// memory, and the arena is the planned activation memory. Long programs (over 5,000 lives on one
// IPU) are placed online instead, in order of first tick into the best-fitting free block, which
// costs far less and packs a little looser. The memory model reports the arena's size and the
// engine allocates that arena and takes every tensor from it, so the planned bytes and the bytes
// the engine uses are one figure.
//
// A long accumulation (a thousand instructions or more on one IPU) is not walked whole: in the
// schedule's steady state the program repeats one block of instructions, a micro-batch later each
// time, so the walk keeps four blocks, each longer than any life, and the rest of the program
// reuses the lives and offsets of one of them (ArenaFold). Every copy of a block's life gets the
// same offset, so any stretch of the full program looks like a stretch of the walked one. Planning
// time and the planner's memory then stop growing with the accumulation count. Offsets count device bytes (half values
// take 2 bytes); the engine, which stores every float in f32, scales all offsets by one factor (planner::host_scale).
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

struct Plan;

//! Placement granularity of the arena: a cache line (aligned vector loads in the engine).
inline constexpr int64_t kArenaAlign = 64;

//! One stretch of time during which one copy of a value occupies memory.
struct Life {
  ir::ValueId value = ir::kNoValue;
  int64_t micro_batch = -1;  //!< -1: lives for the whole cycle (constants)
  int32_t first_instr = 0;   //!< program position of the instruction that makes it
  int32_t last_instr = 0;    //!< program position of the last instruction reading it
  int64_t first_tick = 0;
  int64_t last_tick = 0;
  int64_t bytes = 0;         //!< device bytes of the value
  int64_t size = 0;          //!< bytes rounded up to kArenaAlign: what it occupies
  int64_t offset = 0;        //!< in the arena
  int32_t stage = -1;        //!< stage of the task that reads it last (the one it is kept for)
  bool from_outside = false; //!< arrived by Recv or Infeed (a stage input)
  bool to_accumulator = false;  //!< a weight gradient added to its accumulator as soon as it is made
  bool temporary = false;  //!< the working memory of the node `value` while it runs (op_temporaries.hpp)
  //! A reshape's output is a view of its input, as on an IPU: no bytes of its own (size 0), the
  //! offset of the life it shares (index in `lives`), which lives as long as the view is read.
  int32_t view_of = -1;
};

//! An instruction of the full program as the walked program sees it.
struct WalkedPosition {
  int32_t instr = 0;  //!< position in the walked program
  int64_t shift = 0;  //!< micro-batches to subtract from the full program's micro-batch
};

//! How a long program maps onto the shorter one its lives were walked on. In a schedule's steady
//! state the program repeats one block of instructions, each time `micro_batches` later. The
//! walked program keeps enough of those blocks around one of them to hold every life that crosses
//! it; the full program has `copies` more blocks, inserted at `split`, and each of them uses the
//! lives (and offsets) of the walked block just before `split`. The placement gives every block's
//! copy of a life the same offset, so any stretch of the full program looks, lives and offsets
//! alike, like a stretch of the walked one. `block` 0: no fold, positions are the program's own.
struct ArenaFold {
  int32_t split = 0;
  int32_t block = 0;
  int64_t copies = 0;
  int64_t micro_batches = 0;  //!< micro-batches one block advances
  int32_t timesteps = 0;      //!< timesteps one block advances

  //! Where instruction `instr` of the full program is in the walked one.
  WalkedPosition walked(int32_t instr) const {
    if (block == 0 || instr < split) {
      return {instr, 0};
    }
    const int64_t inserted = copies * block;
    if (instr < split + inserted) {
      const int64_t k = (instr - split) / block;
      return {static_cast<int32_t>(split - block + (instr - split) % block), (k + 1) * micro_batches};
    }
    return {static_cast<int32_t>(instr - inserted), copies * micro_batches};
  }
};

//! The activation arena of one IPU of a replica.
struct Arena {
  std::vector<Life> lives;              //!< in order of first tick (positions of the walked program)
  int64_t bytes = 0;                    //!< the arena's size: the highest end of any life
  std::vector<int64_t> instr_ticks;     //!< per walked instruction: its first tick; one more entry: total ticks
  ArenaFold fold;

  //! Instructions of the full program.
  size_t instructions() const {
    return instr_ticks.empty() ? 0 : instr_ticks.size() - 1 + static_cast<size_t>(fold.copies * fold.block);
  }
  //! Where instruction `instr` of the full program is in the walked one.
  WalkedPosition walked(int32_t instr) const { return fold.walked(instr); }

  //! Index of the life of `v` for micro-batch `m` that instruction `instr` of the full program
  //! uses (the latest one begun at or before it, or the value's whole-cycle life); -1 if `v` has
  //! none on this IPU. With `temporary`, the working memory of node `v` instead.
  int32_t find(ir::ValueId v, int64_t m, int32_t instr, bool temporary = false) const;
  //! True if `v` has any life here.
  bool holds(ir::ValueId v) const {
    return v >= 0 && static_cast<size_t>(v) < by_value_.size() && !by_value_[static_cast<size_t>(v)].empty();
  }

  //! Fills the lookup index (after `lives` is final).
  void index();

 private:
  std::vector<std::vector<int32_t>> by_value_;  // per value id: its lives, in order
};

//! The arena of IPU `ipu` (logical, within a replica) for `plan`'s programs. A long program whose
//! steady state repeats is walked shortened and folded (ArenaFold).
Arena assign_buffers(const Plan& plan, int32_t ipu);

//! The lives of IPU `ipu`'s whole program, walked without folding and not placed (offsets 0):
//! what a folded arena stands for, for checks.
Arena walk_lives(const Plan& plan, int32_t ipu);

//! The factor the engine multiplies arena offsets and sizes by to hold its f32 host copies:
//! 2 under half compute (a device value of 2 bytes per element is 4 on the host), else 1.
int64_t host_scale(const Plan& plan);

}  // namespace iputrain::planner
