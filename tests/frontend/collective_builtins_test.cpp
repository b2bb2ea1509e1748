// The builtins across replicas (cross_replica_sum and _mean, all_gather, reduce_scatter,
// all_to_all and replication_index) and those that slice at offsets computed at run time: their
// types and located errors, and nn.batch_norm's replica group from the layer or from the config's
// distributed batch-norm key.
#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"

using iputrain::Model;
using iputrain::TensorType;

namespace {
namespace collective_builtins_test {

std::string type_of(const Model& m, const std::string& name) {
  const auto& g = iputrain::graph_of(m);
  for (const auto& o : g.outputs) {
    if (o.name == name) {
      return g.type(o.value).str();
    }
  }
  FAIL("no output " << name);
  return {};
}

Model model(const std::string& body) {
  return Model::parse("model t(batch: int = 4) {\n  input x: f32[batch, 6]\n" + body + "\n}\n");
}

std::string error_of(const std::string& body) {
  try {
    (void)model(body);
  } catch (const iputrain::Error& e) {
    return e.diagnostic().message + " | " + e.diagnostic().hint + " @" + std::to_string(e.span().line);
  }
  FAIL("expected an error for: " << body);
  return {};
}

// The group attributes of the model's cross-replica means.
std::vector<int64_t> mean_groups(const Model& m) {
  std::vector<int64_t> groups;
  for (const auto& n : iputrain::graph_of(m).nodes()) {
    if (n.op == iputrain::ir::OpKind::CrossReplicaSum && n.attrs.get_int("mean", 0) == 1) {
      groups.push_back(n.attrs.get_int("group", 0));
    }
  }
  return groups;
}

}  // namespace collective_builtins_test
}  // namespace

using namespace collective_builtins_test;

TEST_CASE("collective builtins: their types") {
  const Model m = model(
      "  output a = cross_replica_sum(x)\n"
      "  output b = cross_replica_mean(x, group = 2)\n"
      "  output c = all_gather(x, group = 4)\n"
      "  output d = reduce_scatter(x, group = 2)\n"
      "  output e = all_to_all(x, split_axis = 1, concat_axis = 0, group = 3)\n"
      "  output f = replication_index()\n");
  CHECK(type_of(m, "a") == "f32[4, 6]");
  CHECK(type_of(m, "b") == "f32[4, 6]");
  CHECK(type_of(m, "c") == "f32[4, 4, 6]");
  CHECK(type_of(m, "d") == "f32[2, 6]");
  CHECK(type_of(m, "e") == "f32[12, 2]");
  CHECK(type_of(m, "f") == "i32[]");
}

TEST_CASE("collective builtins: located errors") {
  CHECK(error_of("  y = all_gather(x)\n").find("group") != std::string::npos);
  CHECK(error_of("  y = all_gather(x, group = 0)\n").find("@3") != std::string::npos);
  const std::string indivisible = error_of("  y = reduce_scatter(x, group = 3)\n");
  CHECK(indivisible.find("divisible by 3") != std::string::npos);
  CHECK(indivisible.find("@3") != std::string::npos);
  CHECK(error_of("  y = all_to_all(x, split_axis = 2, concat_axis = 0, group = 2)\n").find("out of range") !=
        std::string::npos);
  CHECK(error_of("  y = cross_replica_mean(cast(x, dtype = \"i32\"))\n").find("needs an f32 operand") !=
        std::string::npos);
}

TEST_CASE("nn.batch_norm shares its statistics with its replica group, from the layer or the config") {
  const std::string text =
      "import nn\nmodel t(batch: int = 4) {\n  input x: f32[batch, 6]\n  output y = nn.batch_norm(x)\n"
      "  output z = nn.batch_norm(x, replica_group = 4)\n}\n";
  // The mean, then the variance, of each batch norm: none for groups of one.
  CHECK(mean_groups(Model::parse(text)) == std::vector<int64_t>{4, 4});
  const iputrain::Config dbn = iputrain::config::parse(
      "[ipu]\nauto_select_ipus = 4\n[ipu.norms.experimental]\ndistributed_batch_norm_replica_group_size = 2\n",
      "dbn.toml");
  CHECK(mean_groups(Model::parse(text, "t.ipu", dbn)) == std::vector<int64_t>{2, 2, 4, 4});
}

TEST_CASE("slicing at offsets computed at run time: types and located errors") {
  const Model m = model(
      "  input at: i32[2]\n  input n: i32[3]\n"
      "  output a = dynamic_slice(x, at, [2, 3])\n"
      "  output b = dynamic_update_slice(x, full([1, 6], 0.0), at)\n"
      "  output c = sequence_slice(x, x * 2.0, n, n, n, zero_unused = true)\n"
      "  output d = sequence_slice_pack(x, x, n, n)\n"
      "  output e = sequence_slice_unpack(x, n, n, 7)\n"
      "  output f = scatter_update(x, n, full([3, 6], 1.0))\n");
  CHECK(type_of(m, "a") == "f32[2, 3]");
  CHECK(type_of(m, "b") == "f32[4, 6]");
  CHECK(type_of(m, "c") == "f32[4, 6]");
  CHECK(type_of(m, "d") == "f32[4, 6]");
  CHECK(type_of(m, "e") == "f32[7, 6]");
  CHECK(type_of(m, "f") == "f32[4, 6]");
  CHECK(error_of("  y = dynamic_slice(x, full([2], 0.0), [1, 1])\n").find("offsets must be i32[2]") !=
        std::string::npos);
  CHECK(error_of("  input at: i32[2]\n  y = dynamic_slice(x, at, [5, 1])\n").find("does not fit") != std::string::npos);
  CHECK(error_of("  input at: i32[2]\n  y = dynamic_slice(x, at, 2)\n").find("a list of ints") != std::string::npos);
  CHECK(error_of("  y = scatter_update(x, full([2], 0.0), x)\n").find("indices must be i32[k]") != std::string::npos);
}

TEST_CASE("the seed's statistics and sampler builtins: types") {
  const Model m = model(
      "  input label: i32[batch, 1]\n"
      "  v = reshape(x, [-1])\n"
      "  lv = fixed_width_bins(v, 5)\n"
      "  output a = lv\n"
      "  output b = histogram_update(histogram(v, lv), v, lv, absolute_of_input = true)\n"
      "  output c = candidate_sampler(label, 3, 10)\n");
  CHECK(type_of(m, "a") == "f32[5]");
  CHECK(type_of(m, "b") == "f32[6]");
  CHECK(type_of(m, "c") == "f32[7, 2]");
  CHECK(error_of("  y = fixed_width_bins(reshape(x, [-1]), 0)\n").find("n_bins is 0") != std::string::npos);
}
