// cumsum: running sums along attribute axis (default -1), f32 or i32. exclusive = 1 leaves each
// element out of its own sum (the first is 0); reverse = 1 sums from the end. f32 sums accumulate
// in double, as PyTorch's CPU kernel does, then round; i32 wraps on overflow.
// Gradient: the cumsum of dy the other way round (same axis and exclusive, reverse flipped).
#include <fmt/format.h>

#include "core/ops/along_axis_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_cumsum {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("cumsum needs an f32 or i32 operand, got {}", x.str()), "cast it first"};
  }
  axis_attr(attrs, x.rank(), x);
  return x;
}

// Acc is the accumulator (double for f32, uint32 for i32: wraps as two's complement).
template <typename T, typename Acc>
void run(const KernelArgs& args) {
  const AxisLines lines =
      axis_lines(args.output.shape(), axis_attr(args.node.attrs, args.output.type->rank(), *args.output.type));
  const bool exclusive = args.node.attrs.get_int("exclusive", 0) != 0;
  const bool reverse = args.node.attrs.get_int("reverse", 0) != 0;
  const int64_t n = lines.n;
  const T* x = static_cast<const T*>(args.inputs[0].data);
  T* y = static_cast<T*>(args.output.data);
  par::for_blocks(lines.outer * lines.inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), args.output.numel(),
                  [&](int64_t l0, int64_t l1) {
                    for (int64_t line = l0; line < l1; ++line) {
                      Acc acc{0};
                      for (int64_t t = 0; t < n; ++t) {
                        const int64_t j = lines.at(line, reverse ? n - 1 - t : t);
                        const Acc v = static_cast<Acc>(x[j]);
                        if (!exclusive) {
                          acc += v;
                        }
                        y[j] = static_cast<T>(acc);
                        if (exclusive) {
                          acc += v;
                        }
                      }
                    }
                  });
}

void forward(const KernelArgs& args) {
  if (args.output.type->dtype == DType::I32) {
    run<int32_t, uint32_t>(args);
  } else {
    run<float, double>(args);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  Attrs attrs = g.node(id).attrs;
  attrs.set("reverse", int64_t{attrs.get_int("reverse", 0) != 0 ? 0 : 1});
  return {g.add(OpKind::Cumsum, {dy}, std::move(attrs))};
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = -1},
                               {.name = "exclusive", .type = AttrType::Int, .number = 0, .min = 0, .max = 1},
                               {.name = "reverse", .type = AttrType::Int, .number = 0, .min = 0, .max = 1}};

}  // namespace impl_cumsum
}  // namespace

const OpDef kCumsumOp{
    .kind = OpKind::Cumsum,
    .name = "cumsum",
    .arity = 1,
    .infer = impl_cumsum::infer,
    .forward = impl_cumsum::forward,
    .backward = impl_cumsum::backward,
    .cost = impl_cumsum::cost,
    .doc = "cumsum(x f32 | i32; axis = -1, exclusive = 0, reverse = 0): running sums along axis.",
    .inputs = kInputX,
    .attrs = impl_cumsum::kAttrs,
    .edges =
        "f32: summed in double then rounded (PyTorch's CPU kernel), so nan and inf carry on to every later "
        "element and inf + -inf gives nan; i32 wraps on overflow.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
