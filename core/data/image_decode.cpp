#include "core/data/image_decode.hpp"

#include <fmt/format.h>
#include <png.h>

#include <cstdio>  // jpeglib.h needs FILE and size_t declared first

#include <jpeglib.h>

#include <csetjmp>
#include <cstring>
#include <fstream>
#include <iterator>

#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

enum class Kind { Png, Jpeg };

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, fmt::format("cannot open image `{}`", path), {}, "check the file's permissions");
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Kind kind_of(const std::string& path, const std::vector<uint8_t>& bytes) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0) {
    return Kind::Png;
  }
  if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) {
    return Kind::Jpeg;
  }
  throw Error(ErrorKind::Data,
              fmt::format("`{}` is neither a PNG nor a JPEG file ({} bytes, unknown signature)", path, bytes.size()),
              {}, "image folders hold .png, .jpg or .jpeg files; the file may be empty or damaged");
}

[[noreturn]] void damaged(const std::string& path, const char* kind, const std::string& what) {
  throw Error(ErrorKind::Data, fmt::format("`{}` is a damaged {} file: {}", path, kind, what), {},
              "open it in an image viewer, or remove it from the folder");
}

// libpng's simplified API reports errors by return value, so no longjmp crosses C++ frames.
std::vector<uint8_t> png(const std::string& path, const std::vector<uint8_t>& bytes, ImageInfo& info, bool pixels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) == 0) {
    const std::string what = image.message;
    png_image_free(&image);
    damaged(path, "PNG", what);
  }
  info.width = static_cast<int>(image.width);
  info.height = static_cast<int>(image.height);
  const bool colour = (image.format & PNG_FORMAT_FLAG_COLOR) != 0;
  info.channels = colour ? 3 : 1;
  if (!pixels) {
    png_image_free(&image);
    return {};
  }
  // Read with alpha (straight, not composited) and drop it below: what the file stores, unchanged.
  image.format = colour ? PNG_FORMAT_RGBA : PNG_FORMAT_GA;
  const size_t stride = colour ? 4 : 2;
  std::vector<uint8_t> raw(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, raw.data(), 0, nullptr) == 0) {
    const std::string what = image.message;
    png_image_free(&image);
    damaged(path, "PNG", what);
  }
  const size_t n = size_t{image.width} * image.height;
  std::vector<uint8_t> out(n * static_cast<size_t>(info.channels));
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < info.channels; ++c) {
      out[i * static_cast<size_t>(info.channels) + static_cast<size_t>(c)] = raw[i * stride + static_cast<size_t>(c)];
    }
  }
  return out;
}

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void jpeg_quiet(j_common_ptr, int) {}

// libjpeg reports errors through error_exit, which must not return: it longjmps back here. Only
// trivially destructible locals live between setjmp and the jump; `out` is declared before.
bool jpeg_decode(const std::vector<uint8_t>& bytes, ImageInfo& info, bool pixels, std::vector<uint8_t>& out,
                 JpegError& err) {
  jpeg_decompress_struct cinfo{};
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  err.mgr.emit_message = jpeg_quiet;  // warnings (e.g. premature end) would print to stderr
  if (setjmp(err.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    std::snprintf(err.message, sizeof err.message, "CMYK JPEG files are not supported; save it as RGB");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  const bool grey = cinfo.jpeg_color_space == JCS_GRAYSCALE;
  cinfo.out_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
  info.width = static_cast<int>(cinfo.image_width);
  info.height = static_cast<int>(cinfo.image_height);
  info.channels = grey ? 1 : 3;
  if (pixels) {
    jpeg_start_decompress(&cinfo);
    const size_t row = size_t{cinfo.output_width} * static_cast<size_t>(cinfo.output_components);
    out.resize(row * cinfo.output_height);
    while (cinfo.output_scanline < cinfo.output_height) {
      JSAMPROW line = out.data() + row * cinfo.output_scanline;
      jpeg_read_scanlines(&cinfo, &line, 1);
    }
    // A file cut short decodes with grey fill and only a warning: treat it as damaged.
    if (err.mgr.num_warnings > 0) {
      std::snprintf(err.message, sizeof err.message, "the data are truncated or corrupt");
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
    jpeg_finish_decompress(&cinfo);
  }
  jpeg_destroy_decompress(&cinfo);
  return true;
}

std::vector<uint8_t> jpeg(const std::string& path, const std::vector<uint8_t>& bytes, ImageInfo& info, bool pixels) {
  std::vector<uint8_t> out;
  JpegError err{};
  if (!jpeg_decode(bytes, info, pixels, out, err)) {
    damaged(path, "JPEG", err.message);
  }
  return out;
}

std::vector<uint8_t> load(const std::string& path, ImageInfo& info, bool pixels) {
  const std::vector<uint8_t> bytes = read_file(path);
  return kind_of(path, bytes) == Kind::Png ? png(path, bytes, info, pixels) : jpeg(path, bytes, info, pixels);
}

}  // namespace

ImageInfo read_image_info(const std::string& path) {
  ImageInfo info;
  (void)load(path, info, false);
  return info;
}

std::vector<uint8_t> decode_image(const std::string& path, ImageInfo& info) { return load(path, info, true); }

}  // namespace iputrain::data
