// Op cases for candidate_sampler, the draw of the sampled losses: the reference draws from the same
// Philox stream (seed, name, step) by the definition's inverse transform, with and without
// repeats, and computes each class's expected count in double; then the errors. And histogram, the
// seed's statistics op, at its edges.
#include <cmath>
#include <set>

#include "core/rng.hpp"
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

RefFn ref_sampler(int64_t n, int64_t range, bool unique, const std::string& name, const ir::ExecContext& ctx) {
  return [=](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
    Rng rng(ctx.seed, name, static_cast<uint64_t>(ctx.step));
    std::vector<int64_t> drawn;
    std::set<int64_t> seen;
    int64_t tries = 0;
    while (static_cast<int64_t>(drawn.size()) < n) {
      const double u = rng.uniform();
      const int64_t k = std::min<int64_t>(range - 1, static_cast<int64_t>(std::exp(u * std::log(range + 1.0))) - 1);
      ++tries;
      if (!unique || seen.insert(k).second) {
        drawn.push_back(k);
      }
    }
    const auto log_count = [&](double k) {
      const double p = std::log((k + 2) / (k + 1)) / std::log(range + 1.0);
      return unique ? std::log(1 - std::pow(1 - p, static_cast<double>(tries))) : std::log(static_cast<double>(n) * p);
    };
    Values out;
    for (int64_t k : drawn) {
      out.push_back(static_cast<double>(k));
      out.push_back(log_count(static_cast<double>(k)));
    }
    for (double k : in[0]) {
      out.push_back(k);
      out.push_back(log_count(k));
    }
    return out;
  };
}

}  // namespace

void add_sampling_cases(std::vector<OpCase>& cases) {
  const ir::ExecContext ctx{.seed = 5, .step = 11, .sample_offset = 0, .training = true};
  for (const bool unique : {true, false}) {
    cases.push_back({.name = fmt::format("candidate_sampler unique {}", unique),
                     .op = OpKind::CandidateSampler,
                     .inputs = {i32({3, 2})},
                     .attrs = {{"num_sampled", int64_t{6}},
                               {"range_max", int64_t{20}},
                               {"unique", int64_t{unique}},
                               {"name", std::string("lm/sampler")}},
                     .values = {{0, 19, 3, 3, 7, 1}},
                     .reference = ref_sampler(6, 20, unique, "lm/sampler", ctx),
                     .rtol = 1e-6,
                     .ctx = ctx});
  }
  cases.push_back({.name = "candidate_sampler more distinct classes than there are",
                   .op = OpKind::CandidateSampler,
                   .inputs = {i32({2, 1})},
                   .attrs = {{"num_sampled", int64_t{5}}, {"range_max", int64_t{4}}},
                   .infer_error = "cannot draw 5 distinct classes of 4"});
  cases.push_back({.name = "histogram at its edges",
                   .op = OpKind::Histogram,
                   .inputs = {f32({9}), f32({3})},
                   .values = {{-5, -1, 0, -0.0, 0.5, 1, 7, kInf, kNan}, {-1, 0, 1}},
                   // [< -1], [-1, 0), [0, 1), [>= 1]: -5 | -1 | 0, -0, 0.5 | 1, 7, inf, nan
                   .expected = {1, 1, 3, 4}});
  cases.push_back({.name = "histogram of magnitudes",
                   .op = OpKind::Histogram,
                   .inputs = {f32({4}), f32({2})},
                   .attrs = {{"absolute", int64_t{1}}},
                   .values = {{-3, 0.5, -0.25, 2}, {1, 2.5}},
                   .expected = {2, 1, 1}});
  cases.push_back({.name = "histogram levels that fall",
                   .op = OpKind::Histogram,
                   .inputs = {f32({2}), f32({2})},
                   .values = {{0, 1}, {2, 1}},
                   .run_error = "levels[1] = 1 is below levels[0] = 2"});
  cases.push_back({.name = "histogram of a matrix",
                   .op = OpKind::Histogram,
                   .inputs = {f32({2, 2}), f32({2})},
                   .infer_error = "f32 vectors"});
  cases.push_back({.name = "candidate_sampler a true class out of range",
                   .op = OpKind::CandidateSampler,
                   .inputs = {i32({2, 1})},
                   .attrs = {{"num_sampled", int64_t{2}}, {"range_max", int64_t{4}}},
                   .values = {{1, 4}},
                   .run_error = "true class 4 is outside [0, 4)",
                   .ctx = ctx});
}

}  // namespace iputrain::test
