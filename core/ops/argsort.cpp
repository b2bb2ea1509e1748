// argsort: the indices that sort x along attribute axis (default -1), ascending or with
// descending = 1, as i32 of x's shape. Stable: equal elements keep their order, so ties go to the
// first index either way. nan sorts as the largest value (last ascending, first descending), as
// NumPy and PyTorch. No gradient. sort, top_k and argsort in the language are built on it.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/ops/along_axis_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_argsort {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("argsort needs an f32 or i32 operand, got {}", x.str()), "cast it first"};
  }
  if (x.rank() == 0) {
    throw OpError{fmt::format("argsort needs a tensor of rank 1 or more, got {}", x.str()), ""};
  }
  axis_attr(attrs, x.rank(), x);
  return TensorType{DType::I32, x.shape};
}

// a before b: a strict weak order in which nan is above every number.
template <typename T>
bool below(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) {
      return false;
    }
    if (b != b) {
      return true;
    }
  }
  return a < b;
}

template <typename T>
void run(const KernelArgs& args, int32_t* order) {
  const Tensor& x = args.inputs[0];
  const size_t axis = axis_attr(args.node.attrs, x.type->rank(), *x.type);
  const bool descending = args.node.attrs.get_int("descending", 0) != 0;
  const AxisLines lines = axis_lines(x.shape(), axis);
  const T* px = static_cast<const T*>(x.data);
  int32_t* py = args.output.i32();
  par::for_blocks(lines.outer * lines.inner, 1, lines.outer * lines.inner * lines.n * 8, [&](int64_t l0, int64_t l1) {
    for (int64_t line = l0; line < l1; ++line) {
      // The line's own stretch of the workspace: no allocation while the kernel runs (std::sort
      // with ties broken by index is the stable order; std::stable_sort would allocate).
      int32_t* idx = order + line * lines.n;
      std::iota(idx, idx + lines.n, 0);
      std::sort(idx, idx + lines.n, [&](int32_t a, int32_t b) {
        const T va = px[lines.at(line, a)];
        const T vb = px[lines.at(line, b)];
        const bool before = descending ? below(vb, va) : below(va, vb);
        const bool after = descending ? below(va, vb) : below(vb, va);
        return before || (!after && a < b);
      });
      for (int64_t t = 0; t < lines.n; ++t) {
        py[lines.at(line, t)] = idx[t];
      }
    }
  });
}

void forward(const KernelArgs& args) {
  auto* order = static_cast<int32_t*>(args.workspace);
  if (args.inputs[0].type->dtype == DType::I32) {
    run<int32_t>(args, order);
  } else {
    run<float>(args, order);
  }
}

size_t workspace(const Graph& g, const Node& node) { return static_cast<size_t>(node.type.numel()) * sizeof(int32_t); }

Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  const double n = static_cast<double>(std::max<int64_t>(node.type.numel(), 1));
  c.flops = n * std::max(1.0, std::log2(n));
  return c;
}

constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = -1},
                               {.name = "descending", .type = AttrType::Int, .number = 0, .min = 0, .max = 1}};

}  // namespace impl_argsort
}  // namespace

const OpDef kArgsortOp{
    .kind = OpKind::Argsort,
    .name = "argsort",
    .arity = 1,
    .infer = impl_argsort::infer,
    .forward = impl_argsort::forward,
    .backward = nullptr,
    .cost = impl_argsort::cost,
    .doc = "argsort(x f32 | i32; axis = -1, descending = 0) -> i32 of x's shape: a stable sort's indices.",
    .workspace = impl_argsort::workspace,
    .inputs = kInputX,
    .attrs = impl_argsort::kAttrs,
    .edges =
        "stable: ties keep their order (the first index first, both ways); nan sorts as the largest "
        "value, -0 and 0 as equal (NumPy, PyTorch).",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
