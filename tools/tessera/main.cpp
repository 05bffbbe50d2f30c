// The `tessera` command: compile, run, check and interpret .tsr pipelines.
//
//   tessera compile FILE.tsr -o OUT [--emit c,h,o,stmt,html] [--target T] [--name FN] [--depfile F]
//                            [--validate | --validate-strict] [--assume EXPR]...
//   tessera run FILE.tsr --input NAME=IMAGE ... [--param NAME=VALUE ...] [--size W,H[,C]]
//                        [--output OUT] [--runs N] [--target T] [--reference]
//                        [--validate | --validate-strict] [--assume EXPR]...
//   tessera check FILE.tsr
//   tessera validate FILE.tsr [--assume EXPR]... [--json] [--max-operations N] [--rlimit N] [--each-pass]
//   tessera reference FILE.tsr --input ... [--param ...] [--size ...] [--output OUT]
//
// Every failure prints a message and exits non-zero: 1 for errors in the pipeline or its
// inputs, 2 for a bad command line.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "ImageIO.h"

#ifdef TESSERA_HAVE_VALIDATOR
#include <tessera/Validate.h>
#endif

using namespace tessera;

namespace {

struct UsageError {
    std::string message;
};

const char *kUsage =
    "usage: tessera <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile    compile a .tsr pipeline ahead of time to C, a header, an object file, ...\n"
    "  run        compile a pipeline (JIT) and run it on images\n"
    "  check      parse and check a pipeline's algorithm and schedule, reporting every error\n"
    "  reference  run the reference interpreter (the definition of the results) on images\n"
    "  validate   check a pipeline's compiled code against its algorithm (the validator)\n"
    "  flags      the C compiler flags that select a target's instruction set\n"
    "  atl        check, compile and run an ATL tensor program (docs/atl.md)\n"
    "\n"
    "tessera <command> --help describes each.\n";

const std::map<std::string, std::string> kHelp = {
    {"atl",
     "usage: tessera atl FILE.atl [--validate | --validate-strict]\n"
     "\n"
     "Reads an ATL program (docs/atl.md) and applies its `rewrite` steps, comparing each\n"
     "result with the original on random inputs; checks the derived program's shapes,\n"
     "names and pads and prints its pad type; then fills each input with the pattern (c * 37) % 17 - 8 at row-major\n"
     "cell c, runs the reference interpreter and the compiled program, and prints the\n"
     "result's shape, its pad cells, its first cells and the largest difference between\n"
     "the two. Exits with 1 if they differ by more than float rounding.\n"
     "\n"
     "--validate proves, with the validator, that the derived program means what the\n"
     "original does, that its lowering computes ATL's meaning and that the compiled code\n"
     "computes the lowered Funcs (docs/atl.md, \"Validation\"), and prints the report;\n"
     "it exits with 1 if the report is Refuted (--validate-strict: if it is not Proved).\n"},
    {"compile",
     "usage: tessera compile FILE.tsr -o OUT [--emit c,h,o,stmt,html] [--target T] [--name FN] [--depfile F]\n"
     "\n"
     "Writes OUT.c, OUT.h, ... for each kind listed by --emit (default: c,h):\n"
     "  c     C source of the pipeline: int FN(inputs..., params..., output buffer)\n"
     "        (an output with a tuple: one output buffer per value, in order)\n"
     "  h     its header (valid C and C++)\n"
     "  o     an object file built by the system C compiler ($CC, default cc)\n"
     "  stmt  the lowered statement, readable\n"
     "  html  the lowered loop nest beside the algorithm, as a web page\n"
     "--target picks the instruction set (Halide's syntax, e.g. x86-64-linux-avx2-fma;\n"
     "default: host). --name sets the C function's name (default: the pipeline's name).\n"
     "--depfile writes a Makefile-style dependency file for build systems.\n"
     "--validate first checks the lowered code against the algorithm (as tessera validate\n"
     "does, with its --assume, --max-operations and --rlimit) and writes nothing if it is\n"
     "Refuted; --validate-strict also stops unless it is Proved. The verdict goes to stderr.\n"},
    {"run",
     "usage: tessera run FILE.tsr --input NAME=IMAGE ... [--param NAME=VALUE ...] [--size W,H[,C]]\n"
     "                   [--output OUT] [--runs N] [--target T] [--reference]\n"
     "\n"
     "Compiles the pipeline (JIT, cached on disk) and runs it, printing the time of each run.\n"
     "  --input NAME=IMAGE  binds an input: a .png (8 or 16 bits), .ppm or .pgm file, or raw\n"
     "                      data as path:type:WxH[xC] (e.g. a.raw:float32:512x512)\n"
     "  --param NAME=VALUE  sets a parameter (default: the value the file gives)\n"
     "  --size W,H[,C]      the output's size (default: the first input's size)\n"
     "  --output OUT        writes the result (.png, .ppm, .pgm, or .raw for any type);\n"
     "                      an output with a Tuple writes each value, to OUT.0.png, ...\n"
     "  --runs N            how many timed runs (default 5); the median is printed\n"
     "  --reference         also runs the reference interpreter, prints its time, and\n"
     "                      checks the two results are identical\n"
     "  --validate          first checks the lowered code against the algorithm (see\n"
     "                      tessera validate; --assume etc. apply) and stops if it is\n"
     "                      Refuted; --validate-strict stops unless it is Proved\n"},
    {"check",
     "usage: tessera check FILE.tsr\n"
     "\n"
     "Parses the pipeline and checks its algorithm and schedule (everything compile would\n"
     "check before generating code). Prints every error found, or nothing on success.\n"},
    {"validate",
     "usage: tessera validate FILE.tsr [--assume EXPR]... [--json] [--max-operations N] [--rlimit N]\n"
     "                        [--each-pass] [--target T]\n"
     "\n"
     "Lowers the pipeline and checks the lowered code against the algorithm, for every size of\n"
     "the output and every value of the parameters that the code's entry checks (and the\n"
     "assumptions) allow: every point of the output is written, parallel iterations do not\n"
     "race, accesses stay in bounds, and each store writes the value the algorithm defines\n"
     "(docs/validation.md). Prints each check's verdict (Proved, Refuted with a\n"
     "counterexample, Unknown with the reason) and what the verdicts rest on; --json prints\n"
     "one JSON object instead. Progress goes to stderr. Exits 1 if the code is Refuted.\n"
     "  --assume EXPR       a condition runs of the pipeline satisfy, in the .tsr language, over\n"
     "                      its parameters and the bounds of its inputs and output (named by\n"
     "                      the output Func), e.g. 'n >= 16' or 'out.width() % 8 == 0';\n"
     "                      repeatable. Contradictory assumptions are never Proved.\n"
     "  --max-operations N  the polyhedral library's work per step (default 2000000)\n"
     "  --rlimit N          the SMT solver's resource limit per query (default 5000000)\n"
     "  --each-pass         also validates the code after each lowering pass from storage\n"
     "                      flattening on, and names the first pass after which it is Refuted\n"
     "  --target T          the code target T gets: with fp_contract, its float multiply-adds\n"
     "                      fused, which the check compares with the algorithm's two roundings\n"
     "A step past a limit answers Unknown; a limit, unlike a timeout, gives the same answer\n"
     "on every machine.\n"},
    {"flags",
     "usage: tessera flags [--target T]\n"
     "\n"
     "Prints the C compiler flags that select the instruction set of target T (Halide's\n"
     "syntax; default: host), for building C that tessera compile generated. The generated\n"
     "C itself forbids floating-point contraction, whatever the flags.\n"},
    {"reference",
     "usage: tessera reference FILE.tsr --input NAME=IMAGE ... [--param NAME=VALUE ...] [--size W,H[,C]]\n"
     "                         [--output OUT]\n"
     "\n"
     "Runs the reference interpreter: slow, but the definition of what the pipeline computes.\n"
     "The options are those of run.\n"},
};

struct Options {
    std::string command, file, out, target, name, depfile;
    std::vector<std::string> emit = {"c", "h"};
    std::vector<std::pair<std::string, std::string>> inputs, params;
    std::vector<int> size;
    std::string output;
    int runs = 5;
    bool reference = false, help = false, json = false, each_pass = false;
    enum class Validation { Off, Refuted, Strict } validation = Validation::Off;  // compile, run: stop when
    unsigned long max_operations = 2000000;
    unsigned long rlimit = 5000000;
    std::vector<std::string> assumptions;
};

/** A count given to `option`, from `lo` to `hi`. */
unsigned long count_argument(const std::string &option, const std::string &v, unsigned long long lo, unsigned long long hi) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || *end || v[0] == '-' || v[0] == '+' || errno == ERANGE || n < lo || n > hi)
        throw UsageError{option + " takes a count from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not '" + v +
                         "'"};
    return (unsigned long)n;
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    for (std::string p; std::getline(ss, p, sep);) parts.push_back(p);
    return parts;
}

std::pair<std::string, std::string> name_value(const std::string &opt, const std::string &s) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{opt + " takes NAME=VALUE, not '" + s + "'"};
    return {s.substr(0, eq), s.substr(eq + 1)};
}

Options parse_args(int argc, char **argv) {
    Options o;
    if (argc < 2) throw UsageError{""};
    o.command = argv[1];
    if (o.command == "--help" || o.command == "-h" || o.command == "help") {
        o.help = true;
        o.command.clear();
        return o;
    }
    if (!kHelp.count(o.command)) throw UsageError{"unknown command '" + o.command + "'"};
    for (int i = 2; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{a + " needs a value"};
            return argv[++i];
        };
        if (a == "--help" || a == "-h") o.help = true;
        else if (a == "-o" || a == "--out") o.out = value();
        else if (a == "--emit") o.emit = split(value(), ',');
        else if (a == "--target") o.target = value();
        else if (a == "--name") o.name = value();
        else if (a == "--depfile") o.depfile = value();
        else if (a == "--input") o.inputs.push_back(name_value(a, value()));
        else if (a == "--param") o.params.push_back(name_value(a, value()));
        else if (a == "--output") o.output = value();
        else if (a == "--reference") o.reference = true;
        else if (a == "--json") o.json = true;
        else if (a == "--max-operations") o.max_operations = count_argument(a, value(), 1000, 100000000000ull);
        else if (a == "--rlimit") o.rlimit = count_argument(a, value(), 1000, 4000000000ull);
        else if (a == "--assume") o.assumptions.push_back(value());
        else if (a == "--each-pass") o.each_pass = true;
        else if (a == "--validate") o.validation = Options::Validation::Refuted;
        else if (a == "--validate-strict") o.validation = Options::Validation::Strict;
        else if (a == "--runs") {
            const std::string v = value();
            o.runs = std::atoi(v.c_str());
            if (o.runs < 1 || o.runs > 100000) throw UsageError{"--runs takes a positive count, not '" + v + "'"};
        } else if (a == "--size") {
            for (const std::string &p : split(value(), ',')) {
                const int v = std::atoi(p.c_str());
                if (v <= 0) throw UsageError{"--size takes positive sizes W,H[,C], not '" + p + "'"};
                o.size.push_back(v);
            }
        } else if (!a.empty() && a[0] == '-') {
            throw UsageError{"unknown option '" + a + "' for " + o.command};
        } else if (o.file.empty()) {
            o.file = a;
        } else {
            throw UsageError{"unexpected argument '" + a + "'"};
        }
    }
    if (o.help) return o;
    if (o.command == "flags") {
        if (!o.file.empty()) throw UsageError{"flags takes no file"};
        return o;
    }
    if (o.file.empty()) throw UsageError{o.command + (o.command == "atl" ? " needs a .atl file" : " needs a .tsr file")};
    if (o.command == "compile" && o.out.empty()) throw UsageError{"compile needs -o OUT (the output path prefix)"};
    return o;
}

void progress(const std::string &what) { std::fprintf(stderr, "tessera: %s\n", what.c_str()); }

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---------------------------------------------------------------------------------------

std::string html_escape(const std::string &s) {
    std::string o;
    for (char c : s) {
        if (c == '<') o += "&lt;";
        else if (c == '>') o += "&gt;";
        else if (c == '&') o += "&amp;";
        else o += c;
    }
    return o;
}

std::string read_file(const std::string &path) {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool validated(const Program &p, const Options &o);

/** Runs `work` on the parsed program `p`; a CompileError it raises (lowering, compiling)
 * is placed in p's file, as parse errors are. */
template<typename F>
int in_file_of(const Program &p, F &&work) {
    try {
        return work();
    } catch (const CompileError &e) {
        throw CompileError(locate_in_source(p, e.what()));
    }
}

int compile(const Options &o) {
    Program p = parse_program_file(o.file);
    return in_file_of(p, [&] {
        if (!validated(p, o)) return 1;
        const std::string fn = o.name.empty() ? p.name : o.name;
        const Target target = o.target.empty() ? get_host_target() : Target(o.target);
        for (const std::string &kind : o.emit) {
            const std::string path = o.out + "." + kind;
            progress("writing " + path);
            if (kind == "c") p.output.compile_to_c(path, p.arguments, fn);
            else if (kind == "h") p.output.compile_to_header(path, p.arguments, fn);
            else if (kind == "o") p.output.compile_to_object(path, p.arguments, fn, target);
            else if (kind == "stmt") p.output.compile_to_lowered_stmt(path, p.arguments);
            else if (kind == "html") {
                const std::string stmt_path = o.out + ".stmt.tmp";
                p.output.compile_to_lowered_stmt(stmt_path, p.arguments);
                const std::string stmt = read_file(stmt_path);
                std::remove(stmt_path.c_str());
                std::ofstream out(path);
                out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html_escape(fn)
                    << "</title>\n<style>body{font-family:sans-serif;margin:1em}"
                       ".cols{display:flex;gap:1em}.col{flex:1;min-width:0}"
                       "pre{background:#f6f6f6;padding:.8em;overflow:auto;font-size:12px}</style></head>\n<body>\n"
                    << "<h1>" << html_escape(fn) << "</h1>\n<div class=\"cols\">\n"
                    << "<div class=\"col\"><h2>Algorithm and schedule</h2><pre>" << html_escape(print_program(p))
                    << "</pre></div>\n<div class=\"col\"><h2>Lowered loop nest</h2><pre>" << html_escape(stmt)
                    << "</pre></div>\n</div>\n</body></html>\n";
                if (!out) throw RuntimeError(path + ": cannot write the file");
            } else {
                throw UsageError{"unknown --emit kind '" + kind + "' (c, h, o, stmt, html)"};
            }
        }
        if (!o.depfile.empty()) {
            // The outputs depend on the .tsr file alone (it has no includes).
            std::ofstream d(o.depfile);
            d << o.out << "." << o.emit.front() << ": " << o.file << "\n";
            if (!d) throw RuntimeError(o.depfile + ": cannot write the file");
        }
        return 0;
    });
}

int atl_command(const Options &o) {
    std::ifstream f(o.file);
    if (!f) throw RuntimeError("cannot read " + o.file);
    std::stringstream text;
    text << f.rdbuf();
    const atl::Parsed parsed = atl::parse(text.str(), o.file);
    const auto t0 = std::chrono::steady_clock::now();
    // The rewrites, each checked against the original on random inputs as it is applied.
    atl::Derivation derivation(parsed.program);
    for (const std::string &step : parsed.rewrites) {
        derivation.apply(step);
        const atl::Comparison c = derivation.check();
        std::printf("rewrite %s: %s on %d random inputs (largest difference %g)\n", step.c_str(),
                    c.equal ? "same meaning" : "MEANING CHANGED", c.trials, c.max_difference);
        if (!c.equal) throw RuntimeError("the rewrite `" + step + "` changed the program's meaning: " + c.mismatch);
    }
    if (!parsed.rewrites.empty()) std::printf("derived program: %s\n", derivation.program().to_string().c_str());
    const atl::Program program(derivation.program());
    std::printf("pad type: %s\n", program.pad_type().to_string().c_str());
    const atl::Program::Storage storage = program.storage();
    std::string reused;
    for (const auto &[taker, taken] : storage.reused) reused += ", " + taker + " takes " + taken + "'s";
    for (const std::string &l : storage.per_iteration) reused += ", " + l;
    std::printf("storage: %d buffer(s), %d saved by reuse%s\n", storage.allocations, storage.saved(), reused.c_str());
    atl::Inputs inputs;
    for (const atl::Array &a : parsed.inputs) {
        atl::Value v(a.shape());
        for (size_t c = 0; c < v.data.size(); c++) v.data[c] = double(int64_t((c * 37) % 17) - 8);
        inputs[a.name()] = v;
    }
    const atl::Value want = program.run_reference(inputs);
    const double checked_ms = ms_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const atl::Value got = program.run(inputs);
    progress("checked and interpreted in " + std::to_string(int(checked_ms)) + " ms, compiled and run in " +
             std::to_string(int(ms_since(t1))) + " ms");
    std::string shape;
    for (int64_t e : got.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(e);
    int64_t pads = 0;
    double worst = 0, scale = 1;
    for (size_t c = 0; c < got.data.size(); c++) {
        pads += got.pad[c];
        worst = std::max(worst, std::abs(got.data[c] - want.data[c]));
        scale = std::max(scale, std::abs(want.data[c]));
    }
    std::printf("shape: [%s], %lld cells, %lld of them pad\n", shape.c_str(), (long long)got.data.size(), (long long)pads);
    std::printf("first cells:");
    for (size_t c = 0; c < got.data.size() && c < 8; c++) std::printf(got.pad[c] ? " ()" : " %g", got.data[c]);
    std::printf("\nlargest difference from the reference interpreter: %g\n", worst);
    if (worst > 1e-5 * scale) return 1;
    if (o.validation != Options::Validation::Off) {
#ifdef TESSERA_HAVE_VALIDATOR
        // The derivation against the original (when it has steps), the lowering against
        // ATL's meaning, and the compiled code against the lowered Funcs.
        ValidateOptions options;
        options.max_operations = o.max_operations;
        options.rlimit = unsigned(o.rlimit);
        options.on_progress = progress;
        const auto t2 = std::chrono::steady_clock::now();
        const ValidationReport r = parsed.rewrites.empty() ? validate(program, options) : validate(derivation, options);
        progress("validated in " + std::to_string(int(ms_since(t2))) + " ms");
        std::fputs(r.to_string().c_str(), stdout);
        if (r.verdict == Verdict::Refuted ||
            (r.verdict != Verdict::Proved && o.validation == Options::Validation::Strict))
            return 1;
#else
        throw RuntimeError("this tessera was built without the validator (isl and Z3 were not found when it was built)");
#endif
    }
    return 0;
}

int check(const Options &o) {
    Program p = parse_program_file(o.file);
    return in_file_of(p, [&] {
        // Lowering checks the schedule; the statement itself is not needed.
        p.output.compile_to_lowered_stmt("/dev/null", p.arguments);
        return 0;
    });
}

#ifdef TESSERA_HAVE_VALIDATOR
/** The pipeline validated with the command line's options. */
ValidationReport validate_program(const Program &p, const Options &o) {
    ValidateOptions options;
    for (const std::string &text : o.assumptions) options.assumptions.push_back(parse_expression(p, text, "--assume"));
    options.max_operations = o.max_operations;
    options.rlimit = unsigned(o.rlimit);
    options.after_each_pass = o.each_pass;
    options.on_progress = progress;
    // The code the target gets: with fp_contract, its multiply-adds fused.
    options.contract_floats = !o.target.empty() && Target(o.target).has_feature("fp_contract");
    return validate(p, options);
}
#endif

int validate_command(const Options &o) {
#ifdef TESSERA_HAVE_VALIDATOR
    const Program p = parse_program_file(o.file);
    return in_file_of(p, [&] {
        const ValidationReport r = validate_program(p, o);
        std::fputs((o.json ? r.to_json() : r.to_string()).c_str(), stdout);
        return r.verdict == Verdict::Refuted ? 1 : 0;
    });
#else
    (void)o;
    throw RuntimeError("this tessera was built without the validator (isl and Z3 were not found when it was built)");
#endif
}

/** With --validate or --validate-strict: validates `p` before compile or run do anything,
 * reporting on stderr; false if they must stop. */
bool validated(const Program &p, const Options &o) {
    if (o.validation == Options::Validation::Off) return true;
#ifdef TESSERA_HAVE_VALIDATOR
    const ValidationReport r = validate_program(p, o);
    std::fputs(r.to_string().c_str(), stderr);
    if (r.verdict == Verdict::Refuted) {
        std::fprintf(stderr, "tessera: the compiled code is Refuted: nothing is %s\n", o.command == "run" ? "run" : "written");
        return false;
    }
    if (r.verdict != Verdict::Proved && o.validation == Options::Validation::Strict) {
        std::fprintf(stderr, "tessera: the compiled code is not Proved (--validate-strict): nothing is %s\n",
                     o.command == "run" ? "run" : "written");
        return false;
    }
    return true;
#else
    (void)p;
    throw RuntimeError("this tessera was built without the validator (isl and Z3 were not found when it was built)");
#endif
}

void set_param(const Argument &a, const std::string &text) {
    const Type t = a.type;
    char *end = nullptr;
    errno = 0;
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;
    if (t.is_float()) f = std::strtod(text.c_str(), &end);
    else if (t.is_bool()) {
        if (text != "true" && text != "false" && text != "0" && text != "1")
            throw RuntimeError("parameter " + a.name + " is a bool: give true or false, not '" + text + "'");
        u = text == "true" || text == "1";
        end = const_cast<char *>(text.c_str() + text.size());
    } else if (t.is_int()) i = std::strtoll(text.c_str(), &end, 0);
    else u = std::strtoull(text.c_str(), &end, 0);
    if (text.empty() || *end || errno == ERANGE ||
        (t.is_int() && !t.can_represent(i)) || (t.is_uint() && t.bits < 64 && u >> t.bits))
        throw RuntimeError("parameter " + a.name + " has type " + t.to_string() + "; '" + text + "' is not a value of it");
    detail::set_param(*a.param, t, i, u, f);
}

/** Binds the inputs and parameters; returns the first input's buffer (for the size). */
Buffer<> bind(const Program &p, const Options &o) {
    Buffer<> first;
    std::map<std::string, bool> bound;
    for (const auto &[name, spec] : o.inputs) {
        const Argument *a = p.argument(name);
        if (!a || !a->is_buffer()) throw RuntimeError("the pipeline has no input called '" + name + "'");
        progress("reading " + spec);
        Buffer<> b = tool::read_image(spec);
        if (b.type() != a->type)
            throw RuntimeError(spec + " holds " + b.type().to_string() + " values, but input " + name + " is " +
                               a->type.to_string());
        if (b.dimensions() != a->dimensions) {
            if (b.dimensions() == 2 && a->dimensions == 3) {
                // A gray image for a 3-D input: one channel.
                Buffer<> c(b.type(), {b.width(), b.height(), 1}, name);
                std::memcpy(c.data_handle()->host, b.data_handle()->host,
                            size_t(b.number_of_elements()) * size_t(b.type().bytes()));
                b = c;
            } else {
                throw RuntimeError(spec + " has " + std::to_string(b.dimensions()) + " dimensions (" +
                                   (b.dimensions() == 3 ? std::to_string(b.channels()) + " channels" : "gray") +
                                   "), but input " + name + " has " + std::to_string(a->dimensions));
            }
        }
        detail::bind_input(*a->input, b.data_handle());
        if (!first.defined()) first = b;
        bound[name] = true;
    }
    for (const Argument &a : p.arguments)
        if (a.is_buffer() && !bound.count(a.name))
            throw RuntimeError("input '" + a.name + "' is not given; add --input " + a.name + "=IMAGE");
    for (const auto &[name, value] : o.params) {
        const Argument *a = p.argument(name);
        if (!a || !a->is_scalar()) throw RuntimeError("the pipeline has no parameter called '" + name + "'");
        set_param(*a, value);
    }
    for (const Argument &a : p.arguments)
        if (a.is_scalar() && !a.param->has_value)
            throw RuntimeError("parameter '" + a.name + "' has no value; add --param " + a.name + "=VALUE");
    return first;
}

std::vector<int> output_size(const Program &p, const Options &o, const Buffer<> &first) {
    const int dims = p.output.dimensions();
    if (!o.size.empty()) {
        if (int(o.size.size()) != dims)
            throw RuntimeError("--size gives " + std::to_string(o.size.size()) + " sizes, but " + p.output.name() +
                               " has " + std::to_string(dims) + " dimensions");
        return o.size;
    }
    if (!first.defined() || first.dimensions() < dims)
        throw RuntimeError("give the output's size with --size (" + std::to_string(dims) + " values)");
    std::vector<int> s;
    for (int i = 0; i < dims; i++) s.push_back(first.extent(i));
    return s;
}

int run(const Options &o, bool reference_only) {
    Program p = parse_program_file(o.file);
    return in_file_of(p, [&] {
        if (!reference_only && !validated(p, o)) return 1;
        Buffer<> first = bind(p, o);
        const std::vector<int> size = output_size(p, o, first);
        // One buffer per value of the output (several for a Tuple).
        auto fresh_buffers = [&] {
            std::vector<Buffer<>> buffers;
            for (const Type &t : p.output.types()) buffers.emplace_back(t, size, p.output.name());
            return Realization(buffers);
        };
        Realization result;
        if (!reference_only) {
            const Target target = o.target.empty() ? get_jit_target_from_environment() : Target(o.target);
            progress("compiling " + p.name);
            auto t0 = std::chrono::steady_clock::now();
            p.output.compile_jit(target);
            std::printf("compile: %.1f ms\n", ms_since(t0));
            result = fresh_buffers();
            std::vector<double> times;
            for (int r = 0; r < o.runs; r++) {
                t0 = std::chrono::steady_clock::now();
                p.output.realize(result, target);
                times.push_back(ms_since(t0));
                std::printf("run %d: %.3f ms\n", r + 1, times.back());
            }
            std::sort(times.begin(), times.end());
            std::printf("compiled: median %.3f ms over %d runs\n", times[times.size() / 2], o.runs);
        }
        if (reference_only || o.reference) {
            progress("running the reference interpreter");
            auto t0 = std::chrono::steady_clock::now();
            Realization ref = fresh_buffers();
            p.output.realize_reference(ref);
            const double ms = ms_since(t0);
            std::printf("reference interpreter: %.1f ms\n", ms);
            if (result.size() > 0) {
                bool same = true;
                for (size_t k = 0; k < ref.size(); k++) {
                    const size_t n = size_t(ref[k].number_of_elements()) * size_t(ref[k].type().bytes());
                    same = same && std::memcmp(ref[k].data_handle()->host, result[k].data_handle()->host, n) == 0;
                }
                std::printf("compiled and reference results: %s\n", same ? "identical" : "DIFFERENT");
                if (!same) return 1;
            } else {
                result = ref;
            }
        }
        if (!o.output.empty()) {
            // A Tuple's values go to OUT with the value's index before the extension
            // (out.0.png, out.1.png, ...).
            for (size_t k = 0; k < result.size(); k++) {
                std::string file = o.output;
                if (result.size() > 1) {
                    const size_t dot = file.rfind('.');
                    const size_t slash = file.rfind('/');
                    const std::string index = "." + std::to_string(k);
                    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) file += index;
                    else file.insert(dot, index);
                }
                tool::write_image(result[k], file);
                std::printf("wrote %s\n", file.c_str());
            }
        }
        return 0;
    });
}

}  // namespace

int main(int argc, char **argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // results and progress (stderr) in order
    Options o;
    try {
        o = parse_args(argc, argv);
        if (o.help) {
            std::fputs(o.command.empty() ? kUsage : kHelp.at(o.command).c_str(), stdout);
            return 0;
        }
        if (o.command == "compile") return compile(o);
        if (o.command == "flags") {
            std::printf("%s\n", (o.target.empty() ? get_host_target() : Target(o.target)).c_flags().c_str());
            return 0;
        }
        if (o.command == "check") return check(o);
        if (o.command == "atl") return atl_command(o);
        if (o.command == "validate") return validate_command(o);
        if (o.command == "run") return run(o, false);
        return run(o, true);
    } catch (const UsageError &e) {
        if (!e.message.empty()) std::fprintf(stderr, "tessera: %s\n\n", e.message.c_str());
        const std::string command = argc > 1 ? argv[1] : "";
        std::fputs(kHelp.count(command) ? kHelp.at(command).c_str() : kUsage, stderr);
        return 2;
    } catch (const CompileError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    } catch (const RuntimeError &e) {
        std::fprintf(stderr, "tessera: error: %s\n", e.what());
        return 1;
    } catch (const InternalError &e) {
        std::fprintf(stderr, "tessera: internal error (please report): %s\n", e.what());
        return 3;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera: error: %s\n", e.what());
        return 1;
    }
}
