// candidate_sampler(labels, num_sampled, num_classes, unique = true): the draw of the sampled losses
// (stdlib/losses.ipu), named by the caller's scope path so that its random stream is the layer's.
#include <fmt/format.h>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using namespace builtin_args;

Value b_candidate_sampler(CallArgs& c) {
  const std::string base = c.unique_name ? c.unique_name("sampler") : std::string("sampler");
  const std::string name = c.scope_path.empty() ? base : c.scope_path + "/" + base;
  ir::Attrs attrs{{"num_sampled", integer(c, 1, "num_sampled")},
                  {"range_max", integer(c, 2, "num_classes")},
                  {"unique", int64_t{boolean(c, 3, "unique")}},
                  {"name", name}};
  return Value::of_tensor(add(c, ir::OpKind::CandidateSampler, {tensor(c, 0, "labels")}, std::move(attrs)));
}

}  // namespace

void add_sampling_builtins(std::vector<Builtin>& table) {
  table.push_back({"candidate_sampler",
                   {req("labels"), req("num_sampled"), req("num_classes"), opt("unique", Value::of_bool(true))},
                   b_candidate_sampler});
}

}  // namespace iputrain::frontend
