#pragma once
// Input images for tests.

#include <tessera/tessera.h>

namespace tessera::test {

/** A w x h uint16 image named "input" with a deterministic pattern. */
inline Buffer<uint16_t> image(int w, int h) {
    Buffer<uint16_t> b(std::vector<int>{w, h}, "input");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = uint16_t((x * 31 + y * 17) & 0xfff);
    return b;
}

}  // namespace tessera::test
