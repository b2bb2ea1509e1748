// The op harness: the one place every primitive is checked. Each OpCase names an op, its input
// types, attributes and values (explicit or deterministic random) and what to expect: explicit
// output values, a naive double-precision reference written independently of the kernels, or an
// error. run_op_case builds an ir::Graph (Input leaves + the op), evaluates it with a tiny
// interpreter, compares with the expectation, then appends the op's backward and compares every
// gradient with central finite differences of sum(out * dy).
//
// Adding an op = adding its case entries to op_cases.cpp.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::test {

using Values = std::vector<double>;

//! Expected output from the inputs (as doubles), their types, the output type and the attributes.
using RefFn = std::function<Values(const std::vector<Values>& in, const std::vector<TensorType>& types,
                                   const TensorType& out, const ir::Attrs& attrs)>;

struct OpCase {
  std::string name;
  ir::OpKind op = ir::OpKind::Count;
  std::vector<TensorType> inputs;
  ir::Attrs attrs = {};
  //! Explicit values per input; a missing or empty entry is filled at random.
  std::vector<Values> values = {};
  //! Explicit expected output, or…
  Values expected = {};
  //! …a reference implementation.
  RefFn reference = nullptr;
  //! Range of random inputs (integers are drawn from [lo, hi] inclusive).
  double lo = -2.0;
  double hi = 2.0;
  //! Random float inputs keep |x| >= min_abs (away from kinks and poles).
  double min_abs = 0.0;
  //! Check gradients by finite differences (when the op has a backward).
  bool grad = true;
  //! Forward tolerance: |got - want| <= atol + rtol * |want|.
  double rtol = 1e-5;
  double atol = 1e-5;
  //! When set, building the node must fail with an Error(Semantic) whose message contains this.
  std::string infer_error = {};
  //! When set, running the forward must throw an iputrain::Error whose message contains this.
  std::string run_error = {};
  //! The kind that run-time error must have.
  ErrorKind run_error_kind = ErrorKind::Data;
  //! What the kernels see as KernelArgs::ctx (seed, step, sample offset, training).
  ir::ExecContext ctx = {};
  //! A loop's body (ir::Node::body), set on the node under test.
  std::shared_ptr<const ir::Graph> body = nullptr;
};

//! Every case, defined in op_cases.cpp.
std::vector<OpCase> op_cases();

//! Runs one case, reporting failures through doctest checks. Returns the number of values compared
//! (outputs and gradient elements), so callers can tell that something was checked.
int64_t run_op_case(const OpCase& c);

//! Runs `f` and returns how many heap allocations it made; nullopt where they cannot be counted
//! (non-glibc platforms, sanitizer builds).
std::optional<int64_t> count_allocations(const std::function<void()>& f);

//! Number of elements where |got - want| > atol + rtol * |want| (nan matches nan, inf matches
//! itself); a size difference counts every element.
int64_t mismatches(const Values& got, const Values& want, double rtol, double atol);

//! Evaluates a graph node by node with one host buffer per node (the engine's job, in miniature).
class Interpreter {
 public:
  explicit Interpreter(const ir::Graph& g);
  //! Writes `v` (converted to the node's dtype) into the buffer of `id`.
  void set(ir::ValueId id, const Values& v);
  //! The buffer of `id`, converted to doubles.
  Values get(ir::ValueId id) const;
  //! Fills `id`'s buffer with 0xFF bytes (NaN floats): a kernel must write every element of its
  //! output, since the engine's arena hands it memory another value used before.
  void poison(ir::ValueId id);
  //! Runs every non-leaf node from `from` on, in order; constants are filled first.
  void run(ir::ValueId from = 0);
  //! Runs the forward kernel of one node.
  void run_node(ir::ValueId id);

  //! What kernels see as KernelArgs::ctx (random ops read it).
  ir::ExecContext ctx;

 private:
  const ir::Graph& g_;
  std::vector<std::vector<uint64_t>> buffers_;
  // The largest OpDef::workspace of any node, allocated once like the engine does.
  std::vector<uint64_t> workspace_;
};

}  // namespace iputrain::test
