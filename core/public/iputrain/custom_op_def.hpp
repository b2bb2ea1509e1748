// What a program embedding iputrain gives to define an op in C++ (iputrain/custom_op.hpp registers
// it): its operands, attributes, shape rule, kernels and what the planner prices it with, and what
// its kernels receive. Part of the public API; owned by core, whose op table runs these ops
// (core/ops/custom_registry.hpp).
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
  //! The version of the op's computation, any one-line text ("" unless set). Functions cannot be
  //! compared, so a checkpoint records, for each registered op its model calls, the operands,
  //! attributes with their defaults, whether it has a gradient and this text, and a resume under a
  //! registration that differs in any of them is refused: bump it whenever `shape`, `forward` or
  //! `backward` compute something else, so that a checkpoint trained under the old kernels is not
  //! continued under the new ones.
  std::string version;
};

}  // namespace iputrain
