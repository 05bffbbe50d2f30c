// Scalar parameters and image inputs.

#include "ir/IR.h"
#include "ir/Names.h"
#include "lang/ImplicitVars.h"
#include "lang/Scheduling.h"
#include "lang/Validity.h"
#include "tessera/RDom.h"
#include "ir/Scalar.h"
#include "tessera/IROperator.h"
#include "tessera/Func.h"
#include "tessera/Param.h"

namespace tessera {

using namespace ir;

namespace detail {

std::shared_ptr<ParamData> make_param(Type t, const std::string &name) {
    auto p = std::make_shared<ParamData>();
    p->name = name.empty() ? ir::fresh_name('p') : name;
    p->type = t;
    return p;
}

void set_param(ParamData &p, Type value_type, int64_t i, uint64_t u, double f) {
    (void)value_type;
    if (p.type.is_float()) p.value.f = p.type.bits == 32 ? double(float(f)) : f;
    else if (p.type.is_int()) p.value.i = i;
    else p.value.u = u;
    p.has_value = true;
}

Expr param_expr(const std::shared_ptr<ParamData> &p) { return Variable::make_param(p); }

void set_param_range(ParamData &p, Expr min_value, Expr max_value) {
    auto adapt = [&](Expr e, const char *which) -> Expr {
        if (!e.defined()) return e;
        if (e.type() != p.type) {
            if (e.type().is_float() && !p.type.is_float())
                throw CompileError("Param " + p.name + ": the " + which + " of set_range has type " +
                                   e.type().to_string() + " but the Param is " + p.type.to_string());
            e = cast(p.type, e);
        }
        return e;
    };
    p.min_value = adapt(std::move(min_value), "min");
    p.max_value = adapt(std::move(max_value), "max");
}

std::shared_ptr<InputData> make_input(Type t, int dims, const std::string &name) {
    if (dims < 0) throw CompileError("ImageParam " + name + " with a negative number of dimensions");
    auto in = std::make_shared<InputData>();
    in->name = name.empty() ? ir::fresh_name('i') : name;
    in->type = t;
    in->dimensions = dims;
    return in;
}

void bind_input(InputData &in, const std::shared_ptr<BufferData> &b) {
    if (!b) throw CompileError("ImageParam " + in.name + ": set() given an undefined Buffer");
    if (b->type != in.type)
        throw CompileError("ImageParam " + in.name + " has type " + in.type.to_string() +
                           " but the Buffer given to set() has type " + b->type.to_string());
    if (int(b->dims.size()) != in.dimensions)
        throw CompileError("ImageParam " + in.name + " has " + std::to_string(in.dimensions) +
                           " dimensions but the Buffer given to set() has " + std::to_string(b->dims.size()));
    in.bound = b;
}

Expr input_call(const std::shared_ptr<InputData> &in, std::vector<Expr> args) {
    if (!in) throw CompileError("Use of an undefined ImageParam");
    args = lang::call_coordinates(std::move(args), in->dimensions, "ImageParam " + in->name);
    args = lang::coerce_coordinates(std::move(args), in->name);
    if (int(args.size()) != in->dimensions)
        throw CompileError("ImageParam " + in->name + " has " + std::to_string(in->dimensions) +
                           " dimensions but is read with " + std::to_string(args.size()) + " coordinates");
    return Call::make_input(in, std::move(args));
}

}  // namespace detail

ImageParam::ImageParam(Type t, int dimensions, const std::string &name)
    : data_(detail::make_input(t, dimensions, name)) {}

void ImageParam::set(const Buffer<> &b) { detail::bind_input(*data_, b.data_handle()); }

void ImageParam::set_estimates(const std::vector<tessera::Range> &estimates) {
    if (int(estimates.size()) != dimensions())
        throw CompileError("ImageParam \"" + name() + "\": set_estimates: " + std::to_string(estimates.size()) +
                           " estimates for " + std::to_string(dimensions()) + " dimensions");
    for (const tessera::Range &r : estimates)
        if (!r.min.defined() || !r.extent.defined())
            throw CompileError("ImageParam \"" + name() + "\": set_estimates: an estimate is undefined");
}

Buffer<> ImageParam::get() const { return Buffer<>(data_->bound); }

Func ImageParam::in() {
    if (!data_) throw CompileError("in() of an undefined ImageParam");
    if (!data_->wrapper) {
        Func w(data_->name + "_global_wrapper");
        std::vector<Var> vars;
        std::vector<Expr> args;
        for (int i = 0; i < data_->dimensions; i++) {
            vars.emplace_back("_" + std::to_string(i));
            args.push_back(vars.back());
        }
        w(vars) = detail::input_call(data_, args);
        w.data()->schedule.wraps = data_->name;
        data_->wrapper = w.data();
        lang::schedule_changed();
    }
    return Func(data_->wrapper);
}

ImageParam::Dimension ImageParam::dim(int i) const {
    if (!data_) throw CompileError("Use of an undefined ImageParam");
    if (i < 0 || i >= data_->dimensions)
        throw CompileError("ImageParam " + data_->name + " has no dimension " + std::to_string(i) + " (it has " +
                           std::to_string(data_->dimensions) + ")");
    return Dimension(data_, i);
}

Expr ImageParam::Dimension::min() const { return Variable::make_input_bound(data_, dim_, false); }
Expr ImageParam::Dimension::extent() const { return Variable::make_input_bound(data_, dim_, true); }
Expr ImageParam::Dimension::max() const { return min() + extent() - 1; }

}  // namespace tessera
