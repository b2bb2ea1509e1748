// The op table is in OpKind order and names round-trip; leaf and cost conventions hold.
#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

TEST_CASE("op table: every entry sits at its kind and its name looks it up") {
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    const auto kind = static_cast<OpKind>(k);
    const OpDef& def = op_def(kind);
    INFO("op " << k << " " << def.name);
    CHECK(def.kind == kind);
    CHECK(op_by_name(op_name(kind)) == kind);
    CHECK((def.infer != nullptr));
  }
  CHECK(op_by_name("no_such_op") == OpKind::Count);
}

TEST_CASE("op table: leaves have no kernel and refuse Graph::add") {
  for (OpKind kind : {OpKind::Input, OpKind::Param, OpKind::Constant, OpKind::LoopArg}) {
    const OpDef& def = op_def(kind);
    CHECK(def.arity == 0);
    CHECK((def.forward == nullptr));
    CHECK((def.backward == nullptr));
    CHECK((def.cost == nullptr));
    Graph g;
    CHECK_THROWS_WITH_AS(g.add(kind, {}), doctest::Contains("is a leaf"), Error);
  }
}

TEST_CASE("op table: the leaf flag is exactly the ops without a kernel, and the leaves say what fills them") {
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    const auto kind = static_cast<OpKind>(k);
    INFO("op " << op_name(kind));
    CHECK(op_has(kind, op_flags::leaf) == (op_def(kind).forward == nullptr));
    const int fillers =
        static_cast<int>(op_has(kind, op_flags::fed)) + static_cast<int>(op_has(kind, op_flags::weight)) +
        static_cast<int>(op_has(kind, op_flags::constant)) + static_cast<int>(op_has(kind, op_flags::bound));
    CHECK(fillers == (op_has(kind, op_flags::leaf) ? 1 : 0));
  }
  CHECK(op_has(OpKind::Param, op_flags::leaf | op_flags::weight));
  CHECK_FALSE(op_has(OpKind::Param, op_flags::leaf | op_flags::fed));
  CHECK(op_has(OpKind::Reshape, op_flags::view));
  CHECK(op_has(OpKind::Add, op_flags::none));
  CHECK(op_flags_of(OpKind::Count) == op_flags::none);
}

TEST_CASE("op table: the fused bias + relu kernel's halves are one row each, add and relu") {
  // The fused kernel (core/ops/bias_relu.cpp) computes x + bias and relu_value: a bit on any
  // other row would have the planner pair an op whose kernel it does not compute.
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    const auto kind = static_cast<OpKind>(k);
    INFO("op " << op_name(kind));
    CHECK(op_has(kind, op_flags::fuse_bias_head) == (kind == OpKind::Add));
    CHECK(op_has(kind, op_flags::fuse_relu_tail) == (kind == OpKind::Relu));
  }
}

TEST_CASE("op table: the cost model's classes are fields of the rows") {
  // The cost model reads CostClass, never an op's name: a contraction's temporaries flag and its
  // class agree, and the rearranging and reducing ops say so.
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    const auto kind = static_cast<OpKind>(k);
    INFO("op " << op_name(kind));
    CHECK(op_has(kind, op_flags::matmul_temporaries) == (op_def(kind).cost_class == CostClass::MatMul));
    CHECK(op_has(kind, op_flags::conv_temporaries) == (op_def(kind).cost_class == CostClass::Convolution));
  }
  CHECK(op_def(OpKind::Transpose).cost_class == CostClass::Rearrange);
  CHECK(op_def(OpKind::IndexAt).cost_class == CostClass::Rearrange);
  CHECK(op_def(OpKind::Sum).cost_class == CostClass::Reduction);
  CHECK(op_def(OpKind::Add).cost_class == CostClass::Elementwise);
}

TEST_CASE("op table: costs count flops and bytes") {
  Graph g;
  const ValueId x = g.add_input("x", TensorType{DType::F32, {32, 784}});
  const ValueId w =
      g.add_param("w", TensorType{DType::F32, {784, 128}}, Attrs{{"init", std::string("zeros")}});
  const ValueId b = g.add_param("b", TensorType{DType::F32, {128}}, Attrs{{"init", std::string("zeros")}});
  const ValueId labels = g.add_input("labels", TensorType{DType::I32, {32}});
  const ValueId h = g.add(OpKind::MatMul, {x, w});
  const ValueId hb = g.add(OpKind::Add, {h, b});
  const ValueId r = g.add(OpKind::Relu, {hb});
  const ValueId l = g.add(OpKind::SoftmaxCrossEntropy, {r, labels});
  const ValueId m = g.add(OpKind::Mean, {l});
  const ValueId e = g.add(OpKind::Pow, {r, r});
  const ValueId s = g.add(OpKind::Reshape, {r}, Attrs{{"shape", Shape{-1}}});
  auto cost = [&](ValueId id) { return op_def(g.node(id).op).cost(g, g.node(id)); };
  CHECK(cost(h).flops == doctest::Approx(2.0 * 32 * 784 * 128));
  CHECK(cost(h).bytes_in == doctest::Approx(4.0 * (32 * 784 + 784 * 128)));
  CHECK(cost(h).bytes_out == doctest::Approx(4.0 * 32 * 128));
  CHECK(cost(hb).flops == doctest::Approx(32 * 128));
  CHECK(cost(r).flops == doctest::Approx(32 * 128));
  // Transcendentals cost several flops per element.
  CHECK(cost(l).flops > 5.0 * 32 * 128);
  CHECK(cost(e).flops > 5.0 * cost(r).flops);
  CHECK(cost(m).flops >= 32);
  CHECK((op_def(g.node(s).op).cost == nullptr));
  for (ValueId id : {h, hb, r, l, m, e}) {
    CHECK(cost(id).bytes_out == doctest::Approx(static_cast<double>(g.type(id).bytes())));
  }
}

TEST_CASE("op errors name the op and keep the span") {
  Graph g;
  const ValueId a = g.add_input("a", TensorType{DType::F32, {2, 3}});
  const ValueId b = g.add_input("b", TensorType{DType::F32, {4}});
  const SourceSpan span{0, 7, 3, 5};
  try {
    g.add(OpKind::Sub, {a, b}, {}, span);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Semantic);
    CHECK(e.diagnostic().message == "sub: shapes cannot be broadcast together: f32[2, 3] and f32[4]");
    CHECK(e.span().line == 7);
    CHECK(e.hint() == "trailing dimensions must be equal or 1");
  }
}

TEST_CASE("attribute errors come from the op's specs and point at the attribute") {
  Graph g;
  const ValueId x = g.add_input("x", TensorType{DType::F32, {2, 3}});
  const SourceSpan call{0, 4, 1, 20};
  const SourceSpan where_written{0, 4, 12, 8};
  const SourceSpan spans[] = {where_written};
  try {
    g.add(OpKind::Gelu, {x}, Attrs{{"approximate", std::string("tahn")}}, call, spans);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Semantic);
    CHECK(e.diagnostic().message == "argument 'approximate' of gelu must be one of \"none\", \"tanh\", got \"tahn\"");
    CHECK(e.span().col == 12);
    CHECK(e.hint() == "did you mean \"tanh\"?");
  }
  // Without spans for the attributes the error points at the node.
  CHECK_THROWS_WITH_AS(g.add(OpKind::Softmax, {x}, Attrs{{"axis", 1.5}}, call),
                       "softmax: argument 'axis' must be an int", Error);
  // Attributes a kernel reads are declared: every spec has a name, and a String with choices
  // defaults to one of them.
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    for (const AttrSpec& spec : op_def(static_cast<OpKind>(k)).attrs) {
      INFO(op_def(static_cast<OpKind>(k)).name << "." << spec.name);
      CHECK(!spec.name.empty());
      if (!spec.choices.empty() && !spec.required) {
        CHECK(std::find(spec.choices.begin(), spec.choices.end(), spec.text) != spec.choices.end());
      }
    }
  }
}

TEST_CASE("broadcast kernels cover every pattern without a scratch index vector") {
  // The general path walks a fixed-size stack index; check it against the fast paths' results by
  // broadcasting a [2, 1, 3] tensor (general) and a [3] tensor (suffix fast path) to [2, 2, 3].
  const TensorType ta{DType::F32, {2, 1, 3}};
  const TensorType tb{DType::F32, {3}};
  const TensorType to{DType::F32, {2, 2, 3}};
  float a[6] = {1, 2, 3, 4, 5, 6};
  float out[12] = {};
  broadcast_copy<float>(Tensor{&ta, a}, Tensor{&to, out});
  const float want[12] = {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6};
  for (int i = 0; i < 12; ++i) {
    CHECK(out[i] == want[i]);
  }
  broadcast_copy<float>(Tensor{&tb, a}, Tensor{&to, out});
  for (int i = 0; i < 12; ++i) {
    CHECK(out[i] == a[i % 3]);
  }
}

}  // namespace iputrain::ir
