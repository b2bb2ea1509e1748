// conv2d_backprop_filter: (x f32[N, H, W, C], dy f32[N, OH, OW, F]) -> f32[filter_shape], the
// gradient of conv2d with respect to its filter; attributes as conv2d plus filter_shape
// [KH, KW, C / groups, F]: dfilter = patches^T @ dy, one GEMM reading the patch matrix of x in
// place; groups > 1 in conv_grouped.cpp.
#include <fmt/format.h>

#include "core/ops/conv_grouped.hpp"
#include "core/ops/gemm.hpp"
#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_conv2d_backprop_filter {

constexpr AttrSpec kAttrs[] = {{.name = "groups", .number = 1, .min = 1}};

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType w{DType::F32, ints_attr(attrs, "filter_shape")};
  const TensorType& x = *in[0];
  const TensorType& dy = *in[1];
  require_nhwc(x, "input");
  require_nhwc(w, "filter_shape");
  require_nhwc(dy, "dy");
  const ConvGeom g = conv2d_geom(x.shape, w.shape, attrs);
  const Shape expect{g.n, g.oh, g.ow, w.shape[3]};
  if (dy.shape != expect) {
    throw OpError{fmt::format("dy {} and input {} do not fit the filter {}", dy.str(), x.str(), w.str()), ""};
  }
  return w;
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Tensor& dy = args.inputs[1];
  const Shape& ws = args.output.shape();
  const ConvGeom g = conv2d_geom(x.shape(), ws, args.node.attrs);
  const int64_t f = ws[3];
  const int64_t k = g.patch();
  float* dw = args.output.f32();
  if (g.groups > 1) {
    grouped_backprop_filter(x.f32(), dy.f32(), dw, g, f, args.workspace);
    return;
  }
  if (g.pointwise()) {
    gemm(x.f32(), true, dy.f32(), false, dw, k, f, g.rows());
    return;
  }
  gemm_patches(conv_patches(x.f32(), g, args.workspace), true, dy.f32(), dw, k, f, g.rows());
}

Cost cost(const Graph& g, const Node& node) {
  const Shape& w = node.type.shape;
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops =
      2.0 * static_cast<double>(g.type(node.inputs[1]).numel()) * static_cast<double>(w[0] * w[1] * w[2]);
  // The weight-update pass: the output positions are contracted, each filter entry is an output.
  const ConvGeom geo = conv2d_geom(g.type(node.inputs[0]).shape, w, node.attrs);
  const auto groups = static_cast<double>(geo.groups);
  const auto filter_rows = static_cast<double>(w[0] * w[1] * w[2]);
  c.contraction = {.groups = groups,
                   .field = filter_rows,
                   .in_channels = static_cast<double>(geo.rows()),
                   .out_channels = static_cast<double>(w[3]) / groups,
                   .row = filter_rows,
                   .matmul = true};
  return c;
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& w = node.type.shape;
  const ConvGeom geo = conv2d_geom(g.type(node.inputs[0]).shape, w, node.attrs);
  return geo.groups > 1 ? grouped_backprop_filter_bytes(geo, w[3]) : conv_patches_bytes(geo);
}

}  // namespace impl_conv2d_backprop_filter
}  // namespace

const OpDef kConv2DBackpropFilterOp{
    .kind = OpKind::Conv2DBackpropFilter,
    .name = "conv2d_backprop_filter",
    .arity = 2,
    .infer = impl_conv2d_backprop_filter::infer,
    .forward = impl_conv2d_backprop_filter::forward,
    .backward = nullptr,
    .cost = impl_conv2d_backprop_filter::cost,
    .doc =
        "conv2d_backprop_filter(x, dy; conv2d's attrs, filter_shape): the gradient of conv2d for its "
        "filter.",
    .workspace = impl_conv2d_backprop_filter::workspace,
    .attrs = impl_conv2d_backprop_filter::kAttrs,
    .edges = "matmul's sums.",
    .cost_class = CostClass::Convolution,
};

}  // namespace iputrain::ir
