// The language additions of the full model language (indexing, comparisons, asserts, the `ops`
// module, compile-time helpers) and the standard library's layers: shapes, parameter paths,
// dropout mask names, warnings.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/ir/graph.hpp"
#include "iputrain/model.hpp"
#include "frontend/model_access.hpp"

using iputrain::ErrorKind;
using iputrain::Model;
using iputrain::ir::OpKind;

namespace {

// The shape of output `name` of a model.
std::vector<int64_t> output_shape(const Model& m, const std::string& name) {
  for (const auto& o : graph_of(m).outputs) {
    if (o.name == name) {
      return graph_of(m).type(o.value).shape;
    }
  }
  FAIL("no output " << name);
  return {};
}

std::vector<int64_t> shape_of(const std::string& decls, const std::string& expr) {
  const Model m = Model::parse("import nn\nmodel t() {\n" + decls + "\noutput y = " + expr + "\n}");
  return output_shape(m, "y");
}

std::string message_of(const std::string& text) {
  try {
    (void)Model::parse(text, "t.ipu");
  } catch (const iputrain::Error& e) {
    return std::string(e.what()) + " | " + e.hint();
  }
  FAIL("expected an error for: " << text);
  return {};
}

std::vector<std::string> param_names(const Model& m) {
  std::vector<std::string> out;
  for (const auto& p : m.parameters()) {
    out.push_back(p.name);
  }
  return out;
}

}  // namespace

TEST_CASE("indexing and slicing follow NumPy") {
  const std::string x = "input x: f32[4, 10, 6]";
  CHECK(shape_of(x, "x[0]") == std::vector<int64_t>{10, 6});
  CHECK(shape_of(x, "x[:, 0:5]") == std::vector<int64_t>{4, 5, 6});
  CHECK(shape_of(x, "x[..., -1]") == std::vector<int64_t>{4, 10});
  CHECK(shape_of(x, "x[1, ..., 2]") == std::vector<int64_t>{10});
  CHECK(shape_of(x, "x[:, ::3]") == std::vector<int64_t>{4, 4, 6});  // 0, 3, 6, 9
  CHECK(shape_of(x, "x[:, -3:]") == std::vector<int64_t>{4, 3, 6});
  CHECK(shape_of(x, "x[:, 2:100]") == std::vector<int64_t>{4, 8, 6});  // bounds clamp
  CHECK(shape_of(x, "x[0, 0, 0]").empty());
  // A whole-tensor subscript is the tensor itself: no node.
  const Model m = Model::parse("model t() { input x: f32[4, 10]\n output y = x[:, :] }");
  CHECK(graph_of(m).size() == 1);
}

TEST_CASE("slices lower to one slice node with normalized bounds") {
  const Model m = Model::parse("model t() { input x: f32[4, 10]\n output y = x[-1, 2::4] }");
  const auto& g = graph_of(m);
  REQUIRE(g.size() == 3);
  CHECK(g.node(1).op == OpKind::Slice);
  CHECK(g.node(1).attrs.get_ints("begin") == std::vector<int64_t>{3, 2});
  CHECK(g.node(1).attrs.get_ints("end") == std::vector<int64_t>{4, 10});
  CHECK(g.node(1).attrs.get_ints("strides") == std::vector<int64_t>{1, 4});
  CHECK(g.node(2).op == OpKind::Reshape);
  CHECK(g.type(2).shape == std::vector<int64_t>{2});
}

TEST_CASE("tensor comparisons give bool tensors") {
  const std::string xy = "input x: f32[3]\ninput y: f32[3]";
  for (const char* op : {"<", "<=", ">", ">=", "==", "!="}) {
    const Model m = Model::parse(std::string("model t() {\n") + xy + "\noutput y2 = cast(x " + op + " y) }");
    CHECK(graph_of(m).type(graph_of(m).outputs[0].value).dtype == iputrain::DType::F32);
  }
  const Model m = Model::parse("model t() { input x: f32[3]\n output y = cast(0.5 < x) }");
  CHECK(graph_of(m).node(2).op == OpKind::Less);
}

TEST_CASE("compile-time helpers: range, str, kind, assert, the ops module") {
  CHECK(shape_of("", "full([len(range(5)), len(range(2, 9, 3))], 1.0)") == std::vector<int64_t>{5, 3});
  CHECK(shape_of("", "full([len(str(123) + str([1, 2]))], 0)") == std::vector<int64_t>{9});
  CHECK(shape_of("input x: f32[2]", "full([len(kind(x))], 0)") == std::vector<int64_t>{6});  // "tensor"
  CHECK(shape_of("input x: f32[2, 3]", "ops.relu(x)") == std::vector<int64_t>{2, 3});
  CHECK(message_of("model t() { assert 1 > 2, \"no\" }").starts_with("no"));
  CHECK(message_of("model t() { assert 1, \"no\" }").find("compile-time bool") != std::string::npos);
}

TEST_CASE("builtins check their options") {
  const std::string x =
      "model t() { input x: f32[2, 8, 8, 3]\n param k: f32[3, 3, 3, 4] = zeros()\n output y = ";
  CHECK(message_of(x + "conv2d(x, k, strides = [1, 2, 3]) }").find("a list of two") != std::string::npos);
  CHECK(message_of(x + "conv2d(x, k, strides = 0) }").find("positive int") != std::string::npos);
  CHECK(message_of(x + "max_pool(x, 2, padding = \"full\") }").find("\"valid\", \"same\"") !=
        std::string::npos);
  CHECK(message_of(x + "one_hot(x, 0) }").find("argument 'depth' of one_hot must be at least 1, got 0") !=
        std::string::npos);
  CHECK(message_of(x + "expand_dims(x, 5) }").find("out of range") != std::string::npos);
  CHECK(message_of(x + "squeeze(x, 1) }").find("not 1") != std::string::npos);
  CHECK(shape_of("input x: f32[2, 8, 8, 3]\nparam k: f32[3, 3, 3, 4] = zeros()",
                 "conv2d(x, k, strides = 2, padding = \"same\")") == std::vector<int64_t>{2, 4, 4, 4});
  CHECK(shape_of("input x: f32[2, 8, 8, 3]", "avg_pool(x, [2, 4])") == std::vector<int64_t>{2, 4, 2, 3});
  CHECK(shape_of("input x: f32[2, 1, 3]", "squeeze(expand_dims(x, -1))") == std::vector<int64_t>{2, 3});
  CHECK(shape_of("input i: i32[5]", "one_hot(i, 7)") == std::vector<int64_t>{5, 7});
  CHECK(shape_of("input x: f32[4, 3]", "transpose(x)") == std::vector<int64_t>{3, 4});
}

TEST_CASE("stdlib layers: shapes and parameter paths") {
  CHECK(shape_of("input x: f32[2, 8, 8, 3]", "nn.conv2d(x, 5, kernel_size = [3, 1])") ==
        std::vector<int64_t>{2, 6, 8, 5});
  CHECK(shape_of("input x: f32[2, 8, 8, 3]", "nn.max_pool(x, 3, strides = 1)") ==
        std::vector<int64_t>{2, 6, 6, 3});
  CHECK(shape_of("input x: f32[2, 8, 8, 4]", "nn.global_avg_pool(nn.group_norm(x))") ==
        std::vector<int64_t>{2, 4});
  CHECK(shape_of("input t: i32[2, 5]", "nn.embedding(t, 11, 6)") == std::vector<int64_t>{2, 5, 6});
  CHECK(shape_of("input t: i32[2, 5]", "nn.host_embedding(t, vocab = 11, dim = 6)") == std::vector<int64_t>{2, 5, 6});
  CHECK(message_of("model t() { param w: f32[3, 4] = zeros(), hots = true\n output y = w }")
            .find("did you mean 'host'?") != std::string::npos);
  CHECK(shape_of("input x: f32[2, 5, 8]", "nn.transformer_block(x, heads = 2)") ==
        std::vector<int64_t>{2, 5, 8});
  CHECK(shape_of("input x: f32[3, 4]", "nn.mlp(x, [7, 2])") == std::vector<int64_t>{3, 2});

  const Model m = Model::parse(R"(import nn
model t() {
  input x: f32[2, 4, 4, 2]
  stage s {
    y = nn.batch_norm(nn.conv2d(x, 2, use_bias = false))
    for i in 0..2 { y = nn.layer_norm(y, center = false) }
  }
  output y
})");
  CHECK(param_names(m) == std::vector<std::string>{"s/conv2d/kernel", "s/batch_norm/gamma",
                                                   "s/batch_norm/beta", "s/batch_norm/moving_mean",
                                                   "s/batch_norm/moving_variance", "s/layer_norm/gamma",
                                                   "s/layer_norm_1/gamma"});
  CHECK(m.parameters()[0].shape == std::vector<int64_t>{3, 3, 2, 2});
  CHECK(m.parameters()[2].trainable);
  CHECK_FALSE(m.parameters()[3].trainable);
  CHECK(m.parameters()[4].shape == std::vector<int64_t>{2});
  CHECK(m.parameter_count() == 36 + 2 * 4 + 2 + 2);
}

TEST_CASE("non-trainable params and moving_average") {
  const Model m = Model::parse(R"(model t() {
  input x: f32[4, 3]
  param m: f32[3] = zeros(), trainable = false
  param w: f32[3] = ones(), trainable = true
  output y = moving_average(mean(x, axis = 0), m, momentum = 0.5) * w
})");
  const auto& g = graph_of(m);
  CHECK_FALSE(iputrain::ir::trainable(g.node(g.params[0])));
  CHECK(iputrain::ir::trainable(g.node(g.params[1])));
  const auto it = std::find_if(g.nodes().begin(), g.nodes().end(),
                               [](const auto& n) { return n.op == OpKind::MovingAverage; });
  REQUIRE(it != g.nodes().end());
  CHECK(it->attrs.get_float("momentum") == 0.5);
  CHECK(it->inputs[1] == g.params[0]);

  const std::string head = "model t() {\n  input x: f32[4, 3]\n";
  const std::string state = "  param m: f32[3] = zeros(), trainable = false\n";
  CHECK(message_of(head + "  param m: f32[3] = zeros(), trainabel = false\n  output x\n}")
            .find("a param has no option 'trainabel' | did you mean 'trainable'?") != std::string::npos);
  CHECK(message_of(head + "  param m: f32[3] = zeros(), trainable = 0\n  output x\n}")
            .find("trainable must be a compile-time bool, got") != std::string::npos);
  CHECK(
      message_of(head + "  param m: f32[3] = zeros()\n  output y = moving_average(x[0], m)\n}")
          .find(
              "argument 'state' of moving_average must be a non-trainable param, got the trainable parameter "
              "'m'") != std::string::npos);
  CHECK(message_of(head + "  output y = moving_average(x[0], x[1])\n}").find("got a computed value") !=
        std::string::npos);
  CHECK(message_of(head + state + "  output y = moving_average(x[0], m) + moving_average(x[1], m)\n}")
            .find("parameter 'm' already follows another moving average") != std::string::npos);
  CHECK(message_of(head + state + "  output y = moving_average(x[0], m, momentum = 2)\n}")
            .find("momentum must be in [0, 1], got 2") != std::string::npos);
  CHECK(message_of(head +
                   "  param m: f32[4] = zeros(), trainable = false\n  output y = moving_average(x[0], m)\n}")
            .find("the statistic is f32[3] but the state is f32[4]") != std::string::npos);
}

TEST_CASE("state_read and state_write: one reader and one writer of a non-trainable param") {
  const std::string head = "model t() {\n  input x: f32[4, 3]\n";
  const std::string state = "  param s: f32[4, 3] = zeros(), trainable = false\n";
  const Model m = Model::parse(head + state + "  h = state_read(s) + x\n  w = state_write(h, s)\n  output h\n}");
  const auto& g = graph_of(m);
  int found = 0;
  for (const auto& n : g.nodes()) {
    found += (n.op == OpKind::StateRead || n.op == OpKind::StateWrite) && n.inputs.back() == g.params[0] ? 1 : 0;
  }
  CHECK(found == 2);
  CHECK(message_of(head + "  param s: f32[4, 3] = zeros()\n  output y = state_read(s)\n}")
            .find("argument 'state' of state_read must be a non-trainable param, got the trainable parameter 's'") !=
        std::string::npos);
  CHECK(message_of(head + state + "  output y = state_read(s) + state_read(s)\n}")
            .find("parameter 's' is already read by another state_read") != std::string::npos);
  CHECK(message_of(head + state + "  output y = state_write(x, s)\n}")
            .find("parameter 's' is written before it is read") != std::string::npos);
  CHECK(message_of(head + state + "  h = state_read(s)\n  w = state_write(h, s)\n  output y = state_write(h, s)\n}")
            .find("parameter 's' is already written by another state_write") != std::string::npos);
  CHECK(message_of(head + state + "  h = state_read(s)\n  output y = state_write(h[:, :2], s)\n}")
            .find("the value is f32[4, 2] but the state is f32[4, 3]") != std::string::npos);
}

TEST_CASE("dropout masks are named by scope path") {
  const Model m = Model::parse(R"(import nn
model t() {
  input x: f32[2, 4]
  stage s { y = nn.dropout(nn.dropout(x, 0.5), 0.25) + nn.dropout(x, 0.0) }
  output y
})");
  std::vector<std::string> names;
  for (const auto& n : graph_of(m).nodes()) {
    if (n.op == OpKind::DropoutMask) {
      names.push_back(n.attrs.get_str("name"));
    }
  }
  CHECK(names == std::vector<std::string>{"s/dropout/mask", "s/dropout_1/mask"});
}

TEST_CASE("the causal mask hides the future") {
  // arange and causal_mask are compile-time graphs of constants; check their types and that the
  // mask compares columns with rows.
  const Model m =
      Model::parse("import nn\nmodel t() { output y = cast(nn.causal_mask(5))\n output r = nn.arange(6) }");
  CHECK(output_shape(m, "y") == std::vector<int64_t>{5, 5});
  CHECK(output_shape(m, "r") == std::vector<int64_t>{6});
  const auto& g = graph_of(m);
  CHECK(std::any_of(g.nodes().begin(), g.nodes().end(),
                    [](const auto& n) { return n.op == OpKind::LessEqual; }));
}

TEST_CASE("errors inside the stdlib point at the user's call") {
  const std::string text =
      "import nn\nmodel t() {\n  input x: f32[2, 6]\n  output y = nn.group_norm(x, groups = 4)\n}";
  try {
    (void)Model::parse(text, "t.ipu");
    FAIL("no error");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == ErrorKind::Semantic);
    CHECK(e.span().line == 4);
    CHECK(e.hint().find("raised in group_norm at stdlib/nn.ipu:") != std::string::npos);
  }
}

TEST_CASE("unused model parameters, inputs and params are warnings") {
  const Model m = Model::parse(R"(model t(n: int = 3, used: int = 2) {
  input x: f32[used]
  input z: f32[2]
  param p: f32[2] = zeros()
  output x
})",
                               "w.ipu");
  const auto w = m.warnings();
  REQUIRE(w.size() == 3);
  CHECK(w[0].find("w.ipu:1:9: warning: model parameter 'n' is never used") == 0);
  CHECK(w[1].find("warning: input 'z' is never used") != std::string::npos);
  CHECK(w[2].find("warning: parameter 'p' is never used") != std::string::npos);
}

TEST_CASE("the op list's plain builtins are their ops, with the specs' defaults") {
  int checked = 0;
  for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
    const auto kind = static_cast<OpKind>(k);
    const iputrain::ir::OpDef& def = iputrain::ir::op_def(kind);
    if (!iputrain::ir::is_plain_builtin(kind) || def.inputs.size() != 1 || def.inputs[0] != "x") {
      continue;
    }
    INFO("builtin " << def.name);
    std::string required;  // attributes without a default (all_gather's group): 1 fits x
    for (const iputrain::ir::AttrSpec& spec : def.attrs) {
      required +=
          spec.required && spec.type == iputrain::ir::AttrType::Int ? ", " + std::string(spec.name) + " = 1" : "";
    }
    const Model m = Model::parse("model t() {\n input x: f32[2, 3]\n output y = " + std::string(def.name) + "(x + x" +
                                 required + ")\n}");
    const auto& g = graph_of(m);
    const iputrain::ir::Node& n = g.node(g.outputs.at(0).value);
    CHECK(n.op == kind);
    for (const iputrain::ir::AttrSpec& spec : def.attrs) {
      CHECK(n.attrs.has(spec.name));
    }
    ++checked;
  }
  CHECK(checked >= 15);
}
