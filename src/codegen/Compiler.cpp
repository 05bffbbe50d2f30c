#include "codegen/Compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "codegen/Runtime.h"
#include "ir/Check.h"
#include "semantics/IRInterpreter.h"
#include "semantics/Scalar.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"

extern char **environ;

namespace tessera::codegen {

namespace fs = std::filesystem;

namespace {

std::atomic<uint64_t> g_hits{0}, g_misses{0};
std::atomic<uint64_t> g_unique{0};

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

std::string getenv_string(const char *name) {
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

// A name no other thread or process uses at the same time, for files renamed into place.
std::string unique_suffix() {
    return ".tmp-" + std::to_string(long(::getpid())) + "-" + std::to_string(g_unique.fetch_add(1));
}

void write_file(const std::string &path, const std::string &text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (f) f << text;
    if (f) f.close();
    if (!f) throw CompileError("cannot write \"" + path + "\": " + std::strerror(errno));
}

// Writes `text` under a temporary name beside `path` and renames it into place.
void write_file_atomically(const std::string &path, const std::string &text) {
    const std::string tmp = path + unique_suffix();
    write_file(tmp, text);
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw CompileError("cannot write \"" + path + "\": " + ec.message());
    }
}

std::string read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string shell_quote(const std::string &s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') q += "'\\''";
        else q += c;
    }
    return q + "'";
}

// The words of `command` if the shell would split it into plain words (unquoted words and
// single-quoted strings, as shell_quote writes them); false if it uses any other shell
// syntax.
bool plain_words(const std::string &command, std::vector<std::string> &words) {
    words.clear();
    std::string word;
    bool in_word = false;
    for (size_t i = 0; i < command.size(); i++) {
        const char c = command[i];
        if (c == ' ' || c == '\t') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else if (c == '\'') {
            const size_t end = command.find('\'', i + 1);
            if (end == std::string::npos) return false;
            word += command.substr(i + 1, end - i - 1);
            in_word = true;
            i = end;
        } else if (std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./=+,:@%", c)) {
            word += c;
            in_word = true;
        } else {
            return false;
        }
    }
    if (in_word) words.push_back(word);
    // A leading NAME=value is an environment assignment for the shell.
    return !words.empty() && words[0].find('=') == std::string::npos;
}

// Starts `command`, its stdout and stderr going to `log_path`: directly when it is plain
// words (the compiler commands: a shell would cost a process per command), else with
// /bin/sh. Returns its process id, or -1 (with the reason in the log) if it could not be
// started.
pid_t start_command(const std::string &command, const std::string &log_path) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> words;
    if (!plain_words(command, words)) words = {"/bin/sh", "-c", command};
    std::vector<char *> argv;
    for (std::string &w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        std::ofstream(log_path, std::ios::app) << "tessera: cannot run " << words[0] << ": " << std::strerror(rc) << "\n";
        return -1;
    }
    return pid;
}

// Waits for a command started by start_command. Returns its exit status (or -1 if it could
// not be run or did not exit normally).
int finish_command(pid_t pid) {
    if (pid < 0) return -1;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run_command(const std::string &command, const std::string &log_path) {
    return finish_command(start_command(command, log_path));
}

// What `command` prints (stdout and stderr) and its exit status.
std::string command_output(const std::string &command) {
    std::string out;
    if (FILE *p = ::popen((command + " 2>&1").c_str(), "r")) {
        char buf[512];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
        const int status = ::pclose(p);
        out += "\nexit status " + std::to_string(status);
    }
    return out;
}

// `cc --version`, computed once per compiler command per process.
std::string compiler_version(const std::string &cc) {
    static std::mutex mutex;
    static std::map<std::string, std::string> versions;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = versions.find(cc);
    if (it != versions.end()) return it->second;
    return versions[cc] = command_output(cc + " --version");
}

// The linker that the compiler driver runs and the libgcc it links (asked once per compiler
// command per process), to link a pipeline's objects without the driver and its helper
// processes (6 -> 2.5 ms); empty if the driver does not say.
struct Linker {
    std::string ld, libgcc;
};
const Linker &linker_of(const std::string &cc) {
    static std::mutex mutex;
    static std::map<std::string, Linker> linkers;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = linkers.find(cc);
    if (it != linkers.end()) return it->second;
    auto first_line = [](const std::string &out) {
        const std::string line = out.substr(0, out.find('\n'));
        return out.find("\nexit status 0") != std::string::npos ? line : std::string();
    };
    Linker l{first_line(command_output(cc + " -print-prog-name=ld")),
             first_line(command_output(cc + " -print-libgcc-file-name"))};
    if (l.ld.empty() || l.libgcc.empty() || l.libgcc[0] != '/' || !fs::exists(l.libgcc)) l = Linker{};
    return linkers[cc] = l;
}

// What the machine code may depend on besides the compiler and its flags (-march=native):
// the architecture and the CPU's feature flags. Computed once.
const std::string &host_identity() {
    static const std::string id = [] {
        std::string s;
        struct utsname u;
        if (::uname(&u) == 0) s = u.machine;
        std::ifstream cpuinfo("/proc/cpuinfo");
        std::string line;
        while (std::getline(cpuinfo, line)) {
            if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0 || line.rfind("model name", 0) == 0) {
                s += "\n" + line;
                if (line.rfind("model name", 0) != 0) break;
            }
        }
        return s;
    }();
    return id;
}

std::string cache_dir_of(const CCompilerOptions &o) {
    const std::string dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        TESSERA_INTERNAL_ERROR("cannot create the C compilation cache directory \""
                               << dir << "\": " << ec.message() << " (set XDG_CACHE_HOME to a writable directory)");
    return dir;
}

// A pipeline's shared object for the JIT; the JIT's runtime module (also shared, but linked
// with the system libraries: it is the one that uses OpenMP, whose library the compiler
// picks, libgomp or libomp); an object file.
enum class Output { SharedObject, RuntimeModule, Object };

// Compiles `source` (kept in the cache directory as <stem>.c) into `final_path`, through a
// temporary file beside it and a rename. `stem` is "<function>-<hash>"; a failure keeps the
// compiler's output in <stem>.log in the cache directory.
void compile_c(const std::string &source, const std::string &fn, const CCompilerOptions &o, Output kind,
               const std::string &dir, const std::string &stem, const std::string &final_path) {
    const std::string src = dir + "/" + stem + ".c";
    if (!fs::exists(src) || read_file(src) != source) write_file_atomically(src, source);
    const std::string tmp = final_path + unique_suffix();
    const std::string log_tmp = dir + "/" + stem + ".log" + unique_suffix();
    // A pipeline's shared object is only ever loaded by the JIT, into a process that has
    // the C and math libraries (and, through the runtime module, loaded first and global,
    // the OpenMP library): it needs no search for them at link time, which is most of the
    // link's time (18 -> 5 ms). libgcc is linked statically, for the helpers the compiler
    // may call.
    const std::string link_flags = kind == Output::RuntimeModule ? " -lm" : " -nostdlib -lgcc";
    const bool shared = kind != Output::Object;
    std::string command;
    int status = -1;
    // Only a pipeline's file is split (the runtime module is one translation unit).
    const bool split = source.find("#if !defined(TESSERA_PART) || TESSERA_PART == 2") != std::string::npos;
    if (kind == Output::SharedObject && split) {
        // The two parts of the file (CodeGenC: the pipeline's function, and its parallel
        // loops' iterations) compiled at once, then linked.
        const std::string part1 = tmp + ".1.o", part2 = tmp + ".2.o", log2 = log_tmp + ".2";
        auto compile_part = [&](int k, const std::string &obj) {
            return o.cc + " " + o.flags + " -pipe -DTESSERA_PART=" + std::to_string(k) + " -c -o " + shell_quote(obj) + " " +
                   shell_quote(src);
        };
        const pid_t second = start_command(compile_part(2, part2), log2);
        command = compile_part(1, part1);
        const pid_t first = start_command(command, log_tmp);
        const Linker &l = linker_of(o.cc);  // the first time, while the compilers run
        status = finish_command(first);
        const int status2 = finish_command(second);
        std::ofstream(log_tmp, std::ios::app) << read_file(log2);
        std::error_code ec;
        fs::remove(log2, ec);
        if (status == 0 && status2 == 0) {
            const std::string objects = shell_quote(part1) + " " + shell_quote(part2);
            if (!l.ld.empty()) {
                command = shell_quote(l.ld) + " -shared --eh-frame-hdr -o " + shell_quote(tmp) + " " + objects + " " +
                          shell_quote(l.libgcc);
                status = run_command(command, log_tmp);
            }
            if (l.ld.empty() || status != 0) {
                command = o.cc + " " + o.flags + " -shared -o " + shell_quote(tmp) + " " + objects + link_flags;
                status = run_command(command, log_tmp);
            }
        } else if (status == 0) {
            command = compile_part(2, part2);
            status = status2;
        }
        fs::remove(part1, ec);
        fs::remove(part2, ec);
    } else {
        command = o.cc + " " + o.flags + (shared ? " -shared" : " -c") + " -pipe -o " + shell_quote(tmp) + " " +
                  shell_quote(src);
        if (shared) command += link_flags;
        status = run_command(command, log_tmp);
    }
    std::error_code ec;
    if (status != 0 || !fs::exists(tmp)) {
        const std::string log = dir + "/" + stem + ".log";
        std::ofstream(log_tmp, std::ios::app) << "\ncommand: " << command << "\nexit status: " << status << "\n";
        fs::rename(log_tmp, log, ec);
        fs::remove(tmp, ec);
        TESSERA_INTERNAL_ERROR("the C compiler failed on the code generated for pipeline \""
                               << fn << "\" (exit status " << status << "); its output is in " << log
                               << " and the source in " << src);
    }
    fs::remove(log_tmp, ec);
    fs::rename(tmp, final_path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        TESSERA_INTERNAL_ERROR("cannot move the compiled pipeline to \"" << final_path << "\": " << ec.message());
    }
}

std::string cache_stem(const std::string &fn, const std::string &what, const std::string &source,
                       const CCompilerOptions &o) {
    std::string key = "tessera-c-3";  // bumped when the compile or link command changes
    for (const std::string *part : {&what, &o.cc, &o.flags, &source}) {
        key += '\0';
        key += *part;
    }
    key += '\0';
    key += compiler_version(o.cc);
    key += '\0';
    key += host_identity();
    return fn.substr(0, 64) + "-" + fnv1a_128_hex(key);
}

}  // namespace

std::string fnv1a_128_hex(const std::string &data) {
    using u128 = unsigned __int128;
    const u128 prime = (u128(0x0000000001000000ull) << 64) | 0x000000000000013Bull;
    u128 h = (u128(0x6c62272e07bb0142ull) << 64) | 0x62b821756295c58dull;
    for (unsigned char c : data) {
        h ^= c;
        h *= prime;
    }
    char buf[33];
    std::snprintf(buf, sizeof(buf), "%016llx%016llx", (unsigned long long)(uint64_t)(h >> 64),
                  (unsigned long long)(uint64_t)h);
    return buf;
}

std::string c_flags_for(const Target &target) {
    // $TESSERA_C_OPT replaces -O3 (tests that compile many small pipelines use -O0).
    std::string opt = getenv_string("TESSERA_C_OPT");
    if (opt.empty()) opt = "-O3";
    return opt + " " + target.c_flags() + " -ffp-contract=off -fno-fast-math -fopenmp -fPIC";
}

std::string default_c_compiler() {
    const std::string cc = getenv_string("CC");
    return cc.empty() ? "cc" : cc;
}

std::string default_cache_dir() {
    const std::string xdg = getenv_string("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg[0] == '/') return xdg + "/tessera";
    const std::string home = getenv_string("HOME");
    if (!home.empty()) return home + "/.cache/tessera";
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    return (ec ? fs::path("/tmp") : tmp).string() + "/tessera-cache";
}

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
    std::vector<lower::Argument> args;
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
        compile_c(source, "tessera_jit_runtime", o, Output::RuntimeModule, dir, stem, so);
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

JITModule::JITModule(const lower::LoweredPipeline &p, const CCompilerOptions &cc, const CodeGenOptions &options) {
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
        compile_c(m->source, m->function_name, cc, Output::SharedObject, dir, stem, so);
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

const char *kind_name(lower::Argument::Kind k) {
    switch (k) {
    case lower::Argument::Kind::InputBuffer: return "input";
    case lower::Argument::Kind::Param: return "param";
    case lower::Argument::Kind::OutputBuffer: return "output";
    }
    return "?";
}

/** The index entry: the shared object's stem, the function name, then one line per
 * argument: kind, type, dimensions, name. */
std::string index_entry(const std::string &stem, const std::string &fn, const std::vector<lower::Argument> &args) {
    std::string text = stem + "\n" + fn + "\n";
    for (const lower::Argument &a : args)
        text += std::string(kind_name(a.kind)) + " " + std::to_string(int(a.type.code)) + " " +
                std::to_string(a.type.bits) + " " + std::to_string(a.dimensions) + " " + a.name + "\n";
    return text;
}

bool parse_index_entry(const std::string &text, std::string &stem, std::string &fn, std::vector<lower::Argument> &args) {
    std::istringstream in(text);
    if (!std::getline(in, stem) || !std::getline(in, fn) || stem.empty() || fn.empty()) return false;
    for (std::string line; std::getline(in, line);) {
        std::istringstream l(line);
        std::string kind, name;
        int code = 0, bits = 0, dims = 0;
        if (!(l >> kind >> code >> bits >> dims) || !std::getline(l >> std::ws, name) || name.empty()) return false;
        lower::Argument a;
        if (kind == "input") a.kind = lower::Argument::Kind::InputBuffer;
        else if (kind == "param") a.kind = lower::Argument::Kind::Param;
        else if (kind == "output") a.kind = lower::Argument::Kind::OutputBuffer;
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

JITModule::JITModule(const std::string &pipeline_key, const std::function<lower::LoweredPipeline()> &lower,
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
        std::vector<lower::Argument> args;
        bool ok = parse_index_entry(read_file(index), stem, fn, args);
        for (lower::Argument &a : args) ok = ok && resolve(a);
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
const std::vector<lower::Argument> &JITModule::arguments() const { return impl_->args; }

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
    const std::vector<lower::Argument> &args = impl_->args;
    if (values.size() != args.size())
        throw RuntimeError("pipeline \"" + impl_->function_name + "\" takes " + std::to_string(args.size()) +
                           " arguments, got " + std::to_string(values.size()));
    std::vector<RuntimeBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<uint64_t> scalars(args.size(), 0);
    std::vector<void *> pointers(args.size(), nullptr);
    for (size_t i = 0; i < args.size(); i++) {
        const lower::Argument &a = args[i];
        const semantics::ArgValue &v = values[i];
        if (a.kind == lower::Argument::Kind::Param) {
            semantics::store_scalar(a.type, &scalars[i], semantics::cast(a.type, v.type, v.scalar));
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

// ---------------------------------------------------------------------------------------
// Ahead of time

void compile_to_c(const lower::LoweredPipeline &p, const std::string &path, const CodeGenOptions &codegen) {
    write_file(path, emit_c(p, codegen));
}

void compile_to_header(const lower::LoweredPipeline &p, const std::string &path, const CodeGenOptions &codegen) {
    write_file(path, emit_header(p, codegen));
}

void compile_to_object(const lower::LoweredPipeline &p, const std::string &path, const CCompilerOptions &cc,
                       const CodeGenOptions &codegen) {
    const std::string fn = c_function_name(p, codegen);
    const std::string source = emit_c(p, codegen);
    const std::string dir = cache_dir_of(cc);
    compile_c(source, fn, cc, Output::Object, dir, cache_stem(fn, "object", source, cc), path);
}

void compile_to_static_library(const lower::LoweredPipeline &p, const std::string &path, const CCompilerOptions &cc,
                               const CodeGenOptions &codegen) {
    const std::string fn = c_function_name(p, codegen);
    const std::string source = emit_c(p, codegen);
    const std::string dir = cache_dir_of(cc);
    const std::string stem = cache_stem(fn, "object", source, cc);
    // The archive member is named after the function.
    const std::string work = dir + "/" + stem + ".ar" + unique_suffix();
    std::error_code ec;
    fs::create_directories(work, ec);
    const std::string obj = work + "/" + fn + ".o";
    const std::string lib = work + "/lib.a";
    try {
        compile_c(source, fn, cc, Output::Object, dir, stem, obj);
        std::string ar = getenv_string("AR");
        if (ar.empty()) ar = "ar";
        const std::string log = dir + "/" + stem + ".ar.log";
        const std::string command = ar + " rcs " + shell_quote(lib) + " " + shell_quote(obj);
        const int status = run_command(command, log);
        if (status != 0 || !fs::exists(lib))
            TESSERA_INTERNAL_ERROR("the archiver failed on pipeline \"" << fn << "\" (exit status " << status
                                                                       << "); its output is in " << log);
        fs::remove(log, ec);
        fs::rename(lib, path, ec);
        if (ec) {
            // Maybe another file system: copy instead.
            ec.clear();
            fs::copy_file(lib, path, fs::copy_options::overwrite_existing, ec);
            if (ec) throw CompileError("cannot write \"" + path + "\": " + ec.message());
        }
    } catch (...) {
        fs::remove_all(work, ec);
        throw;
    }
    fs::remove_all(work, ec);
}

}  // namespace tessera::codegen
