#include "planner/vertex_estimates.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace iputrain::planner {

namespace {

// Row pieces per worker when a tile's F outputs (rows of `row`) are cut into six equal chunks
// (ConvUtilInternal.cpp partitionConvPartialByWorker): one more than the rows a chunk spans.
double row_pieces(double f, double row) { return std::ceil(f / (6 * std::max(1.0, row))) + 1; }

// How many output positions each tile holds for one pass: as many as keep every tile busy with
// the passes of every group (output channel groups side by side, input channel groups and kernel
// positions split over tiles whose partial sums are then reduced), no more than one group's field.
// Fewer, larger blocks spread the fixed cost of a pass over more outputs.
double outputs_per_tile(double field, double passes, double tiles) {
  return std::max(1.0, std::min(field, field * passes / tiles));
}

// Cycles on the busiest tile for `pass_outputs` (output position x pass) of `f` outputs per tile
// each, at `core` cycles per output plus `fixed` per pass.
double spread(double pass_outputs, double f, double core, double fixed, double tiles) {
  const double blocks = pass_outputs / f;
  const double used = std::min(tiles, blocks);
  return blocks / used * (core * f + fixed);
}

// AMP (ConvPartial1x1Out / ConvPartialnx1): the best input-channel grouping.
double amp_cycles(const ir::Contraction& c, bool half, bool half_partials, double tiles) {
  const double units = half && !half_partials ? 8 : 16;  // ConvVertexType.cpp 294-314; the .S variants
  const double weights = half ? 16 : 8;                  // per unit: chain 4 x load width 4 (f16) or 2
  const double core = half ? 4 : 8;                      // PerformanceEstimation.hpp 764: cycles per output
  const double out_groups = std::ceil(c.out_channels / units);
  const bool one_by_one = c.kernel_h == 1 && c.kernel_w == 1;
  double best = INFINITY;
  static constexpr std::array<double, 3> kHalfGroups = {16, 8, 4};  // ConvVertexType.cpp 40-72
  static constexpr std::array<double, 3> kFloatGroups = {8, 4, 2};
  for (double in_group : half ? kHalfGroups : kFloatGroups) {
    const double rows_packed = weights / in_group;  // ConvModel.cpp 103-111: kernel rows per weight load
    const double passes =
        std::ceil(c.in_channels / in_group) * std::ceil(c.kernel_h / rows_packed) * c.kernel_w * out_groups;
    const double f = outputs_per_tile(c.field, c.groups * passes, tiles);
    // Per pass: the workers' row pieces and start (hpp 759-798), the weight load at 8 bytes per
    // cycle (4 x units cycles, hpp 558-572) and the supervisor's loop (hpp 869-1003).
    const double r = one_by_one ? 1 : row_pieces(f, c.row);
    const double fixed = half ? 6 * (18 + 16 * r) + 4 * units + 30 : 6 * (20 + 16 * r) + 94;
    best = std::min(best, spread(c.groups * c.field * passes, f, core, fixed, tiles));
  }
  return best;
}

// SLIC (ConvPartial1xNSLIC): f16 operands, equal input and output channels per group, at most 4.
double slic_cycles(const ir::Contraction& c, bool half_partials, double tiles) {
  const double chans = c.in_channels <= 1 ? 1 : (c.in_channels <= 2 ? 2 : 4);
  const double per_group = 4 / chans;  // groupings 1x4, 2x2, 4x1 (vertex-type 544-555)
  const double group_groups = std::ceil(c.groups / per_group);
  const double passes = c.kernel_h * std::ceil(c.kernel_w / 4);  // sub-kernels of a 1x4 window
  const double f = outputs_per_tile(c.field, group_groups * passes, tiles);
  const double r = row_pieces(f, c.row);
  const double core = half_partials ? 1 : 2;        // hpp 1261-1364: input passes
  const double weight_load = chans == 4 ? 34 : 97;  // hpp 1085-1124
  const double fixed = 102 + (half_partials ? 120 : 186) * r + weight_load;
  return spread(group_groups * c.field * passes, f, core, fixed, tiles);
}

// HMAC (ConvPartialHorizontalMac): per output position, group and kernel position, a dot product
// of the input channels for each output channel (PerformanceEstimation.hpp 79-163).
double hmac_cycles(const ir::Contraction& c, bool half, double tiles) {
  const double per_position = 7 + c.out_channels * (half ? 6 + c.in_channels / 4 : 7 + c.in_channels / 2);
  const double positions = c.groups * c.field * c.kernel_h * c.kernel_w;
  const double used = std::min(tiles, c.groups * c.field);
  return positions / used * per_position + 48 * std::ceil(c.groups / used);
}

}  // namespace

VertexEstimate contraction_estimate(const ir::Contraction& c, bool half, bool half_partials, double tiles) {
  VertexEstimate best{Vertex::Amp, amp_cycles(c, half, half_partials, tiles)};
  const bool slic = half && !c.matmul && c.in_channels <= 4 && c.out_channels == c.in_channels;
  if (slic) {
    const double cycles = slic_cycles(c, half_partials, tiles);
    best = cycles < best.cycles ? VertexEstimate{Vertex::Slic, cycles} : best;
  }
  const double hmac = hmac_cycles(c, half, tiles);
  return hmac < best.cycles ? VertexEstimate{Vertex::Hmac, hmac} : best;
}

double elementwise_cycles(double elements, double flops_per_element, bool half, double tiles) {
  // Elements per tile cycle (popopsCycleEstimators.cpp, PerformanceEstimation.cpp): a copy or fill,
  // add / multiply / compare, divide and square root, exp / log / tanh.
  double rate = half ? 4.0 : 2.0;
  if (flops_per_element >= 10) {
    rate = half ? 1.0 : 0.25;
  } else if (flops_per_element >= 4) {
    rate = half ? 0.22 : 0.27;
  } else if (flops_per_element > 0) {
    rate = half ? 1.33 : 0.67;
  }
  return elements / (tiles * rate);
}

double reduction_cycles(double elements, bool half, double tiles) {
  return elements / (tiles * (half ? 4.0 : 2.0));  // reduction/CycleEstimationFunctions.cpp
}

}  // namespace iputrain::planner
