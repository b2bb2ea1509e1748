// diff_eval: the op-harness half of the differential suite (tests/diff/diff_suite.py). It reads the
// cases the suite wrote (cases.json in the folder named by IPUTRAIN_DIFF_CASES), builds each as a
// graph of Input leaves and the one op, appends the op's own backward for sum(out * dy), runs it
// all on the op harness's interpreter (tests/core/op_harness.hpp) and writes the output and every
// gradient as raw little-endian doubles beside the case, for the suite to compare with PyTorch and
// NumPy. An op that refuses its inputs writes its message instead.
//
// Not a test of its own: diff_suite.py runs it (the doctest case fails when the variable is unset).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/ops/op.hpp"
#include "iputrain/error.hpp"
#include "tests/core/op_harness.hpp"

namespace iputrain::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Values read_doubles(const fs::path& p, int64_t n) {
  Values v(static_cast<size_t>(n));
  std::ifstream in(p, std::ios::binary);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
  REQUIRE_MESSAGE(in.gcount() == static_cast<std::streamsize>(v.size() * sizeof(double)), "short file " << p);
  return v;
}

void write_doubles(const fs::path& p, const Values& v) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
}

ir::OpKind op_named(const std::string& name) {
  for (int k = 0; k < static_cast<int>(ir::OpKind::Count); ++k) {
    if (ir::op_def(static_cast<ir::OpKind>(k)).name == name) {
      return static_cast<ir::OpKind>(k);
    }
  }
  FAIL("no op named " << name);
  return ir::OpKind::Count;
}

ir::Attrs attrs_of(const json& j) {
  ir::Attrs attrs;
  for (const auto& [key, v] : j.items()) {
    if (v.is_array()) {
      attrs.set(key, v.get<std::vector<int64_t>>());
    } else if (v.is_number_integer() || v.is_boolean()) {
      attrs.set(key, v.is_boolean() ? int64_t{v.get<bool>()} : v.get<int64_t>());
    } else if (v.is_number()) {
      attrs.set(key, v.get<double>());
    } else {
      attrs.set(key, v.get<std::string>());
    }
  }
  return attrs;
}

void run_case(const fs::path& dir, const json& c) {
  INFO("diff case " << c["id"].get<std::string>());
  const fs::path here = dir / c["id"].get<std::string>();
  ir::Graph g;
  std::vector<ir::ValueId> xs;
  std::vector<Values> values;
  for (const json& in : c["inputs"]) {
    const TensorType t{*parse_dtype(in["dtype"].get<std::string>()), in["shape"].get<Shape>()};
    xs.push_back(g.add_input(fmt::format("x{}", xs.size()), t));
    values.push_back(read_doubles(here / in["file"].get<std::string>(), t.numel()));
  }
  ir::ValueId y = ir::kNoValue;
  try {
    y = g.add(op_named(c["op"]), xs, attrs_of(c["attrs"]));
  } catch (const Error& e) {
    std::ofstream(here / "error.txt") << e.diagnostic().message;
    return;
  }
  std::vector<ir::ValueId> grads;
  ir::ValueId dy = ir::kNoValue;
  const ir::OpDef& def = ir::op_def(g.node(y).op);
  if (c.contains("dy") && def.backward != nullptr) {
    dy = g.add_input("dy", g.type(y));
    grads = def.backward(g, y, dy);
  }
  Interpreter interp(g);
  // As `predict` runs it, unless the case asks for the training program (random and state ops).
  interp.ctx.training = c.value("training", false);
  for (size_t i = 0; i < xs.size(); ++i) {
    interp.set(xs[i], values[i]);
  }
  if (dy != ir::kNoValue) {
    interp.set(dy, read_doubles(here / c["dy"].get<std::string>(), g.type(y).numel()));
  }
  try {
    interp.run();
  } catch (const Error& e) {
    std::ofstream(here / "error.txt") << e.diagnostic().message;
    return;
  }
  write_doubles(here / "out.bin", interp.get(y));
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] != ir::kNoValue) {
      write_doubles(here / fmt::format("grad{}.bin", i), interp.get(grads[i]));
    }
  }
}

}  // namespace

TEST_CASE("diff_eval runs the differential suite's cases") {
  const char* dir = std::getenv("IPUTRAIN_DIFF_CASES");
  REQUIRE_MESSAGE(dir != nullptr, "run by tests/diff/diff_suite.py, which sets IPUTRAIN_DIFF_CASES");
  std::ifstream in(fs::path(dir) / "cases.json");
  REQUIRE(in);
  const json cases = json::parse(in);
  for (const json& c : cases) {
    run_case(dir, c);
  }
  MESSAGE(cases.size() << " cases evaluated");
}

}  // namespace iputrain::test
