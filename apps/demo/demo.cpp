// The Tessera demo: a separable blur followed by an unsharp mask on a generated 16-bit
// image, realized through Tessera and checked against plain C++ loops.
//
// Run with `make demo`. It prints the time Tessera took and whether the result matches.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tessera/tessera.h>

using namespace tessera;

int main() {
    const int W = 512, H = 384;

    // A procedural test image: smooth gradients plus a checkerboard, 12-bit values.
    Buffer<uint16_t> input({W, H}, "input");
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) input(x, y) = uint16_t(((x * 7 + y * 5) + (((x / 16) + (y / 16)) % 2) * 1024) & 0xfff);

    // The algorithm: 3x3 box blur (separable), then sharpen = 2 * input - blur.
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y"), sharpen("sharpen");
    blur_x(x, y) = (cast<uint32_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    sharpen(x, y) = cast<uint16_t>(clamp(2 * cast<int32_t>(input(x, y)) - cast<int32_t>(blur_y(x, y)), 0, 4095));

    auto t0 = std::chrono::steady_clock::now();
    Buffer<uint16_t> out = sharpen.realize({W, H});
    auto t1 = std::chrono::steady_clock::now();

    // The same computation in plain C++.
    auto at = [&](int i, int j) {
        i = i < 0 ? 0 : (i >= W ? W - 1 : i);
        j = j < 0 ? 0 : (j >= H ? H - 1 : j);
        return uint32_t(input(i, j));
    };
    long mismatches = 0;
    for (int j = 0; j < H; j++) {
        for (int i = 0; i < W; i++) {
            auto bx = [&](int jj) { return (at(i - 1, jj) + at(i, jj) + at(i + 1, jj)) / 3; };
            uint32_t by = (bx(j - 1) + bx(j) + bx(j + 1)) / 3;
            int32_t v = 2 * int32_t(input(i, j)) - int32_t(by);
            v = v < 0 ? 0 : (v > 4095 ? 4095 : v);
            if (out(i, j) != uint16_t(v)) mismatches++;
        }
    }

    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("Tessera demo: blur + sharpen of a %dx%d uint16 image\n", W, H);
    std::printf("  realize: %.1f ms\n", ms);
    std::printf("  output(100, 100) = %u, output(0, 0) = %u\n", unsigned(out(100, 100)), unsigned(out(0, 0)));
    std::printf("  %s (%ld mismatches against plain C++)\n", mismatches == 0 ? "correct" : "WRONG", mismatches);
    return mismatches == 0 ? 0 : 1;
}
