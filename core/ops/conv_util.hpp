// Shared by conv2d, its two backprop ops and the pools (all NHWC): the window geometry with
// TensorFlow's padding rules, the patch matrix (im2col's) read in place, and col2im over a range of
// output positions.
//
// Padding "valid": no padding, out = (in - eff) / stride + 1 with eff = (k - 1) * dilation + 1.
// Padding "same": out = ceil(in / stride); the total padding max((out - 1) * stride + eff - in, 0)
// is split with the smaller half at the start (the extra element goes at the end).
#pragma once

#include "core/ops/gemm.hpp"
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

struct ConvGeom {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input [N, H, W, C]
  int64_t kh = 0, kw = 0;              // window
  int64_t sh = 1, sw = 1;              // strides
  int64_t dh = 1, dw = 1;              // dilations
  int64_t oh = 0, ow = 0;              // output spatial size
  int64_t pt = 0, pl = 0;              // padding before the first row / column
  int64_t groups = 1;                  // channel groups (conv2d's groups; C and F divide by it)

  //! Output positions N * OH * OW: the rows of the patch matrix.
  int64_t rows() const { return n * oh * ow; }
  //! Patch length KH * KW * C / groups: the columns of one group's patch matrix (filter rows,
  //! [KH, KW, C / groups] order).
  int64_t patch() const { return kh * kw * (c / groups); }
  //! A 1x1 window with stride 1 reads the input itself as the patch matrix.
  bool pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1; }
};

//! conv2d's geometry: conv_geom() with the groups attribute, checked against the input channels
//! and the filter [KH, KW, C / groups, F] (`f` is F). Throws OpError when they do not fit.
ConvGeom conv2d_geom(const Shape& x, const Shape& filter, const Attrs& attrs);

//! The geometry of a window of kh x kw over input shape `x` ([N, H, W, C]) with attributes strides
//! (default [default_stride_h, default_stride_w]), dilations (when `dilated`; default [1, 1]) and
//! padding ("valid" default, or "same"). Throws OpError on a bad attribute or a window larger than
//! the (padded) input.
ConvGeom conv_geom(const Shape& x, int64_t kh, int64_t kw, const Attrs& attrs, int64_t default_sh,
                   int64_t default_sw, bool dilated);

//! Throws OpError unless `t` is f32 of rank 4 (`what` names it).
void require_nhwc(const TensorType& t, std::string_view what);

//! Output rows per chunk of conv2d_backprop_input's patch gradient: a chunk (rows x patch floats)
//! stays near 2 MiB.
int64_t conv_chunk_rows(const ConvGeom& g);

//! Bytes of workspace conv2d_backprop_input needs (0 for a pointwise convolution).
size_t conv_workspace_bytes(const ConvGeom& g);

//! Bytes of workspace conv_patches() needs: x with its zero border when the geometry pads, then the
//! taps table (KH * KW * C offsets); 0 for a pointwise convolution, which reads x as it is.
size_t conv_patches_bytes(const ConvGeom& g);

//! The patch matrix of `x` ([rows, patch], what im2col would write) for gemm_patches() to read in
//! place; with groups, group 0's (channels [0, C / groups)), group e's being x advanced by e * C / groups. When the
//! geometry pads, x is first copied with its zero border into `workspace`; the taps table follows it there. `workspace`
//! holds conv_patches_bytes(g) bytes, 8-byte aligned.
Patches conv_patches(const float* x, const ConvGeom& g, void* workspace);

//! The adjoint of the patch matrix: adds cols[r - r0, :] into the input positions the patch of r
//! reads (conv2d_backprop_input).
void col2im_add(const float* cols, const ConvGeom& g, int64_t r0, int64_t r1, float* dx);

//! col2im_add split by image: patches of different images never overlap, and within an image the
//! rows are added in order, so dx gets the same bits as from col2im_add.
void col2im_add_parallel(const float* cols, const ConvGeom& g, int64_t r0, int64_t r1, float* dx);

//! Copies the attributes that define the geometry (strides, dilations, padding, ksize, groups).
Attrs window_attrs(const Attrs& attrs);

}  // namespace iputrain::ir
