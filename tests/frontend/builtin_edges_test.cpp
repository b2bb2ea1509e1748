// Builtins the docs promised and the language refused or crashed on (issue 36): split (a shape read
// after the graph grew), matmul's transpose_a / transpose_b and broadcast batch dimensions, slices
// and indexing with negative steps, argmax and argmin on i32.
#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/model.hpp"

using iputrain::Model;

namespace {

// The shape of output `name` of a model written around `body`, with inputs a: f32[2, 3, 4],
// b: f32[2, 4, 5] and k: i32[2, 6].
std::vector<int64_t> shape_of(const std::string& body, const std::string& name = "y") {
  const Model m = Model::parse(
      "model t(batch: int = 2) {\n  input a: f32[batch, 3, 4]\n  input b: f32[batch, 4, 5]\n"
      "  input k: i32[batch, 6]\n" +
      body + "\n}\n");
  const auto& g = iputrain::graph_of(m);
  for (const auto& o : g.outputs) {
    if (o.name == name) {
      return g.type(o.value).shape;
    }
  }
  FAIL("no output " << name);
  return {};
}

std::string error_of(const std::string& body) {
  try {
    (void)shape_of(body);
  } catch (const iputrain::Error& e) {
    return e.diagnostic().message;
  }
  FAIL("expected an error for: " << body);
  return {};
}

}  // namespace

TEST_CASE("split makes every part, however many inputs the model has") {
  // Each slice grows the graph; the builtin used to hold a reference into it (SIGSEGV in check).
  CHECK(shape_of("  output y = split(a, 3, axis = 1)[1]", "y") == std::vector<int64_t>{2, 1, 4});
  CHECK(shape_of("  parts = split(k, 3)\n  output y = parts[2]\n  output z = parts[0]") == std::vector<int64_t>{2, 2});
  CHECK(shape_of("  output y = split(a, [1, 3], axis = -1)[1]") == std::vector<int64_t>{2, 3, 3});
  CHECK(shape_of("  output y = concat(split(b, 5), axis = -1)") == std::vector<int64_t>{2, 4, 5});
  const Model one = Model::parse("model t() {\n  input x: f32[2, 4]\n  output y = split(x, 2)[0]\n}\n");
  CHECK(one.outputs() == std::vector<std::string>{"y"});
  CHECK(error_of("  output y = split(a, 3)").find("does not divide into 3 equal parts") != std::string::npos);
}

TEST_CASE("matmul takes transpose_a and transpose_b, and broadcasts batch dimensions") {
  CHECK(shape_of("  output y = matmul(b, a, transpose_a = true, transpose_b = true)") == std::vector<int64_t>{2, 5, 3});
  CHECK(shape_of("  output y = matmul(a, a, transpose_b = true)") == std::vector<int64_t>{2, 3, 3});
  CHECK(shape_of("  output y = matmul(a, a, transpose_a = true)") == std::vector<int64_t>{2, 4, 4});
  // Batch dimensions broadcast as in NumPy: [2, 1, 3, 4] @ [1, 6, 4, 5] -> [2, 6, 3, 5].
  CHECK(shape_of("  output y = reshape(a, [2, 1, 3, 4]) @ broadcast_to(reshape(b[0], [1, 1, 4, 5]), [1, 6, 4, 5])") ==
        std::vector<int64_t>{2, 6, 3, 5});
  CHECK(shape_of("  output y = a[0] @ b") == std::vector<int64_t>{2, 3, 5});
  CHECK(shape_of("  output y = matmul(a, b[0], transpose_b = false)") == std::vector<int64_t>{2, 3, 5});
  const std::string bad =
      error_of("  output y = reshape(a, [2, 1, 3, 4]) @ broadcast_to(reshape(b[0], [1, 1, 4, 5]), [3, 1, 4, 5])");
  CHECK(bad.find("do not broadcast") != std::string::npos);
}

TEST_CASE("slices and indexing step backwards as in NumPy") {
  CHECK(shape_of("  output y = a[:, ::-1]") == std::vector<int64_t>{2, 3, 4});
  CHECK(shape_of("  output y = a[:, ::-2, 3:0:-1]") == std::vector<int64_t>{2, 2, 3});
  CHECK(shape_of("  output y = slice(a, [0, 2, 3], [2, -100, -100], strides = [1, -1, -2])") ==
        std::vector<int64_t>{2, 3, 2});
  CHECK(error_of("  output y = a[:, ::0]").find("cannot be 0") != std::string::npos);
  CHECK(error_of("  output y = a[:, 0:2:-1]").find("is empty") != std::string::npos);
}

TEST_CASE("argmax and argmin take i32") {
  CHECK(shape_of("  output y = argmax(k)") == std::vector<int64_t>{2});
  CHECK(shape_of("  output y = argmin(k, axis = 0)") == std::vector<int64_t>{6});
  CHECK(shape_of("  output y = argmin(a, axis = 1)") == std::vector<int64_t>{2, 4});
}

TEST_CASE("math builtins work on compile-time numbers") {
  // floor, ceil and round give ints (round halves to even, as Python's); the others floats.
  CHECK(shape_of("  output y = reshape(a, [round(log(10000.0)) - 7, 12])") == std::vector<int64_t>{2, 12});
  CHECK(shape_of("  output y = reshape(a, [floor(2.9), ceil(2.1) * 4])") == std::vector<int64_t>{2, 12});
  CHECK(shape_of("  output y = reshape(a, [round(2.5), round(3.5) * 3])") == std::vector<int64_t>{2, 12});
  const Model m = Model::parse("model t() {\n  input x: f32[2]\n  output y = x * exp(1.0) + sqrt(4.0) * cos(0.0)\n}\n");
  const std::string ir = m.ir_text();
  CHECK(ir.find("2.71828") != std::string::npos);
  CHECK(error_of("  output y = a * log(-1.0)").find("log(-1) is undefined") != std::string::npos);
  // On tensors they are ops.
  CHECK(shape_of("  output y = sin(a) + cos(a) + floor(a) + ceil(a) + round(a) + sign(a)") ==
        std::vector<int64_t>{2, 3, 4});
}
