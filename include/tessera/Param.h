#pragma once
// Scalar pipeline parameters (Param<T>) and image inputs (ImageParam).

#include <memory>
#include <string>
#include <vector>

#include "tessera/Buffer.h"
#include "tessera/Expr.h"
#include "tessera/Type.h"

namespace tessera {

struct Range;  // tessera/RDom.h

class Func;

namespace ir {

/** A scalar parameter: its type, its current value and an optional asserted range. */
struct ParamData {
    std::string name;
    Type type;
    union {
        int64_t i;
        uint64_t u;
        double f;
    } value{};
    bool has_value = false;
    Expr min_value, max_value;  // set_range; undefined when unconstrained
};

struct FunctionData;

/** An image input: its type and dimensionality, and the buffer bound to it. */
struct InputData {
    std::string name;
    Type type;
    int dimensions = 0;
    std::shared_ptr<BufferData> bound;
    /** ImageParam::in(): the Func that takes the input's place in every Func but itself. */
    std::shared_ptr<FunctionData> wrapper;
    /** The image by which pipelines read an extern Func (define_extern): realize passes
     * the Func's values as its buffer when it runs them. */
    bool extern_image = false;
};

}  // namespace ir

namespace detail {
std::shared_ptr<ir::ParamData> make_param(Type t, const std::string &name);
void set_param(ir::ParamData &p, Type value_type, int64_t i, uint64_t u, double f);
Expr param_expr(const std::shared_ptr<ir::ParamData> &p);
std::shared_ptr<ir::InputData> make_input(Type t, int dims, const std::string &name);
void bind_input(ir::InputData &in, const std::shared_ptr<ir::BufferData> &b);
Expr input_call(const std::shared_ptr<ir::InputData> &in, std::vector<Expr> args);
void set_param_range(ir::ParamData &p, Expr min_value, Expr max_value);
}  // namespace detail

/** A scalar parameter of the pipeline, set before realizing. */
template<typename T>
class Param {
public:
    Param() : data_(detail::make_param(type_of<T>(), "")) {}
    explicit Param(const std::string &name) : data_(detail::make_param(type_of<T>(), name)) {}
    Param(const std::string &name, T value) : Param(name) { set(value); }
    explicit Param(T value) : Param() { set(value); }

    const std::string &name() const { return data_->name; }
    Type type() const { return data_->type; }

    void set(T v) {
        if constexpr (std::is_floating_point_v<T>) detail::set_param(*data_, type_of<T>(), 0, 0, static_cast<double>(v));
        else if constexpr (std::is_signed_v<T>) detail::set_param(*data_, type_of<T>(), static_cast<int64_t>(v), 0, 0);
        else detail::set_param(*data_, type_of<T>(), 0, static_cast<uint64_t>(v), 0);
    }
    T get() const {
        if constexpr (std::is_floating_point_v<T>) return static_cast<T>(data_->value.f);
        else if constexpr (std::is_signed_v<T>) return static_cast<T>(data_->value.i);
        else return static_cast<T>(data_->value.u);
    }

    /** Halide's estimate of the value, for its autoscheduler: accepted, unused (Tessera has
     * no autoscheduler). */
    void set_estimate(T value) { (void)value; }

    /** Assert min <= value <= max when the pipeline runs (RuntimeError otherwise). */
    void set_range(Expr min_value, Expr max_value) {
        detail::set_param_range(*data_, std::move(min_value), std::move(max_value));
    }

    operator Expr() const { return detail::param_expr(data_); }
    const std::shared_ptr<ir::ParamData> &data() const { return data_; }

private:
    std::shared_ptr<ir::ParamData> data_;
};

/** An image input of the pipeline: read it like a Func, bind a Buffer with set(). */
class ImageParam {
public:
    ImageParam() = default;
    ImageParam(Type t, int dimensions, const std::string &name = "");

    const std::string &name() const { return data_->name; }
    Type type() const { return data_->type; }
    int dimensions() const { return data_->dimensions; }

    /** Bind the buffer read when the pipeline runs (its type and dimensionality must
     * match: CompileError otherwise). */
    void set(const Buffer<> &b);
    Buffer<> get() const;
    /** Halide's estimates of the bound buffer's region, for its autoscheduler: one
     * (min, extent) per dimension (CompileError otherwise), accepted and unused. */
    void set_estimates(const std::vector<Range> &estimates);

    /** A Func wrapping the input, as Halide's ImageParam::in(): it takes the input's place
     * in every Func of the pipeline (but itself), so that it can be scheduled as a staging
     * copy (compute_at a loop, vectorized). Its Vars are _0, _1, ... (Var("_0")). The same
     * Func on every call. */
    Func in();

    /** Symbolic bounds of the bound buffer, usable in algorithms (e.g. for boundary
     * conditions and RDoms): known when the pipeline starts. */
    class Dimension {
    public:
        Dimension(std::shared_ptr<ir::InputData> d, int i) : data_(std::move(d)), dim_(i) {}
        Expr min() const;
        Expr extent() const;
        Expr max() const;

    private:
        std::shared_ptr<ir::InputData> data_;
        int dim_;
    };
    Dimension dim(int i) const;
    Expr width() const { return dim(0).extent(); }
    Expr height() const { return dim(1).extent(); }
    Expr channels() const { return dim(2).extent(); }

    template<typename... Args>
    Expr operator()(const Args &...args) const {
        return detail::input_call(data_, std::vector<Expr>{Expr(args)...});
    }
    Expr operator()(const std::vector<Expr> &args) const { return detail::input_call(data_, args); }

    const std::shared_ptr<ir::InputData> &data() const { return data_; }

private:
    std::shared_ptr<ir::InputData> data_;
};

}  // namespace tessera
