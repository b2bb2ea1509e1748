// Op cases for loops that do not unroll: loop (a body graph run per iteration, with its gradient,
// loop_grad, checked against finite differences), loop_part, and index_at with its gradient (the
// language's x[:, t] at a counter), against references written from the definitions.
#include <cmath>

#include "core/ops/loop_util.hpp"
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

constexpr int64_t kB = 2;  // rows of the carried state
constexpr int64_t kN = 3;  // its width
constexpr int64_t kT = 4;  // the counter's range 1..5
constexpr int64_t kBegin = 1;

// h' = tanh(x[:, t] + h @ w); collects 2 h'; x f32[b, T + 1, n] read at the counter t = 1..4.
std::shared_ptr<const ir::Graph> rnn_body() {
  auto body = std::make_shared<ir::Graph>();
  const TensorType state{DType::F32, {kB, kN}};
  const ir::ValueId h = body->add_loop_arg(0, state);
  const ir::ValueId t = body->add_loop_arg(1, TensorType{DType::I32, {}});
  const ir::ValueId w = body->add_loop_arg(2, TensorType{DType::F32, {kN, kN}});
  const ir::ValueId x = body->add_loop_arg(3, TensorType{DType::F32, {kB, kT + 1, kN}});
  const ir::ValueId xt = body->add(ir::OpKind::IndexAt, {x, t}, ir::Attrs{{"axis", 1}});
  const ir::ValueId hw = body->add(ir::OpKind::MatMul, {h, w});
  const ir::ValueId next = body->add(ir::OpKind::Tanh, {body->add(ir::OpKind::Add, {xt, hw})});
  const ir::ValueId two = body->add_constant(2.0, TensorType{DType::F32, {}});
  body->outputs = {{"next", next, {}}, {"result", body->add(ir::OpKind::Mul, {next, two}), {}}};
  return body;
}

// One carried state, one collected value, two captured operands, the counter over kBegin..kBegin + kT.
ir::LoopShape rnn_shape() {
  ir::LoopShape s;
  s.carried = 1;
  s.collected = 1;
  s.captured = 2;
  s.begin = kBegin;
  s.trips = kT;
  return s;
}

ir::Attrs loop_attrs(const ir::Graph& body) {
  const ir::LoopShape s = rnn_shape();
  return ir::Attrs{{"begin", kBegin},        {"end", kBegin + kT},
                   {"carried", int64_t{1}},  {"collected", int64_t{1}},
                   {"captured", int64_t{2}}, {"elements", ir::loop_packing(body, s).elements}};
}

// The packed result in double: final h, the collected stack, the history, the count (as its bits).
Values ref_loop(const std::vector<Values>& in, const ir::Graph& body) {
  Values h = in[0];
  const Values& w = in[1];
  const Values& x = in[2];
  Values finals;
  Values collected;
  Values history;
  for (int64_t t = 0; t < kT; ++t) {
    history.insert(history.end(), h.begin(), h.end());
    Values next(h.size());
    for (int64_t r = 0; r < kB; ++r) {
      for (int64_t j = 0; j < kN; ++j) {
        double z = x[static_cast<size_t>((r * (kT + 1) + kBegin + t) * kN + j)];
        for (int64_t k = 0; k < kN; ++k) {
          z += h[static_cast<size_t>(r * kN + k)] * w[static_cast<size_t>(k * kN + j)];
        }
        next[static_cast<size_t>(r * kN + j)] = std::tanh(z);
      }
    }
    h = next;
    for (double v : h) {
      collected.push_back(2 * v);
    }
  }
  const ir::Packing p = ir::loop_packing(body, rnn_shape());
  Values out(static_cast<size_t>(p.elements), 0.0);
  auto put = [&](size_t part, const Values& v) { std::copy(v.begin(), v.end(), out.begin() + p.parts[part].offset); };
  put(0, h);
  put(1, collected);
  put(2, history);
  float count = 0;
  const int32_t n = kT;
  std::memcpy(&count, &n, sizeof n);
  out[static_cast<size_t>(p.parts[3].offset)] = count;
  return out;
}

}  // namespace

void add_loop_cases(std::vector<OpCase>& cases) {
  const auto body = rnn_body();
  const TensorType state{DType::F32, {kB, kN}};
  const TensorType w{DType::F32, {kN, kN}};
  const TensorType x{DType::F32, {kB, kT + 1, kN}};
  cases.push_back({.name = "loop: a tanh recurrence over 4 iterations, read at the counter (1..4)",
                   .op = OpKind::Loop,
                   .inputs = {state, w, x},
                   .attrs = loop_attrs(*body),
                   .reference = [body](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                       const ir::Attrs&) { return ref_loop(in, *body); },
                   .lo = -0.8,
                   .hi = 0.8,
                   .rtol = 1e-5,
                   .atol = 1e-5,
                   .body = body});
  cases.push_back({.name = "loop: its operands must be the carried, captured ones",
                   .op = OpKind::Loop,
                   .inputs = {state, w},
                   .attrs = loop_attrs(*body),
                   .infer_error = "takes 3 operands",
                   .body = body});
  cases.push_back({.name = "loop_part: an f32 [2, 3] at element 16 of a packed vector",
                   .op = OpKind::LoopPart,
                   .inputs = {TensorType{DType::F32, {32}}},
                   .attrs = ir::Attrs{{"offset", int64_t{16}}, {"dtype", std::string("f32")}, {"shape", Shape{2, 3}}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const ir::Attrs&) { return Values(in[0].begin() + 16, in[0].begin() + 22); }});
  cases.push_back({.name = "loop_part: a part past the end",
                   .op = OpKind::LoopPart,
                   .inputs = {TensorType{DType::F32, {8}}},
                   .attrs = ir::Attrs{{"offset", int64_t{4}}, {"dtype", std::string("f32")}, {"shape", Shape{2, 3}}},
                   .infer_error = "does not fit"});
  // index_at: x[3, 4] at row 2 of axis 0, then at a column clamped from 7 to 3 of axis 1.
  cases.push_back({.name = "index_at: a row of axis 0 at a run-time index",
                   .op = OpKind::IndexAt,
                   .inputs = {TensorType{DType::F32, {3, 4}}, TensorType{DType::I32, {}}},
                   .attrs = ir::Attrs{{"axis", int64_t{0}}},
                   .values = {{}, {2}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const ir::Attrs&) { return Values(in[0].begin() + 8, in[0].begin() + 12); }});
  cases.push_back({.name = "index_at: an index past the end is clamped to the last",
                   .op = OpKind::IndexAt,
                   .inputs = {TensorType{DType::F32, {3, 4}}, TensorType{DType::I32, {}}},
                   .attrs = ir::Attrs{{"axis", int64_t{1}}},
                   .values = {{}, {7}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const ir::Attrs&) {
                     return Values{in[0][3], in[0][7], in[0][11]};
                   }});
  cases.push_back({.name = "index_at: the index must be one i32",
                   .op = OpKind::IndexAt,
                   .inputs = {TensorType{DType::F32, {3, 4}}, TensorType{DType::I32, {2}}},
                   .attrs = ir::Attrs{{"axis", int64_t{0}}},
                   .infer_error = "must be one i32"});
  cases.push_back({.name = "index_at_grad: dy at a row of zeros",
                   .op = OpKind::IndexAtGrad,
                   .inputs = {TensorType{DType::F32, {3}}, TensorType{DType::I32, {}}},
                   .attrs = ir::Attrs{{"axis", int64_t{1}}, {"shape", Shape{3, 2}}},
                   .values = {{}, {-4}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const ir::Attrs&) { return Values{in[0][0], 0, in[0][1], 0, in[0][2], 0}; }});
  cases.push_back({.name = "index_at_grad: dy must drop the axis",
                   .op = OpKind::IndexAtGrad,
                   .inputs = {TensorType{DType::F32, {2}}, TensorType{DType::I32, {}}},
                   .attrs = ir::Attrs{{"axis", int64_t{1}}, {"shape", Shape{3, 2}}},
                   .infer_error = "index_at of"});
}

}  // namespace iputrain::test
