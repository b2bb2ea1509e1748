// Fuzz target: generated model programs (program_gen.hpp), issue 30. The first byte chooses a
// valid program (3 in 4) or a near-valid one; the rest drives the generator.
// - A valid program must load, plan and train one step on 1 IPU and on 2 (two replicas, or its
//   stages split over the two): any error is a finding.
// - A near-valid one (one wrong shape or attribute) must be refused with an iputrain::Error that
//   is not internal and has a line and column: acceptance, an unlocated error, an internal error,
//   another exception or a crash is a finding.
// Findings abort with the program, the config and the answer on stderr (IPUTRAIN_FUZZ_VERBOSE
// prints every program).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "fuzz_input.hpp"
#include "fuzz_train.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "program_gen.hpp"

namespace {

using namespace iputrain;
using namespace iputrain::fuzz;

[[noreturn]] void finding(const GeneratedProgram& p, const std::string& config, const std::string& what) {
  std::fprintf(stderr, "program fuzz finding: %s\n--- gen.ipu\n%s--- gen.toml\n%s---\n", what.c_str(), p.text.c_str(),
               config.c_str());
  std::abort();
}

void load_plan_train(const GeneratedProgram& p, const std::string& config_text) {
  const Config config = config::parse(config_text, "gen.toml");
  const Model model = Model::parse(p.text, "gen.ipu", config.model);
  std::map<std::string, int64_t> bounds;
  for (const GeneratedInput& i : p.inputs) {
    bounds[i.name] = i.bound;
  }
  plan_and_train(model, config, bounds);
}

void run_valid(const GeneratedProgram& p, int ipus) {
  const std::string config = program_config(p, ipus);
  try {
    load_plan_train(p, config);
  } catch (const Error& e) {
    finding(p, config, std::string("a valid program was refused (") + error_kind_name(e.kind()) + "):\n" + e.render());
  }
}

void run_near_valid(const GeneratedProgram& p) {
  const std::string config = program_config(p, 1);
  try {
    load_plan_train(p, config);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal || !e.span().valid()) {
      finding(p, config, "near-valid (" + p.mutation + "): an internal or unlocated error:\n" + e.render());
    }
    if (verbose()) {
      std::fprintf(stderr, "diagnosed (%s): %s\n", p.mutation.c_str(), e.render().c_str());
    }
    return;
  }
  finding(p, config, "near-valid (" + p.mutation + ") was accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const bool near_valid = in.byte() % 4 == 3;
  const GeneratedProgram p = generate_program(in, near_valid);
  if (verbose()) {
    std::fprintf(stderr, "--- %s program:\n%s", near_valid ? "near-valid" : "valid", p.text.c_str());
    for (const std::string& u : p.used) {
      std::fprintf(stderr, "uses: %s\n", u.c_str());
    }
    std::fprintf(stderr, "uses: %zu stages, %zu positions%s%s\n", p.stages.size(), p.positions.size(),
                 near_valid ? ", mutation: " : "", p.mutation.c_str());
  }
  if (near_valid) {
    run_near_valid(p);
    return 0;
  }
  run_valid(p, 1);
  run_valid(p, 2);
  return 0;
}
