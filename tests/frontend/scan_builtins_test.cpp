// The builtins along an axis and over matrices: cumsum, argsort, sort, top_k, take_along_axis,
// scatter_add, tril and triu: their shapes and their located errors.
#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/model.hpp"

using iputrain::Model;
using iputrain::TensorType;

namespace {

const TensorType& output_type(const Model& m, const std::string& name) {
  const auto& g = iputrain::graph_of(m);
  for (const auto& o : g.outputs) {
    if (o.name == name) {
      return g.type(o.value);
    }
  }
  FAIL("no output " << name);
  return g.type(0);
}

Model model(const std::string& body) {
  return Model::parse("model t(batch: int = 2) {\n  input x: f32[batch, 3, 4]\n  input k: i32[batch, 3]\n" + body +
                      "\n}\n");
}

std::string error_of(const std::string& body) {
  try {
    (void)model(body);
  } catch (const iputrain::Error& e) {
    return e.diagnostic().message + " | " + e.diagnostic().hint;
  }
  FAIL("expected an error for: " << body);
  return {};
}

}  // namespace

TEST_CASE("cumsum, argsort and sort keep the shape, argsort gives i32") {
  const Model m = model(
      "  output c = cumsum(x, axis = 1, exclusive = true, reverse = true)\n  output a = argsort(x, axis = 0)\n"
      "  output s = sort(k, descending = true)\n  output ci = cumsum(k)");
  CHECK(output_type(m, "c").str() == "f32[2, 3, 4]");
  CHECK(output_type(m, "a").str() == "i32[2, 3, 4]");
  CHECK(output_type(m, "s").str() == "i32[2, 3]");
  CHECK(output_type(m, "ci").str() == "i32[2, 3]");
  CHECK(error_of("  output c = cumsum(x, exclusive = 1)").find("must be a bool") != std::string::npos);
}

TEST_CASE("top_k gives values and i32 indices along the last axis") {
  const Model m = model("  parts = top_k(x, 2)\n  output v = parts[0]\n  output i = parts[1]");
  CHECK(output_type(m, "v").str() == "f32[2, 3, 2]");
  CHECK(output_type(m, "i").str() == "i32[2, 3, 2]");
  CHECK(error_of("  output v = top_k(x, 5)[0]").find("k = 5 is not in [1, 4]") != std::string::npos);
}

TEST_CASE("scatter_add is gather's dual and says what updates must be") {
  const Model m = model("  output y = scatter_add(x, k[0], x, axis = 1)");
  CHECK(output_type(m, "y").str() == "f32[2, 3, 4]");
  const std::string e = error_of("  output y = scatter_add(x, k, x, axis = 1)");
  CHECK(e.find("do not fit") != std::string::npos);
  CHECK(e.find("f32[2, 2, 3, 4]") != std::string::npos);
}

TEST_CASE("tril, triu and take_along_axis") {
  const Model m = model(
      "  output l = tril(x, k = -1)\n  output u = triu(k, k = 1)\n"
      "  output t = take_along_axis(x, argsort(x)[:, :, 0:2])");
  CHECK(output_type(m, "l").str() == "f32[2, 3, 4]");
  CHECK(output_type(m, "u").str() == "i32[2, 3]");
  CHECK(output_type(m, "t").str() == "f32[2, 3, 2]");
  CHECK(error_of("  output l = tril(x[0, 0])").find("rank 2 or more") != std::string::npos);
}

TEST_CASE("einsum lowers any two-operand contraction and locates what it cannot") {
  const Model m = model(
      "  output mm = einsum(\"bij,bjk->bik\", x, transpose(x, [0, 2, 1]))\n"
      "  output outer = einsum(\"bi,bj->bij\", x[:, 0], x[:, 1])\n"
      "  output implicit = einsum(\"bij,bkj\", x, x)\n"
      "  output dots = einsum(\"...j,...j->...\", x, x)\n"
      "  output summed = einsum(\"bij,bij->\", x, x)");
  CHECK(output_type(m, "mm").str() == "f32[2, 3, 3]");
  CHECK(output_type(m, "outer").str() == "f32[2, 4, 4]");
  CHECK(output_type(m, "implicit").str() == "f32[3, 3]");  // NumPy: the labels that appear once, sorted (i, k)
  CHECK(output_type(m, "dots").str() == "f32[2, 3]");
  CHECK(output_type(m, "summed").str() == "f32[]");
  CHECK(error_of("  output y = einsum(\"ii,ij->j\", x[0], x[0])").find("repeats within one operand") !=
        std::string::npos);
  CHECK(error_of("  output y = einsum(\"bij,bjk->bik\", x, x)").find("label 'j' is 4 in one operand and 3") !=
        std::string::npos);
  CHECK(error_of("  output y = einsum(\"bij->bi\", x, x)").find("must name two operands") != std::string::npos);
  CHECK(error_of("  output y = einsum(\"bij,bij->bz\", x, x)").find("labels no operand dimension") !=
        std::string::npos);
}

TEST_CASE("dropout's noise_shape shares a draw along the dimensions it sets to 1") {
  const Model m = Model::parse(
      "import nn\nmodel t(batch: int = 2) {\n  input x: f32[batch, 3, 4]\n"
      "  output y = nn.dropout(x, 0.5, noise_shape = [-1, 1, 4])\n}\n");
  const auto& g = iputrain::graph_of(m);
  int masks = 0;
  for (const auto& n : g.nodes()) {
    if (n.op == iputrain::ir::OpKind::DropoutMask) {
      CHECK(n.type.str() == "f32[2, 1, 4]");
      ++masks;
    }
  }
  CHECK(masks == 1);
  CHECK(error_of("  output y = x * dropout_mask(x, 0.5, noise_shape = [2, 2, 4])").find("does not fit") !=
        std::string::npos);
}

TEST_CASE("grouped, depthwise and 1-D convolutions: shapes, parameter paths and located errors") {
  const Model m = Model::parse(
      "import nn\nmodel t(batch: int = 2) {\n  input x: f32[batch, 8, 8, 4]\n  input s: f32[batch, 10, 4]\n"
      "  output g = nn.conv2d(x, 6, groups = 2)\n  output d = nn.depthwise_conv2d(x, depth_multiplier = 3)\n"
      "  output c = nn.conv1d(s, 8, 3, padding = \"causal\", groups = 4)\n}\n");
  CHECK(output_type(m, "g").str() == "f32[2, 6, 6, 6]");
  CHECK(output_type(m, "d").str() == "f32[2, 6, 6, 12]");
  CHECK(output_type(m, "c").str() == "f32[2, 10, 8]");
  std::vector<std::string> names;
  for (const auto& p : m.parameters()) {
    names.push_back(p.name + " " + p.dtype + iputrain::shape_str(p.shape));
  }
  CHECK(names == std::vector<std::string>{"conv2d/kernel f32[3, 3, 2, 6]", "conv2d/bias f32[6]",
                                          "depthwise_conv2d/depthwise_kernel f32[3, 3, 4, 3]",
                                          "depthwise_conv2d/bias f32[12]", "conv1d/kernel f32[3, 1, 8]",
                                          "conv1d/bias f32[8]"});
  CHECK(error_of("  output y = conv2d(x, x, groups = 3)").find("3 groups do not fit") != std::string::npos);
}
