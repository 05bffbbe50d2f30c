// Generators (include/tessera/Generator.h): members register with the Generator being
// constructed; the registry makes generators by name; generator_main is Halide's GenGen
// command line over Func's ahead-of-time compilation (src/lang/FuncCompile.cpp).

#include "tessera/Generator.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

namespace tessera {

namespace {

thread_local GeneratorBase *constructing = nullptr;

std::map<std::string, GeneratorRegistry::Factory> &registry() {
    static std::map<std::string, GeneratorRegistry::Factory> r;
    return r;
}

GeneratorBase &current(const std::string &what) {
    if (!constructing)
        throw CompileError(what + " is declared outside a Generator: GeneratorParam, Input and Output are members of a "
                                  "class derived from tessera::Generator");
    return *constructing;
}

std::string join(const std::vector<std::string> &names) {
    std::string s;
    for (const std::string &n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? "none" : s;
}

}  // namespace

namespace detail {

GeneratorBase *generator_under_construction() { return constructing; }

void register_param(GeneratorParamBase *p) {
    GeneratorBase &g = current("GeneratorParam \"" + p->param_name() + "\"");
    for (const GeneratorParamBase *q : g.params_)
        if (q->param_name() == p->param_name())
            throw CompileError("The Generator declares two GeneratorParams named \"" + p->param_name() + "\"");
    g.params_.push_back(p);
}

void register_input(const std::string &name, std::function<Argument()> argument) {
    GeneratorBase &g = current("Input \"" + name + "\"");
    if (name.empty()) throw CompileError("A Generator's Input needs a name (the compiled function's argument)");
    for (const auto &in : g.inputs_)
        if (in.first == name) throw CompileError("The Generator declares two Inputs named \"" + name + "\"");
    g.inputs_.emplace_back(name, std::move(argument));
}

void register_output(Func *f, const std::string &name, Type type, int dimensions) {
    GeneratorBase &g = current("Output \"" + name + "\"");
    if (name.empty()) throw CompileError("A Generator's Output needs a name");
    if (dimensions < 0) throw CompileError("Output \"" + name + "\" has a negative number of dimensions");
    g.outputs_.push_back({f, name, type, dimensions});
}

}  // namespace detail

GeneratorBase::GeneratorBase() { constructing = this; }

GeneratorBase::~GeneratorBase() {
    if (constructing == this) constructing = nullptr;
}

void GeneratorBase::set_generator_param(const std::string &name, const std::string &value) {
    std::vector<std::string> known;
    for (detail::GeneratorParamBase *p : params_) {
        if (p->param_name() == name) {
            if (built_) throw CompileError("GeneratorParam \"" + name + "\" is set after the generator was built");
            if (!p->set_from_string(value))
                throw CompileError("Generator \"" + name_ + "\": the value \"" + value + "\" of GeneratorParam \"" + name +
                                   "\" does not parse as its type (its default is " + p->value_string() + ")");
            return;
        }
        known.push_back(p->param_name());
    }
    throw CompileError("Generator \"" + name_ + "\" has no GeneratorParam \"" + name + "\" (its GeneratorParams: " +
                       join(known) + ")");
}

Func GeneratorBase::build() {
    if (!built_) {
        built_ = true;
        if (outputs_.size() != 1)
            throw CompileError("Generator \"" + name_ + "\" declares " + std::to_string(outputs_.size()) +
                               " Outputs; a Generator has one Output here (write a second Generator for another)");
        call_generate();
        const OutputInfo &out = outputs_.front();
        if (!out.func->defined())
            throw CompileError("Generator \"" + name_ + "\": generate() does not define its Output \"" + out.name + "\"");
        if (out.func->dimensions() != out.dimensions)
            throw CompileError("Generator \"" + name_ + "\": Output \"" + out.name + "\" is declared with " +
                               std::to_string(out.dimensions) + " dimensions, but generate() defines it with " +
                               std::to_string(out.func->dimensions()));
        if (out.func->type() != out.type)
            throw CompileError("Generator \"" + name_ + "\": Output \"" + out.name + "\" is declared as Buffer<" +
                               out.type.to_string() + ">, but generate() defines it as " + out.func->type().to_string() +
                               " (cast the value)");
        call_schedule();
    }
    return *outputs_.front().func;
}

std::vector<Argument> GeneratorBase::arguments() const {
    std::vector<Argument> args;
    for (const auto &in : inputs_) args.push_back(in.second());
    return args;
}

void GeneratorRegistry::add(const std::string &name, Factory factory) {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    if (!registry().emplace(name, std::move(factory)).second) {
        std::fprintf(stderr, "tessera: two generators are registered as \"%s\"\n", name.c_str());
        std::abort();  // at static initialization: no caller to report it to
    }
}

std::unique_ptr<GeneratorBase> GeneratorRegistry::create(const std::string &name) {
    auto it = registry().find(name);
    if (it == registry().end())
        throw CompileError("No generator is registered as \"" + name + "\" (registered: " + join(names()) + ")");
    return it->second();
}

std::vector<std::string> GeneratorRegistry::names() {
    std::vector<std::string> n;
    for (const auto &entry : registry()) n.push_back(entry.first);
    return n;
}

void GeneratorRegistry::finish(GeneratorBase &g, const std::string &name) {
    if (constructing == &g) constructing = nullptr;
    g.name_ = name;
}

namespace {

const char *kUsage =
    "usage: GENERATOR -g NAME -o DIR [-e KINDS] [-f FUNCTION] [target=T] [PARAM=VALUE ...]\n"
    "  -g NAME      the registered generator to compile (optional if there is only one)\n"
    "  -o DIR       the directory to write into\n"
    "  -e KINDS     comma-separated, of c_source, c_header, object, static_library, stmt\n"
    "               (default c_header,c_source)\n"
    "  -f FUNCTION  the compiled function's name (default: the generator's name)\n"
    "  target=T     the target (Halide's syntax; default host)\n"
    "  PARAM=VALUE  sets a GeneratorParam\n";

int run(int argc, char **argv) {
    std::string name, dir, function;
    std::vector<std::string> kinds = {"c_header", "c_source"};
    std::vector<std::pair<std::string, std::string>> settings;
    Target target;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw CompileError(a + " needs a value\n" + kUsage);
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::string text = kUsage;
            for (const std::string &n : GeneratorRegistry::names()) {
                text += "generator " + n + ":";
                std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create(n);
                for (const detail::GeneratorParamBase *p : g->generator_params())
                    text += " " + p->param_name() + "=" + p->value_string();
                text += "\n";
            }
            std::fputs(text.c_str(), stdout);
            return 0;
        }
        if (a == "-g") name = value();
        else if (a == "-o") dir = value();
        else if (a == "-f") function = value();
        else if (a == "-e") {
            kinds.clear();
            std::string list = value(), kind;
            std::istringstream in(list);
            while (std::getline(in, kind, ',')) kinds.push_back(kind);
        } else if (size_t eq = a.find('='); eq != std::string::npos && eq > 0) {
            if (a.substr(0, eq) == "target") target = Target(a.substr(eq + 1));
            else settings.emplace_back(a.substr(0, eq), a.substr(eq + 1));
        } else {
            throw CompileError("unknown argument \"" + a + "\"\n" + kUsage);
        }
    }
    if (name.empty()) {
        const std::vector<std::string> names = GeneratorRegistry::names();
        if (names.size() != 1) throw CompileError("-g names the generator to compile (registered: " + join(names) + ")");
        name = names.front();
    }
    if (dir.empty()) throw CompileError(std::string("-o names the directory to write into\n") + kUsage);
    const std::set<std::string> known = {"c_source", "c_header", "object", "static_library", "stmt"};
    for (const std::string &k : kinds)
        if (!known.count(k))
            throw CompileError("-e: unknown output kind \"" + k + "\" (known: c_source, c_header, object, static_library, stmt)");
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create(name);
    g->set_target(target);
    for (const auto &[param, text] : settings) g->set_generator_param(param, text);
    Func out = g->build();
    const std::vector<Argument> args = g->arguments();
    if (function.empty()) function = name;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string base = dir + "/" + function;
    for (const std::string &k : kinds) {
        if (k == "c_source") out.compile_to_c(base + ".c", args, function);
        else if (k == "c_header") out.compile_to_header(base + ".h", args, function);
        else if (k == "object") out.compile_to_object(base + ".o", args, function, target);
        else if (k == "static_library") out.compile_to_static_library(base, args, function, target);
        else if (k == "stmt") out.compile_to_lowered_stmt(base + ".stmt", args);
    }
    return 0;
}

}  // namespace

int generator_main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}

}  // namespace tessera
