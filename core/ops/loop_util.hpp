// What the loop ops share (core/ops/loop*.cpp): where each part sits in a loop's packed result, and
// the executor that runs a body graph inside a kernel.
//
// A `loop` node's body is a graph whose leaves are loop_arg nodes, listed in the body's `inputs` in
// index order: the carried values (C), the counter (an i32 scalar), then the values of the model the
// body reads (K, "captured"). The body's `outputs` are the carried values' next values (C), the
// values collected per iteration (Y) and, with a `while`, the condition on the next values (last).
// The loop node reads (initial carried values..., [condition on them], captured...) and writes one
// f32 buffer packing, 64-byte aligned: each carried value's final value, each collected value
// stacked over the iterations [T, ...] (zeros past the last iteration run), each carried value at
// the start of every iteration [T, ...] (what back-propagation through time restarts from), and
// the count of iterations run (i32). Parts of other dtypes than f32 keep their own bytes; loop_part
// reads one part out, typed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! One part of a packed buffer: its offset in 4-byte elements and its type.
struct PackedPart {
  int64_t offset = 0;
  TensorType type;
};

//! Parts laid out one after the other, each at a 64-byte boundary; `elements` is the total.
struct Packing {
  std::vector<PackedPart> parts;
  int64_t elements = 0;
};
Packing pack(const std::vector<TensorType>& types);

//! The attributes of a loop and of its gradient: the counter's range, the operand counts, whether a
//! `while` condition comes with the initial values, and the packed result's size in elements.
inline constexpr AttrSpec kLoopAttrs[] = {{.name = "begin", .type = AttrType::Int, .required = true},
                                          {.name = "end", .type = AttrType::Int, .required = true},
                                          {.name = "carried", .type = AttrType::Int, .required = true, .min = 0},
                                          {.name = "collected", .type = AttrType::Int, .required = true, .min = 0},
                                          {.name = "captured", .type = AttrType::Int, .required = true, .min = 0},
                                          {.name = "cond", .type = AttrType::Int, .number = 0, .min = 0, .max = 1},
                                          {.name = "elements", .type = AttrType::Int, .required = true, .min = 1}};

//! A loop node's facts, from its attributes and its body.
struct LoopShape {
  int64_t carried = 0;
  int64_t collected = 0;
  int64_t captured = 0;
  bool cond = false;
  int64_t begin = 0;  //!< the counter's first value
  int64_t trips = 0;  //!< the bound on the iterations (end - begin)
  //! The loop node's input holding captured value k.
  size_t captured_input(int64_t k) const { return static_cast<size_t>(carried + (cond ? 1 : 0) + k); }
};
LoopShape loop_shape(const Graph& body, const Attrs& attrs);

//! The packed result of a loop: finals (C), collected (Y), history (C), count.
Packing loop_packing(const Graph& body, const LoopShape& s);
//! Where part `part` of loop_packing starts (4-byte elements), without allocating (for kernels).
int64_t loop_part_offset(const Graph& body, const LoopShape& s, size_t part);
//! Where operand i's part of loop_grad_packing starts, without allocating.
int64_t grad_part_offset(std::span<const Tensor> operands, size_t i);
//! Bytes rounded up to the packing's 64-byte alignment.
inline size_t packed_aligned(size_t bytes) { return (std::max<size_t>(bytes, 1) + 63) / 64 * 64; }
//! Part indices within loop_packing.
inline size_t final_part(const LoopShape& s, int64_t k) { return static_cast<size_t>(k); }
inline size_t collected_part(const LoopShape& s, int64_t j) { return static_cast<size_t>(s.carried + j); }
inline size_t history_part(const LoopShape& s, int64_t k) { return static_cast<size_t>(s.carried + s.collected + k); }
inline size_t count_part(const LoopShape& s) { return static_cast<size_t>(2 * s.carried + s.collected); }

//! The packed result of a loop's gradient: one f32 part per input of the loop node, shaped like it
//! (zeros for inputs that are not f32).
Packing loop_grad_packing(std::span<const TensorType* const> loop_inputs);

//! Whether `t` may be carried or collected by a loop (its bytes are packed as they are).
bool loop_packable(const TensorType& t);

//! Runs a body graph inside a kernel, in scratch it lays out itself (kernels do not allocate): one
//! buffer per node, the leaves bound to outside memory, constants filled once.
class BodyRun {
 public:
  //! Bytes of scratch a BodyRun of `body` needs (64-byte aligned).
  static size_t scratch_bytes(const Graph& body);
  BodyRun(const Graph& body, void* scratch);
  //! Points loop_arg `index` (body.inputs[index]) at `data`.
  void bind(size_t index, const void* data) { args_[index] = data; }
  //! Runs every node in order.
  void run(const ExecContext* ctx);
  //! A node's buffer (a loop_arg: what it is bound to).
  const void* data(ValueId v) const;

 private:
  const Graph& body_;
  std::byte* base_;
  size_t* offset_;  //!< per node: its buffer's offset in the scratch, or a loop_arg's index
  const void** args_;
  Tensor* operands_;
  void* inner_;
};

//! Bytes a body node's value holds in a BodyRun, and the scratch of the ops it runs (nested loops).
size_t body_values_bytes(const Graph& body);

//! What `trips` iterations of `body` cost (the sum of its ops' costs, times trips).
Cost loop_body_cost(const Graph& body, int64_t trips);

//! The ExecContext of iteration `t` of a loop: random ops draw anew in every iteration.
ExecContext iteration_context(const ExecContext* ctx, int64_t t);

}  // namespace iputrain::ir
