// Per-IPU programs: what each virtual IPU of a replica does, in order, during one accumulation
// cycle (one weight update). Every replica runs the same programs on its own data; the engine
// executes them instruction by instruction, the memory and cycle models read them.
//
// Data movement is explicit. A value computed on one IPU and read on another travels in a Message:
// the producer's IPU issues Send right after the task that computed it, the consumer's IPU issues
// Recv right before the first task that reads it. Receivers match messages by id, so channels
// need not deliver in program order; `Channel::capacity` bounds the messages in flight.
//
// Execution contract (the engine implements it, the planner's models assume it):
// - Replica r runs `ipus[i]` on its IPU i once per weight update. Its micro-batch m of update u is
//   the global micro-batch g = r * A + m of that update (A = accumulation count), i.e. batch
//   (u * R + r) * A + m of the training stream, whatever the plan: the data, the RNG streams
//   (keyed by sample index) and the gradient sums depend on g only, so every plan computes the
//   same numbers.
// - Buffers: parameters have one copy each; every other value lives where the IPU's arena puts
//   each of its lives (planner/buffer_assignment.hpp).
// - Accumulate adds the gradients of its params (Plan::grads) for micro-batch g, in the order
//   `pipeline.gradient_accumulation_order` names (GradientAccumulationOrder). Canonical: a pairwise tree
//   over the N = R * A global micro-batches of the update (a left-complete binary tree: split at
//   the largest power of two below the leaf count); ReduceReplicas combines the replicas' complete
//   subtrees into the root in that same tree, so the sum is bitwise the same for any R and A with
//   the same N. Sequential: one running sum per replica, micro-batches m = 0 .. A-1 added in turn;
//   ReduceReplicas adds the replicas' sums left to right (((s0 + s1) + s2) + ...), so the sum is
//   bitwise the same for every schedule and placement at the same R and A. UpdateWeights then
//   applies the optimizer with the gradient scaled once by 1/N (reduction mean or running_mean)
//   or 1/R (sum: replicas are averaged).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"
#include "planner/buffer_assignment.hpp"

namespace iputrain::planner {

std::string_view accumulation_order_name(GradientAccumulationOrder order);

enum class InstrKind : uint8_t {
  Infeed,           //!< take micro-batch m's input values from this replica's host feed
  Forward,          //!< run stage s's forward nodes on micro-batch m
  Recompute,        //!< run stage s's recomputable forward nodes again, just before its backward
  Backward,         //!< run stage s's backward nodes on micro-batch m (split: the input-gradient part)
  BackwardWeights,  //!< split backward (zero_bubble): run stage s's weight-gradient nodes on micro-batch m
  Send,             //!< copy Message `message`'s values into the channel to its receiver
  Recv,             //!< wait for Message `message` and copy its values into this IPU's buffers
  Accumulate,       //!< add micro-batch m's gradients of stage s's parameters to the accumulators
  ReduceReplicas,   //!< combine accumulators across replicas (bucket `bucket`), canonical order
  UpdateWeights,    //!< apply the optimizer to this IPU's parameters with the reduced gradients
  Outfeed,          //!< hand micro-batch m's output values (`values`) to the host outfeed
};

std::string_view instr_kind_name(InstrKind kind);

//! Instructions that run a stage's nodes (a task of the timeline).
inline bool is_task(InstrKind k) {
  return k == InstrKind::Forward || k == InstrKind::Recompute || k == InstrKind::Backward ||
         k == InstrKind::BackwardWeights;
}

//! Tasks that make parameter gradients (both halves of a split backward may).
inline bool is_backward(InstrKind k) { return k == InstrKind::Backward || k == InstrKind::BackwardWeights; }

struct Instr {
  InstrKind kind = InstrKind::Forward;
  int32_t stage = -1;        //!< Forward, Recompute, Backward, Accumulate
  int64_t micro_batch = -1;  //!< 0-based within the cycle; -1 for ReduceReplicas, UpdateWeights
  int32_t timestep = -1;     //!< timestep of the timeline the instruction belongs to
  int32_t message = -1;      //!< Send, Recv: index into DevicePrograms::messages
  int32_t bucket = -1;       //!< ReduceReplicas: index into DevicePrograms::buckets
  std::vector<ir::ValueId> values;  //!< Infeed: inputs; Outfeed: outputs; Accumulate: params

  //! Short form for golden tests and the REPL: `F1.m3`, `B0.m2`, `W0.m2`, `R1.m0`, `send m2 ->1 #4`,
  //! `recv m2 <-0 #4`, `infeed m0`, `acc1.m3`, `reduce #0`, `update`, `outfeed m3`.
  std::string str(const struct DevicePrograms& programs) const;
};

//! Values of one micro-batch crossing from one IPU of a replica to another.
struct Message {
  int32_t from = 0;
  int32_t to = 0;
  int64_t micro_batch = 0;
  std::vector<ir::ValueId> values;
  int64_t bytes = 0;
};

//! The one-way link between two IPUs of a replica: messages in flight at most `capacity`.
struct Channel {
  int32_t from = 0;
  int32_t to = 0;
  int32_t capacity = 1;
  int64_t max_message_bytes = 0;
};

//! Parameters reduced across replicas together (`maximum_cross_replica_sum_buffer_size`).
struct Bucket {
  int32_t ipu = 0;
  std::vector<ir::ValueId> params;
  int64_t bytes = 0;
};

//! What a buffer of the table holds. Only parameters have buffers of their own, one copy each for
//! the whole run; every other value lives in the IPU's arena (planner/buffer_assignment.hpp).
//! A host table (planner/host_tables.hpp) and its gradient are held in host memory for the IPU
//! whose stage looks the table up, outside the IPU's memory.
enum class BufferClass : uint8_t { Param, HostTable, HostGradient };

struct Buffer {
  ir::ValueId value = ir::kNoValue;
  BufferClass cls = BufferClass::Param;
  int32_t copies = 1;
  int64_t bytes = 0;  //!< f32 bytes of the value
};

//! Two consecutive kernels of a task's nodes that run as one fused kernel (pass "fuse",
//! planner/fusion.hpp): a bias add, its head, and the relu of its result, its tail.
struct FusedPair {
  ir::ValueId head = ir::kNoValue;
  ir::ValueId tail = ir::kNoValue;
};

//! Nodes each task runs, shared by all micro-batches, in a valid order. Under interleaved
//! recomputation the backward list rebuilds each recomputed value just before its first reader.
struct StagePrograms {
  std::vector<ir::ValueId> forward;
  std::vector<ir::ValueId> recompute;  //!< forward nodes re-run before the backward (empty: none)
  std::vector<ir::ValueId> backward;
  //! Split backward (zero_bubble): the backward nodes only parameter gradients need, taken out of
  //! `backward`, which keeps what the input gradients need. Empty when not split.
  std::vector<ir::ValueId> weights;
  std::vector<ir::ValueId> stash;      //!< forward values kept from forward to backward per micro-batch
  //! Per task list (forward, recompute, backward, weights): the pairs of its kernels that run as
  //! one, in the list's order (pass "fuse"). The engine runs them fused, or one by one where only
  //! the run knows they cannot be (rounding, traps, the buffers, IPUTRAIN_FUSE=off).
  std::array<std::vector<FusedPair>, 4> fusions;

  //! The nodes a task instruction of this stage runs.
  const std::vector<ir::ValueId>& nodes(InstrKind kind) const {
    return kind == InstrKind::Forward     ? forward
           : kind == InstrKind::Recompute ? recompute
           : kind == InstrKind::Backward  ? backward
                                          : weights;
  }
  //! The pairs of nodes(kind) that run as one fused kernel.
  const std::vector<FusedPair>& fused(InstrKind kind) const { return fusions[fusion_slot(kind)]; }
  std::vector<FusedPair>& fused(InstrKind kind) { return fusions[fusion_slot(kind)]; }

 private:
  static size_t fusion_slot(InstrKind kind) {
    return kind == InstrKind::Forward ? 0 : kind == InstrKind::Recompute ? 1 : kind == InstrKind::Backward ? 2 : 3;
  }
};

struct DevicePrograms {
  std::vector<std::vector<Instr>> ipus;  //!< [ipu within replica] -> one cycle, in order
  std::vector<StagePrograms> stages;     //!< per model stage
  std::vector<Message> messages;
  std::vector<Channel> channels;
  std::vector<Bucket> buckets;
  std::vector<std::vector<Buffer>> buffers;  //!< [ipu] -> the parameters the IPU holds
  std::vector<Arena> arenas;                 //!< [ipu] -> where its non-Param values live (pass "buffers")
};

//! Largest number of partial sums the canonical tree holds at once while one replica pushes the
//! global leaves first .. first + count - 1 in order. The accumulator buffers a parameter needs
//! are planner::accumulator_buffers() (memory_model.hpp), which the engine allocates.
int32_t tree_stack_depth(int64_t first, int64_t count);

}  // namespace iputrain::planner
