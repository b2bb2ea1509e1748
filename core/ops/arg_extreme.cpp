#include "core/ops/arg_extreme.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

namespace {

// Whether v replaces the best so far: strictly better keeps the first of equal extremes; a nan
// beats any number and the first nan stays.
template <typename T>
bool better(T v, T best, bool is_max) {
  if constexpr (std::is_floating_point_v<T>) {
    if (best != best) {
      return false;
    }
    if (v != v) {
      return true;
    }
  }
  return is_max ? v > best : v < best;
}

template <typename T>
void run(const KernelArgs& args, bool is_max) {
  const Tensor& x = args.inputs[0];
  const AxisLines lines = axis_lines(x.shape(), axis_attr(args.node.attrs, x.type->rank(), *x.type));
  const T* px = static_cast<const T*>(x.data);
  int32_t* py = args.output.i32();
  // Line o * inner + i is output element o * inner + i (the axis removed).
  for (int64_t line = 0; line < lines.outer * lines.inner; ++line) {
    int32_t best = 0;
    T best_v = px[lines.at(line, 0)];
    for (int64_t j = 1; j < lines.n; ++j) {
      const T v = px[lines.at(line, j)];
      if (better(v, best_v, is_max)) {
        best_v = v;
        best = static_cast<int32_t>(j);
      }
    }
    py[line] = best;
  }
}

}  // namespace

template <bool kIsMax>
TensorType infer_arg_extreme(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const std::string_view name = kIsMax ? "argmax" : "argmin";
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("{} needs an f32 or i32 operand, got {}", name, x.str()), "cast it to f32 first"};
  }
  const size_t d = axis_attr(attrs, x.rank(), x);
  if (x.shape[d] == 0) {
    throw OpError{fmt::format("{} over an empty axis of {}", name, x.str()), ""};
  }
  Shape out = x.shape;
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(d));
  return TensorType{DType::I32, out};
}

template <bool kIsMax>
void arg_extreme_forward(const KernelArgs& args) {
  if (args.inputs[0].type->dtype == DType::I32) {
    run<int32_t>(args, kIsMax);
  } else {
    run<float>(args, kIsMax);
  }
}

template TensorType infer_arg_extreme<true>(std::span<const TensorType* const>, const Attrs&);
template TensorType infer_arg_extreme<false>(std::span<const TensorType* const>, const Attrs&);
template void arg_extreme_forward<true>(const KernelArgs&);
template void arg_extreme_forward<false>(const KernelArgs&);

Cost arg_extreme_cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel());
  return c;
}

}  // namespace iputrain::ir
