#pragma once
// Images for the `tessera` command: PNG (8 and 16 bits, through libpng), binary PPM/PGM,
// and raw files whose type and size are given with the name ("a.raw:float32:640x480").
// Buffers are planar: dimension 0 is x, 1 is y, 2 is the channel. Every failure is a
// tessera::RuntimeError that names the file and says what is wrong.

#include <string>

#include <tessera/tessera.h>

namespace tessera::tool {

/** Reads `spec` (a path, or path:type:WxH[xC] for raw data). */
Buffer<> read_image(const std::string &spec);

/** Writes a buffer to `path`; the extension picks the format (.png, .ppm, .pgm, or .raw
 * for any type). PNG/PPM/PGM need uint8 or uint16 data with 1 to 4 channels. */
void write_image(const Buffer<> &image, const std::string &path);

}  // namespace tessera::tool
