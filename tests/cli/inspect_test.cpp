// `iputrain inspect FILE` (issue 48's new command): a weight file written by `train --save`, a
// checkpoint directory (its newest file, as --resume reads it) and a checkpoint file, in text and
// as one JSON object; a missing path, a file that is not safetensors, a truncated file and a
// directory without checkpoints each get their error, naming the path, with a hint. The records of
// several lines (the run's keys, the registered ops) are shown a line each.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../scratch_dir.hpp"
#include "core/data/safetensors.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::Run;
namespace fs = std::filesystem;

const std::string kInspectCase = "cases/checkpoint.ipu cases/checkpoint.toml ";

bool inspect_shows(const Run& r, const std::string& text) {
  if (r.out.find(text) != std::string::npos) {
    return true;
  }
  MESSAGE("output was:\n" << r.out);
  return false;
}

fs::path inspect_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("inspect_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("inspect: a weight file written by train --save, as text and as JSON") {
  const fs::path dir = inspect_dir("weights");
  const std::string w = (dir / "w.safetensors").string();
  REQUIRE(cli_test::iputrain("train " + kInspectCase + "-q --no-eval --set training.steps=3 --save " + w).status == 0);

  const Run text = cli_test::iputrain("inspect " + w, "2>&1");
  CHECK(text.status == 0);
  CHECK(inspect_shows(text, w + ": a weight file of model `ckpt` at step 3"));
  CHECK(inspect_shows(text, "  format = iputrain\n"));
  // The model's four parameters: dense kernels [16, 16] and [16, 10] and their biases.
  CHECK(inspect_shows(text, "weights: 4 tensors, 442 elements, 1768 bytes\n"));
  CHECK(inspect_shows(text, "features/dense/kernel"));
  CHECK(inspect_shows(text, "[16, 16]"));
  CHECK(text.out.find("optimizer state") == std::string::npos);
  CHECK(inspect_shows(text, "total: 4 tensors, 442 elements, 1768 bytes\n"));

  const Run json = cli_test::iputrain("inspect --format json " + w, "2>/dev/null");
  REQUIRE(json.status == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["kind"] == "weights");
  CHECK(j["model"] == "ckpt");
  CHECK(j["step"] == 3);
  CHECK(j["file_bytes"] == fs::file_size(w));
  REQUIRE(j["tensors"].size() == 4);
  int64_t elements = 0;
  for (const nlohmann::json& t : j["tensors"]) {
    CHECK(t["dtype"] == "F32");
    CHECK(t["bytes"] == 4 * t["elements"].get<int64_t>());
    CHECK(t["optimizer_state"] == false);
    elements += t["elements"].get<int64_t>();
  }
  CHECK(elements == 442);
  CHECK(j["total"]["bytes"] == 1768);
  CHECK(j["optimizer_state"]["tensors"] == 0);
}

TEST_CASE("inspect: a checkpoint directory shows its newest checkpoint, its run and its optimizer state") {
  const fs::path dir = inspect_dir("checkpoints");
  const fs::path ckpt = dir / "run";
  REQUIRE(cli_test::iputrain("train " + kInspectCase +
                             "-q --no-eval --set checkpoint.every=6 --set checkpoint.dir=" + ckpt.string())
              .status == 0);
  const std::string newest = (ckpt / "step-00000012.safetensors").string();

  const Run text = cli_test::iputrain("inspect " + ckpt.string(), "2>&1");
  CHECK(text.status == 0);
  CHECK(inspect_shows(
      text, newest + " (the newest checkpoint of " + ckpt.string() + "): a checkpoint of model `ckpt` at step 12"));
  CHECK(inspect_shows(text, "  optimizer = adam\n"));
  CHECK(inspect_shows(text, "the run it continues (the keys --resume checks):\n"));
  CHECK(inspect_shows(text, "training.seed = 5"));
  CHECK(inspect_shows(text, "weights: 4 tensors, 442 elements, 1768 bytes\n"));
  // Adam keeps two arrays per weight.
  CHECK(inspect_shows(text, "optimizer state (adam, 2 arrays per weight): 8 tensors, 884 elements, 3536 bytes\n"));
  CHECK(inspect_shows(text, "optimizer/0/features/dense/kernel"));
  CHECK(inspect_shows(text, "total: 12 tensors, 1326 elements, 5304 bytes\n"));

  // The older checkpoint file, named directly.
  const std::string older = (ckpt / "step-00000006.safetensors").string();
  const Run json = cli_test::iputrain("inspect " + older + " --format json", "2>/dev/null");
  REQUIRE(json.status == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["kind"] == "checkpoint");
  CHECK(j["path"] == older);
  CHECK(j["step"] == 6);
  CHECK(j["metadata"]["optimizer"] == "adam");
  CHECK(j["metadata"]["samples"] == "96");
  CHECK(j["optimizer_state"]["tensors"] == 8);
  CHECK(j["weights"]["elements"] == 442);

  // The model calls no registered op, so the checkpoint records none; one whose model calls some
  // (as a program embedding iputrain writes it; the command registers none) shows their
  // registration as the run's keys, a line each.
  CHECK(text.out.find("registered") == std::string::npos);
  iputrain::data::SafetensorsFile file = iputrain::data::read_safetensors(older);
  file.metadata["registered_ops"] = "leaky.inputs = [\"x\"]\nleaky.attributes = {slope = 0.1}\n";
  const std::string with_ops = (dir / "with_ops.safetensors").string();
  iputrain::data::write_safetensors(with_ops, file.tensors, file.metadata);
  const Run ops = cli_test::iputrain("inspect " + with_ops, "2>&1");
  CHECK(ops.status == 0);
  CHECK(inspect_shows(ops,
                      "the registered ops its model calls (their registration, which a resume checks):\n"
                      "  leaky.inputs = [\"x\"]\n  leaky.attributes = {slope = 0.1}\nweights: "));
  CHECK(ops.out.find("registered_ops =") == std::string::npos);
}

TEST_CASE("inspect: bad input is refused naming the path, with a hint and the exit status of its kind") {
  const fs::path dir = inspect_dir("bad");

  // A path that does not exist: a usage error located on the command line, as for every command.
  const Run missing = cli_test::iputrain("inspect " + (dir / "nope.safetensors").string());
  CHECK(missing.status == 2);
  CHECK(inspect_shows(missing, "error: `file` path `" + (dir / "nope.safetensors").string() + "` does not exist"));
  CHECK(inspect_shows(missing, "hint: "));

  // Not safetensors: a text file.
  const fs::path text = dir / "notes.txt";
  std::ofstream(text) << "these are not weights\n";
  const Run not_weights = cli_test::iputrain("inspect " + text.string());
  CHECK(not_weights.status == 1);
  CHECK(inspect_shows(not_weights, "error: `" + text.string() + "`: "));
  CHECK(inspect_shows(not_weights, "hint: the file is not a valid safetensors weight file"));

  // A weight file cut short: its header promises more data than the file holds.
  const fs::path whole = dir / "whole.safetensors";
  REQUIRE(cli_test::iputrain("train " + kInspectCase + "-q --no-eval --set training.steps=3 --save " + whole.string())
              .status == 0);
  const fs::path cut = dir / "cut.safetensors";
  const std::string bytes = cli_test::bytes_of(whole);
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 100);
  const Run truncated = cli_test::iputrain("inspect " + cut.string());
  CHECK(truncated.status == 1);
  CHECK(inspect_shows(truncated, "error: `" + cut.string() + "`: "));
  CHECK(inspect_shows(truncated, "damaged or incomplete"));

  // A directory with no checkpoint in it.
  const fs::path empty = dir / "empty";
  fs::create_directories(empty);
  const Run none = cli_test::iputrain("inspect " + empty.string());
  CHECK(none.status == 1);
  CHECK(inspect_shows(none, "error: `" + empty.string() + "` holds no checkpoint (no step-*.safetensors file)"));
  CHECK(inspect_shows(none, "hint: train with `checkpoint.dir` set"));

  // A closed list of formats.
  const Run format = cli_test::iputrain("inspect " + whole.string() + " --format yaml");
  CHECK(format.status == 2);
}
