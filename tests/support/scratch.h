#pragma once
// Test helpers for tests that write files and run programs: a private scratch directory
// per test process (removed at exit), running shell commands, reading and writing text.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tessera::testing {

/** A directory of this test process, removed when the process exits. */
inline const std::string &scratch_dir() {
    static const std::string dir = [] {
        namespace fs = std::filesystem;
        fs::path d = fs::temp_directory_path() / ("tessera-test-" + std::to_string(::getpid()));
        fs::create_directories(d);
        static struct Cleanup {
            fs::path path;
            ~Cleanup() {
                std::error_code ec;
                fs::remove_all(path, ec);
            }
        } cleanup{d};
        return d.string();
    }();
    return dir;
}

/** Runs `command` through /bin/sh; returns its stdout and stderr, and its exit status in
 * *status (-1 if it did not exit normally). */
inline std::string shell_output(const std::string &command, int *status) {
    std::string out;
    FILE *p = ::popen((command + " 2>&1").c_str(), "r");
    if (!p) {
        *status = -1;
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    const int st = ::pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

inline bool have_command(const std::string &cmd) {
    int status = 0;
    shell_output("command -v " + cmd + " >/dev/null", &status);
    return status == 0;
}

inline void write_text(const std::string &path, const std::string &text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    ASSERT_TRUE(bool(f)) << path;
}

inline std::string read_text(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace tessera::testing
