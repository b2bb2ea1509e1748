// candidate_sampler: draws `num_sampled` classes of [0, range_max) from the log-uniform (Zipfian)
// distribution P(k) = log((k + 2) / (k + 1)) / log(range_max + 1) that the seed's sampled losses
// use by default, distinct ones when `unique` = 1, and gives what the losses subtract: the log of
// each class's expected count in the draw (num_sampled P(k), or 1 - (1 - P(k))^tries when the draw
// was repeated `tries` times to find distinct classes), computed in double.
// Operand: the true classes labels i32[b, t], whose expected counts follow the sampled ones.
// Result f32[num_sampled + b t, 2]: rows of (class, log expected count), the sampled classes first,
// then every true class in order. One draw per micro-batch, keyed by the seed, the node's `name`
// (its scope path), and the global micro-batch index, as dropout's masks are: never by threads or
// devices. No gradient.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/ops/op_util.hpp"
#include "core/rng.hpp"

namespace iputrain::ir {

namespace {
namespace impl_candidate_sampler {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& labels = *in[0];
  if (labels.dtype != DType::I32 || labels.rank() != 2) {
    throw OpError{fmt::format("candidate_sampler: labels must be i32[b, t], got {}", labels.str()),
                  "one row of true classes per sample"};
  }
  const int64_t n = attrs.get_int("num_sampled");
  const int64_t range = attrs.get_int("range_max");
  if (attrs.get_int("unique", 1) != 0 && n > range) {
    throw OpError{fmt::format("cannot draw {} distinct classes of {}", n, range), "sample fewer or allow repeats",
                  "num_sampled"};
  }
  return {DType::F32, {n + labels.numel(), 2}};
}

// P(k) of the log-uniform distribution over [0, range).
double probability(int64_t k, int64_t range) {
  return (std::log(static_cast<double>(k) + 2.0) - std::log(static_cast<double>(k) + 1.0)) /
         std::log(static_cast<double>(range) + 1.0);
}

void forward(const KernelArgs& args) {
  const Attrs& attrs = args.node.attrs;
  const int64_t n = attrs.get_int("num_sampled");
  const int64_t range = attrs.get_int("range_max");
  const bool unique = attrs.get_int("unique", 1) != 0;
  const ExecContext ctx = args.ctx != nullptr ? *args.ctx : ExecContext{};
  const std::string& path = attrs.has("name") ? attrs.get_str("name") : args.node.name;
  Rng rng(ctx.seed, path, static_cast<uint64_t>(ctx.step));
  auto* seen = static_cast<uint8_t*>(args.workspace);
  if (unique) {
    std::memset(seen, 0, static_cast<size_t>(range));
  }
  float* out = args.output.f32();
  const double log_range = std::log(static_cast<double>(range) + 1.0);
  int64_t tries = 0;
  for (int64_t drawn = 0; drawn < n;) {
    // Inverse transform: k = floor(exp(u log(range + 1))) - 1 has the log-uniform distribution.
    const double u = rng.uniform();
    const auto k = std::min<int64_t>(range - 1, static_cast<int64_t>(std::exp(u * log_range)) - 1);
    ++tries;
    if (unique && seen[k] != 0) {
      continue;
    }
    if (unique) {
      seen[k] = 1;
    }
    out[2 * drawn] = static_cast<float>(k);
    ++drawn;
  }
  const auto log_count = [&](int64_t k) {
    const double p = probability(k, range);
    return unique ? std::log(-std::expm1(static_cast<double>(tries) * std::log1p(-p)))
                  : std::log(static_cast<double>(n) * p);
  };
  for (int64_t i = 0; i < n; ++i) {
    out[2 * i + 1] = static_cast<float>(log_count(static_cast<int64_t>(out[2 * i])));
  }
  const Tensor& labels = args.inputs[0];
  for (int64_t j = 0; j < labels.numel(); ++j) {
    const int32_t k = labels.i32()[j];
    if (k < 0 || k >= range) {
      throw Error(ErrorKind::Data, fmt::format("candidate_sampler: true class {} is outside [0, {})", k, range),
                  args.node.span, "labels are class indices below num_classes");
    }
    out[2 * (n + j)] = static_cast<float>(k);
    out[2 * (n + j) + 1] = static_cast<float>(log_count(k));
  }
}

size_t workspace(const Graph& /*g*/, const Node& node) {
  return static_cast<size_t>(std::max<int64_t>(1, node.attrs.get_int("range_max")));
}

Cost cost(const Graph& /*g*/, const Node& node) {
  return {static_cast<double>(node.type.numel()) * 20, 0, static_cast<double>(node.type.bytes())};
}

constexpr AttrSpec kAttrs[] = {
    {.name = "num_sampled", .type = AttrType::Int, .required = true, .min = 1},
    // Classes are written as f32, exact up to 2^24.
    {.name = "range_max", .type = AttrType::Int, .required = true, .min = 1, .max = 16777216},
    {.name = "unique", .type = AttrType::Int, .number = 1, .min = 0, .max = 1},
    {.name = "name", .type = AttrType::String}};

}  // namespace impl_candidate_sampler
}  // namespace

constexpr std::string_view kCandidateSamplerInputs[] = {"labels"};

const OpDef kCandidateSamplerOp{
    .kind = OpKind::CandidateSampler,
    .name = "candidate_sampler",
    .arity = 1,
    .infer = impl_candidate_sampler::infer,
    .forward = impl_candidate_sampler::forward,
    .backward = nullptr,
    .cost = impl_candidate_sampler::cost,
    .doc =
        "candidate_sampler(labels i32[b, t]; num_sampled, range_max, unique = 1, name): num_sampled log-uniform "
        "classes of [0, range_max) (distinct when unique), then the true classes, each row (class, log expected "
        "count): f32[num_sampled + b t, 2].",
    .workspace = impl_candidate_sampler::workspace,
    .inputs = kCandidateSamplerInputs,
    .attrs = impl_candidate_sampler::kAttrs,
    .edges = "no floating-point operand; a true class outside [0, range_max) stops the run with an error naming it.",
};

}  // namespace iputrain::ir
