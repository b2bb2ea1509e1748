// conv2d: x f32[N, H, W, C] (NHWC) with filter f32[KH, KW, C, F] (the Keras layout) ->
// f32[N, OH, OW, F]; attributes strides [sh, sw] and dilations [dh, dw] (default [1, 1]),
// padding "valid" (default) or "same" (TensorFlow's rule, see conv_util.hpp) and groups (default
// 1; the filter is then [KH, KW, C / groups, F], conv_grouped.hpp). No bias: add one.
//
// Forward (groups = 1): one GEMM of the patch matrix, read in place from x (or from its zero-bordered copy in
// the device workspace when the convolution pads), with the filter viewed as [KH * KW * C, F]; a
// 1x1 stride-1 convolution is a single GEMM on x itself.
// Gradients: conv2d_backprop_input(dy, filter) and conv2d_backprop_filter(x, dy).
#include <fmt/format.h>

#include "core/ops/conv_grouped.hpp"
#include "core/ops/gemm.hpp"

namespace iputrain::ir {

namespace {
namespace impl_conv2d {

constexpr AttrSpec kAttrs[] = {{.name = "groups", .number = 1, .min = 1}};

ConvGeom geom(const TensorType& x, const TensorType& filter, const Attrs& attrs) {
  require_nhwc(x, "input");
  require_nhwc(filter, "filter");
  return conv2d_geom(x.shape, filter.shape, attrs);
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const ConvGeom g = geom(*in[0], *in[1], attrs);
  return TensorType{DType::F32, {g.n, g.oh, g.ow, in[1]->shape[3]}};
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Tensor& w = args.inputs[1];
  const ConvGeom g = conv2d_geom(x.shape(), w.shape(), args.node.attrs);
  const int64_t f = w.shape()[3];
  const int64_t k = g.patch();
  if (g.groups > 1) {
    grouped_forward(x.f32(), w.f32(), args.output.f32(), g, f, args.workspace);
    return;
  }
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
  const ConvGeom geo = conv2d_geom(g.type(node.inputs[0]).shape, w.shape, node.attrs);
  const auto groups = static_cast<double>(geo.groups);
  c.contraction = {.groups = groups,
                   .field = static_cast<double>(geo.rows()),
                   .in_channels = static_cast<double>(w.shape[2]),
                   .out_channels = static_cast<double>(w.shape[3]) / groups,
                   .kernel_h = static_cast<double>(geo.kh),
                   .kernel_w = static_cast<double>(geo.kw),
                   .row = static_cast<double>(geo.ow)};
  return c;
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& w = g.type(node.inputs[1]).shape;
  const ConvGeom geom = conv2d_geom(g.type(node.inputs[0]).shape, w, node.attrs);
  return geom.groups > 1 ? grouped_forward_bytes(geom, w[3]) : conv_patches_bytes(geom);
}

}  // namespace impl_conv2d
}  // namespace

const OpDef kConv2DOp{
    .kind = OpKind::Conv2D,
    .name = "conv2d",
    .arity = 2,
    .infer = impl_conv2d::infer,
    .forward = impl_conv2d::forward,
    .backward = impl_conv2d::backward,
    .cost = impl_conv2d::cost,
    .doc =
        "conv2d(x f32[N,H,W,C], filter f32[KH,KW,C/groups,F]; strides = [1,1], dilations = [1,1], padding = "
        "\"valid\" | \"same\", groups = 1) -> f32[N,OH,OW,F]; groups > 1 convolves channel block g with filter "
        "block g (depthwise: groups = C).",
    .workspace = impl_conv2d::workspace,
    .attrs = impl_conv2d::kAttrs,
    .edges =
        "IEEE sums as matmul: nan and inf propagate through the windows that hold them; zero padding "
        "adds nothing.",
    .cost_class = CostClass::Convolution,
};

}  // namespace iputrain::ir
