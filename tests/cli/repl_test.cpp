// `iputrain repl`: golden transcripts of scripted sessions (tests/cli/repl/NAME.txt is the input,
// NAME.out the expected stdout+stderr; IPUTRAIN_UPDATE_GOLDEN=1 rewrites them, then read the
// diff), and an interactive session in a pseudo-terminal for completion and history.
#include <doctest/doctest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "iputrain/config_loader.hpp"
#include "run_cli.hpp"

namespace fs = std::filesystem;

namespace {

const char* const kModel = "cases/tiny.ipu";
const char* const kConfig = "repl/two_ipu.toml";
// The scripts write here; the path is in their transcripts, so it is fixed.
const char* const kScratch = "/tmp/iputrain_repl_test";

using cli_test::Run;

// Runs the REPL on `input` as its standard input (not a terminal: the scripted mode).
Run repl_with_input(const std::string& input, const std::string& flags = "") {
  fs::create_directories(kScratch);
  // One input file per process: CTest runs the test cases in parallel, each in its own process.
  const std::string in_path = std::string(kScratch) + "/input-" + std::to_string(getpid()) + ".txt";
  std::ofstream(in_path) << input;
  return cli_test::iputrain("repl " + flags + kModel + " " + kConfig, "< " + in_path + " 2>&1");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_golden(const std::string& name) {
  const std::string script = "repl/" + name + ".txt";
  const std::string expected_path = "repl/" + name + ".out";
  // --echo puts each command above its output, so a transcript reads on its own.
  const Run r = repl_with_input(read_file(script), "--echo ");
  if (std::getenv("IPUTRAIN_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected_path, std::ios::binary) << r.out;
  }
  const std::string expected = read_file(expected_path);
  REQUIRE_MESSAGE(!expected.empty(), "missing ", expected_path, " (run with IPUTRAIN_UPDATE_GOLDEN=1 to create it)");
  CHECK_MESSAGE(r.out == expected, "transcript of ", script, " differs from ", expected_path, "; got:\n", r.out);
  // Every script tries bad commands: the status tells a script that something failed.
  CHECK(r.status == (expected.find("error: ") != std::string::npos ? 1 : 0));
}

// A REPL on a pseudo-terminal: what a person at a terminal sees and types.
class Terminal {
 public:
  explicit Terminal(const std::string& history) {
    winsize size{};
    size.ws_row = 40;
    size.ws_col = 120;
    pid_ = forkpty(&fd_, nullptr, nullptr, &size);
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      setenv("IPUTRAIN_HISTORY", history.c_str(), 1);
      setenv("TERM", "xterm", 1);
      setenv("HOME", kScratch, 1);  // no ~/.editrc of the user's
      execl(IPUTRAIN_BIN, "iputrain", "repl", kModel, kConfig, static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Terminal() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(fd_);
  }

  void type(const std::string& keys) { REQUIRE(write(fd_, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size())); }

  // Reads the screen output until `text` appears after what earlier waits consumed; false after
  // 60 s without it: a hang guard, not a speed verdict (a loaded machine is slow, never that slow).
  bool wait_for(const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (seen_.find(text, consumed_) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        MESSAGE("waited for `" << text << "`; the terminal showed:\n" << seen_.substr(consumed_));
        return false;
      }
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        continue;
      }
      std::array<char, 4096> buf{};
      const ssize_t n = read(fd_, buf.data(), buf.size());
      if (n <= 0) {
        MESSAGE("the REPL ended; the terminal showed:\n" << seen_.substr(consumed_));
        return false;
      }
      seen_.append(buf.data(), static_cast<size_t>(n));
    }
    consumed_ = seen_.find(text, consumed_) + text.size();
    return true;
  }

  // The exit status; 128 + 9 after killing a REPL that did not end within 60 s (a hang guard).
  int wait_exit() {
    int raw = 0;
    std::array<char, 4096> buf{};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    // Drain the terminal so the REPL never blocks writing to it.
    while (waitpid(pid_, &raw, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        MESSAGE("the REPL did not end; the terminal showed:\n" << seen_.substr(consumed_));
        kill(pid_, SIGKILL);
        waitpid(pid_, &raw, 0);
        break;
      }
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 100) > 0) {
        const ssize_t n = read(fd_, buf.data(), buf.size());
        if (n > 0) {
          seen_.append(buf.data(), static_cast<size_t>(n));
        }
      }
    }
    pid_ = -1;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string seen_;
  size_t consumed_ = 0;
};

}  // namespace

TEST_CASE("golden transcript: inspecting the model, config and plan") { check_golden("inspect"); }
TEST_CASE("golden transcript: set, unset, diff, sweep, save-config") { check_golden("replan"); }
TEST_CASE("golden transcript: step, weights, trace") { check_golden("train"); }
TEST_CASE("golden transcript: step writes a checkpoint only when asked, never into another run's") {
  // The script's directories, as a user's: empty before the session.
  fs::remove_all(std::string(kScratch) + "/ckpt");
  fs::remove_all(std::string(kScratch) + "/unasked");
  check_golden("checkpoint");
  CHECK(!fs::exists(std::string(kScratch) + "/unasked"));
}

TEST_CASE("trace writes a Chrome trace of the steps run") {
  const std::string path = std::string(kScratch) + "/steps_trace.json";
  fs::remove(path);
  const Run r = repl_with_input("step 2\ntrace " + path + "\n");
  CHECK(r.status == 0);
  const std::string text = read_file(path);
  CHECK(text.find("\"traceEvents\"") != std::string::npos);
  CHECK(text.find("\"ph\"") != std::string::npos);
}

TEST_CASE("save-config writes the effective config, which loads back into the same config") {
  const std::string path = std::string(kScratch) + "/effective.toml";
  fs::remove(path);
  const Run r = repl_with_input("set pipeline.schedule=interleaved\nsave-config " + path + "\n");
  REQUIRE(r.status == 0);
  const iputrain::Config saved = iputrain::config::load(path);
  CHECK(saved.plain.pipeline_schedule == "interleaved");
  CHECK(saved.plain.pipeline_gradient_accumulation_count == 4);
  const iputrain::Config expected = iputrain::config::load(kConfig, {"pipeline.schedule=interleaved"});
  CHECK(iputrain::config::show(saved) == iputrain::config::show(expected));
  // Only what differs from the config file: it extends that file and sets the session's key.
  const std::string text = read_file(path);
  CHECK(text.rfind("extends = \"" + fs::absolute(kConfig).lexically_normal().string() + "\"\n", 0) == 0);
  CHECK(text.find("schedule = \"interleaved\"") != std::string::npos);
  CHECK(text.find("[optimizer]") == std::string::npos);
}

TEST_CASE("on a terminal: TAB completes commands and keys, and history survives a restart") {
  fs::create_directories(kScratch);
  const std::string history = std::string(kScratch) + "/history";
  fs::remove(history);
  {
    Terminal t(history);
    REQUIRE(t.wait_for("iputrain> "));
    // "expl" + TAB -> "explain ", "pipeline.sched" + TAB -> "pipeline.schedule": only if both
    // completed does the REPL explain the key instead of calling it unknown.
    t.type("expl\t");
    CHECK(t.wait_for("ain"));
    t.type("pipeline.sched\t");
    CHECK(t.wait_for("ule"));
    t.type("\r");
    CHECK(t.wait_for("allowed:"));
    CHECK(t.wait_for("iputrain> "));
    // A unique key of `set` completes with `=`, then its enum values complete.
    t.type("set pipeline.recomputation_m\tauto\r");
    CHECK(t.wait_for("pipeline.recomputation_mode ="));
    CHECK(t.wait_for("iputrain> "));
    t.type("quit\r");
    CHECK(t.wait_exit() == 0);
  }
  CHECK(read_file(history).find("pipeline.schedule") != std::string::npos);
  {
    Terminal t(history);
    REQUIRE(t.wait_for("iputrain> "));
    // Up three times: past `quit` and the `set` line to the `explain` line, which runs again.
    t.type("\x1b[A\x1b[A\x1b[A\r");
    CHECK(t.wait_for("allowed:"));
    CHECK(t.wait_for("iputrain> "));
    // libedit draws the prompt before it puts the terminal in raw mode; a Ctrl-D that arrives in
    // between is the kernel's end-of-file mark, which the switch to raw mode can drop. A person
    // never types that fast: give the editor a moment.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    t.type("\x04");  // Ctrl-D
    CHECK(t.wait_exit() == 0);
  }
}
