// Ops a program embedding iputrain adds in C++: register_op() makes a new primitive that model
// files call by name, like a builtin (`y = my_op(x, alpha = 0.5)`), with its shape rule, its kernel,
// its gradient (or none), and the FLOPs and temporary bytes the planner prices it with. The engine
// runs it on every virtual IPU like the built-in ops; the planner costs it, places it in a stage
// and sizes its temporaries.
//
//   iputrain::CustomOp op;
//   op.name = "scaled_softplus";
//   op.attributes = {{"beta", 1.0}};
//   op.shape = [](const iputrain::CustomShapes& in, const iputrain::CustomAttributes&) { return in[0]; };
//   op.forward = [](const iputrain::CustomCall& c) { ... c.output.data[i] = ... c.inputs[0].data[i] ... };
//   op.backward = [](const iputrain::CustomGradCall& c) { ... c.grad.data[i] = c.dy.data[i] * ... };
//   iputrain::register_op(std::move(op));   // before loading the models that call it
//
// Operands and results are f32. Kernels run on the engine's worker threads, several at once (one per
// virtual IPU), so they must be thread-safe; they must write every element of their result and keep
// no pointer past the call. An exception a kernel throws stops the run with its message.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace iputrain {

//! A tensor a kernel reads: f32 values in row-major order and its shape.
struct CustomInput {
  const float* data = nullptr;
  std::span<const int64_t> shape;
  int64_t size = 0;  //!< elements
};

//! A tensor a kernel writes.
struct CustomOutput {
  float* data = nullptr;
  std::span<const int64_t> shape;
  int64_t size = 0;
};

using CustomShapes = std::vector<std::vector<int64_t>>;  //!< the operands' shapes, in order

//! The attributes of one call: what the model passed, else the op's defaults. Reading one
//! allocates nothing.
class CustomAttributes {
 public:
  //! Attribute `name`; throws std::out_of_range when the op declares none of that name.
  double get(const std::string& name) const;

  //! Made by the engine for each call (`node` is its internal attribute table).
  CustomAttributes(const void* node, const std::map<std::string, double>& defaults)
      : node_(node), defaults_(&defaults) {}

 private:
  const void* node_;
  const std::map<std::string, double>* defaults_;
};

//! One call of the forward kernel.
struct CustomCall {
  std::span<const CustomInput> inputs;
  CustomOutput output;
  const CustomAttributes& attributes;
  void* scratch = nullptr;  //!< CustomOp::temporary_bytes bytes (null when 0), 64-byte aligned
};

//! One call of the gradient kernel: the gradient of the loss with respect to operand `input`
//! (written into `grad`, shaped like that operand), given the forward call's operands and result
//! and the gradient `dy` of the result.
struct CustomGradCall {
  std::span<const CustomInput> inputs;
  CustomInput output;
  CustomInput dy;
  int32_t input = 0;
  CustomOutput grad;
  const CustomAttributes& attributes;
};

struct CustomOp {
  //! How model files call it: a name no builtin or op has (letters, digits and `_`).
  std::string name;
  //! Its operands' names, which are also its arity (`{"x"}`, `{"a", "b"}`).
  std::vector<std::string> inputs = {"x"};
  //! Numeric attributes and their defaults, passed as keyword arguments (`alpha = 0.5`).
  std::map<std::string, double> attributes;
  //! The result's shape from the operands' shapes. Throw std::invalid_argument (or any
  //! std::exception) to refuse them: the error points at the call in the model.
  std::function<std::vector<int64_t>(const CustomShapes&, const CustomAttributes&)> shape;
  //! Computes the result.
  std::function<void(const CustomCall&)> forward;
  //! The gradient for one operand per call; empty when the op is not differentiable (no gradient
  //! flows through it, as through argmax).
  std::function<void(const CustomGradCall&)> backward;
  //! FLOPs of one call for the planner's cycle model; empty: one per result element.
  std::function<double(const CustomShapes&, const CustomAttributes&)> flops;
  //! Bytes of scratch one call needs (CustomCall::scratch), which the planner counts as the op's
  //! temporary memory on its IPU; empty: none.
  std::function<int64_t(const CustomShapes&, const CustomAttributes&)> temporary_bytes;
  //! One line for messages and `iputrain` listings.
  std::string doc;
};

//! Registers `op` for every model loaded after the call. Throws iputrain::Error(Usage) when its name
//! is taken (a builtin, an op or another registered op) or malformed, or when it lacks shape or
//! forward.
void register_op(CustomOp op);

//! The names of the ops registered so far, in registration order.
std::vector<std::string> registered_ops();

//! The ops reference's section on the ops registered so far, as markdown in the form of
//! docs/ops.md: a "Registered ops" heading and a table row per op (its operands, attributes with
//! their defaults, whether it has a gradient, declares FLOPs or scratch, and its `doc`), in
//! registration order; "" when none is registered.
std::string registered_ops_reference();

}  // namespace iputrain
