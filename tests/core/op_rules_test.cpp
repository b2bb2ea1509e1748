// Behaviour the op harness cannot check by finite differences or single cases: gradient rules at
// ties (where the derivative does not exist and a convention decides), dropout masks' keying and
// statistics, and that the convolution kernels stay allocation-free and use bounded scratch.
#include <cmath>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "core/ops/op.hpp"
#include "tests/core/op_harness.hpp"

namespace iputrain::test {

using ir::Attrs;
using ir::OpKind;
using ir::ValueId;

namespace {

// Builds op(x...) and its backward for dy, runs both, returns the gradient of input `which`.
Values gradient(OpKind op, const std::vector<TensorType>& types, const std::vector<Values>& values,
                const Attrs& attrs, const Values& dy_values, size_t which) {
  ir::Graph g;
  std::vector<ValueId> xs;
  for (size_t i = 0; i < types.size(); ++i) {
    xs.push_back(g.add_input(fmt::format("x{}", i), types[i]));
  }
  const ValueId y = g.add(op, xs, attrs);
  const ValueId dy = g.add_input("dy", g.type(y));
  const std::vector<ValueId> grads = ir::op_def(op).backward(g, y, dy);
  Interpreter interp(g);
  for (size_t i = 0; i < xs.size(); ++i) {
    interp.set(xs[i], values[i]);
  }
  interp.set(dy, dy_values);
  interp.run();
  return interp.get(grads.at(which));
}

}  // namespace

TEST_CASE("max: tied maxima share the gradient evenly") {
  const Values g = gradient(OpKind::Max, {{DType::F32, {2, 4}}}, {{1, 3, 3, 0, 5, 5, 5, 5}},
                            Attrs{{"axes", Shape{1}}}, {6, 8}, 0);
  CHECK(g == Values{0, 3, 3, 0, 2, 2, 2, 2});
  const Values all = gradient(OpKind::Max, {{DType::F32, {3}}}, {{2, 1, 2}}, Attrs{}, {1}, 0);
  CHECK(all == Values{0.5, 0, 0.5});
}

TEST_CASE("maximum and minimum: ties give half to each side, through broadcasting") {
  const std::vector<TensorType> t{{DType::F32, {3}}, {DType::F32, {}}};
  const std::vector<Values> v{{1, 2, 3}, {2}};
  CHECK(gradient(OpKind::Maximum, t, v, {}, {4, 4, 4}, 0) == Values{0, 2, 4});
  CHECK(gradient(OpKind::Maximum, t, v, {}, {4, 4, 4}, 1) == Values{6});  // 4 + 2 summed to the scalar
  CHECK(gradient(OpKind::Minimum, t, v, {}, {4, 4, 4}, 0) == Values{4, 2, 0});
  CHECK(gradient(OpKind::Minimum, t, v, {}, {4, 4, 4}, 1) == Values{6});
}

TEST_CASE("where: the gradient of each branch is masked and summed to its shape") {
  const std::vector<TensorType> t{{DType::Bool, {2, 2}}, {DType::F32, {2, 2}}, {DType::F32, {2}}};
  const std::vector<Values> v{{1, 0, 0, 1}, {1, 2, 3, 4}, {9, 9}};
  CHECK(gradient(OpKind::Where, t, v, {}, {1, 2, 3, 4}, 1) == Values{1, 0, 0, 4});
  CHECK(gradient(OpKind::Where, t, v, {}, {1, 2, 3, 4}, 2) == Values{3, 2});
}

TEST_CASE("dropout_mask: keyed by seed, path, step and global sample, not by the batch split") {
  ir::Graph g;
  const ValueId whole =
      g.add(OpKind::DropoutMask, {},
            Attrs{{"rate", 0.25}, {"shape", Shape{8, 50}}, {"name", std::string("net/drop")}});
  const ValueId half =
      g.add(OpKind::DropoutMask, {},
            Attrs{{"rate", 0.25}, {"shape", Shape{4, 50}}, {"name", std::string("net/drop")}});
  const ValueId other =
      g.add(OpKind::DropoutMask, {},
            Attrs{{"rate", 0.25}, {"shape", Shape{8, 50}}, {"name", std::string("net/drop2")}});
  Interpreter interp(g);
  interp.ctx = ir::ExecContext{.seed = 42, .step = 5, .sample_offset = 16, .training = true};
  interp.run();
  const Values w = interp.get(whole);
  // A replica holding samples 20..23 of the same step sees rows 4..7 of the full batch's mask.
  interp.ctx.sample_offset = 20;
  interp.run_node(half);
  const Values h = interp.get(half);
  CHECK(std::equal(h.begin(), h.end(), w.begin() + 200));
  // Values are 0 or 1/(1 - rate); about a quarter are dropped.
  int64_t dropped = 0;
  for (double x : w) {
    CHECK((x == 0.0 || std::fabs(x - 1.0 / 0.75) < 1e-6));
    dropped += x == 0.0 ? 1 : 0;
  }
  CHECK(dropped > 60);
  CHECK(dropped < 140);
  // Another path, another step or another seed gives another mask; the same key the same mask.
  interp.ctx.sample_offset = 16;
  CHECK(interp.get(other) != w);
  interp.ctx.step = 6;
  interp.run_node(whole);
  CHECK(interp.get(whole) != w);
  interp.ctx.step = 5;
  interp.ctx.seed = 43;
  interp.run_node(whole);
  CHECK(interp.get(whole) != w);
  interp.ctx.seed = 42;
  interp.run_node(whole);
  CHECK(interp.get(whole) == w);
}

TEST_CASE("dropout_mask: the mean of the mask is close to 1 for large tensors") {
  ir::Graph g;
  const ValueId m = g.add(OpKind::DropoutMask, {},
                          Attrs{{"rate", 0.5}, {"shape", Shape{64, 512}}, {"name", std::string("d")}});
  Interpreter interp(g);
  interp.ctx = ir::ExecContext{.seed = 1, .training = true};
  interp.run();
  double sum = 0;
  for (double x : interp.get(m)) {
    sum += x;
  }
  CHECK(sum / (64.0 * 512.0) == doctest::Approx(1.0).epsilon(0.02));
}

TEST_CASE("conv2d: LeNet-sized kernels allocate nothing and use bounded scratch") {
  ir::Graph g;
  const ValueId x = g.add_input("x", TensorType{DType::F32, {32, 28, 28, 1}});
  const ValueId w1 = g.add_input("w1", TensorType{DType::F32, {5, 5, 1, 6}});
  const Attrs same{{"padding", std::string("same")}};
  const ValueId c1 = g.add(OpKind::Conv2D, {x, w1}, same);
  const ValueId p1 = g.add(OpKind::MaxPool, {c1}, Attrs{{"ksize", Shape{2, 2}}});
  const ValueId w2 = g.add_input("w2", TensorType{DType::F32, {5, 5, 6, 16}});
  const ValueId c2 = g.add(OpKind::Conv2D, {p1, w2});
  const ValueId p2 = g.add(OpKind::AvgPool, {c2}, Attrs{{"ksize", Shape{2, 2}}});
  const ValueId dy2 = g.add_input("dy2", g.type(c2));
  const ValueId dp1 = g.add(OpKind::Conv2DBackpropInput, {dy2, w2}, Attrs{{"input_shape", g.type(p1).shape}});
  const ValueId dw2 =
      g.add(OpKind::Conv2DBackpropFilter, {p1, dy2}, Attrs{{"filter_shape", Shape{5, 5, 6, 16}}});
  const ValueId dc1 =
      g.add(OpKind::MaxPoolGrad, {c1, g.add_input("dp1", g.type(p1))}, Attrs{{"ksize", Shape{2, 2}}});
  const ValueId dw1 = g.add(OpKind::Conv2DBackpropFilter, {x, g.add_input("dc1", g.type(c1))},
                            Attrs{{"filter_shape", Shape{5, 5, 1, 6}}, {"padding", std::string("same")}});
  for (ValueId id : {c1, c2, dp1, dw2, dw1}) {
    const size_t ws = ir::op_def(g.node(id).op).workspace(g, g.node(id));
    CHECK(ws > 0);
    CHECK(ws <= size_t{4} << 20);
  }
  Interpreter interp(g);
  interp.run();
  if (!count_allocations([] {})) {
    return;
  }
  for (ValueId id : {c1, p1, c2, p2, dp1, dw2, dc1, dw1}) {
    INFO("node " << g.node_str(id));
    CHECK(count_allocations([&] { interp.run_node(id); }) == 0);
  }
}

TEST_CASE("transformer-sized kernels allocate nothing") {
  ir::Graph g;
  const ValueId q = g.add_input("q", TensorType{DType::F32, {8, 4, 64, 16}});
  const ValueId t = g.add(OpKind::Transpose, {q}, Attrs{{"perm", Shape{0, 2, 1, 3}}});
  const ValueId s = g.add(OpKind::Softmax, {q});
  const ValueId ls = g.add(OpKind::LogSoftmax, {q}, Attrs{{"axis", int64_t{1}}});
  const ValueId sg = g.add(OpKind::SoftmaxGrad, {s, q});
  const ValueId ge = g.add(OpKind::Gelu, {q});
  const ValueId gg = g.add(OpKind::UnaryGrad, {q, q}, Attrs{{"fn", std::string("gelu")}});
  const ValueId table = g.add_input("table", TensorType{DType::F32, {100, 32}});
  const ValueId ids = g.add_input("ids", TensorType{DType::I32, {8, 64}});
  const ValueId emb = g.add(OpKind::Gather, {table, ids});
  const ValueId demb = g.add(OpKind::GatherGrad, {ids, emb}, Attrs{{"shape", Shape{100, 32}}});
  const ValueId cat = g.add(OpKind::Concat, {q, q}, Attrs{{"axis", int64_t{-1}}});
  const ValueId sl =
      g.add(OpKind::Slice, {cat}, Attrs{{"begin", Shape{0, 0, 0, 8}}, {"end", Shape{8, 4, 64, 24}}});
  const ValueId mx = g.add(OpKind::Max, {q}, Attrs{{"axes", Shape{-1}}, {"keepdims", int64_t{1}}});
  const ValueId mask =
      g.add(OpKind::DropoutMask, {q}, Attrs{{"rate", 0.1}, {"name", std::string("attn/drop")}});
  Interpreter interp(g);
  interp.run();
  if (!count_allocations([] {})) {
    return;
  }
  for (ValueId id : {t, s, ls, sg, ge, gg, emb, demb, cat, sl, mx, mask}) {
    INFO("node " << g.node_str(id));
    CHECK(count_allocations([&] { interp.run_node(id); }) == 0);
  }
}

}  // namespace iputrain::test
