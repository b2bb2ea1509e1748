// Faults while training: a full disk or a read-only folder during a checkpoint or --save
// (IPUTRAIN_FAULT_WRITE_ERROR, core/write_file.hpp) is an error that leaves the files already
// there intact; output paths are checked (their folders made) before the run, and weights whose
// --save still fails go to a recovery file; SIGINT and SIGTERM stop the run after the execution under way with a
// checkpoint, and a second signal ends it at once.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::bytes_of;
using cli_test::iputrain;
using cli_test::names_in;
using cli_test::Run;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kCase = "cases/checkpoint.ipu cases/checkpoint.toml ";

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("faults") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool has(const std::string& out, const std::string& text) {
  if (out.find(text) != std::string::npos) {
    return true;
  }
  MESSAGE("output was:\n" << out);
  return false;
}

// A training process of its own (exec'd by the shell, so signals reach iputrain itself), its
// output going to a file.
struct Child {
  pid_t pid = -1;
  fs::path log;

  Child(const std::string& args, const fs::path& log_path) : log(log_path) {
    const std::string cmd = "exec " + std::string(IPUTRAIN_BIN) + " " + args + " > " + log.string() + " 2>&1";
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  std::string output() const { return bytes_of(log); }
  //! Waits until the output holds `text` (true) or the process ended / 60 s passed (false). The
  //! 60 s are a hang guard, not a speed verdict: a loaded machine is slow, never that slow.
  bool wait_for(const std::string& text) const {
    const auto end = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < end) {
      if (output().find(text) != std::string::npos) {
        return true;
      }
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  //! The raw wait status. A hang guard, not a speed verdict: a child still running after 120 s is
  //! killed (SIGKILL, which the caller's checks then report), not left to CTest's timeout.
  int wait() const {
    int status = 0;
    const auto end = Clock::now() + std::chrono::seconds(120);
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (Clock::now() >= end) {
        MESSAGE("hung: killed after 120 s; output was:\n" << output());
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return status;
  }
};

}  // namespace

TEST_CASE("a full disk during a checkpoint is an error and the checkpoints already there stay intact") {
  const fs::path dir = fresh_dir("enospc");
  const std::string ckpt = "--set checkpoint.dir=" + dir.string() + " --set checkpoint.every=3 ";
  REQUIRE(iputrain("train " + kCase + "-q --no-eval " + ckpt).status == 0);
  const std::vector<std::string> before = names_in(dir);
  REQUIRE(before.size() == 4);
  const std::string last = bytes_of(dir / before.back());
  const Run r = iputrain("train " + kCase + "-q --no-eval " + ckpt + "--resume " + dir.string() +
                         " --set training.steps=15",
                         "2>&1", "IPUTRAIN_FAULT_WRITE_ERROR=ENOSPC");
  CHECK(r.status == 1);
  CHECK(has(r.out, "No space left on device"));
  CHECK(has(r.out, "error: cannot write weights to `" + dir.string() + "/step-00000015.safetensors`"));
  CHECK(r.out.find("internal error") == std::string::npos);
  CHECK(names_in(dir) == before);  // no temporary file left, nothing renamed over
  CHECK(bytes_of(dir / before.back()) == last);
  // The run resumes from the intact checkpoint once the disk has room.
  CHECK(iputrain("train " + kCase + "-q --no-eval " + ckpt + "--resume " + dir.string() + " --set training.steps=15")
            .status == 0);
}

TEST_CASE("the outfeed is written as every file is: a full disk leaves neither it nor a temporary file") {
  // Issue 44: one atomic writer (iputrain::AtomicFile) for the engine's files and the command's.
  const fs::path dir = fresh_dir("outfeed");
  for (const char* name : {"o.npy", "o.csv"}) {
    CAPTURE(name);
    const fs::path out = dir / name;
    const Run r = iputrain("train " + kCase + "-q --no-eval --outfeed " + out.string(), "2>&1",
                           "IPUTRAIN_FAULT_WRITE_ERROR=ENOSPC IPUTRAIN_FAULT_WRITE_PATH=" + dir.string());
    CHECK(r.status == 1);
    CHECK(has(r.out, "error: cannot write the outfeed to `" + (dir / "o").string()));  // o.npy, o.loss.npy, ...
    CHECK(has(r.out, "`: write failed: No space left on device"));
    CHECK(names_in(dir).empty());
    // Without the fault the same run writes it.
    CHECK(iputrain("train " + kCase + "-q --no-eval --outfeed " + out.string()).status == 0);
    CHECK(!names_in(dir).empty());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
}

TEST_CASE("--save into a read-only folder is an error and the file already there is untouched") {
  const fs::path dir = fresh_dir("erofs");
  const fs::path weights = dir / "w.safetensors";
  REQUIRE(iputrain("train " + kCase + "-q --no-eval --save " + weights.string()).status == 0);
  const std::string saved = bytes_of(weights);
  for (const char* fault : {"EROFS", "EIO"}) {
    CAPTURE(fault);
    const Run r = iputrain("train " + kCase + "-q --no-eval --set training.seed=9 --save " + weights.string(), "2>&1",
                           std::string("IPUTRAIN_FAULT_WRITE_ERROR=") + fault);
    CHECK(r.status == 1);
    CHECK(has(r.out, std::string(fault) == "EROFS" ? "Read-only file system" : "Input/output error"));
    CHECK(bytes_of(weights) == saved);
    CHECK(names_in(dir) == std::vector<std::string>{"w.safetensors"});
  }
}

TEST_CASE("the files a run ends by writing get their missing folders before its first step") {
  const fs::path dir = fresh_dir("new_folders");
  const fs::path weights = dir / "a/b/w.safetensors";
  const fs::path trace = dir / "t/run.json";
  REQUIRE(
      iputrain("train " + kCase + "-q --no-eval --save " + weights.string() + " --trace " + trace.string()).status ==
      0);
  CHECK(fs::is_regular_file(weights));
  CHECK(fs::is_regular_file(trace));
  const std::string mnist =
      std::string(IPUTRAIN_SOURCE_DIR) + "/examples/mnist_mlp.ipu " + IPUTRAIN_SOURCE_DIR + "/configs/mnist.toml ";
  const fs::path mnist_weights = dir / "m/w.safetensors";
  REQUIRE(iputrain("train " + mnist + "-q --no-eval --set training.steps=2 --save " + mnist_weights.string()).status ==
          0);
  const fs::path preds = dir / "p/preds.csv";
  CHECK(iputrain("predict " + mnist + "--weights " + mnist_weights.string() + " -o " + preds.string()).status == 0);
  CHECK(fs::is_regular_file(preds));
  const fs::path gantt = dir / "g/plan.svg";
  CHECK(iputrain("plan " + kCase + "--gantt " + gantt.string()).status == 0);
  CHECK(fs::is_regular_file(gantt));
}

TEST_CASE("an output path that cannot be written is refused before the first step") {
  const fs::path dir = fresh_dir("refused");
  std::ofstream(dir / "file") << "not a folder";
  const Run r = iputrain("train " + kCase + "--no-eval --save " + (dir / "file/w.safetensors").string());
  CHECK(r.status == 1);
  CHECK(has(r.out, "error: cannot write --save `" + (dir / "file/w.safetensors").string() + "`: `" +
                       (dir / "file").string() + "` is a file, not a folder"));
  CHECK(r.out.find("training ") == std::string::npos);  // refused before the run's first line
  const Run checkpoints = iputrain("train " + kCase + "--no-eval --set checkpoint.dir=" + (dir / "file/runs").string());
  CHECK(checkpoints.status == 1);
  CHECK(has(checkpoints.out, "error: cannot write checkpoint.dir `" + (dir / "file/runs").string() + "`"));
  CHECK(checkpoints.out.find("training ") == std::string::npos);
  const Run folder = iputrain("train " + kCase + "--no-eval --save " + dir.string());
  CHECK(folder.status == 1);
  CHECK(has(folder.out, "it is a folder"));
}

TEST_CASE("weights whose --save fails when the run ends are written to a recovery file, bitwise the run's") {
  const fs::path dir = fresh_dir("recovery");
  const std::string model = (fs::current_path() / "cases/checkpoint.ipu").string() + " " +
                            (fs::current_path() / "cases/checkpoint.toml").string() + " ";
  REQUIRE(iputrain("train " + model + "-q --no-eval --save " + (dir / "plain.safetensors").string()).status == 0);
  // The disk fails for the --save path only (IPUTRAIN_FAULT_WRITE_PATH), after the up-front check.
  const Run r = iputrain("train " + model + "-q --no-eval --save " + (dir / "wanted.safetensors").string(), "2>&1",
                         "cd " + dir.string() + " && IPUTRAIN_FAULT_WRITE_ERROR=EIO IPUTRAIN_FAULT_WRITE_PATH=wanted");
  CHECK(r.status == 1);
  CHECK(has(r.out, "Input/output error; the trained weights are in `iputrain-recovered-"));
  std::vector<std::string> recovered;
  for (const std::string& name : names_in(dir)) {
    if (name.rfind("iputrain-recovered-", 0) == 0) {
      recovered.push_back(name);
    }
  }
  REQUIRE(recovered.size() == 1);
  CHECK(bytes_of(dir / recovered.front()) == bytes_of(dir / "plain.safetensors"));
  CHECK(!fs::exists(dir / "wanted.safetensors"));
}

TEST_CASE("SIGINT and SIGTERM stop training after the execution under way, with a checkpoint") {
  for (const int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    const fs::path dir = fresh_dir(sig == SIGINT ? "sigint" : "sigterm");
    const fs::path ckpt = dir / "run";
    Child child("train " + kCase + "--no-eval --set training.steps=1000000 --set training.steps_per_execution=3 "
                "--set checkpoint.dir=" + ckpt.string() + " --save " + (dir / "w.safetensors").string(),
                dir / "log");
    REQUIRE(child.wait_for("training ckpt on"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(child.pid, sig);
    const int status = child.wait();
    const std::string out = child.output();
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + sig);
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    CHECK(has(out, "stopped by " + name + " at step "));
    CHECK(has(out, "resume with --resume " + ckpt.string() + "/step-"));
    CHECK(has(out, "(--save is for finished runs)"));
    CHECK(!fs::exists(dir / "w.safetensors"));
    const std::vector<std::string> files = names_in(ckpt);
    REQUIRE(files.size() == 1);
    // The checkpoint is at a multiple of the execution's 3 steps and resumes.
    const int64_t step = std::stoll(files[0].substr(5, 8));
    CHECK(step % 3 == 0);
    CHECK(iputrain("train " + kCase + "-q --no-eval --resume " + ckpt.string() + " --set training.steps=" +
                   std::to_string(step + 3))
              .status == 0);
  }
}

TEST_CASE("a second Ctrl-C ends the run at once") {
  const fs::path dir = fresh_dir("twice");
  // Executions of 200000 steps: the first SIGINT alone would wait for the end of one.
  Child child("train " + kCase + "--no-eval --set training.steps=1000000 --set training.steps_per_execution=200000 "
              "--set checkpoint.dir=" + (dir / "run").string(),
              dir / "log");
  REQUIRE(child.wait_for("training ckpt on"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(child.pid, SIGINT);
  REQUIRE(child.wait_for("press Ctrl-C again to stop at once"));
  kill(child.pid, SIGINT);
  // At once, not after the execution under way: killed by the signal's default action, where the
  // stop after the execution exits with 130, says "stopped by SIGINT" and writes a checkpoint.
  const int status = child.wait();
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(child.output().find("stopped by SIGINT") == std::string::npos);
  CHECK((!fs::exists(dir / "run") || names_in(dir / "run").empty()));
}

TEST_CASE("a model with a 40 GB weight is refused by its plan with a hint, not by the allocator") {
  const fs::path dir = fresh_dir("huge");
  std::ofstream(dir / "huge.ipu") << "model huge(batch: int = 2) {\n  input x: f32[batch, 100000]\n"
                                     "  input label: i32[batch]\n  param w: f32[100000, 100000] = zeros()\n"
                                     "  minimize mean(softmax_cross_entropy(x @ w, label))\n}\n";
  std::ofstream(dir / "huge.toml") << "[data]\ntrain = \"synthetic:samples=8,classes=10\"\n";
  // The verdict is the plan's refusal (status 2, the value named), not a time: a run that asked
  // the allocator for the weight first would end otherwise (std::bad_alloc, the OOM killer).
  for (const char* command : {"check", "train"}) {
    CAPTURE(command);
    const Run r = iputrain(std::string(command) + " " + (dir / "huge.ipu").string() + " " + (dir / "huge.toml").string());
    CHECK(r.status == 2);
    CHECK(has(r.out, "largest single value: value 'w' (37.25 GiB)"));
    CHECK(has(r.out, "hint: what would help"));
  }
}
