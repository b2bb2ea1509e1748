// The op contract. Every primitive is one file in core/ops/ that defines one OpDef: how its
// output type follows from its inputs (shape), how it computes (forward, Eigen), how its gradient
// is built from other ops (backward), what it costs on an IPU (cost), the attributes it reads
// (checked once, by Graph::add) and, for an f32 unary op, its derivative. op_list.hpp lists them
// all; the enum, the declarations and the table are generated from it. No self-registration.
//
// Adding a primitive: its file here (with a one-line `doc`), one line in op_list.hpp, its cases in
// tests/core/op_cases*.cpp, and `iputrain_gen_ops_doc > docs/ops.md` (a test fails while
// docs/ops.md is stale). core/CMakeLists.txt finds the op files by themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/attrs.hpp"
#include "core/types.hpp"

namespace iputrain {
struct HalfRounding;
}

namespace iputrain::ir {

class Graph;
struct Node;
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

//! Every primitive op, in the order of core/ops/op_list.hpp (its comments say what each takes).
enum class OpKind : uint8_t {
#define IPUTRAIN_OP(kind, surface, flags) kind,
#include "core/ops/op_list.hpp"
#undef IPUTRAIN_OP
  Count
};

//! What the planner and the engine ask of an op, set per op in op_list.hpp's third column (joined
//! with |) so that no pass tests an op's name; `op_has` reads them.
using OpFlags = uint32_t;
namespace op_flags {
inline constexpr OpFlags none = 0;
//! No inputs: its buffer is filled from outside the program (OpDef::forward is nullptr).
inline constexpr OpFlags leaf = 1U << 0;
//! A leaf the infeed fills once per micro-batch.
inline constexpr OpFlags fed = 1U << 1;
//! A leaf that is a weight: it lives on its stage's IPU for the whole run and never travels.
inline constexpr OpFlags weight = 1U << 2;
//! A leaf filled once from its attributes; copied to each IPU that reads it.
inline constexpr OpFlags constant = 1U << 3;
//! Its output holds its input's bytes unchanged, so the buffer assignment may alias them.
inline constexpr OpFlags view = 1U << 4;
//! Needs planned temporaries bounded by the matmul / the convolution availableMemoryProportion.
inline constexpr OpFlags matmul_temporaries = 1U << 5;
inline constexpr OpFlags conv_temporaries = 1U << 6;
//! Reaches a pole at 0 without raising FE_DIVBYZERO (Eigen's log and rsqrt): the trap handler
//! classifies its infinities itself. grad_pole: the op's derivative (UnaryGrad) does.
inline constexpr OpFlags pole = 1U << 7;
inline constexpr OpFlags grad_pole = 1U << 8;
//! Its output is stashed for the backward pass, never recomputed.
inline constexpr OpFlags checkpoint = 1U << 9;
//! Writes back its state input (a non-trainable parameter) while training.
inline constexpr OpFlags state_update = 1U << 10;
//! Its result depends on the replica that runs it (a collective, replication_index): a reference
//! run keeps the plan's replicas (`verify`), and the op's `group` must divide them.
inline constexpr OpFlags per_replica = 1U << 11;
//! Copies its value into its state input (a non-trainable parameter) right after its kernel, in
//! a Forward task only (planner/recurrent_states.hpp); needed by no output, it is live by itself.
inline constexpr OpFlags state_write = 1U << 12;
//! Reads or writes a state that changes from one micro-batch to the next (state_read,
//! state_write): never recomputed and never taken for a value of the weights alone.
inline constexpr OpFlags stateful = 1U << 13;
//! Its f32 result packs parts of several dtypes (a loop's, core/ops/loop_util.hpp): never rounded
//! to a half type, never checked for NaN, never fused.
inline constexpr OpFlags packed = 1U << 14;
//! A leaf of a loop's body, bound by the loop's kernel to memory it owns (loop_arg).
inline constexpr OpFlags bound = 1U << 15;
//! Takes u8 operands: cast converts them, and ops that only move elements (their kernels are
//! generic over the element's size) carry them. Graph::add refuses a u8 operand to any other op.
inline constexpr OpFlags takes_u8 = 1U << 16;
//! Reads whole rows of its first input (a table) at the indices of its second (gather): a table
//! kept on the host (`param ... host = true`, planner/host_tables.hpp) can serve it.
inline constexpr OpFlags row_gather = 1U << 17;
//! Adds rows into a table's shape at indices (a row gather's gradient): what a host table's
//! update receives.
inline constexpr OpFlags row_scatter = 1U << 18;
//! Reads a stateful layer's state (state_read): the first such read starts the state's life.
inline constexpr OpFlags state_read = 1U << 19;
//! The model's own recomputation checkpoint: repeated blocks are preferably cut right after it.
inline constexpr OpFlags recompute_mark = 1U << 20;
//! Computes the derivative of the unary op its `fn` attribute names (unary_grad): that op's
//! grad_pole flag is its own.
inline constexpr OpFlags derivative = 1U << 21;
//! Its kernel is x + bias elementwise (x first, f32): the first half of the fused bias + relu
//! kernel (core/ops/bias_relu.hpp). The planner's fuse pass (planner/fusion.hpp) may run it and a
//! fuse_relu_tail that reads its result, the next kernel of a task, as that one kernel.
inline constexpr OpFlags fuse_bias_head = 1U << 22;
//! Its kernel is relu_value (core/ops/op_util.hpp) of its one input, elementwise: the second half
//! of the fused bias + relu kernel, after a fuse_bias_head.
inline constexpr OpFlags fuse_relu_tail = 1U << 23;
}  // namespace op_flags

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

//! How a collective op's kernel meets the same node on the other replicas of the run. The engine's
//! cluster gives every virtual IPU one (engine/cluster/replica_exchange.hpp); without one the run
//! has a single replica.
class ReplicaLink {
 public:
  virtual ~ReplicaLink() = default;
  virtual int32_t replica() const = 0;   //!< this replica, 0 .. replicas() - 1
  virtual int32_t replicas() const = 0;  //!< the run's replicas (replication_factor)
  //! Posts `bytes` bytes at `data` and blocks until every replica has posted its bytes of the same
  //! node; returns them all, in replica order (this replica's too). They stay readable until this
  //! replica's next exchange. Every replica posts the same number of bytes.
  virtual std::span<const std::byte* const> exchange(const void* data, size_t bytes) = 0;
};

//! Per-step facts a few kernels need (random ops key their streams by them, so results depend on
//! the seed, the parameter path, the step and the sample, never on the thread or the device).
struct ExecContext {
  uint64_t seed = 0;          //!< training.seed
  int64_t step = 0;           //!< 0-based micro-batch step within the run
  int64_t sample_offset = 0;  //!< global index of the micro-batch's first sample (replicas differ)
  bool training = true;       //!< false for eval/predict programs
  ReplicaLink* replicas = nullptr;  //!< collective ops' link to the other replicas (null: one replica)
  //! The states of stateful recurrent layers start afresh at this micro-batch: state_read gives
  //! zeros (planner/recurrent_states.hpp says when).
  bool reset_states = false;
  //! For ops that run other ops (a loop's body): how the engine rounds each float result to the
  //! half compute type (null: f32), and where to count the results that overflowed it.
  const HalfRounding* rounding = nullptr;
  int64_t* overflows = nullptr;
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
//! A contraction's shape as PopLibs plans it (a matmul is a 1x1 convolution whose field is its rows):
//! per group, `field` output positions, each summing `in_channels` x kernel_h x kernel_w products
//! for each of `out_channels` outputs. The cost model prices it with PopLibs' vertex estimates.
struct Contraction {
  double groups = 0;  //!< independent products (conv groups, a batched matmul's entries); 0: none
  double field = 0;   //!< output positions per group
  double in_channels = 0;
  double out_channels = 0;
  double kernel_h = 1;
  double kernel_w = 1;
  double row = 1;       //!< output positions per row of the field (the workers' row pieces)
  bool matmul = false;  //!< a fully connected pass (PopLibs' SLIC vertex does not serve them)
};

struct Cost {
  double flops = 0;      //!< floating-point operations
  double bytes_in = 0;   //!< bytes read
  double bytes_out = 0;  //!< bytes written
  Contraction contraction = {};  //!< matmuls and convolutions
};

//! What a collective op sends between replicas, priced by the planner over the system's links.
enum class CollectiveKind : uint8_t { AllReduce, AllGather, ReduceScatter, AllToAll };
struct ReplicaTraffic {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;   //!< the whole tensor on each replica (an all-gather: its result)
  int64_t group = 0;  //!< replicas that take part together (0: all of the run's)
};

//! Thrown by shape functions; Graph::add turns it into a located iputrain::Error.
struct OpError {
  std::string message;
  std::string hint;
  //! The attribute at fault, when there is one; the message then is what it must be ("must be an
  //! int") and Graph::add names the attribute and points at where it was written.
  std::string attr = {};
};

//! How the planner's cost model prices an op beyond its FLOPs and bytes (planner/cost_model.hpp):
//! where its operands move between an IPU's tiles and how many supersteps it takes.
enum class CostClass : uint8_t {
  Elementwise,  //!< runs where its operands are: nothing moves (the default)
  MatMul,       //!< a contraction split over the tiles, one per entry of a batched right operand
  Convolution,  //!< a contraction over its patch matrix, one per group
  Rearrange,    //!< each element of the result comes from another tile (transpose, gather, slice)
  Reduction,    //!< to fewer elements: each tile's partial sums go to the tiles that finish them
};

enum class AttrType : uint8_t { Int, Float, String };

//! One attribute an op reads: its type, its default and the values it accepts. Graph::add checks
//! every node against its op's specs, so shape functions and kernels can trust them, and the
//! model language's plain builtins take their keyword arguments and defaults from them.
struct AttrSpec {
  std::string_view name;
  AttrType type = AttrType::Int;
  bool required = false;                           //!< no default: the node must carry it
  double number = 0;                               //!< default of an Int or Float attribute
  std::string_view text = {};                      //!< default of a String attribute
  std::span<const std::string_view> choices = {};  //!< a String's allowed values (empty: any)
  std::optional<double> min = {};                  //!< smallest allowed Int or Float value
  std::optional<double> max = {};                  //!< largest allowed Int or Float value
};

//! dx = dy * f'(x) over `n` elements of one block, for the f32 unary op f with attributes `attrs`.
using DerivativeFn = void (*)(const Attrs& attrs, const float* x, const float* dy, float* dx, int64_t n);

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
  //! Input names, as the model language's builtin of the op calls them ({"x"}, {"a", "b"}).
  std::span<const std::string_view> inputs = {};
  //! The attributes the op reads, in the order a plain builtin takes them.
  std::span<const AttrSpec> attrs = {};
  //! f32 unary ops: their derivative, which unary_grad (the gradient these ops share) runs.
  DerivativeFn derivative = nullptr;
  //! docs/ops.md's "Special values": what the op gives for nan, ±inf, -0, overflow and ties, and
  //! where that differs from NumPy or PyTorch, why. Required of every op with a kernel
  //! (iputrain_gen_ops_doc refuses to write the docs without it); tests/diff checks it.
  std::string_view edges = {};
  //! Collective ops (ExecContext::replicas): what the node exchanges between replicas; nullptr = none.
  ReplicaTraffic (*traffic)(const Graph& g, const Node& node) = nullptr;
  //! Bytes the op holds on its IPU while it runs beyond its operands and result, which the memory
  //! model counts (a registered op's scratch); nullptr = none (matmul and convolution temporaries
  //! follow their flags instead).
  size_t (*temporaries)(const Graph& g, const Node& node) = nullptr;
  //! How the cost model prices the op's exchange and supersteps.
  CostClass cost_class = CostClass::Elementwise;
};

//! The op table entry for `kind`.
const OpDef& op_def(OpKind kind);
std::string_view op_name(OpKind kind);
//! Looks an op up by name (for IR text and tests); OpKind::Count if unknown.
OpKind op_by_name(std::string_view name);
//! Whether the model language has a builtin that is nothing but this op (op_list.hpp's surface).
bool is_plain_builtin(OpKind kind);
//! The op's flags (op_list.hpp's third column).
OpFlags op_flags_of(OpKind kind);
//! Whether the op has every flag of `flags`.
inline bool op_has(OpKind kind, OpFlags flags) { return (op_flags_of(kind) & flags) == flags; }

//! Checks `attrs` against `def.attrs`: a missing required attribute, one of the wrong type or
//! outside its range or choices throws OpError with `attr` set (and a "did you mean" hint).
void check_attrs(const OpDef& def, const Attrs& attrs);

}  // namespace iputrain::ir
