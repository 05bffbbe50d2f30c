/* Calls two pipelines compiled at build time by tessera_add_pipeline and checks them
 * against plain C. */
#include <stdio.h>

#include "brighten.h"
#include "box_sum.h"

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

int main(void) {
    enum { W = 13, H = 7 };
    uint8_t in[W * H], bright[W * H];
    int32_t box[W * H];
    for (int i = 0; i < W * H; i++) in[i] = (uint8_t)(i * 29 + 3);
    tessera_dim_t dims[2] = {{0, W, 1}, {0, H, W}};
    tessera_buffer_t bin = {in, TESSERA_TYPE_UINT, 8, 2, dims};
    tessera_buffer_t bbright = {bright, TESSERA_TYPE_UINT, 8, 2, dims};
    tessera_buffer_t bbox = {box, TESSERA_TYPE_INT, 32, 2, dims};
    if (brighten(&bin, 3, &bbright) != 0 || box_sum(&bin, &bbox) != 0) {
        printf("a pipeline failed\n");
        return 1;
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int b = in[y * W + x] * 3;
            if (bright[y * W + x] != (b > 255 ? 255 : b)) {
                printf("brighten differs at (%d, %d)\n", x, y);
                return 1;
            }
            int s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) s += in[clampi(y + dy, 0, H - 1) * W + clampi(x + dx, 0, W - 1)];
            if (box[y * W + x] != s) {
                printf("box_sum differs at (%d, %d)\n", x, y);
                return 1;
            }
        }
    printf("pipelines: OK\n");
    return 0;
}
