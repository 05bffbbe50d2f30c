// The text form of ATL (docs/atl.md): programs printed by Tensor::to_string parse back to
// the same program, and parse errors name the line and column.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/Atl.h"
#include "tessera/Error.h"

using namespace tessera::atl;
using tessera::CompileError;
using testing::HasSubstr;

TEST(AtlText, PrintedProgramsParseBack) {
    Index i("i"), j("j"), k("k"), io("io"), ii("ii");
    Array A("A", {5, 4}), v("v", {14});
    std::vector<Tensor> programs = {
        gen(i, 3, gen(j, 2, real(2 * i + j - 1))),
        transpose(concat(gen(i, 2, gen(j, 2, 1.5)), gen(i, 1, gen(j, 2, -2.0)))),
        trunc_r(1, flatten(split(2, gen(i, 5, real(i))))),
        trunc_l(3, gen(i, 10, guard(2 < i && i <= 9, v(i + 4) * 0.5 - v(i % 3)))),
        sum(k, 1, 4, gen(i, 2, 2, real(i + k))),
        let("x", gen(i, 5, sum(k, 4, A(i, k))), [&](const Array &x) { return pad_l(2, gen(j, 3, x(2 - j) / 3.0)); }),
        flatten(gen(io, 2, gen(ii, 3, A(io * 3 + ii - ceil_div(ii, 2) % 5, (io + ii) / 2)))),
    };
    for (const Tensor &e : programs) {
        std::string text = "# a comment\ninput A[5, 4]\ninput v[14]\noutput = " + e.to_string() + "\n";
        SCOPED_TRACE(text);
        Parsed p = parse(text, "test.atl");
        EXPECT_EQ(p.program.to_string(), e.to_string());
        EXPECT_EQ(p.program.shape(), e.shape());
        ASSERT_EQ(p.inputs.size(), 2u);
        Value a({5, 4}), b({14});
        for (size_t c = 0; c < a.data.size(); c++) a.data[c] = double(c);
        for (size_t c = 0; c < b.data.size(); c++) b.data[c] = double(c) * 3;
        Inputs in{{"A", a}, {"v", b}};
        Value want = evaluate(e, in), got = evaluate(p.program, in);
        EXPECT_EQ(got.data, want.data);
        EXPECT_EQ(got.pad, want.pad);
    }
}

TEST(AtlText, ErrorsNameTheLineAndColumn) {
    auto error = [](const std::string &text) -> std::string {
        try {
            parse(text, "f.atl");
        } catch (const CompileError &e) {
            return e.what();
        }
        return "no error";
    };
    EXPECT_THAT(error("input A[3]\noutput = gen i < 3: B[i]"), HasSubstr("f.atl:2:21: `B` is neither an input"));
    EXPECT_THAT(error("input A[3]\noutput = gen i < 3 A[i]"), HasSubstr("f.atl:2:20: expected `:`"));
    EXPECT_THAT(error("input A[3]"), HasSubstr("expected `output = EXPR`"));
    EXPECT_THAT(error("output = gen i < 2: 1.0 ++ gen j < 2: gen k < 2: 1.0"), HasSubstr("ATL ++"));
    EXPECT_THAT(error("output = 1.0 )"), HasSubstr("f.atl:1:14: unexpected text"));
    EXPECT_THAT(error("input A[3]\ninput A[2]\noutput = 1.0"), HasSubstr("declared twice"));
}

TEST(AtlText, RewriteLinesFollowTheOutput) {
    const std::string text = "input A[6, 5]\n"
                             "output = gen i < 6: gen j < 5: A[i, j] * 2.0\n"
                             "rewrite tile i j 4 2   # 4 x 2 tiles\n"
                             "rewrite separate io\n";
    Parsed p = parse(text, "t.atl");
    EXPECT_EQ(p.rewrites, (std::vector<std::string>{"tile i j 4 2", "separate io"}));
    Derivation d(p.program);
    for (const std::string &step : p.rewrites) d.apply(step);
    EXPECT_TRUE(d.check().equal);
    auto error = [](const std::string &t) -> std::string {
        try {
            parse(t, "t.atl");
        } catch (const CompileError &e) {
            return e.what();
        }
        return "no error";
    };
    EXPECT_THAT(error("input A[4]\noutput = gen i < 4: A[i]\nrewrite split k 2\n"),
                HasSubstr("t.atl:3:9: ATL rewrite `split k 2 ko ki`: the program has no loop over k"));
    EXPECT_THAT(error("input A[4]\noutput = gen i < 4: A[i]\nschedule split i 2\n"),
                HasSubstr("t.atl:3:1: unexpected text after the output's expression"));
}
