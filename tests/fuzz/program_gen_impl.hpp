// The generator's state, shared by program_gen.cpp (structure: inputs, stages, control flow, the
// loss) and program_gen_ops.cpp (one emitter per op or layer). Every emitter knows the shape its
// op gives, so the generator tracks each value's shape as the elaborator will.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "program_gen.hpp"

namespace iputrain::fuzz {

//! A value the program has bound: its name, dtype and full shape (the batch first when it has
//! one), where it was computed and whether anything used it yet.
struct Value {
  std::string name;
  std::string dtype = "f32";
  std::vector<int64_t> shape;
  int stage = 0;      //!< index into the stage list (0 for inputs)
  int64_t bound = 0;  //!< i32 values: exclusive upper bound of the values (0 when not an index)
  bool used = false;
};

std::string dims_text(const std::vector<int64_t>& dims);
int64_t numel(const std::vector<int64_t>& dims);

class ProgramGen {
 public:
  ProgramGen(ByteReader& in, bool near_valid) : in_(in), near_valid_(near_valid) {}
  GeneratedProgram run();

  // --- used by the op emitters (program_gen_ops.cpp) ---
  ByteReader& in() { return in_; }
  //! True when the next op should be the near-valid program's one wrong op (emitters that have a
  //! wrong form check it and call mutated()).
  bool want_wrong() const { return near_valid_ && mutation_.empty() && ops_ >= mutate_at_; }
  void mutated(const std::string& what) { mutation_ = what; }
  //! Binds a new value computed by `expr` in the current stage; returns it.
  Value emit(const std::string& expr, std::vector<int64_t> shape, const std::string& dtype = "f32", int64_t bound = 0);
  //! Emits a statement that binds nothing new (an assert, a loop header).
  void line(const std::string& text);
  void indent(int delta) { indent_ += delta; }
  //! A visible f32 value chosen by the bytes, among those whose rank is in [lo, hi]; nullptr if none.
  std::optional<Value> pick_f32(size_t lo, size_t hi);
  //! A visible i32 value of rank 2 or more with a bound (token ids); nullopt if none.
  std::optional<Value> pick_i32_index();
  void use(const std::string& name);
  void note(const std::string& what) { used_.push_back(what); }
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(counter_++); }
  int64_t batch() const { return batch_; }
  //! The model parameter `width` (a dense layer's units).
  int64_t width() const { return width_; }
  void add_toplevel(const std::string& text) { toplevel_ += text; }
  //! Emits one op on a visible value (program_gen_ops.cpp).
  void emit_op();
  //! Emits an op that is always wrong (the near-valid program's fallback when no op chose to be).
  void emit_wrong_fallback();

 private:
  void declare_inputs();
  void stage_block(const std::string& name, int group, int ops);
  void parallel_block(int ops);
  void statements(int ops);
  void control_flow();
  void loop();
  void conditional();
  void helper_def();
  void helper_layer();
  void stage_rule_violation();
  void finish();
  bool visible(const Value& v) const;

  ByteReader& in_;
  bool near_valid_;
  size_t mutate_at_ = 0;
  size_t ops_ = 0;
  std::string mutation_;
  std::string body_;
  std::string toplevel_;
  int indent_ = 1;
  int64_t batch_ = 1;
  int64_t width_ = 1;
  int counter_ = 0;
  std::vector<Value> values_;
  std::vector<GeneratedInput> inputs_;
  std::vector<std::string> stages_;
  std::vector<int> stage_group_;  //!< the parallel block of each stage, -1 outside one
  int stage_ = 0;
  int helpers_ = 0;
  std::vector<std::string> used_;
};

}  // namespace iputrain::fuzz
