#include "tests/core/op_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <Eigen/Core>

#include "core/rng.hpp"

// Kernels must not allocate. On glibc the test binary interposes malloc (which operator new and
// Eigen's aligned allocator both end in) to count allocations while a kernel runs. Sanitizer
// builds own malloc themselves, so the count is off there (GCC says so with __SANITIZE_*__, clang
// with __has_feature).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define IPUTRAIN_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define IPUTRAIN_SANITIZED 1
#endif
#endif
#if defined(__GLIBC__) && !defined(IPUTRAIN_SANITIZED)
#define IPUTRAIN_COUNT_ALLOCATIONS 1
namespace {
thread_local bool g_counting = false;
thread_local int64_t g_allocations = 0;
}  // namespace
extern "C" void* __libc_malloc(size_t size);
extern "C" void* malloc(size_t size) {
  if (g_counting) {
    ++g_allocations;
  }
  return __libc_malloc(size);
}
#endif

namespace iputrain::test {

using ir::ValueId;

std::optional<int64_t> count_allocations(const std::function<void()>& f) {
#ifdef IPUTRAIN_COUNT_ALLOCATIONS
  g_allocations = 0;
  g_counting = true;
  try {
    f();
  } catch (...) {
    g_counting = false;
    throw;
  }
  g_counting = false;
  return g_allocations;
#else
  f();
  return std::nullopt;
#endif
}

Interpreter::Interpreter(const ir::Graph& g) : g_(g) {
  for (const ir::Node& n : g.nodes()) {
    // uint64_t words keep every buffer 8-byte aligned; one spare word so empty tensors have an address.
    buffers_.emplace_back(n.type.bytes() / 8 + 1, 0);
  }
  size_t workspace = 0;
  for (const ir::Node& n : g.nodes()) {
    if (const auto f = ir::op_def(n.op).workspace) {
      workspace = std::max(workspace, f(g, n));
    }
  }
  workspace_.assign(workspace / 8 + 1, 0);
}

void Interpreter::set(ValueId id, const Values& v) {
  const TensorType& t = g_.type(id);
  REQUIRE(static_cast<int64_t>(v.size()) == t.numel());
  void* data = buffers_.at(static_cast<size_t>(id)).data();
  for (size_t i = 0; i < v.size(); ++i) {
    switch (t.dtype) {
      case DType::F32:
        static_cast<float*>(data)[i] = static_cast<float>(v[i]);
        break;
      case DType::I32:
        static_cast<int32_t*>(data)[i] = static_cast<int32_t>(std::llround(v[i]));
        break;
      case DType::Bool:
        static_cast<uint8_t*>(data)[i] = v[i] != 0.0 ? 1 : 0;
        break;
      case DType::U8:
        REQUIRE((v[i] >= 0 && v[i] <= 255));
        static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(std::llround(v[i]));
        break;
      default:
        FAIL("the interpreter sets f32, i32, bool and u8 values only");
    }
  }
}

Values Interpreter::get(ValueId id) const {
  const TensorType& t = g_.type(id);
  const void* data = buffers_.at(static_cast<size_t>(id)).data();
  Values v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (t.dtype) {
      case DType::F32:
        v[i] = static_cast<const float*>(data)[i];
        break;
      case DType::I32:
        v[i] = static_cast<const int32_t*>(data)[i];
        break;
      case DType::F16:  // a cast of u8 (no op computes on the half types)
        v[i] = static_cast<float>(static_cast<const Eigen::half*>(data)[i]);
        break;
      case DType::BF16:
        v[i] = static_cast<float>(static_cast<const Eigen::bfloat16*>(data)[i]);
        break;
      default:
        v[i] = static_cast<const uint8_t*>(data)[i];
        break;
    }
  }
  return v;
}

void Interpreter::poison(ValueId id) {
  auto& buffer = buffers_.at(static_cast<size_t>(id));
  std::memset(buffer.data(), 0xFF, g_.type(id).bytes());
}

void Interpreter::run_node(ValueId id) {
  const ir::Node& n = g_.node(id);
  // A fixed array, so that running one kernel allocates nothing but what the kernel allocates.
  std::array<ir::Tensor, 8> ins{};
  REQUIRE(n.inputs.size() <= ins.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ValueId in = n.inputs[i];
    ins[i] = ir::Tensor{&g_.type(in), buffers_[static_cast<size_t>(in)].data()};
  }
  const ir::KernelArgs args{n, std::span<const ir::Tensor>(ins.data(), n.inputs.size()),
                            ir::Tensor{&n.type, buffers_[static_cast<size_t>(id)].data()}, &ctx,
                            ir::op_def(n.op).workspace != nullptr ? workspace_.data() : nullptr};
  ir::op_def(n.op).forward(args);
}

void Interpreter::run(ValueId from) {
  for (ValueId id = from; id < g_.size(); ++id) {
    const ir::Node& n = g_.node(id);
    if (n.op == ir::OpKind::Constant) {
      set(id, Values(static_cast<size_t>(n.type.numel()), n.attrs.get_float("value")));
    } else if (ir::op_def(n.op).forward != nullptr) {
      run_node(id);
    }
  }
}

namespace {

Values random_values(const OpCase& c, size_t input) {
  const TensorType& t = c.inputs[input];
  Rng rng(20240611, c.name, input);
  Values v(static_cast<size_t>(t.numel()));
  for (double& x : v) {
    if (t.dtype == DType::F32) {
      do {
        x = c.lo + (c.hi - c.lo) * rng.uniform();
      } while (std::fabs(x) < c.min_abs);
      x = static_cast<float>(x);
    } else if (t.dtype == DType::Bool) {
      x = static_cast<double>(rng.below(2));
    } else {
      const auto lo = static_cast<int64_t>(std::ceil(c.lo));
      const auto hi = static_cast<int64_t>(std::floor(c.hi));
      x = static_cast<double>(lo + static_cast<int64_t>(rng.below(static_cast<uint64_t>(hi - lo + 1))));
    }
  }
  return v;
}

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) {
    return std::isnan(got);
  }
  if (std::isinf(want)) {
    return got == want;
  }
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

}  // namespace

int64_t mismatches(const Values& got, const Values& want, double rtol, double atol) {
  if (got.size() != want.size()) {
    return static_cast<int64_t>(std::max(got.size(), want.size()));
  }
  int64_t n = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    n += close(got[i], want[i], rtol, atol) ? 0 : 1;
  }
  return n;
}

namespace {

// Compares element by element; reports the first few mismatches with their index.
int64_t compare(const std::string& what, const Values& got, const Values& want, double rtol, double atol) {
  REQUIRE_MESSAGE(got.size() == want.size(),
                  what << ": " << got.size() << " values, expected " << want.size());
  CHECK_MESSAGE(mismatches(got, want, rtol, atol) == 0, what << " differs");
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!close(got[i], want[i], rtol, atol) && reported++ < 5) {
      FAIL_CHECK(what << "[" << i << "] = " << got[i] << ", expected " << want[i]);
    }
  }
  return static_cast<int64_t>(got.size());
}

// sum(out * dy) in double: the scalar whose gradient the backward pass computes.
double objective(const Values& out, const Values& dy) {
  double s = 0.0;
  for (size_t i = 0; i < out.size(); ++i) {
    s += out[i] * dy[i];
  }
  return s;
}

// A case expecting a type error: the op is refused with the expected message.
void check_infer_error(const OpCase& c, const ir::OpDef& def, ir::Graph& g, const std::vector<ValueId>& xs) {
  try {
    g.add(c.op, xs, c.attrs);
    FAIL_CHECK("expected a type error containing '" << c.infer_error << "'");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Semantic);
    const std::string& msg = e.diagnostic().message;
    CHECK_MESSAGE(msg.find(c.infer_error) != std::string::npos, "message: " << msg);
    // The graph names the op in front of the shape function's message.
    CHECK(msg.rfind(std::string(def.name) + ": ", 0) == 0);
  }
}

// Each float input's analytic gradient against central differences of the output's objective.
int64_t check_gradients(const OpCase& c, Interpreter& interp, const std::vector<ValueId>& xs, ValueId y,
                        const std::vector<ValueId>& grads, const std::vector<Values>& in_values,
                        const Values& dy_values) {
  int64_t checked = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] == ir::kNoValue || c.inputs[i].dtype != DType::F32) {
      continue;
    }
    const Values analytic = interp.get(grads[i]);
    Values numeric(analytic.size());
    Values x = in_values[i];
    for (size_t j = 0; j < x.size(); ++j) {
      const double x0 = x[j];
      const double h = 1e-3 * std::max(1.0, std::fabs(x0));
      // Differences are taken between the f32 values actually stored, not the intended ones.
      const auto xp = static_cast<double>(static_cast<float>(x0 + h));
      const auto xm = static_cast<double>(static_cast<float>(x0 - h));
      x[j] = xp;
      interp.set(xs[i], x);
      interp.run_node(y);
      const double fp = objective(interp.get(y), dy_values);
      x[j] = xm;
      interp.set(xs[i], x);
      interp.run_node(y);
      const double fm = objective(interp.get(y), dy_values);
      numeric[j] = (fp - fm) / (xp - xm);
      x[j] = x0;
    }
    interp.set(xs[i], x);
    interp.run_node(y);
    checked += compare(fmt::format("gradient of input {}", i), analytic, numeric, 1e-2, 1e-3);
  }
  return checked;
}

}  // namespace

int64_t run_op_case(const OpCase& c) {
  INFO("op case: " << c.name);
  const ir::OpDef& def = ir::op_def(c.op);
  ir::Graph g;
  std::vector<ValueId> xs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    xs.push_back(g.add_input(fmt::format("x{}", i), c.inputs[i]));
  }
  if (!c.infer_error.empty()) {
    check_infer_error(c, def, g, xs);
    return 1;
  }
  const ValueId y = g.add(c.op, xs, c.attrs);
  g.node(y).body = c.body;
  const TensorType out_type = g.type(y);

  // The gradient graph is appended before evaluating, so one interpreter runs everything.
  const bool has_float_input = std::any_of(c.inputs.begin(), c.inputs.end(),
                                           [](const TensorType& t) { return t.dtype == DType::F32; });
  const bool check_grad = c.grad && c.run_error.empty() && def.backward != nullptr && has_float_input &&
                          out_type.dtype == DType::F32;
  ValueId dy = ir::kNoValue;
  std::vector<ValueId> grads;
  if (check_grad) {
    dy = g.add_input("dy", out_type);
    grads = def.backward(g, y, dy);
    REQUIRE(grads.size() == c.inputs.size());
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i] != ir::kNoValue) {
        CHECK_MESSAGE(g.type(grads[i]) == c.inputs[i],
                      "gradient of input " << i << " has type " << g.type(grads[i]).str());
      }
    }
  }
  g.verify();

  Interpreter interp(g);
  interp.ctx = c.ctx;
  std::vector<Values> in_values;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    in_values.push_back(i < c.values.size() && !c.values[i].empty() ? c.values[i] : random_values(c, i));
    interp.set(xs[i], in_values.back());
  }
  Values dy_values;
  if (dy != ir::kNoValue) {
    OpCase dy_case = c;
    dy_case.inputs.push_back(out_type);
    dy_case.lo = -1.0;
    dy_case.hi = 1.0;
    dy_case.min_abs = 0.0;
    dy_values = random_values(dy_case, c.inputs.size());
    interp.set(dy, dy_values);
  }

  if (!c.run_error.empty()) {
    try {
      interp.run();
      FAIL_CHECK("expected a run-time error containing '" << c.run_error << "'");
    } catch (const Error& e) {
      CHECK(e.kind() == c.run_error_kind);
      CHECK_MESSAGE(e.diagnostic().message.find(c.run_error) != std::string::npos,
                    "message: " << e.diagnostic().message);
    }
    return 1;
  }
  interp.run();

  // Run again on a poisoned output: the values checked below must all come from this run.
  interp.poison(y);
  const auto allocations = count_allocations([&] { interp.run_node(y); });
  CHECK_MESSAGE(allocations.value_or(0) == 0, "the forward kernel allocated " << *allocations << " time(s)");

  int64_t checked = 0;
  const Values out = interp.get(y);
  if (!c.expected.empty()) {
    checked += compare("output", out, c.expected, c.rtol, c.atol);
  }
  if (c.reference) {
    checked += compare("output vs reference", out, c.reference(in_values, c.inputs, out_type, c.attrs),
                       c.rtol, c.atol);
  }
  CHECK_MESSAGE((!c.expected.empty() || c.reference), "case has neither expected values nor a reference");

  if (!check_grad) {
    return checked;
  }
  checked += check_gradients(c, interp, xs, y, grads, in_values, dy_values);
  return checked;
}

}  // namespace iputrain::test
