// What a data error says: its message and hint, for tests that check both.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "iputrain/error.hpp"

namespace iputrain::test {

struct ErrorText {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
  std::string hint;
  bool thrown = false;
};

//! Runs `f` and returns the iputrain::Error it throws; fails the test if it throws nothing.
template <typename F>
ErrorText error_of(F&& f) {
  ErrorText out;
  try {
    f();
  } catch (const Error& e) {
    out.kind = e.kind();
    out.message = e.diagnostic().message;
    out.hint = e.hint();
    out.thrown = true;
  }
  CHECK_MESSAGE(out.thrown, "expected an iputrain::Error");
  return out;
}

}  // namespace iputrain::test
