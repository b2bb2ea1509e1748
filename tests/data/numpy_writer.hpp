// Runs NumPy (Debian's python3-numpy) to write the files a test reads: the real writer, not ours.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace iputrain::test {

//! A python3 that imports numpy: $IPUTRAIN_PYTHON, else Debian's /usr/bin/python3, else python3
//! on the PATH (which may be a virtual environment without numpy).
inline std::string numpy_python() {
  static const std::string chosen = [] {
    if (const char* env = std::getenv("IPUTRAIN_PYTHON")) {
      return std::string(env);
    }
    for (const char* p : {"/usr/bin/python3", "python3"}) {
      if (std::system((std::string(p) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0) {
        return std::string(p);
      }
    }
    return std::string("python3");
  }();
  return chosen;
}

//! Runs `code` after `import numpy as np` in `dir` (the test's scratch directory). Fails the test
//! if Python or NumPy is missing (install python3-numpy, .ci/setup does) or the code fails.
inline void run_numpy(const std::string& dir, const std::string& code) {
  const std::string script = dir + "/write.py";
  std::ofstream(script) << "import numpy as np\nimport os\nos.chdir(" << '"' << dir << '"' << ")\n"
                        << code << "\n";
  const int rc = std::system((numpy_python() + " " + script).c_str());
  REQUIRE_MESSAGE(rc == 0, "python3 with numpy failed on: " << code);
}

}  // namespace iputrain::test
