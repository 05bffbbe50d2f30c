#pragma once
// Generators, as Halide's: a class that declares its compile-time parameters, its inputs
// and its output as members, defines the pipeline in generate() and its schedule in
// schedule(), and is registered under a name, so that one build step compiles it ahead of
// time for a target with the parameters given on a command line:
//
//     class Brighten : public tessera::Generator<Brighten> {
//     public:
//         GeneratorParam<int> vector_width{"vector_width", 8};
//         Input<Buffer<uint8_t>> input{"input", 2};
//         Input<float> scale{"scale", 1.0f, 0.0f, 4.0f};
//         Output<Buffer<uint8_t>> output{"output", 2};
//         Var x{"x"}, y{"y"};
//         void generate() { output(x, y) = saturating_cast<uint8_t>(input(x, y) * scale); }
//         void schedule() { output.vectorize(x, vector_width); }
//     };
//     TESSERA_REGISTER_GENERATOR(Brighten, brighten)
//
// linked with the library `tessera_generator_main` (a main() that calls generator_main),
// and run as
//
//     ./brighten_gen -g brighten -o out -e c_source,c_header target=host vector_width=16
//
// The compiled function takes the inputs in the order they are declared, then the output:
//     int brighten(const tessera_buffer_t *input, float scale, tessera_buffer_t *output)

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/Buffer.h"
#include "tessera/Error.h"
#include "tessera/Func.h"
#include "tessera/IROperator.h"
#include "tessera/Param.h"
#include "tessera/Target.h"
#include "tessera/Type.h"

namespace tessera {

class GeneratorBase;

namespace detail {

/** What a Generator's members register with the Generator being constructed. */
struct GeneratorParamBase {
    virtual ~GeneratorParamBase() = default;
    virtual const std::string &param_name() const = 0;
    /** Sets the value from its text on the command line (false if it does not parse). */
    virtual bool set_from_string(const std::string &text) = 0;
    virtual std::string value_string() const = 0;
};

/** The Generator whose members are being constructed (set by GeneratorBase's
 * constructor, which runs before them), or null. */
GeneratorBase *generator_under_construction();
void register_param(GeneratorParamBase *p);
void register_input(const std::string &name, std::function<Argument()> argument);
void register_output(Func *f, const std::string &name, Type type, int dimensions);

template<typename T>
bool parse_value(const std::string &text, T &out) {
    if constexpr (std::is_same_v<T, bool>) {
        if (text == "true" || text == "1") out = true;
        else if (text == "false" || text == "0") out = false;
        else return false;
        return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
        out = text;
        return true;
    } else if constexpr (std::is_same_v<T, Type>) {
        return type_from_name(text, out);
    } else {
        std::istringstream in(text);
        T v{};
        if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) {
            int wide = 0;
            if (!(in >> wide)) return false;
            v = T(wide);
            if (int(v) != wide) return false;
        } else if (!(in >> v)) {
            return false;
        }
        if (!in.eof() && in.peek() != EOF) return false;
        out = v;
        return true;
    }
}

template<typename T>
std::string value_text(const T &v) {
    if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
    else if constexpr (std::is_same_v<T, std::string>) return v;
    else if constexpr (std::is_same_v<T, Type>) return v.to_string();
    else if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) return std::to_string(int(v));
    else {
        std::ostringstream out;
        out << v;
        return out.str();
    }
}

}  // namespace detail

/** A compile-time parameter of a Generator: set on the command line as name=value
 * (integers, floats, bool as true/false, std::string, Type as uint8, float32, ...), read
 * as a T in generate() and schedule(). */
template<typename T>
class GeneratorParam : public detail::GeneratorParamBase {
public:
    GeneratorParam(const std::string &name, const T &value) : name_(name), value_(value) { detail::register_param(this); }
    GeneratorParam(const GeneratorParam &) = delete;
    GeneratorParam &operator=(const GeneratorParam &) = delete;

    operator T() const { return value_; }
    /** A numeric parameter as a constant of its type, where an Expr is wanted (a split
     * factor, a term of a definition). */
    template<typename U = T, typename = std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, bool>>>
    operator Expr() const {
        if constexpr (std::is_floating_point_v<U>) return make_const(type_of<U>(), double(value_));
        else return make_const(type_of<U>(), int64_t(value_));
    }
    T value() const { return value_; }
    const std::string &param_name() const override { return name_; }
    bool set_from_string(const std::string &text) override { return detail::parse_value(text, value_); }
    std::string value_string() const override { return detail::value_text(value_); }

private:
    std::string name_;
    T value_;
};

template<typename T>
class Input;

/** A buffer input of a Generator: an ImageParam of T's type with `dimensions`
 * dimensions, named `name` (the compiled function's argument). */
template<typename T>
class Input<Buffer<T>> : public ImageParam {
public:
    static_assert(!std::is_void_v<T>, "Input<Buffer<T>> needs an element type T");
    Input(const std::string &name, int dimensions) : ImageParam(type_of<T>(), dimensions, name) {
        ImageParam self = *this;
        detail::register_input(name, [self] { return Argument(self); });
    }
};

/** A scalar input of a Generator: a Param<T>, with a default value and an optional
 * range (checked when the pipeline runs). */
template<typename T>
class Input : public Param<T> {
public:
    static_assert(std::is_arithmetic_v<T>, "Input<T> is a Buffer<T> or an arithmetic type");
    explicit Input(const std::string &name) : Param<T>(name) { add(); }
    Input(const std::string &name, T value) : Param<T>(name, value) { add(); }
    Input(const std::string &name, T value, T min_value, T max_value) : Param<T>(name, value) {
        this->set_range(Expr(min_value), Expr(max_value));
        add();
    }

private:
    void add() {
        Param<T> self = *this;
        detail::register_input(this->name(), [self] { return Argument(self); });
    }
};

template<typename T>
class Output;

/** The output of a Generator: a Func named `name` (the compiled function's name unless
 * -f gives another), which generate() must define with `dimensions` dimensions and T's
 * type; every Func method (definitions, schedule) is available on it. */
template<typename T>
class Output<Buffer<T>> : public Func {
public:
    static_assert(!std::is_void_v<T>, "Output<Buffer<T>> needs an element type T");
    Output(const std::string &name, int dimensions) : Func(name) {
        detail::register_output(this, name, type_of<T>(), dimensions);
    }
    Output(const Output &) = delete;
    Output &operator=(const Output &) = delete;
    using Func::operator();
};

/** The base of every Generator: what generator_main needs to run one. */
class GeneratorBase {
public:
    virtual ~GeneratorBase();
    GeneratorBase(const GeneratorBase &) = delete;
    GeneratorBase &operator=(const GeneratorBase &) = delete;

    /** The target the generator compiles for (target=... on the command line). */
    const Target &get_target() const { return target_; }

    /** Sets GeneratorParam `name` from its text (CompileError naming the generator's
     * parameters if there is none of that name or the text does not parse). */
    void set_generator_param(const std::string &name, const std::string &value);
    void set_target(const Target &t) { target_ = t; }
    /** Runs generate() and schedule() (once) and checks the output. */
    Func build();
    /** The inputs, in declaration order, as the compiled function takes them. */
    std::vector<Argument> arguments() const;
    const std::string &generator_name() const { return name_; }
    const std::vector<detail::GeneratorParamBase *> &generator_params() const { return params_; }

protected:
    GeneratorBase();
    virtual void call_generate() = 0;
    virtual void call_schedule() = 0;

private:
    friend void detail::register_param(detail::GeneratorParamBase *);
    friend void detail::register_input(const std::string &, std::function<Argument()>);
    friend void detail::register_output(Func *, const std::string &, Type, int);
    friend struct GeneratorRegistry;

    struct OutputInfo {
        Func *func;
        std::string name;
        Type type;
        int dimensions;
    };
    std::string name_;
    Target target_;
    std::vector<detail::GeneratorParamBase *> params_;
    std::vector<std::pair<std::string, std::function<Argument()>>> inputs_;
    std::vector<OutputInfo> outputs_;
    bool built_ = false;
};

/** Derive from Generator<YourClass>: generate() defines the output; schedule(), if the
 * class has one, schedules the pipeline. */
template<typename T>
class Generator : public GeneratorBase {
protected:
    Generator() = default;

private:
    template<typename U, typename = void>
    struct has_schedule : std::false_type {};
    template<typename U>
    struct has_schedule<U, std::void_t<decltype(std::declval<U &>().schedule())>> : std::true_type {};

    void call_generate() override { static_cast<T *>(this)->generate(); }
    void call_schedule() override {
        if constexpr (has_schedule<T>::value) static_cast<T *>(this)->schedule();
    }
};

/** The registered generators, by name. */
struct GeneratorRegistry {
    using Factory = std::function<std::unique_ptr<GeneratorBase>()>;
    /** Registers `factory` under `name` (a name registered twice is an error at startup). */
    static void add(const std::string &name, Factory factory);
    /** A new generator of that name (CompileError naming the registered ones if none). */
    static std::unique_ptr<GeneratorBase> create(const std::string &name);
    static std::vector<std::string> names();

    template<typename T>
    static std::unique_ptr<GeneratorBase> make(const std::string &name) {
        std::unique_ptr<GeneratorBase> g = std::make_unique<T>();
        finish(*g, name);
        return g;
    }

private:
    static void finish(GeneratorBase &g, const std::string &name);
};

/** Halide's GenGen main: -g NAME (the generator; optional if only one is registered),
 * -o DIR, -e c_source,c_header,object,static_library,stmt (default c_header,c_source),
 * -f FUNCTION (default: the generator's name), target=T, and NAME=VALUE for each
 * GeneratorParam. Returns 0, or 1 with the error on stderr; --help lists the generators
 * and their parameters. */
int generator_main(int argc, char **argv);

}  // namespace tessera

#define TESSERA_GENERATOR_CONCAT_(a, b) a##b
#define TESSERA_GENERATOR_CONCAT(a, b) TESSERA_GENERATOR_CONCAT_(a, b)
/** Registers Generator class `GenClass` under the name `gen_name` (an identifier). */
#define TESSERA_REGISTER_GENERATOR(GenClass, gen_name)                                                   \
    namespace {                                                                                         \
    const bool TESSERA_GENERATOR_CONCAT(tessera_generator_registered_, gen_name) = [] {                  \
        ::tessera::GeneratorRegistry::add(#gen_name,                                                    \
                                          [] { return ::tessera::GeneratorRegistry::make<GenClass>(#gen_name); }); \
        return true;                                                                                    \
    }();                                                                                                \
    }
