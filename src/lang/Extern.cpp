// Funcs computed by C functions (Func::define_extern, include/tessera/ExternFuncArgument.h;
// docs/semantics.md §7.6). A pipeline reads such a Func as an input image
// (src/lower/InlineFunctions.cpp); realize computes it first, over the region the
// pipeline's lowered code reads (LoweredPipeline::extern_regions), with the protocol of
// src/semantics/Extern.h, and passes the result as that image's buffer (never bound to
// the image itself, which concurrent realizations share). Its Func inputs are realized
// as pipelines of their own, over the regions its bounds query asks for.

#include <cstring>
#include <mutex>
#include <optional>
#include <set>

#include "analysis/Simplify.h"
#include "driver/ExternCall.h"
#include "driver/JIT.h"
#include "ir/Check.h"
#include "ir/Function.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lang/Extern.h"
#include "lang/Validity.h"
#include "semantics/Extern.h"
#include "semantics/ReferenceInterpreter.h"
#include "tessera/Func.h"

namespace tessera {

using namespace ir;

ExternFuncArgument::ExternFuncArgument(const Func &f) : func_(f.data()) {}

namespace {

bool is_c_identifier(const std::string &s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

/** The caller of the C function, with the values as the trampoline takes them
 * (src/driver/ExternCall.h); compiled at the first call. */
std::function<int(const std::vector<ExternValue> &)> make_invoker(const std::string &name,
                                                                 std::vector<std::optional<Type>> signature,
                                                                 const std::string &func) {
    struct Lazy {
        std::mutex mutex;
        std::optional<driver::ExternCaller> caller;
    };
    auto lazy = std::make_shared<Lazy>();
    return [=](const std::vector<ExternValue> &values) {
        const driver::ExternCaller *caller = nullptr;
        {
            std::lock_guard<std::mutex> lock(lazy->mutex);  // realizations may run at once
            if (!lazy->caller) lazy->caller.emplace(name, signature, func);
            caller = &*lazy->caller;
        }
        std::vector<driver::RuntimeBuffer> buffers;
        buffers.reserve(values.size());
        std::vector<uint64_t> scalars(values.size());
        std::vector<void *> args(values.size());
        for (size_t i = 0; i < values.size(); i++) {
            const ExternValue &v = values[i];
            if (v.buffer) {
                buffers.emplace_back(*v.buffer);
                args[i] = buffers.back().get();
                continue;
            }
            // The scalar in its C type's bytes (little-endian hosts: the low bytes).
            if (v.type.is_float() && v.type.bits == 32) {
                const float f = float(v.scalar.f);
                std::memcpy(&scalars[i], &f, sizeof(f));
            } else {
                std::memcpy(&scalars[i], &v.scalar, sizeof(uint64_t));
            }
            args[i] = &scalars[i];
        }
        const int code = caller->call(args.data());
        // A bounds query: the regions the function asked for.
        size_t b = 0;
        for (const ExternValue &v : values) {
            if (!v.buffer) continue;
            const tessera_buffer_t *rb = buffers[b++].get();
            if (v.buffer->host) continue;
            for (size_t d = 0; d < v.buffer->dims.size() && int(d) < rb->dimensions; d++) {
                v.buffer->dims[d].min = rb->dim[d].min;
                v.buffer->dims[d].extent = rb->dim[d].extent;
            }
        }
        return code;
    };
}

void define(const std::shared_ptr<FunctionData> &f, const std::string &function_name,
            const std::vector<ExternFuncArgument> &params, Type t, const std::vector<std::string> &args,
            NameMangling mangling) {
    const std::string what = "define_extern(\"" + function_name + "\") of Func \"" + f->name + "\"";
    if (f->defined()) throw CompileError(what + ": the Func already has a definition");
    if (!is_c_identifier(function_name)) throw CompileError(what + ": the function's name is not a C identifier");
    if (mangling == NameMangling::CPlusPlus)
        throw CompileError(what + ": C++ name mangling is not supported; declare the function extern \"C\"");
    if (!t.is_scalar()) throw CompileError(what + ": the type " + t.to_string() + " is not a scalar type");
    auto e = std::make_shared<ExternDefinition>();
    e->function_name = function_name;
    std::vector<std::optional<Type>> signature;
    for (size_t i = 0; i < params.size(); i++) {
        const ExternFuncArgument &p = params[i];
        ExternArgument a;
        const std::string which = what + ": argument " + std::to_string(i);
        if (p.func()) {
            if (p.func() == f) throw CompileError(which + " is the Func itself");
            if (!p.func()->defined()) throw CompileError(which + " is Func \"" + p.func()->name + "\", which has no definition");
            if (p.func()->outputs() > 1)
                throw CompileError(which + " is Func \"" + p.func()->name + "\", which has several values (a Tuple)");
            p.func()->frozen = true;
            a.func = p.func();
            signature.emplace_back();
        } else if (p.buffer()) {
            a.buffer = p.buffer();
            signature.emplace_back();
        } else if (p.input()) {
            a.input = p.input();
            signature.emplace_back();
        } else {
            if (!p.value().defined()) throw CompileError(which + " is an undefined Expr");
            if (!lang::is_startup_expression(p.value()))
                throw CompileError(which + " (" + ir::to_string(p.value()) +
                                   ") is not a startup expression: an extern function's scalar arguments may use only "
                                   "Params, input bounds and constants");
            a.value = p.value();
            signature.emplace_back(p.value().type());
        }
        e->args.push_back(a);
    }
    signature.emplace_back();  // the output
    e->image = detail::make_input(t, int(args.size()), f->name);
    e->image->extern_image = true;
    e->invoke = make_invoker(function_name, signature, f->name);
    Definition d;
    for (const std::string &a : args) d.args.push_back(Var(a));
    d.value = Call::make_intrinsic(t, Intrinsic::Extern, {});
    d.pure_dims.assign(args.size(), true);
    d.schedule = default_stage_schedule(args, {});
    f->args = args;
    f->type = t;
    f->extern_definition = e;
    f->definitions.push_back(d);
    try {
        check_unique_names(f, 0);
    } catch (...) {
        f->definitions.clear();
        f->args.clear();
        f->extern_definition.reset();
        throw;
    }
}

/** The value of a startup expression now (Params' current values). */
Scalar startup_value(const Expr &e) {
    auto b = semantics::reference_realize(Func(e).data(), {});
    return load_scalar(e.type(), b[0]->host);
}

/** An integer expression over the pipeline's arguments, evaluated with their values now:
 * `env` holds the buffers' bounds and the lets evaluated so far. */
int64_t evaluate_bound(const Expr &e, const std::map<std::string, Expr> &env, const std::string &image) {
    struct Params : IRVisitor {
        std::map<std::string, Expr> values;
        using IRVisitor::include;
        void visit(const Variable *op) override {
            if (op->var_kind == VarKind::Param && op->param) {
                const ParamData &p = *op->param;
                Scalar v;
                std::memcpy(&v, &p.value, sizeof(v));
                values[op->name] = p.type.is_float() ? make_const(p.type, v.f)
                                                     : make_const(p.type, p.type.is_uint() ? int64_t(v.u) : v.i);
            }
        }
    } params;
    params.include(e);
    std::map<std::string, Expr> all = env;
    for (const auto &[name, v] : params.values) all.emplace(name, v);
    const Expr r = analysis::simplify(substitute(all, e));
    if (const IntImm *i = as<IntImm>(r)) return i->value;
    if (const UIntImm *u = as<UIntImm>(r)) return int64_t(u->value);
    throw CompileError("the region of extern Func \"" + image + "\" that the pipeline reads depends on " + ir::to_string(r) +
                       ", which is not known before the pipeline runs");
}

void bind_bounds(std::map<std::string, Expr> &env, const std::string &name, const BufferData &b) {
    for (size_t i = 0; i < b.dims.size(); i++) {
        const std::string d = std::to_string(i);
        env[name + ".min." + d] = make_const(Int(32), int64_t(b.dims[i].min));
        env[name + ".extent." + d] = make_const(Int(32), int64_t(b.dims[i].extent));
        env[name + ".stride." + d] = make_const(Int(64), b.dims[i].stride);
    }
}

}  // namespace

void Func::define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                         int dimensionality, NameMangling mangling) {
    if (dimensionality < 0)
        throw CompileError("define_extern(\"" + function_name + "\") of Func \"" + name() + "\": negative dimensionality");
    std::vector<std::string> args;
    for (int i = 0; i < dimensionality; i++) args.push_back("_" + std::to_string(i));
    define(data_, function_name, params, t, args, mangling);
}

void Func::define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                         const std::vector<Var> &arguments, NameMangling mangling) {
    std::vector<std::string> args;
    std::set<std::string> seen;
    for (const Var &v : arguments) {
        if (!seen.insert(v.name()).second)
            throw CompileError("define_extern(\"" + function_name + "\") of Func \"" + name() + "\": the Var " + v.name() +
                               " is given twice");
        args.push_back(v.name());
    }
    define(data_, function_name, params, t, args, mangling);
}

bool Func::is_extern() const { return data_ && data_->extern_definition != nullptr; }

const std::string &Func::extern_function_name() const {
    if (!is_extern()) throw CompileError("Func \"" + name() + "\" is not defined by define_extern");
    return data_->extern_definition->function_name;
}

namespace lang {

semantics::ExternInputs compiled_extern_inputs(const ExternDefinition &e, const Target &target) {
    semantics::ExternInputs in;
    in.realize = [&e, target](size_t i, const std::shared_ptr<BufferData> &dst) {
        Func(e.args[i].func).realize(Buffer<>(dst), target);
    };
    in.buffer = [&e](size_t i) -> std::shared_ptr<BufferData> {
        const ExternArgument &a = e.args[i];
        if (a.buffer) return a.buffer;
        if (!a.input->bound)
            throw RuntimeError("ImageParam " + a.input->name + " has no Buffer bound; call " + a.input->name +
                               ".set(buffer) before realizing");
        return a.input->bound;
    };
    in.scalar = [&e](size_t i) { return startup_value(e.args[i].value); };
    return in;
}

void realize_extern(const std::shared_ptr<FunctionData> &f, const std::shared_ptr<BufferData> &dst, const Target &target) {
    semantics::compute_extern(*f, dst, compiled_extern_inputs(*f->extern_definition, target));
}

std::map<const InputData *, std::shared_ptr<BufferData>> compute_extern_inputs(
    const std::shared_ptr<FunctionData> &output, const std::vector<ExternRegion> &regions,
    const std::vector<PipelineArgument> &args, const std::vector<std::shared_ptr<BufferData>> &outputs,
    const Target &target) {
    std::map<const InputData *, std::shared_ptr<BufferData>> computed;
    if (regions.empty()) return computed;
    // The pipeline's arguments' bounds, as the lowered code names them.
    std::map<std::string, Expr> env;
    size_t next_output = 0;
    for (const PipelineArgument &a : args) {
        if (a.kind == PipelineArgument::Kind::OutputBuffer) {
            const BufferData &b = *outputs[next_output++];
            bind_bounds(env, a.name, b);
            if (next_output == 1) bind_bounds(env, output->name, b);  // the window, as the code before flattening reads it
        } else if (a.kind == PipelineArgument::Kind::InputBuffer) {
            const std::shared_ptr<BufferData> b = a.buffer ? a.buffer : (a.input ? a.input->bound : nullptr);
            if (b && !(a.input && a.input->extern_image)) bind_bounds(env, a.name, *b);
        }
    }
    std::map<std::string, std::shared_ptr<FunctionData>> externs;
    for (const auto &g : pipeline_functions(output))
        if (g->extern_definition) externs[g->extern_definition->image->name] = g;
    for (const ExternRegion &r : regions) {
        auto it = externs.find(r.image);
        TESSERA_INTERNAL_ASSERT(it != externs.end(), "no extern Func for the image " << r.image);
        const std::shared_ptr<FunctionData> &f = it->second;
        std::map<std::string, Expr> scope = env;
        for (const auto &[name, value] : r.lets) {
            // Each let folds to a constant given the arguments' values; one that does not
            // (it reads memory) stays an expression, an error only if the region uses it.
            scope[name] = analysis::simplify(substitute(scope, value));
        }
        std::vector<int> mins, extents;
        for (size_t i = 0; i < r.min.size(); i++) {
            const int64_t lo = evaluate_bound(r.min[i], scope, f->name), hi = evaluate_bound(r.max[i], scope, f->name);
            mins.push_back(int(lo));
            extents.push_back(int(std::max<int64_t>(hi - lo + 1, 0)));
        }
        auto dst = tessera::detail::make_buffer(f->type, extents, f->name);
        for (size_t i = 0; i < mins.size(); i++) dst->dims[i].min = mins[i];
        realize_extern(f, dst, target);
        computed[f->extern_definition->image.get()] = dst;
    }
    return computed;
}

}  // namespace lang

}  // namespace tessera
