// Writes PNG (libpng) and JPEG (libjpeg) files for tests of image folders.
#pragma once

#include <png.h>

#include <cstdio>  // jpeglib.h needs FILE and size_t declared first

#include <jpeglib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace iputrain::test {

//! Writes `pixels` (row-major, `channels` 1, 2 (grey+alpha), 3 or 4 (RGBA)) as an 8-bit PNG.
inline void write_png(const std::string& path, int width, int height, int channels,
                      const std::vector<uint8_t>& pixels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = channels == 1   ? PNG_FORMAT_GRAY
                 : channels == 2 ? PNG_FORMAT_GA
                 : channels == 3 ? PNG_FORMAT_RGB
                                 : PNG_FORMAT_RGBA;
  if (png_image_write_to_file(&image, path.c_str(), 0, pixels.data(), 0, nullptr) == 0) {
    throw std::runtime_error("cannot write " + path + ": " + image.message);
  }
}

//! Writes `pixels` (row-major, 1 or 3 channels) as a JPEG of quality 95.
inline void write_jpeg(const std::string& path, int width, int height, int channels,
                       const std::vector<uint8_t>& pixels) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    throw std::runtime_error("cannot write " + path);
  }
  jpeg_compress_struct c{};
  jpeg_error_mgr err{};
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = static_cast<JDIMENSION>(width);
  c.image_height = static_cast<JDIMENSION>(height);
  c.input_components = channels;
  c.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 95, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row =
        const_cast<uint8_t*>(pixels.data()) + static_cast<size_t>(c.next_scanline) * width * channels;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::fclose(f);
}

}  // namespace iputrain::test
