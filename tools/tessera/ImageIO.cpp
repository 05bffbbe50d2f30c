#include "ImageIO.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

namespace tessera::tool {

namespace {

[[noreturn]] void fail(const std::string &path, const std::string &why) { throw RuntimeError(path + ": " + why); }

std::string extension(const std::string &path) {
    const size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
    std::string e = path.substr(dot + 1);
    for (char &c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

std::vector<int> image_sizes(int w, int h, int c) {
    return c == 1 ? std::vector<int>{w, h} : std::vector<int>{w, h, c};
}

/** Element (x, y, c) of a planar buffer. */
uint8_t *at(const Buffer<> &b, int x, int y, int c) {
    const auto &d = b.data_handle()->dims;
    int64_t off = int64_t(x - d[0].min) * d[0].stride + int64_t(y - d[1].min) * d[1].stride;
    if (d.size() > 2) off += int64_t(c - d[2].min) * d[2].stride;
    return b.data_handle()->host + off * b.type().bytes();
}

// ---------------------------------------------------------------------------------------
// PNG

struct PngReader {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngReader() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

void png_error_fn(png_structp png, png_const_charp msg) {
    auto *why = static_cast<std::string *>(png_get_error_ptr(png));
    *why = msg;
    longjmp(png_jmpbuf(png), 1);
}
void png_warning_fn(png_structp, png_const_charp) {}

Buffer<> read_png(const std::string &path) {
    std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) fail(path, "cannot open the file");
    unsigned char sig[8];
    if (std::fread(sig, 1, 8, f.get()) != 8 || png_sig_cmp(sig, 0, 8)) fail(path, "not a PNG file");
    std::string why;
    PngReader r;
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &why, png_error_fn, png_warning_fn);
    if (!r.png) fail(path, "libpng could not start");
    r.info = png_create_info_struct(r.png);
    Buffer<> out;
    std::vector<png_bytep> rows;
    std::vector<uint8_t> data;
    if (setjmp(png_jmpbuf(r.png))) fail(path, "the PNG data is damaged or truncated (" + why + ")");
    png_init_io(r.png, f.get());
    png_set_sig_bytes(r.png, 8);
    png_read_info(r.png, r.info);
    png_set_expand(r.png);            // palette and low bit depths to 8 bits
    if (png_get_bit_depth(r.png, r.info) == 16) png_set_swap(r.png);  // host order (little-endian)
    png_read_update_info(r.png, r.info);
    const int w = int(png_get_image_width(r.png, r.info)), h = int(png_get_image_height(r.png, r.info));
    const int c = int(png_get_channels(r.png, r.info));
    const int bits = int(png_get_bit_depth(r.png, r.info));
    const size_t row_bytes = png_get_rowbytes(r.png, r.info);
    data.resize(row_bytes * size_t(h));
    rows.resize(size_t(h));
    for (int y = 0; y < h; y++) rows[size_t(y)] = data.data() + row_bytes * size_t(y);
    png_read_image(r.png, rows.data());
    png_read_end(r.png, nullptr);
    const Type t = bits == 16 ? UInt(16) : UInt(8);
    out = Buffer<>(t, image_sizes(w, h, c), "image");
    const int bytes = t.bytes();
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                std::memcpy(at(out, x, y, ch), rows[size_t(y)] + (size_t(x) * size_t(c) + size_t(ch)) * size_t(bytes),
                            size_t(bytes));
    return out;
}

void write_png(const Buffer<> &b, const std::string &path, int w, int h, int c) {
    std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path.c_str(), "wb"), std::fclose);
    if (!f) fail(path, "cannot create the file");
    std::string why;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &why, png_error_fn, png_warning_fn);
    png_infop info = png_create_info_struct(png);
    const volatile int bytes = b.type().bytes();  // volatile: live across setjmp
    std::vector<uint8_t> row(size_t(w) * size_t(c) * size_t(bytes));
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fail(path, "cannot write the PNG (" + why + ")");
    }
    png_init_io(png, f.get());
    static const int kinds[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_IHDR(png, info, png_uint_32(w), png_uint_32(h), bytes * 8, kinds[c], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (bytes == 2) png_set_swap(png);
    const int x0 = b.min(0), y0 = b.min(1), c0 = b.dimensions() > 2 ? b.min(2) : 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                std::memcpy(row.data() + (size_t(x) * size_t(c) + size_t(ch)) * size_t(bytes), at(b, x0 + x, y0 + y, c0 + ch),
                            size_t(bytes));
        png_write_row(png, row.data());
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
}

// ---------------------------------------------------------------------------------------
// PPM / PGM (binary)

Buffer<> read_pnm(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, "cannot open the file");
    std::string magic;
    in >> magic;
    if (magic != "P5" && magic != "P6") fail(path, "not a binary PGM (P5) or PPM (P6) file");
    auto number = [&](const char *what) {
        while (in >> std::ws && in.peek() == '#') in.ignore(1 << 20, '\n');
        long v = -1;
        if (!(in >> v) || v <= 0) fail(path, std::string("bad or missing ") + what + " in the header");
        return v;
    };
    const long w = number("width"), h = number("height"), maxval = number("maximum value");
    if (w > 1 << 16 || h > 1 << 16 || maxval > 65535) fail(path, "the header's sizes are out of range");
    in.get();
    const int c = magic == "P6" ? 3 : 1;
    const Type t = maxval > 255 ? UInt(16) : UInt(8);
    Buffer<> out(t, image_sizes(int(w), int(h), c), "image");
    const size_t n = size_t(w) * size_t(h) * size_t(c) * size_t(t.bytes());
    std::vector<uint8_t> data(n);
    if (!in.read(reinterpret_cast<char *>(data.data()), std::streamsize(n)))
        fail(path, "the file is truncated (" + std::to_string(n) + " bytes of pixels expected)");
    for (long y = 0; y < h; y++)
        for (long x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) {
                const uint8_t *p = data.data() + ((size_t(y) * size_t(w) + size_t(x)) * size_t(c) + size_t(ch)) * size_t(t.bytes());
                uint8_t *q = at(out, int(x), int(y), ch);
                if (t.bytes() == 1) *q = *p;
                else {
                    const uint16_t v = uint16_t(p[0] << 8 | p[1]);  // PNM is big-endian
                    std::memcpy(q, &v, 2);
                }
            }
    return out;
}

void write_pnm(const Buffer<> &b, const std::string &path, int w, int h, int c) {
    std::ofstream out(path, std::ios::binary);
    if (!out) fail(path, "cannot create the file");
    const int bytes = b.type().bytes();
    out << (c == 3 ? "P6" : "P5") << "\n" << w << " " << h << "\n" << (bytes == 2 ? 65535 : 255) << "\n";
    const int x0 = b.min(0), y0 = b.min(1), c0 = b.dimensions() > 2 ? b.min(2) : 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) {
                const uint8_t *p = at(b, x0 + x, y0 + y, c0 + ch);
                if (bytes == 1) out.put(char(*p));
                else {
                    uint16_t v;
                    std::memcpy(&v, p, 2);
                    out.put(char(v >> 8)).put(char(v & 0xff));
                }
            }
    if (!out) fail(path, "cannot write the file");
}

// ---------------------------------------------------------------------------------------
// Raw

bool type_named(const std::string &n, Type &t) {
    static const std::pair<const char *, Type> types[] = {
        {"uint8", UInt(8)},   {"uint16", UInt(16)}, {"uint32", UInt(32)}, {"uint64", UInt(64)},
        {"int8", Int(8)},     {"int16", Int(16)},   {"int32", Int(32)},   {"int64", Int(64)},
        {"float32", Float(32)}, {"float64", Float(64)}};
    for (const auto &[name, type] : types)
        if (n == name) {
            t = type;
            return true;
        }
    return false;
}

Buffer<> read_raw(const std::string &path, const std::string &type, const std::string &size) {
    Type t;
    if (!type_named(type, t)) fail(path, "unknown element type '" + type + "' (uint8 ... float64)");
    std::vector<int> sizes;
    std::stringstream ss(size);
    for (std::string part; std::getline(ss, part, 'x');) {
        char *end = nullptr;
        const long v = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end || v <= 0 || v > (1 << 20)) fail(path, "bad size '" + size + "' (write it as WxH or WxHxC)");
        sizes.push_back(int(v));
    }
    if (sizes.empty()) fail(path, "a raw file needs its size (path:type:WxH)");
    Buffer<> out(t, sizes, "image");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, "cannot open the file");
    const size_t n = size_t(out.number_of_elements()) * size_t(t.bytes());
    if (!in.read(reinterpret_cast<char *>(out.data_handle()->host), std::streamsize(n)))
        fail(path, "the file is too short: " + size + " " + type + " values need " + std::to_string(n) + " bytes");
    return out;
}

}  // namespace

Buffer<> read_image(const std::string &spec) {
    const size_t colon = spec.find(':');
    if (colon != std::string::npos) {
        const size_t second = spec.find(':', colon + 1);
        if (second == std::string::npos) fail(spec, "raw data is given as path:type:WxH[xC]");
        return read_raw(spec.substr(0, colon), spec.substr(colon + 1, second - colon - 1), spec.substr(second + 1));
    }
    const std::string e = extension(spec);
    if (e == "png") return read_png(spec);
    if (e == "ppm" || e == "pgm" || e == "pnm") return read_pnm(spec);
    if (e == "raw") fail(spec, "a raw file needs its type and size: " + spec + ":uint8:640x480");
    fail(spec, "unknown image format (.png, .ppm, .pgm, or path:type:WxH for raw data)");
}

void write_image(const Buffer<> &b, const std::string &path) {
    const std::string e = extension(path);
    if (e == "raw") {
        std::ofstream out(path, std::ios::binary);
        if (!out) fail(path, "cannot create the file");
        // The buffer is dense with dimension 0 innermost.
        out.write(reinterpret_cast<const char *>(b.data_handle()->host),
                  std::streamsize(size_t(b.number_of_elements()) * size_t(b.type().bytes())));
        if (!out) fail(path, "cannot write the file");
        return;
    }
    if (e != "png" && e != "ppm" && e != "pgm")
        fail(path, "unknown image format (.png, .ppm, .pgm or .raw)");
    if (b.type() != UInt(8) && b.type() != UInt(16))
        fail(path, "the pipeline's output is " + b.type().to_string() + "; images hold uint8 or uint16 (write .raw)");
    if (b.dimensions() < 2 || b.dimensions() > 3)
        fail(path, "the output has " + std::to_string(b.dimensions()) + " dimensions; an image has 2 or 3 (write .raw)");
    const int c = b.dimensions() == 3 ? b.extent(2) : 1;
    if (c < 1 || c > 4) fail(path, "an image has 1 to 4 channels, the output has " + std::to_string(c));
    if (e == "png") return write_png(b, path, b.extent(0), b.extent(1), c);
    if ((e == "ppm") != (c == 3)) fail(path, e == "ppm" ? "PPM holds 3 channels" : "PGM holds 1 channel");
    write_pnm(b, path, b.extent(0), b.extent(1), c);
}

}  // namespace tessera::tool
