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
  const Shape& s = x.shape();
  const auto axis = static_cast<size_t>(*normalize_axis(args.node.attrs.get_int("axis", -1), x.type->rank()));
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t d = 0; d < s.size(); ++d) {
    if (d < axis) {
      outer *= s[d];
    } else if (d > axis) {
      inner *= s[d];
    }
  }
  const int64_t n = s[axis];
  const T* px = static_cast<const T*>(x.data);
  int32_t* py = args.output.i32();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = px + o * n * inner + i;
      int32_t best = 0;
      T best_v = p[0];
      for (int64_t j = 1; j < n; ++j) {
        const T v = p[j * inner];
        if (better(v, best_v, is_max)) {
          best_v = v;
          best = static_cast<int32_t>(j);
        }
      }
      py[o * inner + i] = best;
    }
  }
}

}  // namespace

TensorType infer_arg_extreme(const TensorType& x, const Attrs& attrs, std::string_view name) {
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("{} needs an f32 or i32 operand, got {}", name, x.str()), "cast it to f32 first"};
  }
  const int64_t axis = attrs.get_int("axis", -1);
  const auto d = normalize_axis(axis, x.rank());
  if (!d) {
    throw OpError{fmt::format("axis {} is out of range for {}", axis, x.str()), ""};
  }
  if (x.shape[static_cast<size_t>(*d)] == 0) {
    throw OpError{fmt::format("{} over an empty axis of {}", name, x.str()), ""};
  }
  Shape out = x.shape;
  out.erase(out.begin() + *d);
  return TensorType{DType::I32, out};
}

void arg_extreme_forward(const KernelArgs& args, bool is_max) {
  if (args.inputs[0].type->dtype == DType::I32) {
    run<int32_t>(args, is_max);
  } else {
    run<float>(args, is_max);
  }
}

Cost arg_extreme_cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel());
  return c;
}

}  // namespace iputrain::ir
