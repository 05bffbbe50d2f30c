// Bad .tsr input: every error is a CompileError "file:line:col: error: ..." with the
// source line and a caret, all errors of a file in one report, and never a crash, an
// abort or an InternalError, also on randomly damaged versions of the examples.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

std::string parse_error(const std::string &src) {
    try {
        parse_program(src, "bad.tsr");
    } catch (const CompileError &e) {
        return e.what();
    } catch (const InternalError &e) {
        ADD_FAILURE() << "an InternalError escaped: " << e.what();
        return "";
    }
    ADD_FAILURE() << "no error for:\n" << src;
    return "";
}

void expect_error(const std::string &src, const std::vector<std::string> &parts) {
    const std::string msg = parse_error(src);
    for (const std::string &p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing \"" << p << "\" in\n" << msg;
}

const std::string kHead = "input uint8 in[2]\n";

TEST(TsrErrors, SyntaxErrorHasPositionSourceLineAndCaret) {
    const std::string msg = parse_error(kHead + "func f(x, y) = in(x, y) +* 2\noutput f\n");
    EXPECT_NE(msg.find("bad.tsr:2:26: error: expected an expression, found '*'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("    func f(x, y) = in(x, y) +* 2\n                             ^\n"), std::string::npos) << msg;
}
TEST(TsrErrors, UnknownName) {
    expect_error(kHead + "func f(x, y) = in(x, y) + blur(x, y)\noutput f\n", {"bad.tsr:2:27:", "unknown name 'blur'"});
}
TEST(TsrErrors, EveryErrorOfTheFileInOneReport) {
    const std::string msg = parse_error(kHead + "func f(x, y) = in(x, y) + q\nfunc g(x) = x +\nfunc h(x) = x\nh.vectorise(x, 8)\n"
                                                "output h\n");
    EXPECT_NE(msg.find("bad.tsr:2:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("bad.tsr:3:16: error: expected an expression, found the end of the line"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("bad.tsr:5:3: error: unknown scheduling directive 'vectorise'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("3 errors in bad.tsr"), std::string::npos) << msg;
}
TEST(TsrErrors, ErrorsFollowingFromAnEarlierOneAreNotRepeated) {
    const std::string msg = parse_error(kHead + "func f(x, y) = in(x, y) + nope\nfunc g(x, y) = f(x, y)\noutput g\n");
    EXPECT_NE(msg.find("1 error in bad.tsr"), std::string::npos) << msg;
}
TEST(TsrErrors, TypeErrorsComeFromTheSameChecksAsCpp) {
    expect_error(kHead + "func f(x, y) = in(x, y) << 1.5f\noutput f\n", {"bad.tsr:2:25:", "<<", "integer operands"});
    expect_error(kHead + "func f(x, y) = !in(x, y)\noutput f\n", {"bad.tsr:2:16:", "boolean"});
    expect_error(kHead + "func f(x, y) = uint8(256)\noutput f\n", {"256 does not fit in uint8"});
    expect_error(kHead + "func f(x, y) = select(x > 0, 1)\noutput f\n", {"select takes"});
    expect_error(kHead + "func f(x, y) = sqrt(1.0f, 2.0f)\noutput f\n", {"sqrt takes 1 argument, not 2"});
    expect_error(kHead + "func f(x, y) = 3000000000\noutput f\n", {"does not fit in int32", "int64(3000000000)"});
}
TEST(TsrErrors, BadDeclarations) {
    expect_error("input uint9 in[2]\n", {"bad.tsr:1:7:", "unknown type 'uint9'"});
    expect_error(kHead + "input uint8 in[2]\n", {"bad.tsr:2:13:", "'in' is already declared"});
    expect_error(kHead + "param int32 min = 3\n", {"'min' is a type or built-in function name"});
    expect_error(kHead + "param uint8 t = 300\n", {"does not fit in uint8"});
    expect_error(kHead + "param float32 s = 1.0f in [0.0f]\n", {"expected ','"});
    expect_error(kHead + "func f(x) = x\nfunc f(x) = x\noutput f\n", {"bad.tsr:3:6:", "'f' is already declared"});
    expect_error(kHead + "func f(x) = x\n", {"no `output` statement"});
    expect_error(kHead + "func f(x) = x\noutput g\n", {"'g' is not a Func"});
    expect_error(kHead + "rdom r(0, 4, 0)\n", {"expected ','"});
    expect_error(kHead + "func f(x) = \"text\"\noutput f\n", {"expected an expression, found a string"});
    expect_error(kHead + "func f(x) = x @ 2\noutput f\n", {"unexpected character '@'"});
    expect_error(kHead + "func f(x) = x < 1 < 2\noutput f\n", {"comparisons do not chain"});
}
TEST(TsrErrors, BadDefinitions) {
    // The C++ API's own validity checks, with the position of the statement.
    expect_error(kHead + "func f(x) = x\nfunc g(x) = f(x)\nf(x) = f(x) + 1\noutput g\n", {"bad.tsr:4:6:"});
    expect_error(kHead + "func f(x, y) = x + q\noutput f\n", {"unknown name 'q'"});
    expect_error(kHead + "func f(x) = x\nf(x) ^= 1\noutput f\n", {"expected =, +=, -=, *= or /="});
    expect_error(kHead + "func f(x) = x\nin(x) = 1\noutput f\n", {"'in' is not a Func"});
}
TEST(TsrErrors, BadDirectives) {
    const std::string f = kHead + "func f(x, y) = in(x, y)\noutput f\n";
    expect_error(f + "f.split(z, zo, zi, 8)\n", {"bad.tsr:4:3:", "Var z is not a loop of this stage"});
    expect_error(f + "f.split(x, xo, xi, 8, Sideways)\n", {"unknown tail strategy 'Sideways'"});
    expect_error(f + "f.tile(x, y, xi, yi, 8)\n", {"tile takes 6 or 8 arguments"});
    expect_error(f + "f.vectorize(x, 8).frobnicate()\n", {"bad.tsr:4:19:", "unknown scheduling directive 'frobnicate'"});
    expect_error(f + "f.update(0).vectorize(x)\n", {"has 0 update definitions"});
    expect_error(f + "f.compute_at(g, x)\n", {"'g' is not a Func"});
    expect_error(f + "f.specialize_fail(3)\n", {"specialize_fail takes a message string"});
    expect_error(f + "f.fold_storage(y, 4, maybe)\n", {"expected true or false"});
    expect_error(f + "in.compute_root()\n", {"'in' is not a Func"});
}

TEST(TsrErrors, DamagedExamplesNeverCrash) {
    // A small fuzz over the examples: random deletions, insertions and swaps of characters.
    // Each damaged file parses or gives a CompileError; anything else fails the test.
    std::vector<std::string> sources;
    for (const auto &e : std::filesystem::recursive_directory_iterator(std::string(TESSERA_SOURCE_DIR) + "/apps"))
        if (e.path().extension() == ".tsr") {
            std::ifstream in(e.path());
            std::ostringstream ss;
            ss << in.rdbuf();
            sources.push_back(ss.str());
        }
    ASSERT_FALSE(sources.empty());
    std::mt19937_64 rng(20261123);
    const std::string alphabet = "()[],.=+-*/%<>!&|^~;\n #\"0123456789xyzfr_aeiou";
    int parsed = 0, rejected = 0;
    for (int i = 0; i < 400; i++) {
        std::string s = sources[rng() % sources.size()];
        const int edits = 1 + int(rng() % 4);
        for (int k = 0; k < edits && !s.empty(); k++) {
            const size_t at = rng() % s.size();
            switch (rng() % 3) {
            case 0: s.erase(at, 1 + rng() % 3); break;
            case 1: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
            default: std::swap(s[at], s[rng() % s.size()]); break;
            }
        }
        try {
            parse_program(s, "damaged.tsr");
            parsed++;
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find("damaged.tsr:"), std::string::npos) << e.what();
            rejected++;
        } catch (const std::exception &e) {
            ADD_FAILURE() << "not a CompileError: " << e.what() << "\n" << s;
        }
    }
    EXPECT_GT(rejected, 100);
    EXPECT_GT(parsed + rejected, 399);
}

// An error that lowering finds (not the parser) is placed in the file: at the schedule
// statement of the Func it is about, with a note at each other Func it names.
TEST(TsrErrors, LoweringErrorsArePlacedInTheFile) {
    const std::string src = "input uint8 in[3]\n"
                            "func f(x, y) = float32(in(x, y, 0)) * 2.0f\n"
                            "func g(x, y) = f(x + 1, y) + f(x, y)\n"
                            "output g\n"
                            "var yo, yi\n"
                            "g.split(y, yo, yi, 8).parallel(yo)\n"
                            "  f.compute_at(g, yi).store_root()\n";
    const Program p = parse_program(src, "race.tsr");
    std::string message;
    try {
        p.output.compile_to_lowered_stmt("/dev/null", p.arguments);
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        message = e.what();
    }
    const std::string placed = locate_in_source(p, message);
    EXPECT_EQ(placed.rfind("race.tsr:7:3: error: " + message + "\n      f.compute_at(g, yi).store_root()\n      ^\n", 0), 0u)
        << placed;
    EXPECT_NE(placed.find("race.tsr:6:1: note: Func g is scheduled here"), std::string::npos) << placed;
    // A message about what a Func computes points at its definition; one that names no
    // Func of the program, and a Program not parsed from a file, are left as they are.
    EXPECT_EQ(locate_in_source(p, "Func \"f\" reads in").rfind("race.tsr:2:6: error: Func \"f\" reads in\n", 0), 0u);
    EXPECT_EQ(locate_in_source(p, "Func \"h\" is unknown"), "Func \"h\" is unknown");
    Program unparsed;
    unparsed.output = p.output;
    EXPECT_EQ(locate_in_source(unparsed, message), message);
}

}  // namespace
