// `iputrain verify` (issue 33, item 6): every shipped config trains the same bits as its one-IPU
// reference, and a replica broken on purpose (the --test-perturb hook) is named: the tensor, the
// step, the replica and the stage, with exit status 1.
// Labelled `data`: the MNIST configs read Debian's Fashion-MNIST.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "shipped_configs.hpp"

namespace fs = std::filesystem;

namespace {

using cli_test::kModels;  // the example model of each config (shipped_configs.hpp)
using cli_test::kPresetData;

std::string example(const std::string& name) { return (fs::path(IPUTRAIN_SOURCE_DIR) / "examples" / name).string(); }
std::string config(const std::string& name) { return (fs::path(IPUTRAIN_SOURCE_DIR) / "configs" / name).string(); }

}  // namespace

TEST_CASE("verify: every config in configs/ trains the bits of its one-IPU reference") {
  int verified = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(IPUTRAIN_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".toml") {
      continue;
    }
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const auto model = kModels.find(name);
    REQUIRE_MESSAGE(model != kModels.end(), "a new config: name its example model in kModels");
    const bool preset = name == "bow.toml" || name == "ipu1.toml" || name == "ipu2.toml";
    const cli_test::Run r = cli_test::iputrain("verify " + example(model->second) + " " + entry.path().string() +
                                               " --steps 2" + (preset ? kPresetData : ""));
    CHECK_MESSAGE(r.status == 0, r.out);
    CHECK_MESSAGE(r.out.find("verify: bitwise equal:") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("after each of 2 steps") != std::string::npos, r.out);
    ++verified;
  }
  CHECK(verified == static_cast<int>(kModels.size()));
}

TEST_CASE("verify: a replica perturbed after step 2 is named with its tensor, step and stage") {
  // 2 replicas x 2 IPUs: the classifier's kernel lives on IPU 1 of each replica.
  const cli_test::Run r =
      cli_test::iputrain("verify " + example("mnist_mlp.ipu") + " " + config("mnist_pipelined_replicated.toml") +
                         " --steps 3 --test-perturb 2:1:classifier/dense/kernel");
  CHECK(r.status == 1);
  CHECK_MESSAGE(r.out.find("DIFFERS at step 2: `classifier/dense/kernel` (weight) on replica 1, stage `classifier`, "
                           "IPU 1 (physical IPU") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("largest absolute difference 1e-05") != std::string::npos, r.out);
  // Step 1 agreed: the report comes from the perturbed step, not before it.
  CHECK(r.out.find("every step before agreed") != std::string::npos);
  CHECK(r.out.find("bitwise equal") == std::string::npos);
}

TEST_CASE("verify: the test hook and --steps refuse bad values with a hint") {
  const std::string args = "verify " + example("mnist_mlp.ipu") + " " + config("mnist_pipelined_replicated.toml");
  const cli_test::Run unknown = cli_test::iputrain(args + " --steps 1 --test-perturb 1:1:no/such/weight");
  CHECK(unknown.status == 2);
  CHECK_MESSAGE(unknown.out.find("the model has no weight `no/such/weight`") != std::string::npos, unknown.out);
  const cli_test::Run zero = cli_test::iputrain(args + " --steps 0");
  CHECK(zero.status == 2);
  CHECK_MESSAGE(zero.out.find("verify needs at least one step") != std::string::npos, zero.out);
  // The hook stays out of --help (docs/cli.md documents what --help shows).
  CHECK(cli_test::iputrain("verify --help").out.find("test-perturb") == std::string::npos);
}

TEST_CASE("verify: a model computed across its replicas keeps them in its reference") {
  // Distributed batch norm in pairs over 2 replicas of 2 pipelined IPUs: the reference is 2
  // replicas of one IPU each (one IPU would normalise other micro-batches together).
  const fs::path dir = fs::temp_directory_path() / ("iputrain_verify_dbn_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "m.ipu") << "import nn\n\nmodel m(batch: int = 4) {\n  input image: f32[batch, 8, 8]\n"
                                  "  input label: i32[batch]\n  stage a {\n"
                                  "    h = nn.batch_norm(nn.dense(flatten(image), 16, activation = relu))\n  }\n"
                                  "  stage b {\n    loss = mean(softmax_cross_entropy(nn.dense(h, 10), label))\n  }\n"
                                  "  minimize loss\n  output loss\n}\n";
  std::ofstream(dir / "c.toml")
      << "[ipu]\nauto_select_ipus = 4\n[ipu.norms.experimental]\n"
         "distributed_batch_norm_replica_group_size = 2\n[pipeline]\ndevice_mapping = [0, 1]\n"
         "gradient_accumulation_count = 4\n[data]\ntrain = \"synthetic:samples=256,classes=10\"\n";
  const cli_test::Run r =
      cli_test::iputrain("verify " + (dir / "m.ipu").string() + " " + (dir / "c.toml").string() + " --steps 2");
  fs::remove_all(dir);
  CHECK_MESSAGE(r.status == 0, r.out);
  CHECK_MESSAGE(r.out.find("verify: reference 2 replicas x 1 IPU") != std::string::npos, r.out);
  CHECK_MESSAGE(r.out.find("computes values across its replicas") != std::string::npos, r.out);
  CHECK_MESSAGE(r.out.find("verify: bitwise equal:") != std::string::npos, r.out);
}
