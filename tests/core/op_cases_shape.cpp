// Cases for transpose, concat, slice (and slice_grad), gather (and gather_grad), one_hot and the
// softmax family.
#include <cmath>
#include <limits>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

Values ref_transpose(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                     const Attrs& attrs) {
  const Shape& s = t[0].shape;
  Shape perm = attrs.get_ints("perm");
  if (perm.empty()) {
    for (size_t d = s.size(); d-- > 0;) {
      perm.push_back(static_cast<int64_t>(d));
    }
  }
  Values r(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const Shape oi = unflatten(i, out.shape);
    Shape xi(s.size());
    for (size_t d = 0; d < s.size(); ++d) {
      xi[static_cast<size_t>(perm[d])] = oi[d];
    }
    r[static_cast<size_t>(i)] = in[0][static_cast<size_t>(broadcast_index(xi, s))];
  }
  return r;
}

Values ref_concat(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                  const Attrs& attrs) {
  int64_t axis = attrs.get_int("axis", 0);
  if (axis < 0) {
    axis += out.rank();
  }
  Values r(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape oi = unflatten(i, out.shape);
    size_t k = 0;
    while (oi[static_cast<size_t>(axis)] >= t[k].shape[static_cast<size_t>(axis)]) {
      oi[static_cast<size_t>(axis)] -= t[k].shape[static_cast<size_t>(axis)];
      ++k;
    }
    r[static_cast<size_t>(i)] = in[k][static_cast<size_t>(broadcast_index(oi, t[k].shape))];
  }
  return r;
}

// Python slicing per dimension: start, step, and the output index -> input index map.
Values ref_slice(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                 const Attrs& attrs) {
  const Shape& s = t[0].shape;
  const Shape b = attrs.get_ints("begin");
  const Shape st = attrs.get_ints("strides");
  Values r(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const Shape oi = unflatten(i, out.shape);
    Shape xi(s.size());
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t start = d < b.size() ? b[d] : 0;
      if (start < 0) {
        start += s[d];
      }
      start = std::clamp<int64_t>(start, 0, s[d]);
      xi[d] = start + oi[d] * (d < st.size() ? st[d] : 1);
    }
    r[static_cast<size_t>(i)] = in[0][static_cast<size_t>(broadcast_index(xi, s))];
  }
  return r;
}

Values ref_gather(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                  const Attrs& attrs) {
  const Shape& ps = t[0].shape;
  const Shape& is = t[1].shape;
  int64_t axis = attrs.get_int("axis", 0);
  if (axis < 0) {
    axis += static_cast<int64_t>(ps.size());
  }
  const auto a = static_cast<size_t>(axis);
  Values r(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const Shape oi = unflatten(i, out.shape);
    Shape ii(oi.begin() + axis, oi.begin() + axis + static_cast<int64_t>(is.size()));
    Shape pi(oi.begin(), oi.begin() + axis);
    pi.push_back(static_cast<int64_t>(in[1][static_cast<size_t>(broadcast_index(ii, is))]));
    pi.insert(pi.end(), oi.begin() + axis + static_cast<int64_t>(is.size()), oi.end());
    (void)a;
    r[static_cast<size_t>(i)] = in[0][static_cast<size_t>(broadcast_index(pi, ps))];
  }
  return r;
}

// Softmax along `axis` in double: visits every line of the axis.
Values ref_softmax_family(const std::vector<Values>& in, const std::vector<TensorType>& t, const Attrs& attrs,
                          int mode) {
  const Shape& s = t[0].shape;
  int64_t axis = attrs.get_int("axis", -1);
  if (axis < 0) {
    axis += static_cast<int64_t>(s.size());
  }
  const auto a = static_cast<size_t>(axis);
  int64_t inner = 1;
  for (size_t d = a + 1; d < s.size(); ++d) {
    inner *= s[d];
  }
  const int64_t n = s[a];
  const int64_t outer = t[0].numel() / (n * inner);
  Values r(in[0].size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      auto at = [&](int64_t i) { return static_cast<size_t>((o * n + i) * inner + k); };
      if (mode <= 1) {  // 0 softmax, 1 log_softmax of x
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < n; ++i) {
          m = std::max(m, in[0][at(i)]);
        }
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          sum += std::exp(in[0][at(i)] - m);
        }
        for (int64_t i = 0; i < n; ++i) {
          r[at(i)] = mode == 0 ? std::exp(in[0][at(i)] - m) / sum : in[0][at(i)] - m - std::log(sum);
        }
      } else {  // 2 softmax_grad(y, dy), 3 log_softmax_grad(y, dy)
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          sum += mode == 2 ? in[0][at(i)] * in[1][at(i)] : in[1][at(i)];
        }
        for (int64_t i = 0; i < n; ++i) {
          r[at(i)] =
              mode == 2 ? in[0][at(i)] * (in[1][at(i)] - sum) : in[1][at(i)] - std::exp(in[0][at(i)]) * sum;
        }
      }
    }
  }
  return r;
}

RefFn ref_softmax(int mode) {
  return [mode](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType&,
                const Attrs& attrs) { return ref_softmax_family(in, t, attrs, mode); };
}

}  // namespace

void add_shape_cases(std::vector<OpCase>& cases) {
  // transpose.
  for (const auto& [name, shape, perm] : std::vector<std::tuple<std::string, Shape, Shape>>{
           {"2-D default", {3, 4}, {}},
           {"rank 3 default", {2, 3, 4}, {}},
           {"heads [0, 2, 1, 3]", {2, 3, 4, 5}, {0, 2, 1, 3}},
           {"rotate [1, 2, 0]", {2, 3, 4}, {1, 2, 0}},
           {"identity", {2, 3}, {0, 1}},
           {"rank 1", {5}, {}},
       }) {
    cases.push_back({.name = "transpose " + name,
                     .op = OpKind::Transpose,
                     .inputs = {f32(shape)},
                     .attrs = perm.empty() ? Attrs{} : Attrs{{"perm", perm}},
                     .reference = ref_transpose});
  }
  cases.push_back({.name = "transpose i32",
                   .op = OpKind::Transpose,
                   .inputs = {i32({2, 3})},
                   .values = {{1, 2, 3, 4, 5, 6}},
                   .expected = {1, 4, 2, 5, 3, 6}});
  cases.push_back({.name = "transpose bad perm",
                   .op = OpKind::Transpose,
                   .inputs = {f32({2, 3, 4})},
                   .attrs = {{"perm", Shape{0, 0, 1}}},
                   .infer_error = "perm [0, 0, 1] is not a permutation of the 3 dimensions of f32[2, 3, 4]"});

  // concat.
  for (const auto& [name, shapes, axis] : std::vector<std::tuple<std::string, std::vector<Shape>, int64_t>>{
           {"axis 0", {{2, 3}, {1, 3}}, 0},
           {"axis -1 three", {{2, 1}, {2, 3}, {2, 2}}, -1},
           {"middle axis", {{2, 1, 3}, {2, 2, 3}}, 1},
           {"single", {{3, 2}}, 0},
           {"five inputs", {{1, 2}, {2, 2}, {1, 2}, {3, 2}, {1, 2}}, 0},
       }) {
    std::vector<TensorType> in;
    for (const Shape& s : shapes) {
      in.push_back(f32(s));
    }
    cases.push_back({.name = "concat " + name,
                     .op = OpKind::Concat,
                     .inputs = in,
                     .attrs = {{"axis", axis}},
                     .reference = ref_concat});
  }
  cases.push_back({.name = "concat i32",
                   .op = OpKind::Concat,
                   .inputs = {i32({2, 1}), i32({2, 2})},
                   .attrs = {{"axis", int64_t{1}}},
                   .values = {{1, 2}, {3, 4, 5, 6}},
                   .expected = {1, 3, 4, 2, 5, 6}});
  cases.push_back({.name = "concat mismatch",
                   .op = OpKind::Concat,
                   .inputs = {f32({2, 3}), f32({2, 4})},
                   .infer_error = "cannot join f32[2, 3] and f32[2, 4] along axis 0"});
  cases.push_back({.name = "concat empty",
                   .op = OpKind::Concat,
                   .inputs = {},
                   .infer_error = "needs at least one tensor"});

  // slice.
  for (const auto& [name, shape, attrs] : std::vector<std::tuple<std::string, Shape, Attrs>>{
           {"rows", {5, 3}, Attrs{{"begin", Shape{1}}, {"end", Shape{4}}}},
           {"both dims", {4, 5}, Attrs{{"begin", Shape{1, 2}}, {"end", Shape{3, 5}}}},
           {"negative", {6, 2}, Attrs{{"begin", Shape{-3, 0}}, {"end", Shape{-1, 2}}}},
           {"strided", {7, 4}, Attrs{{"begin", Shape{0, 1}}, {"end", Shape{7, 4}}, {"strides", Shape{3, 2}}}},
           {"clamped end", {3, 4}, Attrs{{"begin", Shape{1}}, {"end", Shape{1000}}}},
           {"last dim of rank 3", {2, 3, 4}, Attrs{{"begin", Shape{0, 0, 2}}, {"end", Shape{2, 3, 3}}}},
       }) {
    cases.push_back({.name = "slice " + name,
                     .op = OpKind::Slice,
                     .inputs = {f32(shape)},
                     .attrs = attrs,
                     .reference = ref_slice});
  }
  cases.push_back({.name = "slice empty window",
                   .op = OpKind::Slice,
                   .inputs = {f32({4})},
                   .attrs = {{"begin", Shape{3}}, {"end", Shape{1}}},
                   .expected = {},
                   .reference = ref_slice});
  cases.push_back({.name = "slice i32",
                   .op = OpKind::Slice,
                   .inputs = {i32({5})},
                   .attrs = {{"begin", Shape{1}}, {"end", Shape{5}}, {"strides", Shape{2}}},
                   .values = {{10, 11, 12, 13, 14}},
                   .expected = {11, 13}});
  cases.push_back({.name = "slice stride 0",
                   .op = OpKind::Slice,
                   .inputs = {f32({4})},
                   .attrs = {{"begin", Shape{0}}, {"end", Shape{4}}, {"strides", Shape{0}}},
                   .infer_error = "stride 0 in dimension 0"});
  cases.push_back({.name = "slice too many",
                   .op = OpKind::Slice,
                   .inputs = {f32({4})},
                   .attrs = {{"begin", Shape{0, 0}}},
                   .infer_error = "at most 1 entries"});
  cases.push_back(
      {.name = "slice_grad",
       .op = OpKind::SliceGrad,
       .inputs = {f32({2})},
       .attrs = {{"begin", Shape{1}}, {"end", Shape{5}}, {"strides", Shape{2}}, {"shape", Shape{5}}},
       .values = {{7, 8}},
       .expected = {0, 7, 0, 8, 0}});
  cases.push_back({.name = "slice_grad 2-D",
                   .op = OpKind::SliceGrad,
                   .inputs = {f32({2, 2})},
                   .attrs = {{"begin", Shape{1, 0}}, {"end", Shape{3, 2}}, {"shape", Shape{3, 3}}},
                   .values = {{1, 2, 3, 4}},
                   .expected = {0, 0, 0, 1, 2, 0, 3, 4, 0}});
  cases.push_back({.name = "slice_grad shape",
                   .op = OpKind::SliceGrad,
                   .inputs = {f32({3})},
                   .attrs = {{"begin", Shape{1}}, {"end", Shape{3}}, {"shape", Shape{5}}},
                   .infer_error = "dy is f32[3] but the slice of [5] is [2]"});

  // gather.
  cases.push_back({.name = "gather embedding",
                   .op = OpKind::Gather,
                   .inputs = {f32({5, 3}), i32({2, 4})},
                   .values = {{}, {0, 4, 2, 2, 1, 1, 3, 0}},
                   .reference = ref_gather});
  cases.push_back({.name = "gather axis 1",
                   .op = OpKind::Gather,
                   .inputs = {f32({2, 4, 3}), i32({3})},
                   .attrs = {{"axis", int64_t{1}}},
                   .values = {{}, {3, 0, 3}},
                   .reference = ref_gather});
  cases.push_back({.name = "gather axis -1 scalar index",
                   .op = OpKind::Gather,
                   .inputs = {f32({3, 4}), i32({})},
                   .attrs = {{"axis", int64_t{-1}}},
                   .values = {{}, {2}},
                   .reference = ref_gather});
  cases.push_back({.name = "gather i32 params",
                   .op = OpKind::Gather,
                   .inputs = {i32({3}), i32({4})},
                   .values = {{10, 20, 30}, {2, 0, 0, 1}},
                   .expected = {30, 10, 10, 20}});
  cases.push_back({.name = "gather index out of range",
                   .op = OpKind::Gather,
                   .inputs = {f32({3, 2}), i32({2})},
                   .values = {{}, {1, 3}},
                   .reference = ref_gather,
                   .run_error = "index 3 out of range [0, 3)"});
  cases.push_back({.name = "gather f32 indices",
                   .op = OpKind::Gather,
                   .inputs = {f32({3, 2}), f32({2})},
                   .infer_error = "indices must be i32, got f32[2]"});
  cases.push_back({.name = "gather_grad repeated",
                   .op = OpKind::GatherGrad,
                   .inputs = {i32({3}), f32({3, 2})},
                   .attrs = {{"axis", int64_t{0}}, {"shape", Shape{4, 2}}},
                   .values = {{1, 3, 1}, {1, 2, 3, 4, 5, 6}},
                   .expected = {0, 0, 6, 8, 0, 0, 3, 4}});
  cases.push_back({.name = "gather_grad axis 1",
                   .op = OpKind::GatherGrad,
                   .inputs = {i32({2}), f32({2, 2})},
                   .attrs = {{"axis", int64_t{1}}, {"shape", Shape{2, 3}}},
                   .values = {{2, 2}, {1, 2, 3, 4}},
                   .expected = {0, 0, 3, 0, 0, 7}});
  cases.push_back({.name = "gather_grad dy",
                   .op = OpKind::GatherGrad,
                   .inputs = {i32({3}), f32({2, 2})},
                   .attrs = {{"shape", Shape{4, 2}}},
                   .infer_error = "dy must be f32[3, 2]"});

  // one_hot.
  cases.push_back({.name = "one_hot",
                   .op = OpKind::OneHot,
                   .inputs = {i32({4})},
                   .attrs = {{"depth", int64_t{3}}},
                   .values = {{0, 2, -1, 3}},
                   .expected = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}});
  cases.push_back({.name = "one_hot on off rank 2",
                   .op = OpKind::OneHot,
                   .inputs = {i32({2, 1})},
                   .attrs = {{"depth", int64_t{2}}, {"on", 0.9}, {"off", 0.05}},
                   .values = {{1, 0}},
                   .expected = {0.05, 0.9, 0.9, 0.05},
                   .atol = 1e-7});
  cases.push_back({.name = "one_hot depth",
                   .op = OpKind::OneHot,
                   .inputs = {i32({2})},
                   .attrs = {{"depth", int64_t{0}}},
                   .infer_error = "one_hot: argument 'depth' must be at least 1, got 0"});
  cases.push_back({.name = "one_hot without depth",
                   .op = OpKind::OneHot,
                   .inputs = {i32({2})},
                   .infer_error = "one_hot: argument 'depth' is required"});

  // softmax family.
  for (const auto& [name, shape, axis] : std::vector<std::tuple<std::string, Shape, int64_t>>{
           {"rows", {3, 5}, -1},
           {"axis 0", {4, 3}, 0},
           {"middle axis", {2, 3, 4}, 1},
           {"attention", {2, 2, 3, 3}, -1},
           {"single class", {3, 1}, -1},
       }) {
    const Attrs a{{"axis", axis}};
    cases.push_back({.name = "softmax " + name,
                     .op = OpKind::Softmax,
                     .inputs = {f32(shape)},
                     .attrs = a,
                     .reference = ref_softmax(0),
                     .lo = -3,
                     .hi = 3});
    cases.push_back({.name = "log_softmax " + name,
                     .op = OpKind::LogSoftmax,
                     .inputs = {f32(shape)},
                     .attrs = a,
                     .reference = ref_softmax(1),
                     .lo = -3,
                     .hi = 3});
    cases.push_back({.name = "softmax_grad " + name,
                     .op = OpKind::SoftmaxGrad,
                     .inputs = {f32(shape), f32(shape)},
                     .attrs = a,
                     .reference = ref_softmax(2),
                     .lo = 0,
                     .hi = 1});
    cases.push_back({.name = "log_softmax_grad " + name,
                     .op = OpKind::LogSoftmaxGrad,
                     .inputs = {f32(shape), f32(shape)},
                     .attrs = a,
                     .reference = ref_softmax(3),
                     .lo = -3,
                     .hi = 0});
  }
  cases.push_back({.name = "softmax wide non-last axis",
                   .op = OpKind::Softmax,
                   .inputs = {f32({3, 300})},
                   .attrs = {{"axis", int64_t{0}}},
                   .reference = ref_softmax(0),
                   .grad = false});
  cases.push_back({.name = "log_softmax large logits",
                   .op = OpKind::LogSoftmax,
                   .inputs = {f32({2, 3})},
                   .values = {{1000, 0, -1000, -5000, 5000, 4999}},
                   .expected = {0, -1000, -2000, -10000 - std::log(1 + std::exp(-1.0)),
                                -std::log(1 + std::exp(-1.0)), -1 - std::log(1 + std::exp(-1.0))},
                   .grad = false,
                   .rtol = 1e-6,
                   .atol = 1e-4});
  cases.push_back({.name = "log_softmax large logits axis 0",
                   .op = OpKind::LogSoftmax,
                   .inputs = {f32({3, 2})},
                   .attrs = {{"axis", int64_t{0}}},
                   .values = {{-5000, 1000, 5000, 0, 4999, -1000}},
                   .expected = {-10000 - std::log(1 + std::exp(-1.0)), 0, -std::log(1 + std::exp(-1.0)),
                                -1000, -1 - std::log(1 + std::exp(-1.0)), -2000},
                   .grad = false,
                   .rtol = 1e-6,
                   .atol = 1e-4});
  cases.push_back({.name = "softmax large logits",
                   .op = OpKind::Softmax,
                   .inputs = {f32({1, 3})},
                   .values = {{1000, 1000, -1000}},
                   .expected = {0.5, 0.5, 0},
                   .grad = false});
  cases.push_back({.name = "softmax axis",
                   .op = OpKind::Softmax,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"axis", int64_t{2}}},
                   .infer_error = "axis 2 is out of range for f32[2, 3]"});
  cases.push_back({.name = "log_softmax i32",
                   .op = OpKind::LogSoftmax,
                   .inputs = {i32({2})},
                   .infer_error = "must be f32"});
  cases.push_back({.name = "softmax_grad shapes",
                   .op = OpKind::SoftmaxGrad,
                   .inputs = {f32({2, 3}), f32({3})},
                   .infer_error = "operands must be f32 of one shape"});
  cases.push_back({.name = "log_softmax_grad shapes",
                   .op = OpKind::LogSoftmaxGrad,
                   .inputs = {f32({2, 3}), f32({2, 2})},
                   .infer_error = "operands must be f32 of one shape"});
}

}  // namespace iputrain::test
