// Func's compilation entry points: realize through compiled code, the JIT, and
// ahead-of-time output. Each lowers the pipeline (src/lower/) and hands it to the driver
// (src/driver/: the C emitter, the system C compiler, the JIT and its disk cache).

#include <filesystem>
#include <fstream>

#include "driver/AOT.h"
#include "driver/JIT.h"
#include "ir/IRPrinter.h"
#include "lang/Extern.h"
#include "lang/References.h"
#include "lang/Scheduling.h"
#include "lang/Validity.h"
#include "lower/Lower.h"
#include "lower/Mutation.h"
#include "semantics/IRInterpreter.h"
#include "tessera/Func.h"
#include "tessera/Program.h"
#include "tessera/ValidateOptions.h"

namespace tessera {

namespace {

void require_defined(const ir::FunctionData &f, const char *what) {
    if (f.definitions.empty())
        throw CompileError(std::string("Can't ") + what + " Func \"" + f.name + "\": it has no definition");
}

/** Whether code for `target` fuses float multiply-adds (its fp_contract feature). */
bool contracts_floats(const Target *target) { return target && target->has_feature("fp_contract"); }

/** Lowers the pipeline computing `f`: ahead of time with the caller's `args`, or for the
 * JIT (`args` null, `jit`), whose code has the shapes of the Buffers it reads compiled in. */
ir::LoweredPipeline lower_with(const std::shared_ptr<ir::FunctionData> &f, const std::vector<Argument> *args,
                               const Target *target = nullptr, bool jit = false) {
    f->frozen = true;
    if (f->extern_definition)
        throw CompileError("Func \"" + f->name + "\" is computed by the C function \"" +
                           f->extern_definition->function_name +
                           "\" (define_extern): there is no pipeline to compile; realize it, or read it in a Func");
    if (args)
        for (const auto &g : ir::pipeline_functions(f))
            if (g->extern_definition)
                throw CompileError("The pipeline computing Func \"" + f->name + "\" reads the extern Func \"" + g->name +
                                   "\" (define_extern), which only realize (the JIT) computes before running it; it "
                                   "cannot be compiled ahead of time");
    lower::LowerOptions options;
    if (args) options.arguments = *args;
    options.contract_floats = contracts_floats(target);
    options.fixed_buffer_shapes = jit;
    return lower::lower(f, options);
}

codegen::CodeGenOptions codegen_options(const std::string &fn_name) {
    codegen::CodeGenOptions o;
    o.function_name = fn_name;
    return o;
}

driver::CCompilerOptions c_compiler_for(const Target &target) {
    driver::CCompilerOptions o;
    o.flags = driver::c_flags_for(target);
    return o;
}

/** Whether two Buffers' dimensions have the same mins, extents and strides. */
bool same_shape(const std::vector<ir::BufferDim> &a, const std::vector<ir::BufferDim> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++)
        if (a[i].min != b[i].min || a[i].extent != b[i].extent || a[i].stride != b[i].stride) return false;
    return true;
}

/** Finds an argument of a pipeline compiled before (by kind and name) among what the
 * pipeline computing `f` refers to now. */
driver::JITModule::Resolver argument_resolver(const std::shared_ptr<ir::FunctionData> &f,
                                              const std::shared_ptr<const lang::References> &refs) {
    return [f, refs](ir::PipelineArgument &a) {
        switch (a.kind) {
        case ir::PipelineArgument::Kind::OutputBuffer: {
            const std::vector<Type> types = f->types();
            const std::vector<std::string> names = ir::value_storages(f->name, int(types.size()));
            for (size_t k = 0; k < types.size(); k++)
                if (a.name == names[k] && a.type == types[k]) return true;
            return false;
        }
        case ir::PipelineArgument::Kind::Param:
            for (const auto &p : refs->params)
                if (p->name == a.name && p->type == a.type) return bool(a.param = p);
            return false;
        case ir::PipelineArgument::Kind::InputBuffer:
            for (const auto &in : refs->inputs)
                if (in->name == a.name && in->type == a.type && in->dimensions == a.dimensions) return bool(a.input = in);
            for (const auto &b : refs->buffers)
                if (b->name == a.name && b->type == a.type && int(b->dims.size()) == a.dimensions)
                    return bool(a.buffer = b);
            return false;
        }
        return false;
    };
}

/** The text that determines a pipeline's lowered form: its .tsr (algorithm, schedule,
 * parameter ranges) and the target. Empty if it cannot be printed, and while a test's
 * deliberate miscompilation is switched on (src/lower/Mutation.h): the printed form does
 * not say how the pipeline was lowered then, so such a compilation neither uses the disk
 * cache's index nor writes to it (the compiled objects themselves are found by their C). */
std::string pipeline_key(const std::shared_ptr<ir::FunctionData> &f, const Target &target,
                         const std::vector<std::shared_ptr<ir::BufferData>> &buffers) {
    if (lower::testing::active_mutation() != lower::testing::Mutation::None) return "";
    try {
        ir::check_unique_names(f);
        std::string key = print_program(Func(f)) + "\n# target " + target.to_string() + "\n";
        // The shapes of the Buffers read are constants of the JIT's code.
        for (const auto &b : buffers) {
            key += "# buffer " + b->name + ":";
            for (const ir::BufferDim &d : b->dims)
                key += " " + std::to_string(d.min) + "," + std::to_string(d.extent) + "," + std::to_string(d.stride);
            key += "\n";
        }
        return key;
    } catch (const Error &) {
        return "";
    }
}

detail::ValidationHook installed_validator = nullptr;

/** Whether the code compiled for `args` (null: the JIT) has the shapes of some Buffers it
 * reads put in as constants by lowering's last pass: every Buffer read for the JIT, those
 * not listed (embedded) ahead of time. */
bool buffer_shapes_substituted(const std::shared_ptr<ir::FunctionData> &f, const std::vector<Argument> *args) {
    for (const auto &b : lang::pipeline_references(f).buffers) {
        bool listed = false;
        if (args)
            for (const Argument &a : *args) listed = listed || a.buffer == b;
        if (!listed) return true;
    }
    return false;
}

/** The translation validator's verdict on the pipeline computing f, when f asks for it
 * (Func::validate_on_compile): before any code is generated, and whatever the JIT's cache
 * holds, since a cached binary says nothing about the code being right. `args` are those
 * of an ahead-of-time compilation, null for the JIT. */
void validate_if_requested(const std::shared_ptr<ir::FunctionData> &f, const std::vector<Argument> *args,
                           const Target *target = nullptr) {
    if (!f->validate_on_compile) return;
    if (!installed_validator)
        throw CompileError("Func \"" + f->name +
                           "\" asks to be validated when compiled (validate_on_compile), but the translation "
                           "validator is not part of this program: include <tessera/Validate.h> and link the "
                           "library Tessera::validator (tessera_validator)");
    ValidateOptions options = *f->validate_on_compile;
    options.contract_floats = contracts_floats(target);  // the code compiled
    options.fixed_buffer_shapes = buffer_shapes_substituted(f, args);
    installed_validator(Func(f), options);
}

const driver::JITModule &jit_module(const std::shared_ptr<ir::FunctionData> &f, const Target &target) {
    // A pipeline compiled with a mutant on is another pipeline than the one compiled
    // without (src/lower/Mutation.h): the mutant is part of what the Func's compiled module
    // is kept for.
    const int mutation = int(lower::testing::active_mutation());
    bool reshaped = false;  // a Buffer read has another shape than the code was compiled for
    for (const auto &[b, dims] : f->jit_buffer_shapes) reshaped = reshaped || !same_shape(b->dims, dims);
    if (!f->jit || f->jit_target != target || f->jit_mutation != mutation || f->jit_epoch != lang::schedule_epoch() ||
        reshaped) {
        // A pipeline compiled before (in any process) is found by its printed form in the
        // disk cache's index, without lowering it again (unless lowering's invariants are
        // being checked, which needs it lowered).
        f->frozen = true;  // as lowering would (no update may follow a compilation)
        validate_if_requested(f, nullptr, &target);
        auto refs = std::make_shared<lang::References>(lang::pipeline_references(f));
        const std::string key = lower::invariant_checks_requested() ? std::string() : pipeline_key(f, target, refs->buffers);
        std::shared_ptr<driver::JITModule> m;
        if (key.empty()) {
            const ir::LoweredPipeline lowered = lower_with(f, nullptr, &target, true);
            f->jit_extern_regions = lowered.extern_regions;
            m = std::make_shared<driver::JITModule>(lowered, c_compiler_for(target));
        } else {
            // A pipeline that reads an extern Func is not printed (no key), so this one has
            // no extern regions.
            f->jit_extern_regions.clear();
            m = std::make_shared<driver::JITModule>(key, [&] { return lower_with(f, nullptr, &target, true); },
                                                    argument_resolver(f, refs), c_compiler_for(target));
        }
        f->jit = std::move(m);
        f->jit_target = target;
        f->jit_mutation = mutation;
        f->jit_epoch = lang::schedule_epoch();
        f->jit_buffer_shapes.clear();
        for (const auto &b : refs->buffers) f->jit_buffer_shapes.emplace_back(b, b->dims);
    }
    return *std::static_pointer_cast<const driver::JITModule>(f->jit);
}

void write_text(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out << text;
    if (out) out.close();
    if (!out) throw CompileError("cannot write \"" + path + "\"");
}

}  // namespace

namespace detail {
void set_validation_hook(ValidationHook hook) { installed_validator = hook; }
ValidationHook validation_hook() { return installed_validator; }
}  // namespace detail

Func &Func::validate_on_compile() { return validate_on_compile(ValidateOptions{}); }

Func &Func::validate_on_compile(const ValidateOptions &options) {
    data_->validate_on_compile = std::make_shared<const ValidateOptions>(options);
    data_->jit.reset();  // a pipeline compiled before is validated when compiled again
    return *this;
}

void Func::compile_jit(const Target &target) const {
    require_defined(*data_, "compile");
    if (data_->extern_definition) return;  // its C function is called as it is
    jit_module(data_, target);
}

Realization Func::realize(const std::vector<int> &sizes, const Target &target) const {
    require_defined(*data_, "realize");
    ir::check_realize_sizes(*data_, sizes);
    std::vector<Buffer<>> buffers;
    for (const Type &t : data_->types()) buffers.emplace_back(t, sizes, data_->name);
    Realization out(buffers);
    realize(out, target);
    return out;
}

void Func::realize(Buffer<> dst, const Target &target) const { realize(Realization({dst}), target); }

void Func::realize(const Realization &dst, const Target &target) const {
    require_defined(*data_, "realize");
    const std::vector<Type> types = data_->types();
    if (dst.size() != types.size())
        throw RuntimeError("realize of Func \"" + data_->name + "\", which has " + std::to_string(types.size()) +
                           " value(s) at each point, into " + std::to_string(dst.size()) + " Buffer(s)");
    std::vector<std::shared_ptr<ir::BufferData>> outputs;
    for (size_t k = 0; k < dst.size(); k++) {
        const Buffer<> &b = dst[k];
        const std::string which = types.size() > 1 ? "value " + std::to_string(k) + " of " : "";
        if (!b.defined()) throw RuntimeError("realize of " + which + "Func \"" + data_->name + "\" into an undefined Buffer");
        if (b.type() != types[k])
            throw RuntimeError("realize of " + which + "Func \"" + data_->name + "\" into Buffer \"" + b.name() +
                               "\": its element type is " + b.type().to_string() + " but the Func's is " +
                               types[k].to_string());
        if (b.dimensions() != data_->dimensions())
            throw RuntimeError("realize of Func \"" + data_->name + "\" into Buffer \"" + b.name() + "\": it has " +
                               std::to_string(b.dimensions()) + " dimensions but the Func has " +
                               std::to_string(data_->dimensions()));
        for (int i = 0; i < b.dimensions(); i++)
            if (b.dim(i).min() != dst[0].dim(i).min() || b.dim(i).extent() != dst[0].dim(i).extent())
                throw RuntimeError("realize of the values of Func \"" + data_->name + "\" into Buffers \"" +
                                   dst[0].name() + "\" and \"" + b.name() + "\", whose windows differ in dimension " +
                                   std::to_string(i) + "; every value is realized over one window");
        outputs.push_back(b.data_handle());
    }
    if (data_->extern_definition) {
        // Computed by its C function directly.
        lang::realize_extern(data_, outputs[0], target);
        return;
    }
    const driver::JITModule &m = jit_module(data_, target);
    const auto externs = lang::compute_extern_inputs(data_, data_->jit_extern_regions, m.arguments(), outputs, target);
    m.run(semantics::default_arguments(data_->name, m.arguments(), outputs, externs));
}

std::vector<Argument> Func::infer_arguments() const {
    require_defined(*data_, "infer the arguments of");
    std::vector<Argument> result;
    for (const ir::PipelineArgument &a : lower_with(data_, nullptr).args) {
        if (a.kind == ir::PipelineArgument::Kind::OutputBuffer) continue;
        if (a.input && a.input->extern_image) continue;  // computed by realize (define_extern)
        if (a.param) {
            result.emplace_back(a.param);
        } else if (a.input) {
            result.emplace_back(a.input);
        } else {
            result.emplace_back(Buffer<>(a.buffer));
        }
    }
    return result;
}

void Func::compile_to_c(const std::string &filename, const std::vector<Argument> &args,
                        const std::string &fn_name) const {
    require_defined(*data_, "compile");
    validate_if_requested(data_, &args);
    driver::compile_to_c(lower_with(data_, &args), filename, codegen_options(fn_name));
}

void Func::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name) const {
    require_defined(*data_, "compile");
    validate_if_requested(data_, &args);
    driver::compile_to_header(lower_with(data_, &args), filename, codegen_options(fn_name));
}

void Func::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) const {
    require_defined(*data_, "compile");
    validate_if_requested(data_, &args, &target);
    driver::compile_to_object(lower_with(data_, &args, &target), filename, c_compiler_for(target), codegen_options(fn_name));
}

void Func::compile_to_static_library(const std::string &filename_prefix, const std::vector<Argument> &args,
                                     const std::string &fn_name, const Target &target) const {
    require_defined(*data_, "compile");
    validate_if_requested(data_, &args, &target);
    ir::LoweredPipeline p = lower_with(data_, &args, &target);
    driver::compile_to_header(p, filename_prefix + ".h", codegen_options(fn_name));
    driver::compile_to_static_library(p, filename_prefix + ".a", c_compiler_for(target), codegen_options(fn_name));
}

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args) const {
    require_defined(*data_, "compile");
    ir::LoweredPipeline p = lower_with(data_, args.empty() ? nullptr : &args);
    write_text(filename, ir::to_string(p.body) + "\n");
}

}  // namespace tessera
