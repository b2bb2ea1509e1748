// The test programs' precompiled header is built with this program (cmake/pch.cmake: the first
// target to ask hosts it, the others reuse it and depend on the host). It is empty, so a tree that
// builds one test program (the ThreadSanitizer tree) builds no other, and the tests' own units
// need not wait for a large test program to be built first.
#include <doctest/doctest.h>
