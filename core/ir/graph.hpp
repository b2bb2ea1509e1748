// The IR: one node type, one output per node, nodes appended in topological order.
//
// A value is identified by the index of the node that produces it. The frontend builds the forward
// graph; planner passes append the backward graph and annotate nodes (stage, phase). Every node
// prints itself, so the whole graph has a text form (`Graph::str`) used by dumps and golden tests.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/ir/attrs.hpp"
#include "core/ops/op.hpp"
#include "core/types.hpp"
#include "iputrain/error.hpp"

namespace iputrain::ir {

class Graph;

//! Which part of a training step a node belongs to.
enum class Phase : uint8_t { Forward, Backward };

struct Node {
  OpKind op = OpKind::Count;
  std::vector<ValueId> inputs;
  Attrs attrs;
  TensorType type;
  std::string name;   //!< scope path for params ("features/dense/kernel"), field name for inputs
  SourceSpan span;    //!< where the model file asked for it
  int32_t stage = 0;  //!< index into Graph::stages
  //! The stage the model declared, kept here when automatic staging replaces `stage` (-1: `stage`
  //! still is the declared one). Gradient parts are grouped by it (planner/autodiff.hpp).
  int32_t model_stage = -1;
  Phase phase = Phase::Forward;
  //! A `loop`'s body (and a loop gradient's): the graph one iteration runs, its leaves loop_arg
  //! nodes (core/ops/loop_util.hpp). Null for every other op.
  std::shared_ptr<const Graph> body;
};

//! Whether the optimizer updates `n`: a Param not marked `trainable = 0`. A non-trainable
//! parameter (a batch norm's moving statistics) gets no gradient, accumulator or optimizer state.
inline bool trainable(const Node& n) { return op_has(n.op, op_flags::weight) && n.attrs.get_int("trainable", 1) != 0; }
//! A leaf: no inputs, filled from outside the program (an input, a weight or a constant).
inline bool is_leaf(const Node& n) { return op_has(n.op, op_flags::leaf); }
//! A weight (a parameter, trainable or not): on its stage's IPU for the whole run.
inline bool is_weight(const Node& n) { return op_has(n.op, op_flags::weight); }
//! A value that stays where it is for the whole run, never per micro-batch and never sent between
//! stages: a weight, or a constant (copied to each reader's IPU).
inline bool is_resident(const Node& n) { return op_has(n.op, op_flags::weight) || op_has(n.op, op_flags::constant); }

//! A stage as declared in the model (`stage NAME { … }`); `group` ties stages of one `parallel`.
struct Stage {
  std::string name;
  SourceSpan span;
  int32_t group = -1;
};

//! A named value sent to the outfeed every step (`output NAME = EXPR`). A per-sample output
//! (`output per_sample NAME = EXPR`, first dimension the micro-batch) is a prediction: `predict`
//! writes it row by row, and training and evaluation leave it out (it is no metric to average).
struct Output {
  std::string name;
  ValueId value = kNoValue;
  SourceSpan span;
  bool per_sample = false;
};

class Graph {
 public:
  //! Appends a node after checking arity and attributes (check_attrs) and inferring its type
  //! through the op table. A shape or dtype mismatch raises iputrain::Error(Semantic) located at
  //! `span`; a bad attribute, at its entry of `attr_spans` (one per attrs.items(), when given).
  ValueId add(OpKind op, std::vector<ValueId> inputs, Attrs attrs = {}, SourceSpan span = {},
              std::span<const SourceSpan> attr_spans = {});
  //! Appends an infeed input named `name`.
  ValueId add_input(std::string name, TensorType type, SourceSpan span = {});
  //! Appends a parameter; `init` holds the initializer name and its arguments (and `trainable = 0`
  //! for state the optimizer leaves alone).
  ValueId add_param(std::string name, TensorType type, Attrs init, SourceSpan span = {});
  //! A constant tensor filled with `value`.
  ValueId add_constant(double value, TensorType type, SourceSpan span = {});
  //! A loop body's leaf `index` (core/ops/loop_util.hpp), appended to `inputs` at that index.
  ValueId add_loop_arg(int64_t index, TensorType type, SourceSpan span = {});

  const Node& node(ValueId id) const { return nodes_.at(static_cast<size_t>(id)); }
  Node& node(ValueId id) { return nodes_.at(static_cast<size_t>(id)); }
  const TensorType& type(ValueId id) const { return node(id).type; }
  int32_t size() const { return static_cast<int32_t>(nodes_.size()); }
  const std::vector<Node>& nodes() const { return nodes_; }

  //! Stage and phase given to nodes appended from now on.
  void set_cursor(int32_t stage, Phase phase) {
    cur_stage_ = stage;
    cur_phase_ = phase;
  }
  //! Span given to nodes appended without one (the backward pass reuses the forward node's span).
  void set_default_span(SourceSpan span) { default_span_ = span; }

  std::vector<Stage> stages{{"main", {}, -1}};
  std::vector<ValueId> inputs;
  std::vector<ValueId> params;
  std::vector<Output> outputs;
  //! The tensors the model body names (its inputs, `logits = …`), the last binding of each name, in
  //! the order first bound: what `predict --output NAME` may ask for besides the outputs.
  std::vector<Output> named;
  ValueId loss = kNoValue;  //!< the `minimize` objective; kNoValue for inference-only models
  //! The constant the backward pass starts from (d loss / d loss), set by autodiff; loss scaling
  //! writes the scale into it.
  ValueId loss_seed = kNoValue;

  //! Checks the structural invariants (inputs precede users, types match the op table); throws
  //! Error(Internal) naming the node on violation. Run after every pass.
  void verify() const;
  //! One line per node: `%7 = matmul(%3, %5) : f32[32, 128]  @features  # features/dense`.
  std::string str() const;
  std::string node_str(ValueId id) const;
  //! Drops the nodes from `size` on (the frontend moves a loop's body out of the model this way);
  //! the caller removes them from inputs, params, outputs and named.
  void truncate(ValueId size) { nodes_.resize(static_cast<size_t>(size)); }

 private:
  ValueId push(Node n);

  std::vector<Node> nodes_;
  int32_t cur_stage_ = 0;
  Phase cur_phase_ = Phase::Forward;
  SourceSpan default_span_;
};

//! Whether a value of `g` depends on the replica computing it (an op with op_flags::per_replica:
//! the model's collectives, replication_index): its numbers then change with the replicas.
bool depends_on_replica(const Graph& g);

}  // namespace iputrain::ir
