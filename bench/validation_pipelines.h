#pragma once
// The pipelines of the validator's evaluation (bench/validation.cpp, docs/validation.md
// "Evaluation"), analogues of the configurations of the thesis' chapter 6: also validated
// by tests/validate/values_test.cpp, which requires Proved of the quick ones.

#include <string>
#include <vector>

#include <tessera/tessera.h>

namespace tessera::evaluation {

inline Func dot_product() {
    // Batched dot products, the reduction split by 8 (its order kept).
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Var x("x");
    RDom r(0, a.width(), "r");
    Func dot("sdot");
    dot(x) = 0.0f;
    dot(x) += a(r, x) * b(r, x);
    dot.update(0).split(r.x, Var("ro"), Var("ri"), 8);
    return dot;
}

inline Func matrix_product(const std::string &name, int schedule) {
    ImageParam a(Float(32), 2, "A"), b(Float(32), 2, "B");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RDom k(0, a.width(), "k");
    Func c(name);
    c(x, y) = 0.0f;
    c(x, y) += a(k, y) * b(x, k);
    switch (schedule) {
    case 0: break;  // naive
    case 1:         // tiles of 8 x 8, the reduction inside each tile
        c.tile(x, y, xo, yo, xi, yi, 8, 8);
        c.update(0).tile(x, y, xo, yo, xi, yi, 8, 8).reorder(xi, yi, k, xo, yo);
        break;
    default:  // vectors of 8 along x, rows in parallel
        c.vectorize(x, 8).parallel(y);
        c.update(0).vectorize(x, 8).parallel(y);
        break;
    }
    return c;
}

/** The matrix product with a schedule specialized on the sizes, as the linear algebra
 * app's sgemm (the thesis' sqsgemm, bigsgemm and bigsqsgemm configurations): when A and
 * B are at least 512 x 512, tiles of 32 x 8 with the reduction inside, vectors of 8 and
 * rows of tiles in parallel; otherwise vectors of 8 along rows. `square` and `big` are
 * the configurations' assumptions: the matrices are square (A's width and height and B's
 * width equal), and each size is above 512. */
struct SpecializedProduct {
    ImageParam a{Float(32), 2, "A"}, b{Float(32), 2, "B"};
    Func c{"sgemm"};
    Expr square() const { return a.width() == a.height() && a.height() == b.width(); }
    Expr big() const { return a.width() > 512 && a.height() > 512 && b.width() > 512; }
};

inline SpecializedProduct specialized_product() {
    SpecializedProduct p;
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RDom k(0, p.a.width(), "k");
    p.c(x, y) = 0.0f;
    p.c(x, y) += p.a(k, y) * p.b(x, k);
    p.c.vectorize(x, 8);
    const Expr large = p.a.width() >= 512 && p.a.height() >= 512 && p.b.width() >= 512;
    p.c.update(0).specialize(large).tile(x, y, xo, yo, xi, yi, 32, 8).reorder(xi, yi, k, xo, yo).vectorize(xi, 8).parallel(yo);
    p.c.update(0).vectorize(x, 8);
    return p;
}

/** A matrix product C = op(A) op(B) with one operand stored transposed (Halide's linear
 * algebra app's sgemm with a transpose flag), written twice: `code`, the algorithm that is
 * compiled, has the bug the thesis reports for its sgemmTA and sgemmTB configurations (the
 * extent of the reduction is taken from a dimension of A that equals it only when A is
 * square), and `specification` is the product as it should be. Validating `code` against
 * `specification` must refute it; under the assumption that A is square it is proved
 * (docs/validation.md, "Evaluation").
 *
 * With A transposed, the input At (M wide, K high) holds A(k, i) at At(i, k), and the
 * reduction runs over At's height; the bug runs it over At's width. With B transposed,
 * Bt (K wide, N high) holds B(j, k) at Bt(k, j), and the reduction runs over A's width;
 * the bug runs it over A's height. The compiled code is tiled by 8 x 8 with vectors of 8
 * and rows of tiles in parallel. */
struct TransposedProduct {
    ImageParam a, b;
    Func code, specification;
    /** The assumption under which the bug does not show: A is square. */
    Expr a_is_square() const { return a.width() == a.height(); }
};

inline TransposedProduct transposed_product(bool transposed_a) {
    const std::string name = transposed_a ? "sgemmTA" : "sgemmTB";
    TransposedProduct p{ImageParam(Float(32), 2, transposed_a ? "At" : "A"), ImageParam(Float(32), 2, transposed_a ? "B" : "Bt"),
                        Func(name), Func(name + "_specification")};
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    auto product = [&](Func &c, const RDom &k) {
        c(x, y) = 0.0f;
        if (transposed_a) c(x, y) += p.a(y, k) * p.b(x, k);
        else c(x, y) += p.a(k, y) * p.b(k, x);
    };
    // The reduction's extent: K, which is At's height or A's width.
    product(p.specification, RDom(0, transposed_a ? p.a.height() : p.a.width(), "k"));
    const RDom k(0, transposed_a ? p.a.width() : p.a.height(), "k");  // the bug: a square A
    product(p.code, k);
    p.code.tile(x, y, xo, yo, xi, yi, 8, 8).vectorize(xi).parallel(yo);
    p.code.update(0).tile(x, y, xo, yo, xi, yi, 8, 8).reorder(xi, yi, k, xo, yo).vectorize(xi).parallel(yo);
    return p;
}

inline Func conv_layer() {
    // out(x, y, co) = sum over a 3 x 3 window and the input channels.
    ImageParam in(Float(32), 3, "input"), w(Float(32), 4, "filter");
    Var x("x"), y("y"), c("c");
    RDom r(0, 3, 0, 3, 0, in.channels(), "r");
    Func conv("conv");
    conv(x, y, c) = 0.0f;
    conv(x, y, c) += in(x + r.x, y + r.y, r.z) * w(r.x, r.y, r.z, c);
    conv.parallel(c).vectorize(x, 8);
    conv.update(0).parallel(c).vectorize(x, 8);
    return conv;
}

inline Func depthwise_separable() {
    ImageParam in(Float(32), 3, "input"), dw(Float(32), 3, "depthwise_weights"), pw(Float(32), 2, "pointwise_weights");
    Var x("x"), y("y"), c("c"), k("k");
    RDom r(0, 3, 0, 3, "r");
    RDom rc(0, in.channels(), "rc");
    Func depth("depthwise"), out("dsc");
    depth(x, y, c) = 0.0f;
    depth(x, y, c) += in(x + r.x, y + r.y, c) * dw(r.x, r.y, c);
    out(x, y, k) = 0.0f;
    out(x, y, k) += depth(x, y, rc) * pw(rc, k);
    depth.compute_at(out, y);
    out.parallel(y);
    return out;
}

inline Func blur_folded() {
    // Halide's blur app: blur_x slid down strips of 8 rows, its storage folded to 4 rows.
    ImageParam in(UInt(16), 2, "input");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func bx("blur_x"), by("blur");
    bx(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
    by(x, y) = (bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3;
    by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
    bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 8).fold_storage(y, 4);
    return by;
}

inline Func stencil_chain(int depth) {
    // Stages of 5-point stencils, each computed per row of the next.
    ImageParam in(UInt(16), 2, "input");
    Var x("x"), y("y");
    std::vector<Func> stages;
    Func prev("s0");
    prev(x, y) = in(x, y);
    stages.push_back(prev);
    for (int i = 1; i <= depth; i++) {
        Func f("s" + std::to_string(i));
        f(x, y) = (prev(x, y) + prev(x + 1, y) + prev(x + 2, y) + prev(x + 1, y + 1) + prev(x + 1, y + 2)) / 5;
        stages.push_back(f);
        prev = f;
    }
    Func out = stages.back();
    out.vectorize(x, 8).parallel(y);
    for (int i = 1; i + 1 < int(stages.size()); i++) stages[size_t(i)].compute_at(out, y).vectorize(x, 8);
    return out;
}

inline Func nl_means(const ImageParam &in = ImageParam(Float(32), 3, "input")) {
    // Halide's non-local means app (a 3 x 3 patch and a 3 x 3 search area): for each
    // offset of the search area, the squared differences summed over the channels and
    // box-filtered over the patch, a weight from that distance, and the weighted average of
    // the offset pixels. Scheduled in the style of Halide's: strips of 4 rows in parallel,
    // the distances computed per strip, the sums per row, vectors of 8.
    Var x("x"), y("y"), c("c"), dx("dx"), dy("dy"), yo("yo"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    RDom ch(0, 3, "ch"), p(-1, 3, "p"), s(-1, 3, -1, 3, "s");
    Func d("d"), blur_d_y("blur_d_y"), blur_d("blur_d"), w("w"), sum_w("sum_w"), sum_v("sum_v"), out("nl_means");
    const Expr diff = clamped(x, y, ch) - clamped(x + dx, y + dy, ch);
    d(x, y, dx, dy) = 0.0f;
    d(x, y, dx, dy) += diff * diff;
    blur_d_y(x, y, dx, dy) = 0.0f;
    blur_d_y(x, y, dx, dy) += d(x, y + p, dx, dy);
    blur_d(x, y, dx, dy) = 0.0f;
    blur_d(x, y, dx, dy) += blur_d_y(x + p, y, dx, dy);
    w(x, y, dx, dy) = exp(-blur_d(x, y, dx, dy) * 12.0f);
    sum_w(x, y) = 0.0f;
    sum_w(x, y) += w(x, y, s.x, s.y);
    sum_v(x, y, c) = 0.0f;
    sum_v(x, y, c) += w(x, y, s.x, s.y) * clamped(x + s.x, y + s.y, c);
    out(x, y, c) = sum_v(x, y, c) / sum_w(x, y);
    out.split(y, yo, yi, 4).parallel(yo).vectorize(x, 8);
    d.compute_at(out, yo).vectorize(x, 8);
    blur_d_y.compute_at(out, yo).vectorize(x, 8);
    blur_d.compute_at(out, yo).vectorize(x, 8);
    sum_w.compute_at(out, yi).vectorize(x, 8);
    sum_v.compute_at(out, yi).vectorize(x, 8);
    return out;
}

}  // namespace tessera::evaluation
