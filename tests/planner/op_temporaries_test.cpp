// Matmul and convolution temporaries under availableMemoryProportion and partialsType, worked out
// by hand, and the options that set them from the config.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"
#include "two_stage_graph.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;

namespace {

// y = a @ b with a [m, k] and b [k, n].
struct Product {
  Graph g;
  ValueId y = kNoValue;
};
Product product(int64_t m, int64_t k, int64_t n) {
  Product p;
  p.g.stages = {{"s", {}, -1}};
  p.g.set_cursor(0, Phase::Forward);
  const ValueId a = p.g.add_input("a", {DType::F32, {m, k}});
  const ValueId b = p.g.add_param("b", {DType::F32, {k, n}}, Attrs{{"init", std::string("zeros")}});
  p.y = p.g.add(OpKind::MatMul, {a, b});
  return p;
}

}  // namespace

TEST_CASE("a matmul's temporaries: its operands and its result again, within its share of memory") {
  const Product p = product(1024, 1024, 1024);
  DeviceModel d = DeviceModel::ipu2();  // 1472 x 624 KiB = 897 MiB
  // f32: (1M + 1M) x 4 + 1M x 4 = 12 MiB, far under 0.6 of the IPU.
  const OpTemporaries f32 = op_temporaries(p.g, p.y, StageLimits{}, d);
  CHECK(f32.bytes == 12 * 1024 * 1024);
  CHECK(f32.passes == 1);
  CHECK(f32.extra_cycles == 0);
  // Half compute: operands 2 bytes; partials stay f32 unless partialsType = half.
  d.compute = DType::F16;
  CHECK(op_temporaries(p.g, p.y, StageLimits{}, d).bytes == 8 * 1024 * 1024);
  StageLimits half;
  half.matmul.half_partials = true;
  CHECK(op_temporaries(p.g, p.y, half, d).bytes == 6 * 1024 * 1024);
  // A proportion of 0.005 leaves 4.49 MiB: 8 MiB in 2 passes of 4 MiB, the second re-reading the
  // 4 MiB of operands at 16 bytes per tile and cycle: 4 MiB / (1472 x 16) = 178 cycles.
  StageLimits tight;
  tight.matmul.available_memory_proportion = 0.005;
  const OpTemporaries two = op_temporaries(p.g, p.y, tight, d);
  CHECK(two.passes == 2);
  CHECK(two.bytes == 4 * 1024 * 1024);
  CHECK(two.extra_cycles == doctest::Approx(4.0 * 1024 * 1024 / (1472 * 16)));
  // Only matmuls and convolutions have them.
  CHECK_FALSE(has_temporaries(OpKind::Add));
  CHECK(has_temporaries(OpKind::Conv2DBackpropFilter));
}

TEST_CASE("availableMemoryProportion and partialsType come from the config, per stage and pass") {
  const std::string base = "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\n"
                           "gradient_accumulation_count = 4\n";
  const Plan plain = make_plan(planner_test::two_stage(), config::parse(base));
  CHECK(plain.limits(0, Phase::Forward).matmul.available_memory_proportion == 0.6);
  const Plan set = make_plan(
      planner_test::two_stage(),
      config::parse(
          "[ipu.matmuls]\npoplar_options = { availableMemoryProportion = \"0.3\", partialsType = \"half\" }\n" + base +
          "forward_propagation_stages_poplar_options = [ { matmul_options = { availableMemoryProportion = "
          "\"0.1\" } }, {} ]\n"));
  CHECK(set.limits(0, Phase::Forward).matmul.available_memory_proportion == 0.1);
  CHECK(set.limits(0, Phase::Forward).matmul.half_partials);  // from the global options
  CHECK(set.limits(1, Phase::Forward).matmul.available_memory_proportion == 0.3);
  CHECK(set.limits(0, Phase::Backward).matmul.available_memory_proportion == 0.3);
  CHECK(set.limits(0, Phase::Forward).convolution.available_memory_proportion == 0.6);

  // A proportion small enough to split the matmuls adds cycles and takes less memory.
  const Plan tight = make_plan(
      planner_test::two_stage(),
      config::parse("[ipu.matmuls]\npoplar_options = { availableMemoryProportion = \"0.0000001\" }\n" + base));
  CHECK(tight.cost.cycles_per_update > plain.cost.cycles_per_update);
  CHECK(tight.memory[0].activations_live < plain.memory[0].activations_live);

  for (const char* bad : {"availableMemoryProportion = \"1.5\"", "availableMemoryProportion = \"lots\"",
                          "partialsType = \"double\""}) {
    CAPTURE(bad);
    try {
      (void)make_plan(planner_test::two_stage(),
                      config::parse(fmt::format("[ipu.matmuls]\npoplar_options = {{ {} }}\n", bad) + base, "amp.toml"));
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Config);
      CHECK(e.span().line == 2);
    }
  }
}
