// What an op's kernels take on one IPU's tiles, from PopLibs' own cycle estimators
// (graphcore/poplibs at 7eac0f266c: lib/poplin/PerformanceEstimation.hpp, ConvModel.cpp,
// ConvVertexType.cpp; lib/popops/popopsCycleEstimators.cpp, reduction/CycleEstimationFunctions.cpp).
// The formulas are restated in our own terms; docs/ipu_scale.md derives each figure.
//
// A tile has six workers that take turns, so when they are evenly loaded a tile's cycles are the
// sum of its workers' cycles, and every rate below is per tile cycle.
//
// Contractions (matmuls, convolutions and their gradients) run on one of three vertices; the plan
// takes the one that finishes first, as PopLibs' planner does:
//  - AMP, the accumulating matrix product units: 16 f16 (8 f32) weights per unit, 8 units with f16
//    operands and f32 partials, 16 with f16 partials or f32 operands; 4 cycles per output position
//    and pass (8 in f32), a pass being one group of input channels (4, 8 or 16; fewer than 16 pack
//    several kernel rows into the unit) times one group of `units` output channels. Channels are
//    padded up to those groups; each pass on a tile pays a fixed cost for its workers' row pieces,
//    the weight load and the supervisor.
//  - SLIC, a 1x4 window for f16 operands with at most four channels per group (grouped and
//    depthwise convolutions; not matmuls): 1 (f16 partials) or 2 (f32 partials) cycles per output
//    and pass, the kernel's width padded to 4.
//  - HMAC, a dot product along the input channels: what is left for f32 grouped and depthwise
//    convolutions.
// Elementwise ops and reductions are priced per element at PopLibs' vectorised rates.
#pragma once

#include "core/ops/op.hpp"

namespace iputrain::planner {

enum class Vertex { Amp, Slic, Hmac };

//! The peak FLOPs per tile cycle the estimates assume (a Mk2 tile's AMP units: f16 operands with f16
//! partials, f32 operands); a device declaring another peak scales them (planner/cost_model.cpp).
constexpr double kEstimateF16Flops = 128;
constexpr double kEstimateF32Flops = 32;

struct VertexEstimate {
  Vertex vertex = Vertex::Amp;
  double cycles = 0;  //!< on the busiest tile, for the whole op
};

//! The fastest vertex for `c` on `tiles` tiles: f16 or f32 operands (`half`), f16 or f32 partial
//! sums (`half_partials`, PopLibs' partialsType; it is f32 by default).
VertexEstimate contraction_estimate(const ir::Contraction& c, bool half, bool half_partials, double tiles);

//! An elementwise op of `elements` results costing `flops_per_element` (the op's declared cost):
//! PopLibs' vectorised rate for its family (arithmetic, divide and square root, transcendental).
double elementwise_cycles(double elements, double flops_per_element, bool half, double tiles);

//! A reduction of `elements` inputs on `tiles` tiles (the partial sums' exchange is priced apart).
double reduction_cycles(double elements, bool half, double tiles);

}  // namespace iputrain::planner
