// The op contract. Every primitive is one file in core/ops/ that defines one OpDef: how its
// output type follows from its inputs (shape), how it computes (forward, Eigen), how its gradient
// is built from other ops (backward) and what it costs on an IPU (cost). op_table.cpp lists them
// all, in OpKind order, with a static_assert that the list covers the enum. No self-registration.
//
// Adding a primitive: a value in OpKind, its file here (with a one-line `doc`), one line in
// op_table.cpp, its cases in tests/core/op_cases*.cpp, and `iputrain_gen_ops_doc > docs/ops.md`
// (a test fails while docs/ops.md is stale).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/attrs.hpp"
#include "core/types.hpp"

namespace iputrain::ir {

class Graph;
struct Node;
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

//! Every primitive op. Keep in the order of the table in op_table.cpp.
enum class OpKind : uint8_t {
  // Leaves: no inputs, their values come from outside the program.
  Input,     //!< fed by the infeed; attrs: none (name = field name)
  Param,     //!< a weight; attrs: init, init arguments, trainable (0: state the optimizer never updates)
  Constant,  //!< a filled tensor; attrs: value
  // Elementwise, NumPy broadcasting.
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  MinMaxGrad,  //!< (a, b, dy) -> dy where side `side` wins; attrs: mode, side
  Where,       //!< (cond bool, a, b) -> a where cond else b
  // Elementwise unary (f32).
  Neg,
  Relu,
  ReluGrad,  //!< (x, dy) -> dy where x > 0
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Abs,
  Square,
  Tanh,
  Sigmoid,
  Gelu,  //!< attrs: approximate ("none" | "tanh")
  Swish,
  HardSigmoid,
  UnaryGrad,  //!< (x, dy) -> dy * f'(x); attrs: fn (a unary op's name)
  // Comparisons -> bool.
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  Cast,  //!< attrs: dtype (name)
  // Shape.
  Reshape,      //!< attrs: shape
  BroadcastTo,  //!< attrs: shape
  Transpose,    //!< attrs: perm
  Concat,       //!< variadic; attrs: axis
  Slice,        //!< attrs: begin, end, strides
  SliceGrad,    //!< (dy) -> zeros of attr shape with dy written at the slice
  Gather,       //!< (params, i32 indices); attrs: axis
  GatherGrad,   //!< (indices, dy) -> scatter-add into attr shape
  OneHot,       //!< (i32 indices) -> f32[..., depth]; attrs: depth, on, off
  // Reductions.
  Sum,     //!< attrs: axes (empty = all), keepdims
  Mean,    //!< attrs: axes (empty = all), keepdims
  Max,     //!< attrs: axes (empty = all), keepdims
  Argmax,  //!< attrs: axis; -> i32
  // Linear algebra and convolution (NHWC).
  MatMul,                //!< [..., m, k] @ [k, n] or batched with equal leading dims
  Conv2D,                //!< (x[N,H,W,C], filter[KH,KW,C,F]); attrs: strides, dilations, padding
  Conv2DBackpropInput,   //!< (dy, filter) -> dx; attrs as conv2d + input_shape
  Conv2DBackpropFilter,  //!< (x, dy) -> dfilter; attrs as conv2d + filter_shape
  MaxPool,               //!< attrs: ksize, strides, padding
  MaxPoolGrad,           //!< (x, dy) -> dx
  AvgPool,               //!< attrs: ksize, strides, padding
  AvgPoolGrad,           //!< (dy) -> dx; attrs as avg_pool + input_shape
  // Softmax.
  Softmax,         //!< attrs: axis
  SoftmaxGrad,     //!< (y, dy) -> dx; attrs: axis
  LogSoftmax,      //!< attrs: axis
  LogSoftmaxGrad,  //!< (y, dy) -> dx; attrs: axis
  // Random.
  DropoutMask,  //!< -> f32 mask of 0 or 1/(1-rate); attrs: rate, shape, name
  // Non-trainable state.
  MovingAverage,  //!< (x, state) -> x while training, state in inference; attrs: momentum
  // Losses.
  SoftmaxCrossEntropy,            //!< (logits f32[..., C], labels i32[...]) -> f32[...]
  SoftmaxCrossEntropyGrad,        //!< (logits, labels, dy f32[...]) -> f32[..., C]
  SigmoidCrossEntropyWithLogits,  //!< (logits f32, labels f32) -> f32, elementwise
  // Pipelining.
  RecomputationCheckpoint,  //!< identity whose output is stashed, not recomputed
  Count
};

//! A typed view of one buffer, as kernels see it.
struct Tensor {
  const TensorType* type = nullptr;
  void* data = nullptr;

  float* f32() const { return static_cast<float*>(data); }
  int32_t* i32() const { return static_cast<int32_t*>(data); }
  uint8_t* u8() const { return static_cast<uint8_t*>(data); }
  int64_t numel() const { return type->numel(); }
  const Shape& shape() const { return type->shape; }
};

//! Per-step facts a few kernels need (random ops key their streams by them, so results depend on
//! the seed, the parameter path, the step and the sample, never on the thread or the device).
struct ExecContext {
  uint64_t seed = 0;          //!< training.seed
  int64_t step = 0;           //!< 0-based micro-batch step within the run
  int64_t sample_offset = 0;  //!< global index of the micro-batch's first sample (replicas differ)
  bool training = true;       //!< false for eval/predict programs
};

//! What a forward kernel receives. Kernels must not allocate: all buffers are preallocated.
struct KernelArgs {
  const Node& node;
  std::span<const Tensor> inputs;
  Tensor output;
  const ExecContext* ctx = nullptr;  //!< never null when run by the engine
  //! Scratch of at least OpDef::workspace(graph, node) bytes, 64-byte aligned (may be null when the
  //! op declares none). Shared by all kernels of a device: contents do not survive between kernels.
  void* workspace = nullptr;
};

//! IPU cost of one op instance, fed to the planner's cycle model.
struct Cost {
  double flops = 0;      //!< floating-point operations
  double bytes_in = 0;   //!< bytes read
  double bytes_out = 0;  //!< bytes written
};

//! Thrown by shape functions; Graph::add turns it into a located iputrain::Error.
struct OpError {
  std::string message;
  std::string hint;
};

struct OpDef {
  OpKind kind;            //!< must equal the entry's position in the op table (checked by a test)
  std::string_view name;  //!< as written in model files and IR dumps
  int arity;              //!< number of inputs; -1 = any
  //! Output type from input types and attributes; throws OpError when they do not fit.
  TensorType (*infer)(std::span<const TensorType* const> inputs, const Attrs& attrs);
  //! Computes the output. nullptr for leaves (their buffers are filled from outside).
  void (*forward)(const KernelArgs& args);
  //! Appends the gradient computation to `g`: given dy (the gradient of the loss with respect to
  //! node `id`'s output), returns one gradient value per input (kNoValue where none flows).
  //! nullptr = the op is not differentiable (no gradient flows through it).
  std::vector<ValueId> (*backward)(Graph& g, ValueId id, ValueId dy);
  //! Cost of the instance; nullptr = free (leaves, reshapes).
  Cost (*cost)(const Graph& g, const Node& node);
  //! One line for docs/ops.md: signature, attributes and what the op computes.
  std::string_view doc;
  //! Bytes of scratch the forward kernel needs (KernelArgs::workspace); nullptr = none.
  size_t (*workspace)(const Graph& g, const Node& node) = nullptr;
};

//! The op table entry for `kind`.
const OpDef& op_def(OpKind kind);
std::string_view op_name(OpKind kind);
//! Looks an op up by name (for IR text and tests); OpKind::Count if unknown.
OpKind op_by_name(std::string_view name);

}  // namespace iputrain::ir
