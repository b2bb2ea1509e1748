// histogram: counts of x's values in the bins `levels` bound (the seed's statistics_ops.histogram):
// n ascending levels give n + 1 bins, bin 0 below levels[0], bin i in [levels[i-1], levels[i]), bin n
// at levels[n-1] and above (NumPy's digitize; a NaN lands in the last bin, as there). absolute = 1
// bins |x|. x and levels are f32 vectors; the counts are f32[n + 1]. Levels that are not ascending
// stop the run with an error. No gradient.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/ops/op_util.hpp"
#include "iputrain/error.hpp"

namespace iputrain::ir {

namespace {
namespace impl_histogram {

TensorType infer(std::span<const TensorType* const> in, const Attrs& /*attrs*/) {
  const TensorType& x = *in[0];
  const TensorType& levels = *in[1];
  if (x.dtype != DType::F32 || x.rank() != 1 || levels.dtype != DType::F32 || levels.rank() != 1 ||
      levels.shape[0] == 0) {
    throw OpError{fmt::format("histogram needs f32 vectors of values and of at least one level, got {} and {}", x.str(),
                              levels.str()),
                  "flatten the values first: reshape(x, [-1])"};
  }
  return {DType::F32, {levels.shape[0] + 1}};
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const float* levels = args.inputs[1].f32();
  const int64_t n = args.inputs[1].numel();
  for (int64_t i = 1; i < n; ++i) {
    if (!(levels[i - 1] <= levels[i])) {
      throw Error(
          ErrorKind::Data,
          fmt::format("histogram: levels[{}] = {} is below levels[{}] = {}", i, levels[i], i - 1, levels[i - 1]),
          args.node.span, "the levels must ascend (fixed_width_bins gives such levels)");
    }
  }
  const bool absolute = args.node.attrs.get_int("absolute", 0) != 0;
  float* counts = args.output.f32();
  std::fill(counts, counts + n + 1, 0.0F);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = absolute ? std::fabs(x.f32()[i]) : x.f32()[i];
    const int64_t bin = std::isnan(v) ? n : std::upper_bound(levels, levels + n, v) - levels;
    counts[bin] += 1.0F;
  }
}

Cost cost(const Graph& g, const Node& node) {
  const double n = static_cast<double>(g.type(node.inputs[0]).numel());
  return {n * std::log2(static_cast<double>(node.type.numel()) + 1.0),
          static_cast<double>(g.type(node.inputs[0]).bytes()), static_cast<double>(node.type.bytes())};
}

constexpr AttrSpec kAttrs[] = {{.name = "absolute", .type = AttrType::Int, .number = 0, .min = 0, .max = 1}};

}  // namespace impl_histogram
}  // namespace

constexpr std::string_view kHistogramInputs[] = {"x", "levels"};

const OpDef kHistogramOp{
    .kind = OpKind::Histogram,
    .name = "histogram",
    .arity = 2,
    .infer = impl_histogram::infer,
    .forward = impl_histogram::forward,
    .backward = nullptr,
    .cost = impl_histogram::cost,
    .doc =
        "histogram(x f32[m], levels f32[n]; absolute = 0): counts f32[n + 1] of x in the bins the ascending "
        "levels bound (below the first, [levels[i-1], levels[i]), the last and above); absolute bins |x|.",
    .inputs = kHistogramInputs,
    .attrs = impl_histogram::kAttrs,
    .edges =
        "NumPy's digitize: a value equal to a level goes to the bin above it, NaN to the last bin, -inf to "
        "the first and +inf to the last; -0 equals 0.",
};

}  // namespace iputrain::ir
