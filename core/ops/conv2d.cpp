// conv2d: x f32[N, H, W, C] (NHWC) with filter f32[KH, KW, C, F] (the Keras layout) ->
// f32[N, OH, OW, F]; attributes strides [sh, sw] and dilations [dh, dw] (default [1, 1]) and
// padding "valid" (default) or "same" (TensorFlow's rule, see conv_util.hpp). No bias: add one.
//
// Forward: one GEMM of the patch matrix, read in place from x (or from its zero-bordered copy in
// the device workspace when the convolution pads), with the filter viewed as [KH * KW * C, F]; a
// 1x1 stride-1 convolution is a single GEMM on x itself.
// Gradients: conv2d_backprop_input(dy, filter) and conv2d_backprop_filter(x, dy).
#include <fmt/format.h>

#include "core/ops/conv_util.hpp"
#include "core/ops/gemm.hpp"

namespace iputrain::ir {

namespace {

ConvGeom geom(const TensorType& x, const TensorType& filter, const Attrs& attrs) {
  require_nhwc(x, "input");
  require_nhwc(filter, "filter");
  if (filter.shape[2] != x.shape[3]) {
    throw OpError{fmt::format("the filter {} expects {} input channels but the input {} has {}", filter.str(),
                              filter.shape[2], x.str(), x.shape[3]),
                  "filters are [height, width, in_channels, out_channels]"};
  }
  return conv_geom(x.shape, filter.shape[0], filter.shape[1], attrs, 1, 1, true);
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const ConvGeom g = geom(*in[0], *in[1], attrs);
  return TensorType{DType::F32, {g.n, g.oh, g.ow, in[1]->shape[3]}};
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Tensor& w = args.inputs[1];
  const ConvGeom g = conv_geom(x.shape(), w.shape()[0], w.shape()[1], args.node.attrs, 1, 1, true);
  const int64_t f = w.shape()[3];
  const int64_t k = g.patch();
  if (g.pointwise()) {
    gemm(x.f32(), false, w.f32(), false, args.output.f32(), g.rows(), f, k);
    return;
  }
  gemm_patches(conv_patches(x.f32(), g, args.workspace), false, w.f32(), args.output.f32(), g.rows(), f, k);
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId x = n.inputs[0];
  const ValueId w = n.inputs[1];
  Attrs in_attrs = window_attrs(n.attrs);
  in_attrs.set("input_shape", g.type(x).shape);
  Attrs f_attrs = window_attrs(n.attrs);
  f_attrs.set("filter_shape", g.type(w).shape);
  return {g.add(OpKind::Conv2DBackpropInput, {dy, w}, std::move(in_attrs)),
          g.add(OpKind::Conv2DBackpropFilter, {x, dy}, std::move(f_attrs))};
}

Cost cost(const Graph& g, const Node& node) {
  const TensorType& w = g.type(node.inputs[1]);
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = 2.0 * static_cast<double>(node.type.numel()) *
            static_cast<double>(w.shape[0] * w.shape[1] * w.shape[2]);
  return c;
}

size_t workspace(const Graph& g, const Node& node) {
  const TensorType& w = g.type(node.inputs[1]);
  return conv_patches_bytes(conv_geom(g.type(node.inputs[0]).shape, w.shape[0], w.shape[1], node.attrs, 1, 1, true));
}

}  // namespace

const OpDef kConv2DOp{
    .kind = OpKind::Conv2D,
    .name = "conv2d",
    .arity = 2,
    .infer = infer,
    .forward = forward,
    .backward = backward,
    .cost = cost,
    .doc =
        "conv2d(x f32[N,H,W,C], filter f32[KH,KW,C,F]; strides = [1,1], dilations = [1,1], padding = "
        "\"valid\" | \"same\") -> f32[N,OH,OW,F].",
    .workspace = workspace,
    .edges =
        "IEEE sums as matmul: nan and inf propagate through the windows that hold them; zero padding "
        "adds nothing.",
};

}  // namespace iputrain::ir
