// PopLibs' vertex estimates (planner/vertex_estimates.hpp) against the worked examples of their
// formulas (graphcore/poplibs lib/poplin/PerformanceEstimation.hpp at 7eac0f266c): one tile holding
// a 14 x 14 output field of a 3 x 3 convolution, f16 operands, f32 partial sums (PopLibs' default).
#include <doctest/doctest.h>

#include "planner/vertex_estimates.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

ir::Contraction conv3x3(double groups, double channels) {
  return {.groups = groups,
          .field = 196,
          .in_channels = channels,
          .out_channels = channels,
          .kernel_h = 3,
          .kernel_w = 3,
          .row = 14};
}

double macs_per_cycle(const ir::Contraction& c, const VertexEstimate& e) {
  return c.groups * c.field * c.in_channels * c.out_channels * c.kernel_h * c.kernel_w / e.cycles;
}

}  // namespace

TEST_CASE("a dense convolution runs on the AMP units at PopLibs' estimated share of their peak") {
  // 64 -> 64 channels: 4 input groups of 16 x 3 x 3 kernel positions x 8 output groups of 8 units =
  // 288 passes of 196 outputs, each 4 cycles an output plus 6 (18 + 16 x 4) + 4 x 8 + 30 = 554 per
  // pass: 18.75 multiply-adds a cycle of the 32 (PopLibs' estimator, worker by worker: 19.8).
  const ir::Contraction c = conv3x3(1, 64);
  const VertexEstimate e = contraction_estimate(c, true, false, 1);
  CHECK(e.vertex == Vertex::Amp);
  CHECK(e.cycles == doctest::Approx(288 * (4 * 196 + 554)));
  CHECK(macs_per_cycle(c, e) == doctest::Approx(19.8).epsilon(0.06));
  // f16 partial sums use 16 units: the passes halve.
  CHECK(macs_per_cycle(c, contraction_estimate(c, true, true, 1)) > 1.6 * macs_per_cycle(c, e));
}

TEST_CASE("grouped and depthwise convolutions fall to the SLIC vertex, far below the dense rate") {
  // 32 groups of 4 channels (ResNeXt's 32x4d): SLIC's 1x4 window, 2 cycles an output with f32
  // partials, the 3-wide kernel padded to 4 (PopLibs' estimator: 8.35 multiply-adds a cycle).
  const ir::Contraction grouped = conv3x3(32, 4);
  const VertexEstimate g = contraction_estimate(grouped, true, false, 1);
  CHECK(g.vertex == Vertex::Slic);
  CHECK(macs_per_cycle(grouped, g) == doctest::Approx(8.35).epsilon(0.15));
  // Depthwise, 128 channels: four groups per pass of one channel each (estimator: 2.08).
  const ir::Contraction depthwise = conv3x3(128, 1);
  const VertexEstimate d = contraction_estimate(depthwise, true, false, 1);
  CHECK(d.vertex == Vertex::Slic);
  CHECK(macs_per_cycle(depthwise, d) == doctest::Approx(2.08).epsilon(0.2));
  const double dense = macs_per_cycle(conv3x3(1, 64), contraction_estimate(conv3x3(1, 64), true, false, 1));
  CHECK(macs_per_cycle(grouped, g) < dense / 2);
  CHECK(macs_per_cycle(depthwise, d) < dense / 8);
  // SLIC takes f16 operands only: in f32 a depthwise convolution pads one channel to AMP's groups
  // or runs a dot product per channel (HMAC), under one multiply-add a cycle either way.
  const VertexEstimate f32 = contraction_estimate(depthwise, false, false, 1);
  CHECK(f32.vertex != Vertex::Slic);
  CHECK(macs_per_cycle(depthwise, f32) < 1);
  // HMAC wins where AMP would pad its 16 f32 units most: one output channel of 96 inputs.
  const ir::Contraction one_out{.groups = 1, .field = 196, .in_channels = 96, .out_channels = 1, .row = 14};
  const VertexEstimate h = contraction_estimate(one_out, false, false, 1);
  CHECK(h.vertex == Vertex::Hmac);
  CHECK(h.cycles == doctest::Approx(196 * (7 + (7 + 96 / 2.0)) + 48));
  // A matmul never runs on SLIC, whatever its shape.
  ir::Contraction narrow = grouped;
  narrow.matmul = true;
  CHECK(contraction_estimate(narrow, true, false, 1).vertex != Vertex::Slic);
}

TEST_CASE("a large matmul spread over the IPU approaches the AMP peak of its partials type") {
  const ir::Contraction mm{
      .groups = 1, .field = 4096, .in_channels = 768, .out_channels = 3072, .row = 4096, .matmul = true};
  const double flops = 2.0 * 4096 * 768 * 3072;
  const double half_partials = flops / (1472 * contraction_estimate(mm, true, true, 1472).cycles);
  const double float_partials = flops / (1472 * contraction_estimate(mm, true, false, 1472).cycles);
  const double f32 = flops / (1472 * contraction_estimate(mm, false, false, 1472).cycles);
  CHECK(half_partials > 0.9 * kEstimateF16Flops);
  CHECK(half_partials <= kEstimateF16Flops);
  CHECK(float_partials == doctest::Approx(half_partials / 2).epsilon(0.05));
  CHECK(f32 > 0.9 * kEstimateF32Flops);
  CHECK(f32 <= kEstimateF32Flops);
}

TEST_CASE("elementwise ops and reductions run at PopLibs' per-element rates") {
  // Elements a tile finishes per cycle: an add 1.33 (f16) and 0.67 (f32), a division 0.22 and
  // 0.27, exp or tanh 1.0 and 0.25, a copy 4 and 2; reductions 4 and 2 inputs.
  CHECK(elementwise_cycles(1472 * 1.33, 1, true, 1472) == doctest::Approx(1));
  CHECK(elementwise_cycles(1472 * 0.67, 1, false, 1472) == doctest::Approx(1));
  CHECK(elementwise_cycles(1472 * 0.27, 4, false, 1472) == doctest::Approx(1));
  CHECK(elementwise_cycles(1472 * 0.25, 10, false, 1472) == doctest::Approx(1));
  CHECK(elementwise_cycles(1472 * 1.0, 12, true, 1472) == doctest::Approx(1));
  CHECK(elementwise_cycles(1472 * 2.0, 0, false, 1472) == doctest::Approx(1));
  CHECK(reduction_cycles(1472 * 4.0, true, 1472) == doctest::Approx(1));
  CHECK(reduction_cycles(1472 * 2.0, false, 1472) == doctest::Approx(1));
}
