#include "core/ops/pool_util.hpp"

#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

ConvGeom pool_geom(const Shape& x, const Attrs& attrs) {
  const std::vector<int64_t>& k = ints_attr(attrs, "ksize");
  if (k.size() != 2 || k[0] < 1 || k[1] < 1) {
    throw OpError{
        fmt::format("ksize must be two positive integers [height, width], got [{}]", fmt::join(k, ", ")),
        "e.g. ksize = [2, 2]"};
  }
  return conv_geom(x, k[0], k[1], attrs, k[0], k[1], false);
}

TensorType infer_pool(const TensorType& x, const Attrs& attrs) {
  require_nhwc(x, "input");
  const ConvGeom g = pool_geom(x.shape, attrs);
  return TensorType{DType::F32, {g.n, g.oh, g.ow, g.c}};
}

Cost pool_cost(const Graph& g, const Node& node) {
  const auto k = ints_attr(node.attrs, "ksize");
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(std::max(node.type.numel(), g.type(node.inputs[0]).numel())) *
            static_cast<double>(k.size() == 2 ? k[0] * k[1] : 1);
  return c;
}

}  // namespace iputrain::ir
