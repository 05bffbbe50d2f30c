#include "driver/CCompiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
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

#include "ir/Check.h"
#include "tessera/Error.h"

extern char **environ;

namespace tessera::driver {

namespace fs = std::filesystem;

namespace {

std::atomic<uint64_t> g_unique{0};

}  // namespace

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
static bool plain_words(const std::string &command, std::vector<std::string> &words) {
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
static pid_t start_command(const std::string &command, const std::string &log_path) {
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
static int finish_command(pid_t pid) {
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
static std::string command_output(const std::string &command) {
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
static std::string compiler_version(const std::string &cc) {
    static std::mutex mutex;
    static std::map<std::string, std::string> versions;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = versions.find(cc);
    if (it != versions.end()) return it->second;
    return versions[cc] = command_output(cc + " --version");
}

// Flags that work around known miscompilations of the compiler `cc`, added to every
// compilation's flags (and so to the cache key). GCC: predictive commoning is off. GCC 12.2
// (Debian 12) at -O2 miscompiles a lowered pipeline that the schedule fuzzer generated
// (tests/fuzz/schedule_fuzz_test.cpp, ScheduleFuzz.SeedsThatFailedInLongRuns): the pass
// carries a byte loaded in one iteration of an inner loop to the next, then the complete
// unrolling of the loop around it reuses the value loaded by the first unrolled copy in the
// second, after the first copy stored to it. The lowered code is right (the IR interpreter
// computes the reference's values) and so is the C with the pass off, at every -O level.
// Lowering reuses loaded values itself (src/lower/CommonSubexpressions.cpp, sliding
// windows), and turning the pass off changed no benchmark's time (bench/README.md).
static std::string workaround_flags(const std::string &cc) {
    const std::string &version = compiler_version(cc);
    const bool gcc = version.find("Free Software Foundation") != std::string::npos &&
                     version.find("clang") == std::string::npos;
    return gcc ? " -fno-predictive-commoning" : "";
}

// The linker that the compiler driver runs and the libgcc it links (asked once per compiler
// command per process), to link a pipeline's objects without the driver and its helper
// processes, which take most of a link's time (bench/README.md); empty if the driver does
// not say.
struct Linker {
    std::string ld, libgcc;
};
static const Linker &linker_of(const std::string &cc) {
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

// Compiles `source` (kept in the cache directory as <stem>.c) into `final_path`, through a
// temporary file beside it and a rename. `stem` is "<function>-<hash>"; a failure keeps the
// compiler's output in <stem>.log in the cache directory.
void compile_c(const std::string &source, const std::string &fn, const CCompilerOptions &o, COutput kind,
               const std::string &dir, const std::string &stem, const std::string &final_path) {
    const std::string src = dir + "/" + stem + ".c";
    if (!fs::exists(src) || read_file(src) != source) write_file_atomically(src, source);
    const std::string tmp = final_path + unique_suffix();
    const std::string log_tmp = dir + "/" + stem + ".log" + unique_suffix();
    // A pipeline's shared object is only ever loaded by the JIT, into a process that has
    // the C and math libraries (and, through the runtime module, loaded first and global,
    // the OpenMP library): it needs no search for them at link time, which is most of the
    // link's time (bench/README.md). libgcc is linked statically, for the helpers the compiler
    // may call.
    const std::string link_flags = kind == COutput::RuntimeModule ? " -lm" : " -nostdlib -lgcc";
    const bool shared = kind != COutput::Object;
    const std::string flags = o.flags + workaround_flags(o.cc);
    std::string command;
    int status = -1;
    // Only a pipeline's file is split (the runtime module is one translation unit).
    const bool split = source.find("#if !defined(TESSERA_PART) || TESSERA_PART == 2") != std::string::npos;
    if (kind == COutput::SharedObject && split) {
        // The two parts of the file (CodeGenC: the pipeline's function, and its parallel
        // loops' iterations) compiled at once, then linked.
        const std::string part1 = tmp + ".1.o", part2 = tmp + ".2.o", log2 = log_tmp + ".2";
        auto compile_part = [&](int k, const std::string &obj) {
            return o.cc + " " + flags + " -pipe -DTESSERA_PART=" + std::to_string(k) + " -c -o " + shell_quote(obj) + " " +
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
                command = o.cc + " " + flags + " -shared -o " + shell_quote(tmp) + " " + objects + link_flags;
                status = run_command(command, log_tmp);
            }
        } else if (status == 0) {
            command = compile_part(2, part2);
            status = status2;
        }
        fs::remove(part1, ec);
        fs::remove(part2, ec);
    } else {
        command = o.cc + " " + flags + (shared ? " -shared" : " -c") + " -pipe -o " + shell_quote(tmp) + " " +
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
    std::string key = "tessera-c-4";  // bumped when the compile or link command changes
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

}  // namespace tessera::driver
