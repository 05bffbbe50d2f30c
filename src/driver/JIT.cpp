#include "driver/JIT.h"

#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "codegen/Runtime.h"
#include "ir/Check.h"
#include "ir/Scalar.h"
#include "semantics/IRInterpreter.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"

namespace tessera::driver {

namespace fs = std::filesystem;
using codegen::c_function_name;
using codegen::emit_c;
using codegen::jit_runtime_source;

namespace {

std::atomic<uint64_t> g_hits{0}, g_misses{0};

// The message the last failing pipeline of this thread reported (capture_error is the
// error handler of the JIT's runtime module, which reports for every pipeline).
thread_local std::string t_error_message;

// A pipeline's parallel loops report errors from their worker threads: the message is
// also kept where the calling thread finds it.
std::mutex g_message_mutex;
std::string g_last_message;

void capture_error(const char *message) {
    t_error_message = message ? message : "";
    std::lock_guard<std::mutex> lock(g_message_mutex);
    g_last_message = message ? message : "";
}

}  // namespace

JITCacheStats jit_cache_stats() { return JITCacheStats{g_hits.load(), g_misses.load()}; }

// ---------------------------------------------------------------------------------------
// RuntimeBuffer

RuntimeBuffer::RuntimeBuffer(const ir::BufferData &b) {
    for (const ir::BufferDim &d : b.dims) dims_.push_back(tessera_dim_t{d.min, d.extent, d.stride});
    buffer_.host = b.host;
    buffer_.type_code = int32_t(b.type.code);
    buffer_.type_bits = b.type.bits;
    buffer_.dimensions = int32_t(dims_.size());
    buffer_.dim = dims_.empty() ? nullptr : dims_.data();
}

RuntimeBuffer::RuntimeBuffer(void *host, Type type, std::vector<tessera_dim_t> dims) : dims_(std::move(dims)) {
    buffer_.host = host;
    buffer_.type_code = int32_t(type.code);
    buffer_.type_bits = type.bits;
    buffer_.dimensions = int32_t(dims_.size());
    buffer_.dim = dims_.empty() ? nullptr : dims_.data();
}

RuntimeBuffer::RuntimeBuffer(const RuntimeBuffer &o) : buffer_(o.buffer_), dims_(o.dims_) {
    buffer_.dim = dims_.empty() ? nullptr : dims_.data();
}

RuntimeBuffer &RuntimeBuffer::operator=(const RuntimeBuffer &o) {
    buffer_ = o.buffer_;
    dims_ = o.dims_;
    buffer_.dim = dims_.empty() ? nullptr : dims_.data();
    return *this;
}

// ---------------------------------------------------------------------------------------
// JITModule

struct JITModule::Impl {
    std::string function_name, source, library_path;
    bool hit = false;
    std::vector<ir::PipelineArgument> args;
    void *handle = nullptr;
    int (*entry)(void **) = nullptr;

    ~Impl() {
        if (handle) ::dlclose(handle);
    }
};

namespace {

struct Loaded {
    void *handle = nullptr;
    int (*entry)(void **) = nullptr;
};

/** Loads the JIT's runtime module (jit_runtime_source), compiling it into the cache the
 * first time, once per process and before any pipeline: the pipelines' code calls its
 * tessera_jit_* functions, resolved when they are loaded. */
void load_jit_runtime(const CCompilerOptions &cc) {
    static std::mutex mutex;
    static bool loaded = false;
    std::lock_guard<std::mutex> lock(mutex);
    if (loaded) return;
    // Parallel loops run on libgomp's thread pool, whose threads outlive the pipeline:
    // libgomp must stay loaded when a module that uses it is closed.
    static void *const openmp_runtime = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    // The compiled code's references to the math library resolve to the process's.
    static void *const math_library = ::dlopen("libm.so.6", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    (void)openmp_runtime;
    (void)math_library;
    CCompilerOptions o = cc;
    o.flags += " -fvisibility=hidden";
    const std::string &source = jit_runtime_source();
    const std::string dir = cache_dir_of(o), stem = cache_stem("tessera_jit_runtime", "runtime", source, o);
    const std::string so = dir + "/" + stem + ".so";
    auto open = [&]() -> void * {
        ::dlerror();
        return ::dlopen(so.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    };
    void *h = fs::exists(so) ? open() : nullptr;
    if (!h) {
        compile_c(source, "tessera_jit_runtime", o, COutput::RuntimeModule, dir, stem, so);
        h = open();
    }
    void *set = h ? ::dlsym(h, "tessera_jit_set_error_handler") : nullptr;
    if (!set) {
        const char *e = ::dlerror();
        TESSERA_INTERNAL_ERROR("cannot load the JIT runtime " << so << ": " << (e ? e : "no error handler setter"));
    }
    reinterpret_cast<void (*)(tessera_error_handler_t)>(set)(&capture_error);
    loaded = true;
}

// Loads `path` and resolves the entry point; false (with the reason) if it cannot. The
// JIT runtime is loaded first.
bool load(Loaded &m, const std::string &function_name, const std::string &path, const CCompilerOptions &cc,
          std::string *why) {
    load_jit_runtime(cc);
    ::dlerror();
    void *h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = ::dlerror();
        *why = e ? e : "dlopen failed";
        return false;
    }
    void *entry = ::dlsym(h, (function_name + "_argv").c_str());
    if (!entry) {
        *why = "the entry point " + function_name + "_argv is missing";
        ::dlclose(h);
        return false;
    }
    m.handle = h;
    m.entry = reinterpret_cast<int (*)(void **)>(entry);
    return true;
}

}  // namespace

JITModule::JITModule(const ir::LoweredPipeline &p, const CCompilerOptions &cc, const CodeGenOptions &options) {
    CodeGenOptions codegen = options;
    codegen.jit_runtime = true;
    auto m = std::make_shared<Impl>();
    m->function_name = c_function_name(p, codegen);
    m->source = emit_c(p, codegen);
    m->args = p.args;
    const std::string dir = cache_dir_of(cc);
    const std::string stem = cache_stem(m->function_name, "shared", m->source, cc);
    const std::string so = dir + "/" + stem + ".so";
    std::string why;
    Loaded loaded;
    if (fs::exists(so)) {
        if (load(loaded, m->function_name, so, cc, &why)) {
            m->hit = true;
            g_hits++;
        } else {
            // A damaged cache entry: rebuild it.
            std::error_code ec;
            fs::remove(so, ec);
        }
    }
    if (!m->hit) {
        g_misses++;
        compile_c(m->source, m->function_name, cc, COutput::SharedObject, dir, stem, so);
        if (!load(loaded, m->function_name, so, cc, &why))
            TESSERA_INTERNAL_ERROR("cannot load the compiled pipeline " << so << ": " << why);
    }
    m->handle = loaded.handle;
    m->entry = loaded.entry;
    m->library_path = so;
    impl_ = std::move(m);
}

namespace {

/** Identifies this build of Tessera (its library file's path, size and time), so that an
 * index entry written by another build, which may lower differently, is not used. */
const std::string &library_identity() {
    static const std::string id = [] {
        Dl_info info;
        if (::dladdr(reinterpret_cast<void *>(&fnv1a_128_hex), &info) == 0 || !info.dli_fname) return std::string();
        std::error_code ec;
        const auto size = fs::file_size(info.dli_fname, ec);
        const auto time = fs::last_write_time(info.dli_fname, ec);
        return std::string(info.dli_fname) + "\n" + std::to_string(size) + "\n" +
               std::to_string(time.time_since_epoch().count());
    }();
    return id;
}

const char *kind_name(ir::PipelineArgument::Kind k) {
    switch (k) {
    case ir::PipelineArgument::Kind::InputBuffer: return "input";
    case ir::PipelineArgument::Kind::Param: return "param";
    case ir::PipelineArgument::Kind::OutputBuffer: return "output";
    }
    return "?";
}

/** The index entry: the shared object's stem, the function name, then one line per
 * argument: kind, type, dimensions, name. */
std::string index_entry(const std::string &stem, const std::string &fn, const std::vector<ir::PipelineArgument> &args) {
    std::string text = stem + "\n" + fn + "\n";
    for (const ir::PipelineArgument &a : args)
        text += std::string(kind_name(a.kind)) + " " + std::to_string(int(a.type.code)) + " " +
                std::to_string(a.type.bits) + " " + std::to_string(a.dimensions) + " " + a.name + "\n";
    return text;
}

bool parse_index_entry(const std::string &text, std::string &stem, std::string &fn, std::vector<ir::PipelineArgument> &args) {
    std::istringstream in(text);
    if (!std::getline(in, stem) || !std::getline(in, fn) || stem.empty() || fn.empty()) return false;
    for (std::string line; std::getline(in, line);) {
        std::istringstream l(line);
        std::string kind, name;
        int code = 0, bits = 0, dims = 0;
        if (!(l >> kind >> code >> bits >> dims) || !std::getline(l >> std::ws, name) || name.empty()) return false;
        ir::PipelineArgument a;
        if (kind == "input") a.kind = ir::PipelineArgument::Kind::InputBuffer;
        else if (kind == "param") a.kind = ir::PipelineArgument::Kind::Param;
        else if (kind == "output") a.kind = ir::PipelineArgument::Kind::OutputBuffer;
        else return false;
        if (code < 0 || code > 3 || bits <= 0 || bits > 64 || dims < 0 || dims > 16) return false;
        a.type = Type(TypeCode(code), bits, 1);
        a.dimensions = dims;
        a.name = name;
        args.push_back(std::move(a));
    }
    return true;
}

}  // namespace

JITModule::JITModule(const std::string &pipeline_key, const std::function<ir::LoweredPipeline()> &lower,
                     const Resolver &resolve, const CCompilerOptions &cc, const CodeGenOptions &codegen) {
    const std::string dir = cache_dir_of(cc);
    std::string key = "tessera-index-1";
    for (const std::string *part : {&pipeline_key, &cc.cc, &cc.flags, &codegen.function_name, &library_identity()}) {
        key += '\0';
        key += *part;
    }
    key += '\0';
    key += host_identity();
    const std::string index = dir + "/index-" + fnv1a_128_hex(key) + ".txt";
    // A warm index: the arguments resolved in this pipeline, the object loaded.
    if (!library_identity().empty() && fs::exists(index)) {
        std::string stem, fn, why;
        std::vector<ir::PipelineArgument> args;
        bool ok = parse_index_entry(read_file(index), stem, fn, args);
        for (ir::PipelineArgument &a : args) ok = ok && resolve(a);
        const std::string so = dir + "/" + stem + ".so";
        Loaded loaded;
        if (ok && fs::exists(so) && load(loaded, fn, so, cc, &why)) {
            auto m = std::make_shared<Impl>();
            m->function_name = fn;
            m->args = std::move(args);
            m->hit = true;
            m->handle = loaded.handle;
            m->entry = loaded.entry;
            m->library_path = so;
            g_hits++;
            impl_ = std::move(m);
            return;
        }
    }
    JITModule built(lower(), cc, codegen);
    impl_ = built.impl_;
    if (!library_identity().empty()) {
        const std::string stem = fs::path(impl_->library_path).stem().string();
        write_file_atomically(index, index_entry(stem, impl_->function_name, impl_->args));
    }
}

const std::string &JITModule::function_name() const { return impl_->function_name; }
const std::string &JITModule::c_source() const { return impl_->source; }
const std::string &JITModule::library_path() const { return impl_->library_path; }
bool JITModule::cache_hit() const { return impl_->hit; }
const std::vector<ir::PipelineArgument> &JITModule::arguments() const { return impl_->args; }

int JITModule::call(void **args, std::string *message) const {
    t_error_message.clear();
    const int rc = impl_->entry(args);
    if (message) {
        *message = rc != 0 ? t_error_message : std::string();
        if (rc != 0 && message->empty()) {
            std::lock_guard<std::mutex> lock(g_message_mutex);
            *message = g_last_message;
        }
    }
    return rc;
}

void JITModule::run(void **args) const {
    std::string message;
    const int rc = call(args, &message);
    if (rc == 0) return;
    if (message.empty())
        message = "pipeline \"" + impl_->function_name + "\" failed with error code " + std::to_string(rc);
    throw RuntimeError(message);
}

void JITModule::run(const std::vector<semantics::ArgValue> &values) const {
    const std::vector<ir::PipelineArgument> &args = impl_->args;
    if (values.size() != args.size())
        throw RuntimeError("pipeline \"" + impl_->function_name + "\" takes " + std::to_string(args.size()) +
                           " arguments, got " + std::to_string(values.size()));
    std::vector<RuntimeBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<uint64_t> scalars(args.size(), 0);
    std::vector<void *> pointers(args.size(), nullptr);
    for (size_t i = 0; i < args.size(); i++) {
        const ir::PipelineArgument &a = args[i];
        const semantics::ArgValue &v = values[i];
        if (a.kind == ir::PipelineArgument::Kind::Param) {
            ir::store_scalar(a.type, &scalars[i], ir::cast(a.type, v.type, v.scalar));
            pointers[i] = &scalars[i];
            continue;
        }
        std::shared_ptr<ir::BufferData> b = v.buffer;
        if (!b && a.buffer) b = a.buffer;
        if (!b && a.input) b = a.input->bound;
        if (!b) throw RuntimeError("no buffer is bound to the argument \"" + a.name + "\"");
        buffers.emplace_back(*b);
        pointers[i] = buffers.back().get();
    }
    run(pointers.data());
}

}  // namespace tessera::driver
