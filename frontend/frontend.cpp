#include "core/read_limits.hpp"
#include "frontend/frontend.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "frontend/elaborator.hpp"
#include "frontend/modules.hpp"

namespace iputrain::frontend {

namespace {

std::string read_file(const std::string& path) {
  check_text_file_size(path, "model file", ErrorKind::Io);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, fmt::format("cannot open model file '{}'", path), {},
                "check the path; model files end in .ipu");
  }
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

LoadedModel load_model(const std::string& path, const std::string* text, const ParamOverrides& overrides) {
  auto sources = std::make_shared<SourceManager>();
  try {
    const std::string owned = text == nullptr ? read_file(path) : std::string();
    Program program(sources);
    program.define("batch_norm_replica_group", Value::of_int(overrides.batch_norm_group));
    const ModuleScope& main = program.load_main(path, text == nullptr ? owned : *text);
    Elaborated e = elaborate(main, overrides, *sources);
    e.graph.verify();
    LoadedModel out;
    out.name = std::move(e.model_name);
    out.path = path;
    out.graph = std::move(e.graph);
    out.params = std::move(e.params);
    out.warnings = std::move(e.warnings);
    out.sources = std::move(sources);
    out.batch_norm_group = overrides.batch_norm_group;
    return out;
  } catch (Error& err) {
    err.with_sources(sources);
    throw;
  }
}

}  // namespace iputrain::frontend
