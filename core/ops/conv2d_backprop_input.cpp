// conv2d_backprop_input: (dy f32[N, OH, OW, F], filter f32[KH, KW, C, F]) -> f32[input_shape], the
// gradient of conv2d with respect to its input; attributes as conv2d plus input_shape [N, H, W, C]
// (strided convolutions map several input sizes to one output size, so it is given). Per chunk of
// output positions: cols = dy @ filter^T in the workspace, then col2im adds the patches back;
// groups > 1 in conv_grouped.cpp.

#include <fmt/format.h>

#include "core/ops/conv_grouped.hpp"
#include "core/ops/gemm.hpp"
#include "core/ops/reduce_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_conv2d_backprop_input {

constexpr AttrSpec kAttrs[] = {{.name = "groups", .number = 1, .min = 1}};

ConvGeom geom(const Shape& input_shape, const Shape& filter, const Attrs& attrs) {
  return conv2d_geom(input_shape, filter, attrs);
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType x{DType::F32, ints_attr(attrs, "input_shape")};
  const TensorType& dy = *in[0];
  const TensorType& w = *in[1];
  require_nhwc(x, "input_shape");
  require_nhwc(w, "filter");
  require_nhwc(dy, "dy");
  const ConvGeom g = geom(x.shape, w.shape, attrs);
  const Shape expect{g.n, g.oh, g.ow, w.shape[3]};
  if (dy.shape != expect) {
    throw OpError{fmt::format("dy {} and filter {} do not fit the input {}", dy.str(), w.str(), x.str()), ""};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const Tensor& dy = args.inputs[0];
  const Tensor& w = args.inputs[1];
  const ConvGeom g = geom(args.output.shape(), w.shape(), args.node.attrs);
  const int64_t f = w.shape()[3];
  const int64_t k = g.patch();
  float* dx = args.output.f32();
  if (g.groups > 1) {
    grouped_backprop_input(dy.f32(), w.f32(), dx, g, f, args.workspace);
    return;
  }
  if (g.pointwise()) {
    gemm(dy.f32(), false, w.f32(), true, dx, g.rows(), k, f);
    return;
  }
  const int64_t total = args.output.numel();
  par::for_elements(total, 1, [dx](int64_t b, int64_t e) { std::fill(dx + b, dx + e, 0.0f); });
  const int64_t chunk = conv_chunk_rows(g);
  auto* cols = static_cast<float*>(args.workspace);
  for (int64_t r0 = 0; r0 < g.rows(); r0 += chunk) {
    const int64_t r1 = std::min(g.rows(), r0 + chunk);
    gemm(dy.f32() + r0 * f, false, w.f32(), true, cols, r1 - r0, k, f);
    col2im_add_parallel(cols, g, r0, r1, dx);
  }
}

Cost cost(const Graph& g, const Node& node) {
  const TensorType& w = g.type(node.inputs[1]);
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = 2.0 * static_cast<double>(g.type(node.inputs[0]).numel()) *
            static_cast<double>(w.shape[0] * w.shape[1] * w.shape[2]);
  // PopLibs runs it as a convolution of dy with the flipped filter: the input's positions are the
  // field, the filter's output channels are contracted.
  const ConvGeom geo = geom(node.type.shape, w.shape, node.attrs);
  const auto groups = static_cast<double>(geo.groups);
  c.contraction = {.groups = groups,
                   .field = static_cast<double>(geo.n * geo.h * geo.w),
                   .in_channels = static_cast<double>(w.shape[3]) / groups,
                   .out_channels = static_cast<double>(w.shape[2]),
                   .kernel_h = static_cast<double>(geo.kh),
                   .kernel_w = static_cast<double>(geo.kw),
                   .row = static_cast<double>(geo.w)};
  return c;
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& w = g.type(node.inputs[1]).shape;
  const ConvGeom geo = geom(node.type.shape, w, node.attrs);
  return geo.groups > 1 ? grouped_backprop_input_bytes(geo, w[3]) : conv_workspace_bytes(geo);
}

}  // namespace impl_conv2d_backprop_input
}  // namespace

const OpDef kConv2DBackpropInputOp{
    .kind = OpKind::Conv2DBackpropInput,
    .name = "conv2d_backprop_input",
    .arity = 2,
    .infer = impl_conv2d_backprop_input::infer,
    .forward = impl_conv2d_backprop_input::forward,
    .backward = nullptr,
    .cost = impl_conv2d_backprop_input::cost,
    .doc =
        "conv2d_backprop_input(dy, filter; conv2d's attrs, input_shape): the gradient of conv2d for its "
        "input.",
    .workspace = impl_conv2d_backprop_input::workspace,
    .attrs = impl_conv2d_backprop_input::kAttrs,
    .edges = "matmul's sums.",
    .cost_class = CostClass::Convolution,
};

}  // namespace iputrain::ir
