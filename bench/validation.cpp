// The translation validator on analogues of the configurations of the thesis' evaluation
// (docs/validation.md, "Evaluation"): linear algebra (a dot product tiled by 8, matrix
// products naive, tiled, vectorized and parallel, the matmul app's schedule), a
// convolution layer, a depthwise-separable convolution, a blur with storage folded to 4
// rows, stencil chains, and the harris and unsharp apps. Each pipeline is validated for
// every size its entry checks allow (the inputs and the output are symbolic); the table
// gives the verdict, the time and, for Unknown, the first reason.
//
//   build/bench/tessera_bench_validation [apps-directory [name]]

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <tessera/tessera.h>
#include <tessera/Validate.h>

using namespace tessera;

namespace {

struct Case {
    std::string name, thesis, what;
    std::function<ValidationReport()> run;
};

ValidationReport validate_func(const Func &f) { return validate(f); }

Func dot_product() {
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

Func matrix_product(const std::string &name, int schedule) {
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

Func conv_layer() {
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

Func depthwise_separable() {
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

Func blur_folded() {
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

Func stencil_chain(int depth) {
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

std::string first_reason(const ValidationReport &r) {
    for (const NamedCheck &c : r.checks)
        if (c.verdict != Verdict::Proved) return c.name + ": " + c.detail.substr(0, 110);
    return "";
}

}  // namespace

int main(int argc, char **argv) {
    const std::string apps = argc > 1 ? argv[1] : "apps";
    const std::string only = argc > 2 ? argv[2] : "";  // run the pipelines whose name contains it
    std::vector<Case> cases = {
        {"sdot", "sdot", "batched dot products, the reduction split by 8", [] { return validate_func(dot_product()); }},
        {"sgemm naive", "-", "C += A B, the default schedule", [] { return validate_func(matrix_product("sgemm_naive", 0)); }},
        {"sgemm tiled", "-", "tiles of 8 x 8, the reduction inside each tile", [] { return validate_func(matrix_product("sgemm_tiled", 1)); }},
        {"sgemm vectors", "-", "vectors of 8, rows in parallel", [] { return validate_func(matrix_product("sgemm_vec", 2)); }},
        {"matmul app", "sgemm", "apps/matmul: fused parallel 24 x 32 tiles, unrolled vector accumulators",
         [&] { return validate(parse_program_file(apps + "/matmul/matmul.tsr")); }},
        {"conv", "conv", "3 x 3 x C convolution layer, channels in parallel, vectors", [] { return validate_func(conv_layer()); }},
        {"dsc", "dsc", "depthwise 3 x 3 then pointwise, per output row", [] { return validate_func(depthwise_separable()); }},
        {"blur", "blur", "slid strips of 8 rows, storage folded to 4 rows, vectors", [] { return validate_func(blur_folded()); }},
        {"sc1", "sc1", "one 5-point stencil stage", [] { return validate_func(stencil_chain(1)); }},
        {"sc4", "sc32", "four 5-point stencil stages, each per row of the next", [] { return validate_func(stencil_chain(4)); }},
        {"harris", "harris", "apps/harris (floats, boundary conditions)", [&] { return validate(parse_program_file(apps + "/harris/harris.tsr")); }},
        {"unsharp", "unsharp", "apps/unsharp (floats, boundary conditions)", [&] { return validate(parse_program_file(apps + "/unsharp/unsharp.tsr")); }},
    };
    std::printf("| pipeline | thesis analogue | schedule | verdict | time (s) | first reason if not Proved |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (const Case &c : cases) {
        if (c.name.find(only) == std::string::npos) continue;
        const auto t0 = std::chrono::steady_clock::now();
        std::string verdict, reason;
        try {
            const ValidationReport r = c.run();
            verdict = verdict_name(r.verdict);
            reason = first_reason(r);
        } catch (const std::exception &e) {
            verdict = "error";
            reason = e.what();
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("| %s | %s | %s | %s | %.1f | %s |\n", c.name.c_str(), c.thesis.c_str(), c.what.c_str(), verdict.c_str(), s,
                    reason.c_str());
        std::fflush(stdout);
    }
    return 0;
}
