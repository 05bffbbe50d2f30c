// The translation validator on analogues of the configurations of the thesis' evaluation
// (docs/validation.md, "Evaluation"): linear algebra (a dot product tiled by 8, matrix
// products naive, tiled, vectorized and parallel, the matmul app's schedule), a
// convolution layer, a depthwise-separable convolution, a blur with storage folded to 4
// rows, stencil chains, the harris and unsharp apps, and non-local means. Each pipeline is validated for
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

#include "validation_pipelines.h"

using namespace tessera;
using namespace tessera::evaluation;

namespace {

struct Case {
    std::string name, thesis, what;
    std::function<ValidationReport()> run;
};

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
        {"sdot", "sdot", "batched dot products, the reduction split by 8", [] { return validate(dot_product()); }},
        {"sgemm naive", "-", "C += A B, the default schedule", [] { return validate(matrix_product("sgemm_naive", 0)); }},
        {"sgemm tiled", "-", "tiles of 8 x 8, the reduction inside each tile", [] { return validate(matrix_product("sgemm_tiled", 1)); }},
        {"sgemm vectors", "-", "vectors of 8, rows in parallel", [] { return validate(matrix_product("sgemm_vec", 2)); }},
        {"matmul app", "sgemm", "apps/matmul: fused parallel 24 x 32 tiles, unrolled vector accumulators",
         [&] { return validate(parse_program_file(apps + "/matmul/matmul.tsr")); }},
        {"conv", "conv", "3 x 3 x C convolution layer, channels in parallel, vectors", [] { return validate(conv_layer()); }},
        {"dsc", "dsc", "depthwise 3 x 3 then pointwise, per output row", [] { return validate(depthwise_separable()); }},
        {"blur", "blur", "slid strips of 8 rows, storage folded to 4 rows, vectors", [] { return validate(blur_folded()); }},
        {"sc1", "sc1", "one 5-point stencil stage", [] { return validate(stencil_chain(1)); }},
        {"sc4", "sc32", "four 5-point stencil stages, each per row of the next", [] { return validate(stencil_chain(4)); }},
        {"harris", "harris", "apps/harris (floats, boundary conditions)", [&] { return validate(parse_program_file(apps + "/harris/harris.tsr")); }},
        {"unsharp", "unsharp", "apps/unsharp (floats, boundary conditions)", [&] { return validate(parse_program_file(apps + "/unsharp/unsharp.tsr")); }},
        {"sgemm specialized", "sgemm", "specialized: 32 x 8 tiles in parallel from 512 on, else vectors; any size",
         [] { return validate(specialized_product().c); }},
        {"sqsgemm", "sqsgemm", "the same, square matrices", [] {
             SpecializedProduct p = specialized_product();
             return validate(p.c, {.assumptions = {p.square()}});
         }},
        {"bigsgemm", "bigsgemm", "the same, sizes above 512", [] {
             SpecializedProduct p = specialized_product();
             return validate(p.c, {.assumptions = {p.big()}});
         }},
        {"bigsqsgemm", "bigsqsgemm", "the same, square matrices above 512", [] {
             SpecializedProduct p = specialized_product();
             return validate(p.c, {.assumptions = {p.square(), p.big()}});
         }},
        {"sgemmTA (bug)", "sgemmTA", "A transposed, reduction over At's width (A assumed square); against the specification",
         [] {
             TransposedProduct p = transposed_product(true);
             return validate(p.code, p.specification);
         }},
        {"sgemmTB (bug)", "sgemmTB", "B transposed, reduction over A's height (A assumed square); against the specification",
         [] {
             TransposedProduct p = transposed_product(false);
             return validate(p.code, p.specification);
         }},
        {"nl_means", "nl_means", "3 x 3 patches over a 3 x 3 search area, distances per strip of 4 rows in parallel, vectors",
         [] { return validate(nl_means()); }},
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
