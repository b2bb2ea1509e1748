// A folder of this test process's own under the system's temporary folder (iputrain_test_PID),
// removed with everything in it when the process exits, so that a test run leaves nothing behind
// in /tmp. CTest runs the cases of one file in parallel processes, hence one folder per process.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace iputrain_tests {

class ScratchRoot {
 public:
  ScratchRoot() : path_(std::filesystem::temp_directory_path() / ("iputrain_test_" + std::to_string(::getpid()))) {}
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;
  ~ScratchRoot() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

//! The process's folder `area` (made on first use; removed with its root when the process exits).
inline std::filesystem::path scratch_dir(const std::string& area) {
  static const ScratchRoot root;
  const std::filesystem::path dir = root.path() / area;
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace iputrain_tests
