// `iputrain predict MODEL CONFIG --weights W -o OUT`: the model's per-sample outputs over a split,
// written as NumPy arrays or a CSV table.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/prediction_files.hpp"
#include "iputrain/files.hpp"

namespace iputrain::cli {

namespace {

enum class Layout { NpyFile, NpyDir, Csv, Table };

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Decided before any work, so a bad -o fails at once rather than after the whole split ran.
Layout layout_of(const PredictArgs& args) {
  if (args.out.empty()) {
    if (!args.format.empty()) {
      throw Error(ErrorKind::Usage, fmt::format("--format {} needs a file to write", args.format), {},
                  "add -o FILE, or drop --format to print a table");
    }
    return Layout::Table;
  }
  const bool dir = std::filesystem::is_directory(args.out) || ends_with(args.out, "/");
  std::string format = args.format;
  if (format.empty()) {
    format = ends_with(args.out, ".csv") ? "csv" : "npy";
    if (!dir && !ends_with(args.out, ".npy") && !ends_with(args.out, ".csv")) {
      throw Error(ErrorKind::Usage, fmt::format("cannot tell the format of -o {}", args.out), {},
                  "name a FILE.npy, a FILE.csv or a directory (one NAME.npy per output), or pass --format");
    }
  }
  if (format == "csv") {
    if (dir) {
      throw Error(ErrorKind::Usage, fmt::format("-o {} is a directory but CSV goes to one file", args.out), {},
                  "name a file, e.g. -o predictions.csv");
    }
    return Layout::Csv;
  }
  return dir ? Layout::NpyDir : Layout::NpyFile;
}

}  // namespace

int run_predict(const PredictArgs& args) {
  const Layout layout = layout_of(args);
  if (layout != Layout::Table) {
    prepare_output(args.out, "-o", layout == Layout::NpyDir);
  }
  auto [config, model] = load(args);
  Session session(model, config);
  load_weights_for(session, model, args.weights, "predict");
  const std::vector<Prediction> predictions = session.predict(args.split, args.outputs);
  if (layout == Layout::NpyFile && predictions.size() > 1) {
    std::vector<std::string> names;
    for (const Prediction& p : predictions) {
      names.push_back(p.name);
    }
    throw Error(ErrorKind::Usage,
                fmt::format("{} outputs ({}) do not fit one .npy file", predictions.size(), fmt::join(names, ", ")),
                {}, "pick one with --output NAME, or give -o a directory (one NAME.npy each) or a .csv file");
  }
  switch (layout) {
    case Layout::Table: std::fputs(table_text(predictions).c_str(), stdout); return 0;
    case Layout::Csv: write_file_atomically(args.out, csv_text(predictions)); break;
    case Layout::NpyFile: write_file_atomically(args.out, npy_bytes(predictions.front())); break;
    case Layout::NpyDir:
      std::filesystem::create_directories(args.out);
      for (const Prediction& p : predictions) {
        write_file_atomically((std::filesystem::path(args.out) / (p.name + ".npy")).string(), npy_bytes(p));
      }
      break;
  }
  for (const Prediction& p : predictions) {
    fmt::print("{}: {}[{}{}{}] over the {} split\n", p.name, p.dtype, p.samples, p.sample_shape.empty() ? "" : ", ",
               fmt::join(p.sample_shape, ", "), args.split);
  }
  fmt::print("wrote {}\n", args.out);
  return 0;
}

}  // namespace iputrain::cli
