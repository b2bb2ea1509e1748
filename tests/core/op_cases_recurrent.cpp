// Op cases for the fused recurrent ops lstm and gru: double-precision references of the
// recurrences written step by step from the equations (Keras' gate orders), lengths that stop
// samples early (0 included), and the shape and length errors. The harness checks every gradient
// (through lstm_grad and gru_grad) against finite differences of sum(out * dy), the gates' slots
// included.
#include <cmath>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

struct Dims {
  int64_t b, t, u;
};

Dims dims_of(const std::vector<TensorType>& types) { return {types[0].shape[0], types[0].shape[1], types[1].shape[0]}; }

// out[n, s, :] = i, f, g, o, c, h; past the length: zero gates, c and h carried.
Values ref_lstm(const std::vector<Values>& in, const std::vector<TensorType>& types, const TensorType&, const Attrs&) {
  const auto [b, t, u] = dims_of(types);
  const Values &xw = in[0], &k = in[1], &h0 = in[2], &c0 = in[3], &len = in[4];
  Values out(static_cast<size_t>(b * t * 6 * u), 0.0);
  for (int64_t n = 0; n < b; ++n) {
    Values h(h0.begin() + n * u, h0.begin() + (n + 1) * u), c(c0.begin() + n * u, c0.begin() + (n + 1) * u);
    for (int64_t s = 0; s < t; ++s) {
      double* o = out.data() + (n * t + s) * 6 * u;
      if (s < static_cast<int64_t>(len[static_cast<size_t>(n)])) {
        Values pre(static_cast<size_t>(4 * u));
        for (int64_t j = 0; j < 4 * u; ++j) {
          double acc = xw[static_cast<size_t>((n * t + s) * 4 * u + j)];
          for (int64_t q = 0; q < u; ++q) {
            acc += h[static_cast<size_t>(q)] * k[static_cast<size_t>(q * 4 * u + j)];
          }
          pre[static_cast<size_t>(j)] = acc;
        }
        for (int64_t j = 0; j < u; ++j) {
          const auto at = [&](int64_t gate) { return pre[static_cast<size_t>(gate * u + j)]; };
          const double i = sig(at(0)), f = sig(at(1)), g = std::tanh(at(2)), og = sig(at(3));
          c[static_cast<size_t>(j)] = f * c[static_cast<size_t>(j)] + i * g;
          h[static_cast<size_t>(j)] = og * std::tanh(c[static_cast<size_t>(j)]);
          o[j] = i, o[u + j] = f, o[2 * u + j] = g, o[3 * u + j] = og;
        }
      }
      for (int64_t j = 0; j < u; ++j) {
        o[4 * u + j] = c[static_cast<size_t>(j)];
        o[5 * u + j] = h[static_cast<size_t>(j)];
      }
    }
  }
  return out;
}

// out[n, s, :] = z, r, hh, n, h.
Values ref_gru(const std::vector<Values>& in, const std::vector<TensorType>& types, const TensorType&,
               const Attrs& attrs) {
  const auto [b, t, u] = dims_of(types);
  const bool reset_after = attrs.get_int("reset_after", 1) != 0;
  const Values &xw = in[0], &k = in[1], &rb = in[2], &h0 = in[3], &len = in[4];
  auto kernel = [&](int64_t q, int64_t j) { return k[static_cast<size_t>(q * 3 * u + j)]; };
  Values out(static_cast<size_t>(b * t * 5 * u), 0.0);
  for (int64_t n = 0; n < b; ++n) {
    Values h(h0.begin() + n * u, h0.begin() + (n + 1) * u);
    for (int64_t s = 0; s < t; ++s) {
      double* o = out.data() + (n * t + s) * 5 * u;
      const double* x = xw.data() + (n * t + s) * 3 * u;
      if (s < static_cast<int64_t>(len[static_cast<size_t>(n)])) {
        Values p(static_cast<size_t>(3 * u));
        for (int64_t j = 0; j < 3 * u; ++j) {
          p[static_cast<size_t>(j)] = rb[static_cast<size_t>(j)];
          for (int64_t q = 0; q < u; ++q) {
            p[static_cast<size_t>(j)] += h[static_cast<size_t>(q)] * kernel(q, j);
          }
        }
        Values z(static_cast<size_t>(u)), r(static_cast<size_t>(u)), nn(static_cast<size_t>(u));
        for (int64_t j = 0; j < u; ++j) {
          z[static_cast<size_t>(j)] = sig(x[j] + p[static_cast<size_t>(j)]);
          r[static_cast<size_t>(j)] = sig(x[u + j] + p[static_cast<size_t>(u + j)]);
        }
        for (int64_t j = 0; j < u; ++j) {
          double v = rb[static_cast<size_t>(2 * u + j)];
          for (int64_t q = 0; q < u && !reset_after; ++q) {
            v += r[static_cast<size_t>(q)] * h[static_cast<size_t>(q)] * kernel(q, 2 * u + j);
          }
          nn[static_cast<size_t>(j)] = reset_after ? p[static_cast<size_t>(2 * u + j)] : v;
        }
        for (int64_t j = 0; j < u; ++j) {
          const auto sj = static_cast<size_t>(j);
          const double hh = std::tanh(x[2 * u + j] + (reset_after ? r[sj] : 1.0) * nn[sj]);
          h[sj] = z[sj] * h[sj] + (1.0 - z[sj]) * hh;
          o[j] = z[sj], o[u + j] = r[sj], o[2 * u + j] = hh, o[3 * u + j] = nn[sj];
        }
      }
      for (int64_t j = 0; j < u; ++j) {
        o[4 * u + j] = h[static_cast<size_t>(j)];
      }
    }
  }
  return out;
}

}  // namespace

void add_recurrent_cases(std::vector<OpCase>& cases) {
  for (const auto& [name, b, t, u, lengths] : std::vector<std::tuple<std::string, int64_t, int64_t, int64_t, Values>>{
           {"full lengths", 2, 4, 3, {4, 4}}, {"lengths 3, 1, 0", 3, 3, 2, {3, 1, 0}}}) {
    cases.push_back({.name = "lstm " + name,
                     .op = OpKind::Lstm,
                     .inputs = {f32({b, t, 4 * u}), f32({u, 4 * u}), f32({b, u}), f32({b, u}), i32({b})},
                     .values = {{}, {}, {}, {}, lengths},
                     .reference = ref_lstm,
                     .lo = -1.5,
                     .hi = 1.5});
    for (int64_t reset_after : {1, 0}) {
      cases.push_back({.name = "gru reset_after " + std::to_string(reset_after) + " " + name,
                       .op = OpKind::Gru,
                       .inputs = {f32({b, t, 3 * u}), f32({u, 3 * u}), f32({3 * u}), f32({b, u}), i32({b})},
                       .attrs = {{"reset_after", reset_after}},
                       .values = {{}, {}, {}, {}, lengths},
                       .reference = ref_gru,
                       .lo = -1.5,
                       .hi = 1.5});
    }
  }
  cases.push_back({.name = "lstm length past the steps",
                   .op = OpKind::Lstm,
                   .inputs = {f32({1, 3, 4}), f32({1, 4}), f32({1, 1}), f32({1, 1}), i32({1})},
                   .values = {{}, {}, {}, {}, {4}},
                   .run_error = "lengths[0] = 4 is outside [0, 3]"});
  cases.push_back({.name = "gru negative length",
                   .op = OpKind::Gru,
                   .inputs = {f32({1, 2, 3}), f32({1, 3}), f32({3}), f32({1, 1}), i32({1})},
                   .values = {{}, {}, {}, {}, {-1}},
                   .run_error = "lengths[0] = -1 is outside [0, 2]"});
  cases.push_back({.name = "lstm xw not 4 * units",
                   .op = OpKind::Lstm,
                   .inputs = {f32({2, 3, 6}), f32({2, 8}), f32({2, 2}), f32({2, 2}), i32({2})},
                   .infer_error = "does not fit 2 units"});
  cases.push_back({.name = "lstm recurrent kernel not [u, 4u]",
                   .op = OpKind::Lstm,
                   .inputs = {f32({2, 3, 8}), f32({2, 6}), f32({2, 2}), f32({2, 2}), i32({2})},
                   .infer_error = "recurrent_kernel must be f32[units, 4 * units]"});
  cases.push_back({.name = "lstm state of the wrong batch",
                   .op = OpKind::Lstm,
                   .inputs = {f32({2, 3, 8}), f32({2, 8}), f32({3, 2}), f32({2, 2}), i32({2})},
                   .infer_error = "h0 must be f32[2, 2]"});
  cases.push_back({.name = "gru f32 lengths",
                   .op = OpKind::Gru,
                   .inputs = {f32({2, 3, 6}), f32({2, 6}), f32({6}), f32({2, 2}), f32({2})},
                   .infer_error = "lengths must be i32[2]"});
  cases.push_back({.name = "gru no steps",
                   .op = OpKind::Gru,
                   .inputs = {f32({2, 0, 6}), f32({2, 6}), f32({6}), f32({2, 2}), i32({2})},
                   .infer_error = "at least one step"});
  // The gradient ops directly (the cases above check them through finite differences): one LSTM
  // step of one unit written out, and steps past the length passing dh (and dc) through.
  const double tc = std::tanh(0.8), dc = 0.75 * (1.0 - tc * tc);
  const Values dpre = {dc * 0.5 * 0.25, dc * 0.4 * 0.25 * 0.75, dc * 0.5 * 0.75, tc * 0.75 * 0.25};
  cases.push_back({.name = "lstm_grad one step",
                   .op = OpKind::LstmGrad,
                   .inputs = {f32({1, 1, 6}), f32({1, 1, 6}), f32({1, 4}), f32({1, 1}), i32({1})},
                   .values = {{0, 0, 0, 0, 0, 1}, {0.5, 0.25, 0.5, 0.75, 0.8, 0.3}, {1, 2, 3, 4}, {0.4}, {1}},
                   .expected = {dpre[0], dpre[1], dpre[2], dpre[3], dpre[0] + 2 * dpre[1] + 3 * dpre[2] + 4 * dpre[3],
                                dc * 0.25, 0, 0}});
  cases.push_back({.name = "lstm_grad past the length",
                   .op = OpKind::LstmGrad,
                   .inputs = {f32({1, 2, 6}), f32({1, 2, 6}), f32({1, 4}), f32({1, 1}), i32({1})},
                   .values = {{1, 1, 1, 1, 2, 3, 1, 1, 1, 1, 4, 5}, {}, {}, {}, {0}},
                   .expected = {0, 0, 0, 0, 0, 0, 0, 0, 8, 6, 0, 0}});
  cases.push_back({.name = "gru_grad past the length",
                   .op = OpKind::GruGrad,
                   .inputs = {f32({1, 2, 5}), f32({1, 2, 5}), f32({1, 3}), f32({1, 1}), i32({1})},
                   .values = {{1, 1, 1, 1, 2, 1, 1, 1, 1, 5}, {}, {}, {}, {0}},
                   .expected = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0}});
  cases.push_back({.name = "lstm_grad dy of another shape",
                   .op = OpKind::LstmGrad,
                   .inputs = {f32({1, 2, 6}), f32({1, 1, 6}), f32({1, 4}), f32({1, 1}), i32({1})},
                   .infer_error = "dy must be f32[1, 1, 6]"});
  cases.push_back({.name = "gru_grad lengths of another batch",
                   .op = OpKind::GruGrad,
                   .inputs = {f32({1, 2, 5}), f32({1, 2, 5}), f32({1, 3}), f32({1, 1}), i32({2})},
                   .infer_error = "lengths must be i32[1]"});
  const TensorType half{DType::F16, {1, 2, 4}};
  cases.push_back({.name = "lstm f16",
                   .op = OpKind::Lstm,
                   .inputs = {half, f32({1, 4}), f32({1, 1}), f32({1, 1}), i32({1})},
                   .infer_error = "xw must be f32"});
}

}  // namespace iputrain::test
