// Liveness, derived in one place for the planner and the engine: who reads each value, where its
// life begins and ends, and how many arena bytes are in use as a program runs.
//
// Three passes ask the question at different grains: automatic staging over the forward graph in
// topological order (which values cross a cut), the op scheduler over one task's nodes in an order
// it is still choosing (the live bytes of each candidate), and the buffer assignment over an IPU's
// program, tick by tick and micro-batch by micro-batch (the arena's lives). The rule is the same
// for all of them: a life begins at the step that makes a value (or that first reads a value made
// elsewhere), every read keeps it alive to that step at least, and a value made again (recomputed)
// begins a second life while the first keeps its end. The memory model and the engine's memory
// account then read the arena's use over time from one sweep of its lives (ArenaUse).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/ir/graph.hpp"
#include "planner/buffer_assignment.hpp"

namespace iputrain::planner {

//! A point of a walk: a tick and the instruction it belongs to. A walk of a plain sequence of
//! nodes has one tick per node and uses the node's position for both.
struct Step {
  int64_t tick = 0;
  int32_t instr = 0;
};

//! One life: a copy of a value (a micro-batch's; -1 for the whole cycle) from the step that begins
//! it to the last step that reads it.
struct Span {
  ir::ValueId value = ir::kNoValue;
  int64_t copy = 0;
  Step first;
  Step last;
};

//! The lives of values as a walk makes and reads them.
class LiveRanges {
 public:
  explicit LiveRanges(size_t values) : open_(values) {}
  //! Begins a life of copy `copy` of `v` at `at`; returns its index. Earlier lives keep their ends.
  int32_t begin(ir::ValueId v, int64_t copy, Step at);
  //! The life of copy `copy` of `v` begun last, or -1.
  int32_t open(ir::ValueId v, int64_t copy) const;
  //! A read at `at`: the life lasts to `at` at least.
  void read(int32_t life, Step at);
  const Span& operator[](int32_t life) const { return spans_[static_cast<size_t>(life)]; }
  size_t size() const { return spans_.size(); }

 private:
  std::vector<Span> spans_;
  std::vector<std::vector<std::pair<int64_t, int32_t>>> open_;  // per value: (copy, life), in the order begun
};

//! Who reads each value in a sequence of nodes (positions 0..n-1), and its life there.
struct Liveness {
  std::vector<int32_t> made;                  //!< per value id: its node's position, -1 if not in the sequence
  std::vector<std::vector<int32_t>> readers;  //!< per value id: positions of the distinct nodes reading it, ascending
  LiveRanges lives{0};                        //!< one life per value made or read in the sequence
  std::vector<int32_t> life;                  //!< per value id: its life in `lives`, -1 if none

  //! First and last position `v` lives at: from its node (or first reader, for a value made
  //! outside the sequence) to its last reader; {-1, -1} if the sequence neither makes nor reads it.
  std::pair<int32_t, int32_t> span(ir::ValueId v) const;
  //! Position of the last node reading `v`, -1 if none does.
  int32_t last_reader(ir::ValueId v) const;
  //! Position of the first node reading `v`, -1 if none does.
  int32_t first_reader(ir::ValueId v) const;
};

//! The liveness of `sequence` (node ids in the order they run) within `g`.
Liveness liveness(const ir::Graph& g, const std::vector<ir::ValueId>& sequence);

//! A set of nodes a scheduler orders, as local indices 0..n-1, with who reads what among them.
struct NodeSet {
  std::vector<int64_t> bytes;              //!< each node's output
  std::vector<int64_t> temporary;          //!< each node's working memory while it runs
  std::vector<std::vector<int32_t>> ins;   //!< distinct inputs in the set, in the order the node reads them
  std::vector<std::vector<int32_t>> outs;  //!< distinct readers in the set, in local order
  std::vector<bool> escapes;               //!< read outside the set (or a graph output): lives to the end
};

//! Live bytes of a NodeSet as its nodes run in any order (a scheduler's order, chosen step by step):
//! a value appears when its node runs and goes when the last of its readers in the set has run
//! (never, if it escapes; at once, if nothing reads it).
class LiveSet {
 public:
  explicit LiveSet(const NodeSet& s);
  //! Runs `v`; returns the live bytes while it runs (its output, its temporaries, all still alive).
  int64_t run(int32_t v);
  //! Undoes run(v) (the last run).
  void undo(int32_t v);
  //! Bytes run(v) would leave alive minus those alive now.
  int64_t delta(int32_t v) const;

 private:
  const NodeSet& s_;
  std::vector<int32_t> remaining_;  // per node: readers not yet run
  int64_t live_ = 0;
};

//! The most live bytes of `s` at once when its nodes run in `order`.
int64_t peak_live_bytes(const NodeSet& s, const std::vector<int32_t>& order);

//! An arena's use over time, from one sweep of its lives, per instruction of the walked program
//! (ArenaFold maps the full program's instructions onto it).
struct ArenaUse {
  struct Row {
    int64_t acquire = 0;     //!< bytes of the lives beginning at the instruction
    int64_t release = 0;     //!< bytes of the lives whose last instruction it is
    int64_t top = 0;         //!< highest end (offset + size) of a life beginning at it, 0 if none
    int64_t most = -1;       //!< most bytes in use at one of its ticks
    int64_t most_tick = -1;  //!< the first tick where that is
    int64_t left = 0;        //!< bytes still in use after its last tick
  };
  std::vector<Row> rows;  //!< per instruction of the walked program
  ArenaFold fold;

  //! Row of instruction `instr` of the full program (folded programs repeat walked rows); the
  //! walked position is returned in `walked` when asked for. nullptr if beyond the walked program.
  const Row* at(int32_t instr, int32_t* walked = nullptr) const;
};

//! The use of `arena` over time.
ArenaUse arena_use(const Arena& arena);

}  // namespace iputrain::planner
