// `iputrain predict MODEL CONFIG --weights W -o OUT`: the model's per-sample outputs over a split,
// written as NumPy arrays or a CSV table.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/prediction_files.hpp"
#include "iputrain/files.hpp"

namespace iputrain::cli {

namespace {

struct PredictArgs : CommonArgs {
  std::string weights;
  std::string split = "test";
  std::vector<std::string> outputs;  //!< --output NAME (repeatable); empty: every per-sample output
  std::string out;                   //!< -o: FILE.npy, FILE.csv or a directory (one NAME.npy each)
  std::string format;                //!< npy | csv; "" = from the -o path
};

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

int run_predict(const PredictArgs& args) {
  const Layout layout = layout_of(args);
  if (layout != Layout::Table) {
    prepare_output(args.out, "-o", layout == Layout::NpyDir);
  }
  auto [config, model, run] = load(args);
  Session session(model, run);
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

// Refuses a file path given to --output (which names values of the model to write): the hint
// points to -o, which writes the file. Throws Error(Usage).
void check_output_names(const std::vector<std::string>& outputs, const CommandLine& line) {
  for (const std::string& value : outputs) {
    const std::string ext = std::filesystem::path(value).extension().string();
    const bool file_like = value.find('/') != std::string::npos || ext == ".csv" || ext == ".npy" || ext == ".npz" ||
                           ext == ".txt" || ext == ".json" || ext == ".jsonl" || ext == ".safetensors";
    if (!file_like) {
      continue;
    }
    const size_t at = line.find_value(value);
    throw line.error_at(at == 0 ? line.words.size() : at,
                        fmt::format("`--output` names a value of the model to write, not a file: `{}`", value),
                        fmt::format("write the file with `-o {}` (and pick the values with --output NAME)", value));
  }
}

Runner add_predict(CLI::App& cmd) {
  auto a = std::make_shared<PredictArgs>();
  add_common(cmd, *a);
  cmd.add_option("--weights", a->weights,
                 "weights to predict with (safetensors, or a checkpoint file or directory); required when the model "
                 "has parameters")
      ->check(CLI::ExistingPath)
      ->type_name("FILE|DIR");
  cmd.add_option("--split", a->split, "test, train or validation (data.validation, data.validation_split)")
      ->check(CLI::IsMember({"test", "train", "validation"}));
  cmd.add_option("--output", a->outputs,
                 "an output or named tensor of the model to write (repeatable; default: every `output per_sample`)")
      ->type_name("NAME");
  cmd.add_option("-o,--out", a->out,
                 "FILE.npy, FILE.csv, or a directory for one NAME.npy per output (default: a table on stdout)")
      ->type_name("OUT");
  cmd.add_option("--format", a->format, "npy or csv (default: from the -o path)")->check(CLI::IsMember({"npy", "csv"}));
  return [a](const CommandLine& line) {
    check_output_names(a->outputs, line);
    return run_predict(*a);
  };
}

}  // namespace

const CommandDef kPredictCommand{"predict", "per-sample model outputs over a data split, as .npy arrays or CSV",
                                 add_predict};

}  // namespace iputrain::cli
