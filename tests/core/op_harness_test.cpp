// Runs every op case and checks that the cases cover every primitive.
#include <cmath>
#include <set>

#include <doctest/doctest.h>

#include "core/ops/gemm.hpp"
#include "core/ops/op.hpp"
#include "tests/core/op_harness.hpp"

namespace iputrain::test {

using ir::OpKind;

TEST_CASE("op harness: every case") {
  int64_t checked = 0;
  size_t run = 0;
  for (const OpCase& c : op_cases()) {
    checked += run_op_case(c);
    ++run;
  }
  MESSAGE(run << " op cases, " << checked << " values compared");
  CHECK(run > 100);
}

TEST_CASE("op harness: every case through the portable GEMM (what a CPU without AVX-512 runs)") {
  // The products (matmul, the convolutions and their gradients, the recurrent cells) through the
  // fallback kernel, forced as IPUTRAIN_GEMM=portable forces it: the same references and gradients.
  const ir::GemmKernel before = ir::gemm_kernel();
  REQUIRE(ir::set_gemm_kernel(ir::GemmKernel::Portable));
  int64_t checked = 0;
  for (const OpCase& c : op_cases()) {
    checked += run_op_case(c);
  }
  ir::set_gemm_kernel(before);
  CHECK(checked > 1000);
}

TEST_CASE("op harness: every op has a case that runs it and one that checks its types") {
  std::set<OpKind> runs;
  std::set<OpKind> type_errors;
  std::set<std::string> names;
  for (const OpCase& c : op_cases()) {
    CHECK_MESSAGE(names.insert(c.name).second, "duplicate case name " << c.name);
    (c.infer_error.empty() ? runs : type_errors).insert(c.op);
  }
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (ir::op_def(kind).forward == nullptr) {
      continue;  // leaves are filled from outside
    }
    if (kind == OpKind::LoopGrad) {
      // Reads the packed result only a loop makes: run, and checked against finite differences,
      // as the gradient of the loop cases (op_cases_loop.cpp).
      CHECK(runs.count(OpKind::Loop) == 1);
      continue;
    }
    INFO("op " << ir::op_name(kind));
    CHECK(runs.count(kind) == 1);
    CHECK(type_errors.count(kind) == 1);
  }
}

TEST_CASE("op harness: comparisons can fail") {
  // The harness must be able to fail: a wrong value, a wrong size and nan against a number count.
  ir::Graph g;
  const TensorType t{DType::F32, {2}};
  const ir::ValueId a = g.add_input("a", t);
  const ir::ValueId b = g.add_input("b", t);
  const ir::ValueId y = g.add(OpKind::Add, {a, b});
  Interpreter interp(g);
  interp.set(a, {1, 2});
  interp.set(b, {3, 4});
  interp.run();
  CHECK(mismatches(interp.get(y), {4, 6}, 1e-5, 1e-5) == 0);
  CHECK(mismatches(interp.get(y), {4, 7}, 1e-5, 1e-5) == 1);
  CHECK(mismatches(interp.get(y), {4}, 1e-5, 1e-5) == 2);
  CHECK(mismatches({std::nan("")}, {1.0}, 1e-5, 1e-5) == 1);
  CHECK(mismatches({std::nan("")}, {std::nan("")}, 1e-5, 1e-5) == 0);
}

TEST_CASE("op harness: allocations are counted and kernels at MLP sizes make none") {
  const auto counted = count_allocations([] { std::vector<int> v(1000); });
  if (!counted) {
    return;  // not countable on this platform
  }
  CHECK(*counted >= 1);
  // The shapes of a Fashion-MNIST MLP step at batch 32, where Eigen's GEMM blocks are largest.
  ir::Graph g;
  const auto x = g.add_input("x", TensorType{DType::F32, {32, 784}});
  const auto w = g.add_input("w", TensorType{DType::F32, {784, 256}});
  const auto b = g.add_input("b", TensorType{DType::F32, {256}});
  const auto labels = g.add_input("labels", TensorType{DType::I32, {32}});
  const auto h = g.add(OpKind::MatMul, {x, w});
  const auto hb = g.add(OpKind::Add, {h, b});
  const auto r = g.add(OpKind::Relu, {hb});
  const auto w2 = g.add_input("w2", TensorType{DType::F32, {256, 10}});
  const auto logits = g.add(OpKind::MatMul, {r, w2});
  const auto loss = g.add(OpKind::SoftmaxCrossEntropy, {logits, labels});
  const auto m = g.add(OpKind::Mean, {loss});
  const auto dy = g.add_input("dy", g.type(loss));
  const auto dlogits = g.add(OpKind::SoftmaxCrossEntropyGrad, {logits, labels, dy});
  const auto dw2 = g.add(OpKind::MatMul, {r, dlogits}, ir::Attrs{{"transpose_a", int64_t{1}}});
  const auto dr = g.add(OpKind::MatMul, {dlogits, w2}, ir::Attrs{{"transpose_b", int64_t{1}}});
  const auto dh = g.add(OpKind::ReluGrad, {hb, dr});
  const auto db = g.add(OpKind::Sum, {dh}, ir::Attrs{{"axes", Shape{0}}});
  const auto dw = g.add(OpKind::MatMul, {x, dh}, ir::Attrs{{"transpose_a", int64_t{1}}});
  Interpreter interp(g);
  interp.set(labels, Values(32, 3.0));
  interp.run();
  for (ir::ValueId id : {h, hb, r, logits, loss, m, dlogits, dw2, dr, dh, db, dw}) {
    INFO("node " << g.node_str(id));
    CHECK(count_allocations([&] { interp.run_node(id); }) == 0);
  }
}

}  // namespace iputrain::test
