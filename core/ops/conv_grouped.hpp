// Grouped convolutions (conv2d with groups > 1; a depthwise convolution is C groups): the kernels of
// conv2d and its two backprop ops for them. groups = 1 never comes here (one GEMM, conv2d.cpp).
//
// Input channels [e * cg, (e + 1) * cg) and outputs [e * fg, (e + 1) * fg) form group e (cg = C /
// groups, fg = F / groups); the filter is [KH, KW, cg, F]. Two ways, chosen from the shape only:
// - direct, for depthwise convolutions (cg = 1, any depth multiplier fg): a loop over output
//   positions (or input positions, or filter taps) vectorised over the contiguous NHWC channels;
//   with fg = 1 lane o reads channel o and whole vectors of lanes keep their sums in registers,
//   otherwise a lookup table (in the workspace) maps each lane to its input channel;
// - per-group GEMMs for every other grouping: gemm_grouped() on group e's column blocks, the patch
//   matrix read in place as for groups = 1. (Direct kernels over groups of 4 channels, gathering
//   each lane's input, ran ResNeXt-like training 1.7x slower than the GEMMs.)
// Every output element is summed by one work item in an order fixed by the shape (taps, then the
// group's channels; or positions in order), so the bits do not depend on the thread count.
#pragma once

#include "core/ops/conv_util.hpp"

namespace iputrain::ir {

//! Whether a grouped convolution with F filters runs the direct kernels (else per-group GEMMs).
bool grouped_direct(const ConvGeom& g, int64_t f);

//! y [N, OH, OW, F] = the grouped convolution of x [N, H, W, C] with w [KH, KW, C / groups, F].
void grouped_forward(const float* x, const float* w, float* y, const ConvGeom& g, int64_t f, void* workspace);
size_t grouped_forward_bytes(const ConvGeom& g, int64_t f);

//! dx [N, H, W, C] from dy [N, OH, OW, F] and w (conv2d_backprop_input).
void grouped_backprop_input(const float* dy, const float* w, float* dx, const ConvGeom& g, int64_t f, void* workspace);
size_t grouped_backprop_input_bytes(const ConvGeom& g, int64_t f);

//! dw [KH, KW, C / groups, F] from x and dy (conv2d_backprop_filter).
void grouped_backprop_filter(const float* x, const float* dy, float* dw, const ConvGeom& g, int64_t f, void* workspace);
size_t grouped_backprop_filter_bytes(const ConvGeom& g, int64_t f);

}  // namespace iputrain::ir
