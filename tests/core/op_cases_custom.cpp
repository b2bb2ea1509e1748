// Op cases for the ops a program registers in C++ (custom, custom_grad): a softplus with a `beta`
// attribute, registered here through the core registry, against its formula, and its gradient by
// central differences through the harness.
#include <cmath>

#include "core/ops/custom_registry.hpp"
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

// softplus(beta x) / beta and its derivative sigmoid(beta x).
void register_test_softplus() {
  static const bool once = [] {
    CustomOp op;
    op.name = "test_softplus";
    op.attributes = {{"beta", 1.0}};
    op.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
    op.forward = [](const CustomCall& c) {
      const double beta = c.attributes.get("beta");
      for (int64_t i = 0; i < c.output.size; ++i) {
        c.output.data[i] = static_cast<float>(std::log1p(std::exp(beta * c.inputs[0].data[i])) / beta);
      }
    };
    op.backward = [](const CustomGradCall& c) {
      const double beta = c.attributes.get("beta");
      for (int64_t i = 0; i < c.grad.size; ++i) {
        c.grad.data[i] = static_cast<float>(c.dy.data[i] / (1.0 + std::exp(-beta * c.inputs[0].data[i])));
      }
    };
    ir::add_custom_op(std::move(op));
    return true;
  }();
  (void)once;
}

}  // namespace

void add_custom_cases(std::vector<OpCase>& cases) {
  register_test_softplus();
  const Attrs attrs{{"op", std::string("test_softplus")}, {"beta", 2.0}};
  cases.push_back({.name = "custom: a registered softplus",
                   .op = OpKind::Custom,
                   .inputs = {f32({2, 3})},
                   .attrs = attrs,
                   .reference = ref_unary([](double x) { return std::log1p(std::exp(2.0 * x)) / 2.0; })});
  cases.push_back({.name = "custom: an i32 operand",
                   .op = OpKind::Custom,
                   .inputs = {i32({2})},
                   .attrs = attrs,
                   .infer_error = "must be f32"});
  cases.push_back({.name = "custom: an op nobody registered",
                   .op = OpKind::Custom,
                   .inputs = {f32({2})},
                   .attrs = {{"op", std::string("no_such_op")}},
                   .infer_error = "no op named 'no_such_op' is registered"});
  Attrs grad = attrs;
  grad.set("input", int64_t{0});
  cases.push_back(
      {.name = "custom_grad: the registered softplus's derivative",
       .op = OpKind::CustomGrad,
       .inputs = {f32({4}), f32({4}), f32({4})},
       .attrs = grad,
       .reference =
           [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
             Values r;
             for (size_t i = 0; i < in[0].size(); ++i) {
               r.push_back(in[2][i] / (1.0 + std::exp(-2.0 * in[0][i])));
             }
             return r;
           },
       .grad = false});
  cases.push_back({.name = "custom_grad: without the result and dy",
                   .op = OpKind::CustomGrad,
                   .inputs = {f32({4})},
                   .attrs = grad,
                   .infer_error = "takes its 1 operands, its result and dy"});
}

}  // namespace iputrain::test
