// The model language's surface: precedence, compile-time evaluation, layout rules, error kinds
// and locations, and robustness against malformed input.
#include <doctest/doctest.h>

#include <random>

#include "core/ir/graph.hpp"
#include "frontend/model_access.hpp"
#include "frontend/operators.hpp"
#include "iputrain/model.hpp"

using iputrain::ErrorKind;
using iputrain::Model;

namespace {

// Evaluates a compile-time int expression by using it as an input dimension.
int64_t eval_int(const std::string& expr) {
  const Model m = Model::parse("model t() { input x: f32[" + expr + "]\n output x }");
  return m.inputs().at(0).shape.at(0);
}

// Evaluates a compile-time bool expression through an `if`.
bool eval_bool(const std::string& expr) {
  const Model m =
      Model::parse("model t() { if " + expr + " { input x: f32[1] } else { input x: f32[2] }\n output x }");
  return m.inputs().at(0).shape.at(0) == 1;
}

ErrorKind error_kind(const std::string& text,
                     const std::map<std::string, iputrain::ParamValue>& overrides = {}) {
  try {
    (void)Model::parse(text, "<test>", overrides);
  } catch (const iputrain::Error& e) {
    return e.kind();
  }
  FAIL("expected an error for: " << text);
  return ErrorKind::Internal;
}

iputrain::Error error_of(const std::string& text) {
  try {
    (void)Model::parse(text, "t.ipu");
  } catch (const iputrain::Error& e) {
    return e;
  }
  FAIL("expected an error for: " << text);
  return iputrain::Error(ErrorKind::Internal, "unreachable");
}

const char* kMnist = R"(import nn

model mnist_mlp(batch: int = 32, hidden: int = 128) {
  input image: f32[batch, 28, 28]
  input label: i32[batch]

  stage features {
    h = nn.dense(flatten(image), hidden, activation = relu)
  }
  stage classifier {
    logits = nn.dense(h, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
  output accuracy = mean(argmax(logits, axis = -1) == label)
}
)";

}  // namespace

TEST_CASE("arithmetic precedence follows Python") {
  CHECK(eval_int("1 + 2 * 3") == 7);
  CHECK(eval_int("(1 + 2) * 3") == 9);
  CHECK(eval_int("10 - 4 - 3") == 3);
  CHECK(eval_int("2 ** 3 ** 2") == 512);  // ** is right-associative
  CHECK(eval_int("-2 ** 2 + 10") == 6);   // -(2 ** 2)
  CHECK(eval_int("2 ** -1 * 8") == 4);    // a power's exponent may be negative
  CHECK(eval_int("7 // 2") == 3);
  CHECK(eval_int("-7 // 2 + 10") == 6);  // floor division rounds down
  CHECK(eval_int("-7 % 3") == 2);
  CHECK(eval_int("12 / 4") == 3);  // true division; whole floats are valid dims
  CHECK(eval_int("1_000 + 24") == 1024);
  CHECK(eval_int("[4, 5, 6][-1]") == 6);
  CHECK(eval_int("len([1, 2, 3][1:])") == 2);
  CHECK(eval_int("len(\"abc\" + 'de')") == 5);
}

TEST_CASE("logic and comparisons are evaluated at compile time") {
  CHECK(eval_bool("1 < 2 and 2 <= 2"));
  CHECK_FALSE(eval_bool("not 1 < 2"));
  CHECK(eval_bool("false or 3 != 4"));
  CHECK(eval_bool("not false and false or true"));  // (not false and false) or true
  CHECK(eval_bool("[1, 2] == [1, 2]"));
  CHECK(eval_bool("\"a\" < \"b\""));
  CHECK(eval_bool("1.5e1 == 15"));
  CHECK_FALSE(eval_bool("2 > 3 or 1 >= 2"));
}

TEST_CASE("each operator's spelling maps to one ast::Operator") {
  using iputrain::frontend::ast::Operator;
  CHECK(iputrain::frontend::ast::binary_operator("//") == Operator::FloorDiv);
  CHECK(iputrain::frontend::ast::binary_operator("-") == Operator::Sub);
  CHECK(iputrain::frontend::ast::unary_operator("-") == Operator::Negate);
  CHECK(iputrain::frontend::ast::binary_operator("and") == Operator::And);
  CHECK_FALSE(iputrain::frontend::ast::binary_operator("not").has_value());
  CHECK_FALSE(iputrain::frontend::ast::unary_operator("@").has_value());
  CHECK(iputrain::frontend::ast::is_ordering(Operator::GreaterEqual));
  CHECK_FALSE(iputrain::frontend::ast::is_ordering(Operator::NotEqual));
  // Integer folding's edge cases, by operator.
  CHECK(eval_int("(-1) ** 7 + 2") == 1);
  CHECK(eval_int("0 ** 0") == 1);
  CHECK(eval_int("-(7 % -3)") == 2);
  CHECK(eval_int("7.5 // 2") == 3);
  CHECK(error_kind("model t() { input x: f32[2 ** 64]\n output x }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[-(-9223372036854775807 - 1)]\n output x }") == ErrorKind::Semantic);
}

TEST_CASE("statements need no terminator, calls may span lines") {
  const Model m = Model::parse(R"(import nn
model t(batch: int = 2) { input x: f32[batch, 3]; input y: f32[batch, 3];
  h = nn.dense(
        x + y,   # a comment inside a call
        4,
        activation = relu,
      )
  output h }
)");
  CHECK(m.parameters().size() == 2);
  CHECK(m.outputs() == std::vector<std::string>{"h"});
}

TEST_CASE("layers name their params by scope path") {
  const Model m = Model::parse(R"(import nn
model t(batch: int = 2) {
  input x: f32[batch, 3]
  h = nn.dense(nn.dense(x, 4), 5)
  output h
})");
  std::vector<std::string> names;
  for (const auto& p : m.parameters()) {
    names.push_back(p.name);
    CHECK(p.stage == "main");
  }
  CHECK(names == std::vector<std::string>{"dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"});
}

TEST_CASE("parallel stages share a group") {
  const Model m = Model::parse(R"(import nn
model t(batch: int = 2) {
  input x: f32[batch, 3]
  stage a { h = relu(x) }
  parallel {
    stage b1 { p = nn.dense(h, 4) }
    stage b2 { q = nn.dense(h, 4) }
  }
  stage c { output y = p + q }
})");
  const auto& stages = graph_of(m).stages;
  REQUIRE(stages.size() == 4);
  CHECK(m.stages() == std::vector<std::string>{"a", "b1", "b2", "c"});
  CHECK(stages[0].group == -1);
  CHECK(stages[1].group >= 0);
  CHECK(stages[1].group == stages[2].group);
  CHECK(stages[3].group == -1);
  CHECK(m.parameters()[0].name == "b1/dense/kernel");
  CHECK(m.parameters()[0].stage == "b1");
}

TEST_CASE("scalars next to tensors become constants of the tensor's dtype") {
  const Model m = Model::parse("model t() { input x: i32[3]\n output y = x * 2 }");
  const auto& g = graph_of(m);
  REQUIRE(g.size() == 3);
  CHECK(g.node(1).op == iputrain::ir::OpKind::Constant);
  CHECK(g.node(1).type.dtype == iputrain::DType::I32);
  CHECK(g.node(1).type.shape.empty());
  CHECK(g.node(2).op == iputrain::ir::OpKind::Mul);
}

TEST_CASE("shape patterns bind symbols and check fixed dimensions") {
  const std::string lib = R"(
layer proj(x: f32[..., n], units: int) {
  param w: f32[n, units] = glorot_uniform()
  return x @ w
}
def square(x: f32[n, n]) = x @ x
)";
  const Model ok = Model::parse(lib +
                                "model t() { input x: f32[2, 3, 7]\n input s: f32[4, 4]\n output y = proj(x, "
                                "5)\n output z = square(s) }");
  CHECK(ok.parameters().at(0).shape == std::vector<int64_t>{7, 5});
  const iputrain::Error e = error_of(lib + "model t() { input s: f32[4, 3]\n output z = square(s) }");
  CHECK(e.kind() == ErrorKind::Semantic);
  CHECK(std::string(e.what()).find("must be f32[n, n], got f32[4, 3]") != std::string::npos);
}

TEST_CASE("errors have kinds and locations") {
  CHECK(error_kind("model t( { }") == ErrorKind::Syntax);
  CHECK(error_kind("model t() { input x: f32[2]\n output y = relu(z) }") == ErrorKind::Semantic);
  CHECK(error_kind("model t(a: int = 1) { }", {{"b", int64_t{2}}}) == ErrorKind::Config);
  CHECK(error_kind("model t(a: int = 1) { }", {{"a", 2.5}}) == ErrorKind::Config);
  CHECK(error_kind("model t(a: int) { }") == ErrorKind::Config);
  CHECK(error_kind("model t() { input x: f32[2]\n y = relu(x = x, x) }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n y = relu(x, x = x) }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n output x[0] }") == ErrorKind::Syntax);
  CHECK(error_kind("model t() { input x: f32[2]\n output y = x[2] }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[...] }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n minimize mean(x)\n minimize mean(x) }") ==
        ErrorKind::Semantic);
  CHECK(error_kind("model t() { stage a { stage b { } } }") == ErrorKind::Semantic);
  CHECK(error_kind("layer l(x) { minimize x }\nmodel t() { }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n output y = x.shap }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n output y = 1 / 0 }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { } model u() { }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { for i in 0..1000000 { } }") == ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n param p: i32[2] = zeros()\n output x }") ==
        ErrorKind::Semantic);
  CHECK(error_kind("model t() { input x: f32[2]\n param p: f32[2] = 3\n output x }") == ErrorKind::Semantic);

  const iputrain::Error e = error_of("model t() {\n  input x: f32[2]\n  output y = relu(hidden_size)\n}\n");
  CHECK(e.span().line == 3);
  CHECK(e.span().col == 19);
  CHECK(e.span().length == 11);
  CHECK(e.render() ==
        "t.ipu:3:19: error: unknown name 'hidden_size'\n"
        "      output y = relu(hidden_size)\n"
        "                      ^~~~~~~~~~~\n"
        "hint: names must be assigned, imported or declared before they are used\n");

  const iputrain::Error s = error_of("model t() {\n  input x: f32[2\n}\n");
  CHECK(s.kind() == ErrorKind::Syntax);
  CHECK(s.span().line == 3);
  CHECK(s.render().starts_with("t.ipu:3:1: error: unexpected '}'"));
}

TEST_CASE("initializers record their arguments") {
  const Model m = Model::parse(R"(model t() {
  input x: f32[2]
  param a: f32[2] = normal(mean = 1, stddev = 0.5)
  param b: f32[2] = uniform(-0.1, 0.1)
  param c: f32[2] = he_normal()
  output y = x * a + b * c
})");
  const auto& g = graph_of(m);
  const auto& a = g.node(g.params.at(0)).attrs;
  CHECK(a.get_str("init") == "normal");
  CHECK(a.get_float("mean") == 1.0);
  CHECK(a.get_float("stddev") == 0.5);
  const auto& b = g.node(g.params.at(1)).attrs;
  CHECK(b.get_str("init") == "uniform");
  CHECK(b.get_float("minval") == doctest::Approx(-0.1));
  CHECK(b.get_float("maxval") == doctest::Approx(0.1));
  CHECK(g.node(g.params.at(2)).attrs.get_str("init") == "he_normal");
}

TEST_CASE("malformed models never crash") {
  // Every prefix of a real model, and random single-character edits, either load or raise an
  // iputrain::Error; anything else (another exception, a crash) fails the test.
  const std::string text = kMnist;
  size_t errors = 0;
  for (size_t n = 0; n < text.size(); n += 3) {
    try {
      (void)Model::parse(text.substr(0, n), "cut.ipu");
    } catch (const iputrain::Error& e) {
      CHECK_FALSE(e.render().empty());
      ++errors;
    }
  }
  CHECK(errors > 0);
  std::mt19937 rng(7);
  const std::string alphabet = "(){}[],.:=+-*/@#\"'0123456789abcxyz_ \n";
  for (int k = 0; k < 400; ++k) {
    std::string t = text;
    const size_t at = rng() % t.size();
    switch (rng() % 3) {
      case 0:
        t.erase(at, 1);
        break;
      case 1:
        t.insert(at, 1, alphabet[rng() % alphabet.size()]);
        break;
      default:
        t[at] = alphabet[rng() % alphabet.size()];
        break;
    }
    try {
      (void)Model::parse(t, "edit.ipu");
    } catch (const iputrain::Error& e) {
      CHECK_FALSE(e.render().empty());
    }
  }
}
