// Runs the iputrain binary the way a user does, for the CLI tests.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace cli_test {

struct Run {
  int status = -1;
  std::string out;  //!< what the command printed (stdout, plus stderr where `redirect` merges it)
};

//! Runs `ENV iputrain ARGS REDIRECT` through the shell from the test's folder; "2>&1" merges
//! stderr into the output in order; `env` is "NAME=VALUE ..." set for this run only.
inline Run iputrain(const std::string& args, const std::string& redirect = "2>&1", const std::string& env = "") {
  Run r;
  const std::string cmd = env + " " + std::string(IPUTRAIN_BIN) + " " + args + " " + redirect;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) {
    r.out.append(buf.data(), n);
  }
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return r;
}

}  // namespace cli_test
