// "images:DIR[,resize=bilinear|nearest]": DIR/<class>/*.png|*.jpg|*.jpeg. Labels are the indices
// of the class folders in sorted order. Images are decoded in read (each call its own decoder, so
// the infeed may read in parallel); only their headers are read at open, to check sizes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/data/convert.hpp"
#include "core/data/dataset.hpp"
#include "core/data/image_decode.hpp"
#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

enum class Resize { None, Nearest, Bilinear };

const char* kImagesHint =
    "\"images:DIR\" reads DIR/<class>/*.png|*.jpg|*.jpeg; add \",resize=bilinear\" (or nearest) to scale "
    "every "
    "image to the model's input size";

bool is_image(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

// Grey from RGB by the ITU-R BT.601 luma weights; RGB from grey by copying the value to all three.
float channel(const uint8_t* px, int have, int want, int c) {
  if (have == want) {
    return px[c];
  }
  if (want == 1) {
    return 0.299f * px[0] + 0.587f * px[1] + 0.114f * px[2];
  }
  return px[0];
}

class ImageDataset : public Dataset {
 public:
  ImageDataset(const std::string& dir, const std::vector<Field>& wanted, Resize resize) : resize_(resize) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      throw Error(ErrorKind::Io, fmt::format("cannot find the image directory `{}`", dir), {}, kImagesHint);
    }
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.is_directory()) {
        classes_.push_back(e.path().filename().string());
      }
    }
    std::sort(classes_.begin(), classes_.end());
    if (classes_.empty()) {
      throw Error(ErrorKind::Data, fmt::format("`{}` has no class folders", dir), {}, kImagesHint);
    }
    for (size_t c = 0; c < classes_.size(); ++c) {
      std::vector<std::string> files;
      for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(dir) / classes_[c], ec)) {
        if (e.is_regular_file() && is_image(e.path())) {
          files.push_back(e.path().string());
        }
      }
      std::sort(files.begin(), files.end());
      for (std::string& f : files) {
        samples_.push_back({std::move(f), static_cast<int32_t>(c)});
      }
    }
    if (samples_.empty()) {
      throw Error(ErrorKind::Data, fmt::format("the class folders of `{}` hold no .png, .jpg or .jpeg files", dir), {},
                  kImagesHint);
    }
    pick_fields(wanted);
    if (resize_ == Resize::None) {
      for (const Sample& s : samples_) {
        const ImageInfo info = read_image_info(s.path);
        if (info.height != height_ || info.width != width_) {
          throw Error(ErrorKind::Data,
                      fmt::format("`{}` is {}x{} (height x width) but the model's input `{}` takes {}x{} images",
                                  s.path, info.height, info.width, fields_[0].str(), height_, width_),
                      {},
                      fmt::format("resize the files, or write \"images:{},resize=bilinear\" to scale them as they "
                                  "are read",
                                  dir));
        }
      }
    }
  }

  int64_t size() const override { return static_cast<int64_t>(samples_.size()); }
  const std::vector<Field>& fields() const override { return fields_; }
  std::vector<std::string> class_names() const override { return classes_; }

  void read(int64_t index, size_t field, void* dst) const override {
    if (index < 0 || index >= size() || field >= fields_.size()) {
      throw Error(ErrorKind::Internal, fmt::format("image read of sample {} field {} out of range", index, field));
    }
    const Sample& s = samples_[static_cast<size_t>(index)];
    if (field == 1) {
      store_number(s.label, fields_[1].dtype, dst);
      return;
    }
    ImageInfo info;
    const std::vector<uint8_t> px = decode_image(s.path, info);
    if (resize_ == Resize::None && (info.height != height_ || info.width != width_)) {
      throw Error(ErrorKind::Data,
                  fmt::format("`{}` is {}x{} but the model's input `{}` takes {}x{} images (it changed after open)",
                              s.path, info.height, info.width, fields_[0].name, height_, width_));
    }
    const DType dtype = fields_[0].dtype;
    const size_t elem = dtype_size(dtype);
    auto* out = static_cast<uint8_t*>(dst);
    const int c_have = info.channels;
    auto at = [&](int y, int x, int c) {
      return channel(px.data() + (static_cast<size_t>(y) * info.width + x) * c_have, c_have, channels_, c);
    };
    for (int y = 0; y < height_; ++y) {
      for (int x = 0; x < width_; ++x) {
        for (int c = 0; c < channels_; ++c) {
          float v = 0;
          if (resize_ == Resize::None) {
            v = at(y, x, c);
          } else {
            // Pixel centres: output pixel y samples the source at (y + 0.5) * H / h - 0.5.
            const float sy = std::clamp((y + 0.5f) * info.height / height_ - 0.5f, 0.0f, info.height - 1.0f);
            const float sx = std::clamp((x + 0.5f) * info.width / width_ - 0.5f, 0.0f, info.width - 1.0f);
            if (resize_ == Resize::Nearest) {
              v = at(static_cast<int>(std::lround(sy)), static_cast<int>(std::lround(sx)), c);
            } else {
              const int y0 = static_cast<int>(sy);
              const int x0 = static_cast<int>(sx);
              const int y1 = std::min(y0 + 1, info.height - 1);
              const int x1 = std::min(x0 + 1, info.width - 1);
              const float fy = sy - y0;
              const float fx = sx - x0;
              v = (1 - fy) * ((1 - fx) * at(y0, x0, c) + fx * at(y0, x1, c)) +
                  fy * ((1 - fx) * at(y1, x0, c) + fx * at(y1, x1, c));
            }
          }
          uint8_t* to = out + ((static_cast<size_t>(y) * width_ + x) * channels_ + c) * elem;
          if (dtype == DType::U8) {  // the decoded byte; a blended one (luma, bilinear) rounded to nearest
            *to = static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 255.0f)));
          } else {
            store_number(v, dtype, to);
          }
        }
      }
    }
  }

 private:
  struct Sample {
    std::string path;
    int32_t label = 0;
  };

  // The image is the model's float input of shape [H, W] or [H, W, C] (C 1 or 3), the label its
  // integer scalar input.
  void pick_fields(const std::vector<Field>& wanted) {
    const Field* image = nullptr;
    const Field* label = nullptr;
    for (const Field& f : wanted) {
      const bool img = (is_float(f.dtype) || f.dtype == DType::U8) &&
                       (f.shape.size() == 2 || (f.shape.size() == 3 && (f.shape[2] == 1 || f.shape[2] == 3)));
      const bool lab = f.dtype == DType::I32 && f.shape.empty();
      if ((img && image != nullptr) || (lab && label != nullptr)) {
        throw Error(ErrorKind::Data,
                    fmt::format("the model has two inputs an image folder could fill: `{}` and `{}`",
                                (img ? image : label)->str(), f.str()),
                    {}, "an image model has one float or u8 image input ([H, W] or [H, W, C]) and one i32 label input");
      }
      image = img ? &f : image;
      label = lab ? &f : label;
    }
    if (!wanted.empty() && image == nullptr) {
      throw Error(ErrorKind::Data, "the model has no image input for an image folder", {},
                  "declare a float (or u8) input of shape [batch, H, W] (grey) or [batch, H, W, C] with C 1 or 3");
    }
    if (image != nullptr) {
      fields_.push_back(*image);
      height_ = static_cast<int>(image->shape[0]);
      width_ = static_cast<int>(image->shape[1]);
      channels_ = image->shape.size() == 3 ? static_cast<int>(image->shape[2]) : 1;
    } else {
      const ImageInfo first = read_image_info(samples_.front().path);
      height_ = first.height;
      width_ = first.width;
      channels_ = 3;
      fields_.push_back(Field{"image", DType::F32, {height_, width_, 3}});
    }
    fields_.push_back(label != nullptr ? *label : Field{"label", DType::I32, {}});
  }

  Resize resize_;
  std::vector<std::string> classes_;
  std::vector<Sample> samples_;
  std::vector<Field> fields_;
  int height_ = 0;
  int width_ = 0;
  int channels_ = 1;
};

}  // namespace

std::unique_ptr<Dataset> open_images(const std::string& dir, const std::string& opt, const std::vector<Field>& wanted) {
  Resize resize = Resize::None;
  if (!opt.empty()) {
    if (opt == "resize=bilinear") {
      resize = Resize::Bilinear;
    } else if (opt == "resize=nearest") {
      resize = Resize::Nearest;
    } else if (opt != "resize=none") {
      throw Error(ErrorKind::Data, fmt::format("unknown option `{}` of an image folder source", opt), {},
                  "the option is resize=bilinear, resize=nearest or resize=none");
    }
  }
  return std::make_unique<ImageDataset>(dir, wanted, resize);
}

const DataSourceDef kImagesSource{
    "images", "DIR",
    "DIR/CLASS/*.png, *.jpg or *.jpeg, the labels the sorted class folders; \",resize=bilinear\" scales the images",
    "images:data/train,resize=bilinear", [](const DataSourceRequest& r) {
      const size_t comma = r.rest.find(',');
      return open_images(r.path("directory", comma),
                         comma == std::string::npos ? std::string() : r.rest.substr(comma + 1), r.wanted);
    }};

}  // namespace iputrain::data
