// Buffer views (Halide's cropped, sliced, embedded, transposed): the same memory seen
// through another descriptor, read and written by the host and by compiled pipelines.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

Buffer<int32_t> numbered(int w, int h) {
    Buffer<int32_t> b(std::vector<int>{w, h}, "img");
    b.set_min({-2, 3});
    b.for_each_element([&](const std::vector<int> &c) { b(c) = c[0] * 100 + c[1]; });
    return b;
}

}  // namespace

TEST(BufferViews, CroppedSlicedEmbeddedTransposedShareTheMemory) {
    Buffer<int32_t> b = numbered(8, 5);
    Buffer<int32_t> crop = b.cropped(0, 1, 4);
    EXPECT_EQ(crop.min(0), 1);
    EXPECT_EQ(crop.extent(0), 4);
    EXPECT_EQ(crop(3, 6), 306);
    crop(2, 4) = -1;  // written through the view
    EXPECT_EQ(b(2, 4), -1);
    Buffer<int32_t> row = b.sliced(1, 5);
    ASSERT_EQ(row.dimensions(), 1);
    EXPECT_EQ(row.min(0), -2);
    EXPECT_EQ(row(4), 405);
    Buffer<int32_t> column = b.sliced(0, 3);
    EXPECT_EQ(column(7), 307);
    Buffer<int32_t> planes = b.embedded(2, 9);
    ASSERT_EQ(planes.dimensions(), 3);
    EXPECT_EQ(planes(1, 4, 9), 104);
    Buffer<int32_t> t = b.transposed(0, 1);
    EXPECT_EQ(t.min(0), 3);
    EXPECT_EQ(t(6, -1), -100 + 6);
    EXPECT_EQ(t.dim(0).stride(), 8);
    // Views of views.
    EXPECT_EQ(b.cropped(1, 4, 2).sliced(1, 5).cropped(0, 0, 2)(1), 105);
}

TEST(BufferViews, ViewsAsPipelineInputsAndOutputs) {
    Buffer<int32_t> b = numbered(8, 5);
    Var x("x"), y("y");
    // A cropped input: reads inside see the original, reads past the crop are caught.
    Buffer<int32_t> crop = b.cropped(0, 0, 3);
    Func f("f");
    f(x, y) = crop(x, y + 3) * 2;
    Buffer<int32_t> out = f.realize({3, 2});
    for (int yy = 0; yy < 2; yy++)
        for (int xx = 0; xx < 3; xx++) EXPECT_EQ(out(xx, yy), 2 * b(xx, yy + 3)) << xx << ", " << yy;
    Func past("past");
    past(x, y) = crop(x, y + 3);
    EXPECT_THROW(past.realize({4, 2}), RuntimeError);
    // A slice as a one-dimensional input.
    Buffer<int32_t> row = b.sliced(1, 6);
    Func g("g");
    g(x) = row(x - 2) + 1;
    Buffer<int32_t> out_g = g.realize({8});
    for (int xx = 0; xx < 8; xx++) EXPECT_EQ(out_g(xx), b(xx - 2, 6) + 1);
    // A crop of a larger buffer as the output: the pipeline writes into the original.
    Buffer<int32_t> big(std::vector<int>{6, 4}, "big");
    Buffer<int32_t> window = big.cropped(0, 2, 3).cropped(1, 1, 2);
    Func h("h");
    h(x, y) = x * 10 + y;
    h.realize(window);
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 6; xx++) EXPECT_EQ(big(xx, yy), (xx >= 2 && xx < 5 && yy >= 1 && yy < 3) ? xx * 10 + yy : 0);
}

TEST(BufferViews, OutOfRangeViewsAreErrorsNamingTheBuffer) {
    Buffer<int32_t> b = numbered(8, 5);
    EXPECT_THROW(b.cropped(0, -3, 2), RuntimeError);
    EXPECT_THROW(b.cropped(2, 0, 1), RuntimeError);
    EXPECT_THROW(b.sliced(1, 8), RuntimeError);
    EXPECT_THROW(b.transposed(0, 2), RuntimeError);
    EXPECT_THROW(b.embedded(3), RuntimeError);
    try {
        b.cropped(0, 4, 5);
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Buffer img: a crop to [4, 8] of dimension 0, outside its range [-2, 5]"), std::string::npos)
            << e.what();
    }
}
