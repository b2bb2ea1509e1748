// Cross-key rules (frontend/config/rules.cpp): each rule accepts a good config and rejects a bad
// one with an error located at the offending key.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/optim_table.hpp"
#include "core/pipeline_schedules/layout_rules.hpp"
#include "frontend/config/rules.hpp"
#include "iputrain/config_loader.hpp"
#include "layout_check.hpp"

using iputrain::Config;
namespace config = iputrain::config;
using iputrain::config_test::check_against_model;

namespace {

// The plain keys a run under `c` uses, each settled by its line.
iputrain::PlainKeys settled(const Config& c) { return config::resolve(c).plain; }

//! The error of loading `text`; fails the test if it loads.
iputrain::Error error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    (void)config::parse(text, "r.toml", sets);
  } catch (const iputrain::Error& e) {
    return e;
  }
  FAIL("the config loaded: " << text);
  return iputrain::Error(iputrain::ErrorKind::Internal, "unreachable");
}

//! Checks that `text` fails with a message containing `part`, located on line `line` of r.toml.
void rejects(const std::string& text, const std::string& part, int line) {
  INFO(text);
  auto e = error_of(text);
  CHECK(e.kind() == iputrain::ErrorKind::Config);
  CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.render());
  REQUIRE(e.span().valid());
  CHECK(e.span().line == line);
  CHECK_FALSE(e.hint().empty());
}

iputrain::Error model_error(const Config& c, const std::vector<std::string>& stages, int64_t outputs = -1) {
  try {
    (void)check_against_model(c, stages, outputs);
  } catch (const iputrain::Error& e) {
    return e;
  }
  FAIL("check_against_model passed");
  return iputrain::Error(iputrain::ErrorKind::Internal, "unreachable");
}

}  // namespace

TEST_CASE("auto_select_ipus and select_ipus are exclusive, select_ipus ids are distinct") {
  CHECK(config::num_ipus(config::parse("[ipu]\nselect_ipus = [24]\n")) == 4);
  // Every listed device counts: IPU 3 and the pair [0, 1].
  CHECK(config::num_ipus(config::parse("[ipu]\nselect_ipus = [3, 16]\n")) == 3);
  CHECK(config::selected_ipus({3, 16}) == std::vector<int32_t>{3, 0, 1});
  CHECK(config::selected_ipus({26, 5, 30}).size() == 21);
  CHECK(config::selected_ipus({17}) == std::vector<int32_t>{2, 3});
  rejects("[ipu]\nselect_ipus = [1, 24]\n", "uses IPU 1 twice", 2);
  CHECK(config::num_ipus(config::parse("[ipu]\nauto_select_ipus = 8\n")) == 8);
  rejects("[ipu]\nauto_select_ipus = 2\nselect_ipus = [1]\n", "cannot both be set", 3);
  rejects("[ipu]\nselect_ipus = [1, 2, 1]\n", "lists 1 twice", 2);
  rejects("[ipu]\nselect_ipus = [31]\n", "between 0 and 30", 2);
  // A later file or --set replaces the other one instead of contradicting it.
  Config c = config::parse("[ipu]\nauto_select_ipus = 2\n", "r.toml", {"ipu.select_ipus=[28]"});
  CHECK(config::num_ipus(c) == 8);
  CHECK(c.plain.ipu_auto_select_ipus == 1);
}

TEST_CASE("IPUs = IPUs per replica x replicas") {
  Config ok = config::parse("[ipu]\nauto_select_ipus = 6\n[pipeline]\ndevice_mapping = [0, 1, 2]\n");
  CHECK(check_against_model(ok, {"a", "b", "c"}).replicas == 2);
  rejects("[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1, 2]\n", "needs 3 IPUs per replica",
          4);
  rejects("[ipu]\nauto_select_ipus = 2\n[pipeline]\nstages = [\"a\", \"b\", \"c\"]\n", "one IPU per stage",
          2);
  // Without a mapping the model decides: 3 stages need 3 IPUs per replica.
  auto e = model_error(config::parse("[ipu]\nauto_select_ipus = 4\n"), {"a", "b", "c"});
  CHECK(std::string(e.what()).find("3 IPUs per replica") != std::string::npos);
  CHECK(e.span().line == 2);
}

TEST_CASE("device_mapping has one entry per stage") {
  rejects("[ipu]\nauto_select_ipus = 2\n[pipeline]\nstages = [\"a\", \"b\"]\ndevice_mapping = [0, 1, 1]\n",
          "has 3 entries but `pipeline.stages` lists 2", 5);
  Config c = config::parse("[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\n");
  CHECK(check_against_model(c, {"a", "b"}).ipus_per_replica == 2);
  auto e = model_error(c, {"a", "b", "c"});
  CHECK(std::string(e.what()).find("has 2 entries but the model has 3 stages") != std::string::npos);
  CHECK(e.span().line == 4);
  // A parallel block is one position: one entry, one IPU per member stage (or one for all).
  Config p = config::parse("[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, [1, 2], 3]\n");
  const std::vector<std::vector<std::string>> positions = {{"a"}, {"b1", "b2"}, {"c"}};
  auto shape = iputrain::config_test::check_against_positions(p, positions, -1, true);
  CHECK(shape.ipus_per_replica == 4);
  CHECK(shape.gradient_accumulation_count == 6);
  // A list for a single stage, or of the wrong length for a block, is refused at the key.
  Config bad = config::parse("[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [[0, 1], 2, 3]\n");
  try {
    (void)iputrain::config_test::check_against_positions(bad, positions, -1, true);
    FAIL("accepted a two-IPU entry for a single stage");
  } catch (const iputrain::Error& err) {
    CHECK(std::string(err.what()).find("entry 0 lists 2 IPUs, but that position holds 1 stage [a]") !=
          std::string::npos);
    CHECK(err.span().line == 4);
  }
}

TEST_CASE("pipeline.stages must match the model's stages") {
  Config c = config::parse("[ipu]\nauto_select_ipus = 2\n[pipeline]\nstages = [\"features\", \"classifier\"]\n");
  CHECK(check_against_model(c, {"features", "classifier"}).stages == 2);
  auto e = model_error(c, {"classifier", "features"});
  CHECK(std::string(e.what()).find("the model's stages are [classifier, features]") != std::string::npos);
  rejects("[pipeline]\nstages = [\"only\"]\n", "a pipeline has at least two", 2);
  rejects("[ipu]\nauto_select_ipus = 2\n[pipeline]\nstages = [\"a\", \"a\"]\n", "lists \"a\" twice", 4);
}

TEST_CASE("gradient accumulation count suits the schedule") {
  const std::string two = "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\n";
  // grouped training: a multiple of 2 x stages
  CHECK_NOTHROW(config::parse(two + "gradient_accumulation_count = 8\n"));
  rejects(two + "gradient_accumulation_count = 6\n", "grouped training with 2 stages needs a multiple of 4",
          5);
  rejects(two + "gradient_accumulation_count = 2\n", "needs a multiple of 4", 5);
  // interleaved: a multiple of the IPUs
  CHECK_NOTHROW(config::parse(two + "schedule = \"interleaved\"\ngradient_accumulation_count = 6\n"));
  rejects(two + "schedule = \"interleaved\"\ngradient_accumulation_count = 3\n", "needs a multiple of 2", 6);
  // sequential: anything
  CHECK_NOTHROW(config::parse(two + "schedule = \"sequential\"\ngradient_accumulation_count = 3\n"));
  // inference needs only `stages` for grouped
  Config c = config::parse(two + "gradient_accumulation_count = 2\n", "r.toml", {"pipeline.schedule=sequential"});
  CHECK(iputrain::pipeline_schedules::min_gradient_accumulation(
            iputrain::pipeline_schedules::schedule_def(iputrain::pipeline_schedules::ScheduleKind::Grouped), 2, 2,
            false) == 2);
  CHECK(check_against_model(c, {"a", "b"}, -1, false).gradient_accumulation_count == 2);
  // Unset: the planner gets the minimum.
  Config d = config::parse(two);
  CHECK(check_against_model(d, {"a", "b"}).gradient_accumulation_count == 4);
  // Known only from the model.
  Config e = config::parse("[ipu]\nauto_select_ipus = 3\n[pipeline]\ngradient_accumulation_count = 4\n");
  auto err = model_error(e, {"a", "b", "c"});
  CHECK(std::string(err.what()).find("needs a multiple of 6") != std::string::npos);
}

TEST_CASE("interleaved training never puts two stages on one IPU") {
  CHECK_NOTHROW(config::parse("[pipeline]\ndevice_mapping = [0, 0]\n"));  // grouped may share
  rejects("[pipeline]\nschedule = \"interleaved\"\ndevice_mapping = [0, 0]\n",
          "stages 0 and 1 are both on IPU 0", 3);
  rejects(
      "[ipu]\nauto_select_ipus = 3\n[pipeline]\nschedule = \"interleaved\"\ndevice_mapping = [0, [1, 2], "
      "2]\n",
      "on IPU 2", 5);
}

TEST_CASE("batch serialization forces the sequential schedule on one IPU") {
  Config c = config::parse("[pipeline]\nbatch_serialization_iterations = 4\n[data]\nbatch_size = 8\n");
  CHECK(c.plain.pipeline_schedule == "grouped");  // as written (the default); the run's is settled
  CHECK(settled(c).pipeline_schedule == "sequential");
  Config d = config::parse(
      "[pipeline]\nbatch_serialization_iterations = 4\ndevice_mapping = [0, 0, 0]\n[data]\nbatch_size = 8\n");
  CHECK(check_against_model(d, {"a", "b", "c"}).ipus_per_replica == 1);
  rejects("[pipeline]\nbatch_serialization_iterations = 2\nschedule = \"grouped\"\n",
          "needs the sequential schedule", 3);
  rejects(
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\nbatch_serialization_iterations = 2\ndevice_mapping = [0, "
      "1]\n",
      "runs every stage on one IPU", 5);
  rejects("[pipeline]\nbatch_serialization_iterations = 2\nreduction_method = \"mean\"\n", "needs", 3);
}

TEST_CASE("outfeed rules") {
  rejects("[pipeline]\noutfeed_loss = true\noutfeed_mask = [true]\n", "cannot be combined", 3);
  rejects("[pipeline]\naccumulate_outfeed = true\n[training]\noutfeed_mode = \"last\"\n",
          "needs `training.outfeed_mode`", 2);
  Config c = config::parse("[pipeline]\noutfeed_mask = [true, false]\n");
  CHECK_NOTHROW(check_against_model(c, {"a"}, 2));
  auto e = model_error(c, {"a"}, 3);
  CHECK(std::string(e.what()).find("has 2 flags but the last stage has 3 outputs") != std::string::npos);
}

TEST_CASE("recomputation mode suits the schedule, and needs recomputation on") {
  const std::string on = "[ipu]\nallow_recompute = true\n";
  CHECK_NOTHROW(config::parse(on + "[pipeline]\nrecomputation_mode = \"RecomputeThenBackpropagate\"\n"));
  rejects(on + "[pipeline]\nschedule = \"sequential\"\nrecomputation_mode = \"recompute_then_backpropagate\"\n",
          "grouped, interleaved, zero_bubble and zero_bubble_h2 schedules only", 5);
  rejects(on + "[pipeline]\nschedule = \"interleaved\"\nrecomputation_mode = "
               "\"recompute_and_backpropagate_interleaved\"\n",
          "grouped, sequential, zero_bubble and zero_bubble_h2 schedules only", 5);
  CHECK_NOTHROW(config::parse(on + "[pipeline]\nschedule = \"zero_bubble\"\nrecomputation_mode = "
                                   "\"recompute_and_backpropagate_interleaved\"\n"));
  // A mode without recomputation would do nothing; `auto`, the default, is accepted either way.
  rejects("[pipeline]\nrecomputation_mode = \"recompute_then_backpropagate\"\n",
          "has no effect while `ipu.allow_recompute` is off", 2);
  CHECK_NOTHROW(config::parse("[pipeline]\nrecomputation_mode = \"auto\"\n"));
}

TEST_CASE("pipeline options the seeds reject or tie together") {
  rejects("[pipeline]\ncontinuous_weight_updates = true\n", "is refused: the seeds' pipeline does not implement it", 2);
  rejects("[pipeline]\nreplicated_weight_sharding = false\noffload_weights = true\n",
          "replicated weight sharding", 3);
  CHECK_NOTHROW(config::parse("[pipeline]\noffload_weights = true\n"));
  Config c = config::parse("[pipeline]\nforward_propagation_stages_poplar_options = [{}, {}]\n");
  CHECK_NOTHROW(check_against_model(c, {"a", "b"}, -1, true));
  auto e = model_error(c, {"a", "b", "c"});
  CHECK(std::string(e.what()).find("has 2 entries but the model has 3 stages") != std::string::npos);
}

TEST_CASE("keys the engine refuses: device attachment") {
  // Refused before any rule about them is checked: a rule cannot make them act.
  // Distributed batch norm acts, pipelined too (tests/engine/replica_collectives_test.cpp).
  CHECK_NOTHROW(
      config::parse("[ipu]\nauto_select_ipus = 4\n[ipu.norms.experimental]\n"
                    "distributed_batch_norm_replica_group_size = 2\n[pipeline]\ndevice_mapping = [0, 1]\n"));
  rejects("[ipu.device_connection]\ntype = \"PRE_COMPILE\"\nversion = \"ipu2\"\n", "is refused: every virtual IPU is attached", 2);
  // The instance keys act (tests/distributed); only an index past the count is refused here.
  rejects("[ipu.experimental.multi_replica_distribution]\nprocess_count = 2\nprocess_index = 2\n",
          "`process_index` = 2 must be less than `process_count` = 2", 3);
  CHECK_NOTHROW(config::parse("[ipu.experimental.multi_replica_distribution]\nprocess_count = 2\nprocess_index = 1\n"));
  // Their defaults, written out, are accepted.
  CHECK_NOTHROW(
      config::parse("[ipu.device_connection]\ntype = \"always\"\n[ipu.experimental.multi_replica_distribution]\n"
                    "process_count = 0\n"));
}

TEST_CASE("scheduler and I/O-tile rules") {
  rejects("[ipu.scheduling]\nmaximum_scheduler_lookahead_depth = 3\n", "applies only to the look_ahead", 2);
  CHECK_NOTHROW(
      config::parse("[ipu.scheduling]\nalgorithm = \"LOOK_AHEAD\"\nmaximum_scheduler_search_space_size = 8\n"));
  rejects("[ipu.io_tiles]\nplace_ops_on_io_tiles = true\n", "there are none", 2);
  rejects("[ipu.io_tiles]\nnum_io_tiles = 1472\n", "leave no compute tiles", 2);
}

TEST_CASE("the device: a version's preset, explicit device figures, the IPU Model's tile count") {
  // Either version key picks the preset, and both then hold it.
  for (const char* text : {"[device]\nversion = \"bow\"\n", "[ipu.ipu_model]\nversion = \"BOW\"\n"}) {
    CAPTURE(text);
    const Config c = config::parse(text);
    CHECK(settled(c).device_version == iputrain::IpuVersion::Bow);
    CHECK(settled(c).ipu_ipu_model_version == iputrain::IpuVersion::Bow);
    CHECK(settled(c).device_clock_hz == 1.85e9);
    CHECK(settled(c).device_tiles_per_ipu == 1472);
    CHECK(settled(c).device_memory_per_tile == 624 * 1024);
  }
  const Config one = config::parse("[ipu.ipu_model]\nversion = \"ipu1\"\n");
  CHECK(settled(one).device_version == iputrain::IpuVersion::Ipu1);
  CHECK(settled(one).device_tiles_per_ipu == 1216);
  CHECK(settled(one).device_memory_per_tile == 256 * 1024);
  CHECK(settled(one).device_flops_per_tile_per_cycle_fp16 == 64);
  // A figure set explicitly replaces the preset's; the others stay the version's.
  const Config fast = config::parse("[device]\nversion = \"ipu1\"\nclock_hz = 2e9\n");
  CHECK(settled(fast).device_clock_hz == 2e9);
  CHECK(settled(fast).device_tiles_per_ipu == 1216);
  // The IPU Model's tile count sets the device's, on top of the version's preset.
  const Config small = config::parse("[ipu.ipu_model]\nversion = \"bow\"\ntiles_per_ipu = 4\n");
  CHECK(settled(small).device_tiles_per_ipu == 4);
  CHECK(settled(small).device_clock_hz == 1.85e9);
  CHECK(settled(config::parse("[ipu.ipu_model]\ntiles_per_ipu = 8\n[device]\ntiles_per_ipu = 8\n"))
            .device_tiles_per_ipu == 8);
  // Two answers to one question are refused, naming both keys.
  for (const char* both : {"`device.version` = \"ipu2\"", "`ipu.ipu_model.version` = \"ipu1\""}) {
    rejects("[ipu.ipu_model]\nversion = \"ipu1\"\n[device]\nversion = \"ipu2\"\n", both, 4);
  }
  const auto e = error_of("[device]\nversion = \"bow\"\n", {"ipu.ipu_model.version=ipu2"});
  CHECK(std::string(e.what()).find("contradicts") != std::string::npos);
  for (const char* both : {"`ipu.ipu_model.tiles_per_ipu` = 4", "`device.tiles_per_ipu` = 1472"}) {
    rejects("[ipu.ipu_model]\ntiles_per_ipu = 4\n[device]\ntiles_per_ipu = 1472\n", both, 2);
  }
  // I/O tiles are checked against the resolved tile count.
  rejects("[ipu.ipu_model]\ntiles_per_ipu = 4\n[ipu.io_tiles]\nnum_io_tiles = 4\n", "leave no compute tiles",
          4);
}

// set_all is settled by the five flags' lines when the config is resolved; the config keeps what
// was written, so `config show` writes set_all alone and loads back the same.
TEST_CASE("set_all turns every floating-point flag on") {
  const Config c = config::parse("[ipu.floating_point_behaviour]\nset_all = true\n");
  const iputrain::PlainKeys fp = config::resolve(c).plain;
  CHECK((fp.ipu_floating_point_behaviour_inv && fp.ipu_floating_point_behaviour_div0 &&
         fp.ipu_floating_point_behaviour_oflo && fp.ipu_floating_point_behaviour_esr &&
         fp.ipu_floating_point_behaviour_nanoo));
  CHECK(!c.plain.ipu_floating_point_behaviour_inv);
  const std::string shown = config::show(c);
  CHECK(shown.find("set_all = true") != std::string::npos);
  CHECK(shown.find("\ninv = true") == std::string::npos);
  CHECK(config::resolve(config::parse(shown)).plain.ipu_floating_point_behaviour_nanoo);
  CHECK(!config::resolve(Config{}).plain.ipu_floating_point_behaviour_inv);
}

TEST_CASE("optimizer hyper-parameters belong to their optimizer") {
  CHECK_NOTHROW(config::parse("[optimizer]\ntype = \"adam\"\nbeta1 = 0.8\nepsilon = 1e-6\n"));
  CHECK_NOTHROW(config::parse("[optimizer]\ntype = \"rmsprop\"\nrho = 0.95\ncentered = true\n"));
  rejects("[optimizer]\ntype = \"sgd\"\nmomentum = 0.9\n", "has no effect with `optimizer.type` = \"sgd\"",
          3);
  rejects("[optimizer]\ntype = \"momentum\"\nbeta2 = 0.99\n", "has no effect", 3);
  auto e = error_of("[optimizer]\nbeta1 = 0.9\n");
  CHECK(e.hint() == "it is used by: adam, adamw, lamb, lion, adafactor; remove it or change the optimizer");
}

TEST_CASE("the optimizer table decides which hyper-parameters each optimizer accepts") {
  for (const auto* def : iputrain::optimizer_table()) {
    for (const auto& key : iputrain::optimizer_hyper_keys()) {
      const iputrain::HyperParam* own = def->find(key.name);
      const iputrain::HyperParam& p = own != nullptr ? *own : *key.first;
      const std::string value = p.flag ? "true" : fmt::format("{}", p.default_value);
      const std::string text = fmt::format("[optimizer]\ntype = \"{}\"\n{} = {}\n", def->name, p.name, value);
      INFO(text);
      if (own != nullptr) {
        CHECK_NOTHROW(config::parse(text));
      } else {
        rejects(text, fmt::format("`optimizer.{}` has no effect with `optimizer.type` = \"{}\"", p.name, def->name), 3);
      }
    }
  }
  // The ranges come from the table too: a decay of 1 would freeze the average.
  rejects("[optimizer]\ntype = \"adam\"\nbeta2 = 1.0\n", "optimizer.beta2", 3);
}

TEST_CASE("lion reads beta1, beta2 (its own default 0.99) and weight_decay, by the table") {
  const auto lion = config::resolve(config::parse("[optimizer]\ntype = \"lion\"\nweight_decay = 0.1\n")).optimizer;
  CHECK(lion.type == "lion");
  CHECK(lion.hyper.size() == 3);  // its own hyper-parameters only
  CHECK(lion.param("beta1") == 0.9);
  CHECK(lion.param("beta2") == 0.99);
  CHECK(lion.param("weight_decay") == 0.1);
  // Written in the file, even the general default counts.
  CHECK(config::resolve(config::parse("[optimizer]\ntype = \"lion\"\nbeta2 = 0.999\n")).optimizer.param("beta2") ==
        0.999);
  CHECK(config::resolve(config::parse("[optimizer]\ntype = \"adam\"\n")).optimizer.param("beta2") == 0.999);
  rejects("[optimizer]\ntype = \"lion\"\nepsilon = 1e-6\n",
          "`optimizer.epsilon` has no effect with `optimizer.type` = \"lion\"", 3);
  auto e = error_of("[optimizer]\ntype = \"lion\"\nmomentum = 0.9\n");
  CHECK(e.hint() == "it is used by: momentum, lars; remove it or change the optimizer");
  rejects("[optimizer]\ntype = \"lion\"\nbeta1 = 1.5\n", "optimizer.beta1", 3);
  rejects("[optimizer]\ntype = \"lion\"\nbeta2 = -0.1\n", "optimizer.beta2", 3);
  CHECK(config::find_key("optimizer.beta2")->doc ==
        "Decay of the second-moment estimate (adam, adamw, lamb, lion). Default 0.99 for lion.");
}

TEST_CASE("adafactor's state is not element-wise: replicated state and weight sharding are refused") {
  CHECK_NOTHROW(config::parse("[optimizer]\ntype = \"adafactor\"\nbeta1 = 0.9\nepsilon2 = 1e-4\n"));
  rejects("[optimizer]\ntype = \"adafactor\"\n[pipeline]\nreplicated_optimizer_state_sharding = true\n",
          "`pipeline.replicated_optimizer_state_sharding` splits every tensor's optimizer state", 4);
  auto e = error_of("[optimizer]\ntype = \"adafactor\"\n[pipeline]\nreplicated_weight_sharding = true\n");
  CHECK(e.hint() == "turn the sharding off, or choose an optimizer with element-wise state (adam, lamb, ...)");
  rejects("[optimizer]\ntype = \"adafactor\"\nepsilon = 1e-6\n", "has no effect with `optimizer.type` = \"adafactor\"",
          3);
  rejects("[optimizer]\ntype = \"adam\"\nclip_threshold = 2.0\n", "has no effect with `optimizer.type` = \"adam\"", 3);
  rejects("[optimizer]\ntype = \"adafactor\"\nbeta2_decay = 0.5\n", "optimizer.beta2_decay", 3);
}

TEST_CASE("profiling and checkpoint rules") {
  rejects("[profiling]\nprofile_execution = \"TILE_PROFILE\"\n", "has no effect without `profiling.enabled`", 2);
  CHECK_NOTHROW(config::parse("[profiling]\nenabled = true\nprofile_execution = \"tile_profile\"\n"));
  rejects("[checkpoint]\nevery = 100\n", "`checkpoint.dir` is not", 2);
  Config c = config::parse("[training]\ncheckpoint = { dir = \"runs\", every = 10, keep = 0 }\n");
  CHECK(c.plain.checkpoint_dir == "runs");
  CHECK(c.plain.checkpoint_every == 10);
  CHECK(c.plain.checkpoint_keep == 0);
  CHECK(c.span_of("checkpoint.every").line == 2);
  rejects("[checkpoint]\ndir = \"a\"\n[training]\ncheckpoint = { dir = \"b\" }\n", "is set twice", 4);
}

TEST_CASE("pipelining is on for a replica over several IPUs, or a schedule or mapping asked for") {
  // One IPU, a pipeline name and an offload flag: no pipeline, one micro-batch per update.
  auto named = check_against_model(config::parse("[pipeline]\nname = \"x\"\noffload_weight_update_variables = true\n"),
                                   {"a", "b"});
  CHECK_FALSE(named.pipelined);
  CHECK(named.gradient_accumulation_count == 1);
  // An accumulation count alone: the micro-batches run one after another.
  auto accumulated = check_against_model(config::parse("[pipeline]\ngradient_accumulation_count = 3\n"), {"a", "b"});
  CHECK_FALSE(accumulated.pipelined);
  CHECK(accumulated.gradient_accumulation_count == 3);
  // A schedule on one IPU, or two IPUs for two stages: pipelined, with the schedule's least count.
  auto scheduled = check_against_model(config::parse("[pipeline]\nschedule = \"grouped\"\n"), {"a", "b"});
  CHECK(scheduled.pipelined);
  CHECK(scheduled.gradient_accumulation_count == 4);
  CHECK(check_against_model(config::parse("[ipu]\nauto_select_ipus = 2\n"), {"a", "b"}).pipelined);
}

TEST_CASE("rule: the updates of one execution are bounded, so its host buffers are") {
  // pipeline.repeat_count = 2^31 - 1 ended in `internal error: std::bad_alloc` (issue 30).
  rejects("[training]\nsteps_per_execution = 4\n[pipeline]\nrepeat_count = 2147483647\n", "are more than 1048576", 4);
  rejects("[training]\nsteps_per_execution = 2000000\n", "are more than 1048576", 2);
  CHECK_NOTHROW(config::parse("[training]\nsteps_per_execution = 1024\n[pipeline]\nrepeat_count = 1024\n", "r.toml"));
}

TEST_CASE("resolve: per-stage memory options as numbers, the layout keys, and where each key was set") {
  const iputrain::Settings s = config::resolve(
      config::parse("[ipu.matmuls]\npoplar_options = { availableMemoryProportion = \"0.3\", partialsType = \"half\" }\n"
                    "[pipeline]\ngradient_accumulation_count = 4\nbatch_serialization_iterations = 1\n"
                    "forward_propagation_stages_poplar_options = [{}, { matmul_options = { availableMemoryProportion = "
                    "\"0.5\" } }]\n",
                    "r.toml"));
  CHECK(s.pipeline.memory.matmul.available_memory_proportion == 0.3);
  CHECK(s.pipeline.memory.matmul.half_partials);
  CHECK(s.pipeline.memory.convolution.available_memory_proportion == 0.6);
  REQUIRE(s.pipeline.forward_memory.size() == 2);
  CHECK(s.pipeline.forward_memory[0].matmul.available_memory_proportion == 0.3);  // the default table's
  CHECK(s.pipeline.forward_memory[1].matmul.available_memory_proportion == 0.5);
  CHECK(s.pipeline.forward_memory[1].matmul.half_partials);
  CHECK(s.pipeline.backward_memory.empty());
  CHECK(s.plain.pipeline_gradient_accumulation_count == 4);
  CHECK(s.plain.pipeline_batch_serialization_iterations == 1);
  CHECK(s.keys.is_set("pipeline.gradient_accumulation_count"));
  CHECK_FALSE(s.keys.is_set("pipeline.schedule"));
  // An option that is not a number of its kind is refused at its key.
  for (const char* options : {"{ availableMemoryProportion = \"1.5\" }", "{ partialsType = \"double\" }"}) {
    INFO(options);
    try {
      (void)config::resolve(config::parse(fmt::format("[ipu.matmuls]\npoplar_options = {}\n", options), "r.toml"));
      FAIL("resolved");
    } catch (const iputrain::Error& e) {
      CHECK(e.kind() == iputrain::ErrorKind::Config);
      REQUIRE(e.span().valid());
      CHECK(e.span().line == 2);
      CHECK_FALSE(e.hint().empty());
    }
  }
}
