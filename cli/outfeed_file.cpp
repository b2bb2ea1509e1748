#include "cli/outfeed_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/prediction_files.hpp"
#include "iputrain/files.hpp"

namespace iputrain::cli {

namespace fs = std::filesystem;

// A file being written: its rows go to `part` and are moved to `final` when the run ends.
struct OutfeedFile::Spool {
  std::string final_path;
  std::string part_path;
  std::ofstream out;
};

namespace {

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  return n;
}

// The values of row `row` (element e, replica r: e * replicas + r) of every tensor, each after a comma.
std::string csv_values(const std::vector<OutfeedTensor>& tensors, const std::vector<std::vector<int64_t>>& shapes,
                       int64_t row) {
  std::string out;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const int64_t n = product(shapes[k]);
    for (int64_t i = 0; i < n; ++i) {
      out += fmt::format(",{:.9g}", tensors[k].values[static_cast<size_t>(row * n + i)]);
    }
  }
  return out;
}

}  // namespace

OutfeedFile::OutfeedFile(std::string path, OutfeedLayout layout) : path_(std::move(path)), layout_(std::move(layout)) {
  if (path_.empty()) {
    return;
  }
  const std::string ext = fs::path(path_).extension().string();
  if (ext != ".csv" && ext != ".npy") {
    throw Error(ErrorKind::Usage, fmt::format("--outfeed {}: the file must end in .csv or .npy", path_), {},
                "name a CSV table (one row per element and replica) or .npy arrays (one file per value)");
  }
  csv_ = ext == ".csv";
  if (std::find(layout_.names.begin(), layout_.names.end(), "learning_rate") != layout_.names.end()) {
    throw Error(ErrorKind::Usage,
                fmt::format("--outfeed {}: the model has an output named `learning_rate`, the name of the file's "
                            "learning-rate column",
                            path_),
                {}, "rename the output in the model");
  }
  auto open = [](const std::string& final_path) {
    auto s = std::make_unique<Spool>();
    s->final_path = final_path;
    s->part_path = final_path + ".part";
    s->out.open(s->part_path, std::ios::binary | std::ios::trunc);
    if (!s->out) {
      throw Error(ErrorKind::Io, fmt::format("cannot write {}", s->part_path), {},
                  "--outfeed needs a file in a directory you can write");
    }
    return s;
  };
  if (csv_) {
    spools_.push_back(open(path_));
  } else {
    const fs::path p(path_);
    for (const std::string& name : layout_.names) {
      std::string safe = name;
      for (char& c : safe) {
        c = (c == '/' || c == '\\') ? '_' : c;
      }
      spools_.push_back(open((p.parent_path() / (p.stem().string() + "." + safe + ".npy")).string()));
    }
    spools_.push_back(open((p.parent_path() / (p.stem().string() + ".learning_rate.npy")).string()));
  }
}

OutfeedFile::~OutfeedFile() {
  for (auto& s : spools_) {
    if (s->out.is_open()) {
      s->out.close();
    }
    std::error_code ec;
    fs::remove(s->part_path, ec);  // a run that failed (or a final file that could not be written) leaves no half file
  }
}

std::vector<StepRecord> OutfeedFile::add(const std::vector<OutfeedTensor>& tensors,
                                         const std::vector<StepRecord>& steps) {
  if (steps.empty()) {
    return {};
  }
  const int64_t first_step = steps.front().step;
  const auto updates = static_cast<int64_t>(steps.size());
  const auto rate_of = [&](int64_t step) {
    return static_cast<float>(
        steps[static_cast<size_t>(std::clamp<int64_t>(step - first_step, 0, updates - 1))].learning_rate);
  };
  const int64_t replicas = layout_.replicas;
  const int64_t per_step = layout_.micro_batches;
  // Elements this execution enqueued, and the step and micro-batch of element e.
  const int64_t elements = layout_.last_only ? 1 : updates * per_step;
  const auto step_of = [&](int64_t e) {
    return layout_.last_only ? first_step + updates - 1 : first_step + e / per_step;
  };
  const auto micro_of = [&](int64_t e) -> std::string {
    if (layout_.accumulated) {
      return "sum";
    }
    return std::to_string(layout_.last_only ? per_step - 1 : e % per_step);
  };
  if (shapes_.empty()) {
    for (const OutfeedTensor& t : tensors) {
      const size_t lead = (layout_.last_only ? 0 : 1) + (replicas > 1 ? 1 : 0);
      shapes_.emplace_back(t.shape.begin() + static_cast<std::ptrdiff_t>(std::min(lead, t.shape.size())), t.shape.end());
    }
    if (csv_) {
      std::string header = "step,micro_batch,replica,learning_rate";
      for (size_t k = 0; k < tensors.size(); ++k) {
        const int64_t n = product(shapes_[k]);
        for (int64_t i = 0; i < n; ++i) {
          header += "," + tensors[k].name + (shapes_[k].empty() ? "" : index_suffix(shapes_[k], i));
        }
      }
      spools_.front()->out << header << "\n";
    }
  }

  // The log: each value's mean over the step's elements and replicas.
  std::vector<StepRecord> records;
  for (int64_t e = 0; e < elements; ++e) {
    const int64_t step = step_of(e);
    if (records.empty() || records.back().step != step) {
      records.push_back(StepRecord{step, std::vector<double>(tensors.size(), 0.0), rate_of(step)});
    }
  }
  std::vector<std::vector<double>> counts(records.size(), std::vector<double>(tensors.size(), 0.0));
  for (size_t k = 0; k < tensors.size(); ++k) {
    const int64_t n = product(shapes_[k]);
    const std::vector<double>& v = tensors[k].values;
    for (int64_t e = 0; e < elements; ++e) {
      const size_t r = static_cast<size_t>(step_of(e) - records.front().step);
      for (int64_t i = 0; i < replicas * n; ++i) {
        records[r].values[k] += v[static_cast<size_t>(e * replicas * n + i)];
      }
      counts[r][k] += static_cast<double>(replicas * n);
    }
  }
  for (size_t r = 0; r < records.size(); ++r) {
    for (size_t k = 0; k < tensors.size(); ++k) {
      records[r].values[k] /= std::max(1.0, counts[r][k]);
    }
  }

  if (spools_.empty()) {
    return records;
  }
  if (csv_) {
    std::ofstream& out = spools_.front()->out;
    for (int64_t e = 0; e < elements; ++e) {
      for (int64_t rep = 0; rep < replicas; ++rep) {
        // The rate as the update applied it (f32), in its shortest form: 0.001, not 0.00100000005.
        out << fmt::format("{},{},{},{}", step_of(e), micro_of(e), rep, rate_of(step_of(e)))
            << csv_values(tensors, shapes_, e * replicas + rep) << "\n";
      }
    }
  } else {
    for (size_t k = 0; k < tensors.size() && k < spools_.size(); ++k) {
      // The spool is f32, as the .npy header written by finish() says.
      const std::vector<float> v(tensors[k].values.begin(), tensors[k].values.end());
      spools_[k]->out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
    }
    for (int64_t e = 0; e < elements; ++e) {
      const float lr = rate_of(step_of(e));
      spools_.back()->out.write(reinterpret_cast<const char*>(&lr), sizeof(float));
    }
  }
  rows_ += elements;
  return records;
}

void OutfeedFile::add_validation(const ValidationRecord& v, const std::vector<std::string>& names) {
  if (path_.empty()) {
    return;
  }
  if (validation_.empty()) {
    validation_ = fmt::format("step,epoch,{}\n", fmt::join(names, ","));
  }
  validation_ += fmt::format("{},{}", v.step, v.epoch);
  for (const double x : v.values) {
    validation_ += fmt::format(",{:.9g}", x);
  }
  validation_ += "\n";
}

std::string OutfeedFile::finish() {
  if (spools_.empty()) {
    return {};
  }
  std::string validation_path;
  if (!validation_.empty()) {
    const fs::path p(path_);
    validation_path = (p.parent_path() / (p.stem().string() + ".validation.csv")).string();
    write_file_atomically(validation_path, validation_);
  }
  for (size_t k = 0; k < spools_.size(); ++k) {
    Spool& s = *spools_[k];
    s.out.close();
    if (!s.out) {
      throw Error(ErrorKind::Io, fmt::format("cannot write {}", s.part_path), {}, "is the disk full?");
    }
    // The final file, written as every output file is (iputrain::AtomicFile): the .npy header
    // needs the element count, known now, in front of the spooled data.
    AtomicFile out(s.final_path, "the outfeed to ");
    if (!csv_) {
      std::vector<int64_t> dims = {rows_};
      const bool rates = k + 1 == spools_.size();  // the learning rates: one per element, not per replica
      if (layout_.replicas > 1 && !rates) {
        dims.push_back(layout_.replicas);
      }
      if (k < shapes_.size() && !rates) {
        dims.insert(dims.end(), shapes_[k].begin(), shapes_[k].end());
      }
      const std::string header = npy_header("<f4", dims);
      out.write(header.data(), header.size());
    }
    std::ifstream data(s.part_path, std::ios::binary);
    std::vector<char> chunk(1 << 20);
    while (data.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || data.gcount() > 0) {
      out.write(chunk.data(), static_cast<size_t>(data.gcount()));
    }
    if (data.bad()) {
      throw Error(ErrorKind::Io, fmt::format("cannot read back the spooled outfeed {}", s.part_path));
    }
    out.commit();
    std::error_code ec;
    fs::remove(s.part_path, ec);
  }
  std::vector<std::string> paths;
  for (const auto& s : spools_) {
    paths.push_back(s->final_path);
  }
  if (!validation_path.empty()) {
    paths.push_back(validation_path);
  }
  return fmt::format("{}", fmt::join(paths, ", "));
}

}  // namespace iputrain::cli
