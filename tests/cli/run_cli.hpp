// Runs the iputrain binary the way a user does, for the CLI tests.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

//! The bytes of a file ("" if it cannot be read).
inline std::string bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

//! The names in a folder, sorted.
inline std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cli_test
