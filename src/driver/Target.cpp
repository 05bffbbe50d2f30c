// Target strings and the C compiler flags they stand for.

#include "tessera/Target.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "tessera/Error.h"

namespace tessera {

namespace {

// Each feature, and the flags that enable its instructions in GCC and Clang.
const std::map<std::string, std::string> &x86_features() {
    static const std::map<std::string, std::string> m = {
        {"sse41", "-msse4.1"},
        {"sse42", "-msse4.2"},
        {"avx", "-mavx"},
        {"avx2", "-mavx2"},
        {"fma", "-mfma"},
        {"f16c", "-mf16c"},
        {"avx512", "-mavx512f -mavx512cd"},
        {"avx512_skylake", "-mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl"},
        {"avx512_cannonlake", "-mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl -mavx512ifma -mavx512vbmi"},
    };
    return m;
}

const std::map<std::string, std::string> &arm_features() {
    static const std::map<std::string, std::string> m = {
        {"arm_dot_prod", "+dotprod"},
        {"arm_fp16", "+fp16"},
    };
    return m;
}

// Features of Tessera's own, for any architecture (and "host"), which select how code is
// generated rather than instructions: fp_contract fuses float multiply-adds
// (docs/semantics.md, "Float contraction").
const std::map<std::string, std::string> &compiler_features() {
    static const std::map<std::string, std::string> m = {{"fp_contract", ""}};
    return m;
}

std::vector<std::string> split_dashes(const std::string &s) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : s) {
        if (c == '-') {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    parts.push_back(cur);
    return parts;
}

std::string known_list(const std::map<std::string, std::string> &m) {
    std::string s;
    for (const auto &[k, v] : m) s += (s.empty() ? "" : ", ") + k;
    return s;
}

}  // namespace

Target::Target(const std::string &s) {
    if (s.empty() || s == "host") return;
    std::vector<std::string> parts = split_dashes(s);
    auto bad = [&](const std::string &why) {
        throw CompileError("Bad target \"" + s + "\": " + why +
                           ". A target is \"host\" or <arch>-<bits>-<os>[-<feature>...], e.g. "
                           "\"x86-64-linux-avx2-fma\", and either may end with -fp_contract");
    };
    if (parts[0] == "host") {
        for (size_t i = 1; i < parts.size(); i++) {
            if (!compiler_features().count(parts[i]))
                bad("\"host\" takes only Tessera's own features (" + known_list(compiler_features()) + "), not \"" +
                    parts[i] + "\"");
            if (!has_feature(parts[i])) features_.push_back(parts[i]);
        }
        std::sort(features_.begin(), features_.end());
        return;
    }
    if (parts.size() < 3) bad("it needs an architecture, a bit width and an OS");
    host_ = false;
    arch_ = parts[0];
    if (arch_ != "x86" && arch_ != "arm") bad("unknown architecture \"" + arch_ + "\" (known: x86, arm)");
    if (parts[1] != "32" && parts[1] != "64") bad("unknown bit width \"" + parts[1] + "\" (known: 32, 64)");
    bits_ = parts[1] == "32" ? 32 : 64;
    os_ = parts[2];
    if (os_ != "linux" && os_ != "osx" && os_ != "windows")
        bad("unknown OS \"" + os_ + "\" (known: linux, osx, windows)");
    const auto &known = arch_ == "x86" ? x86_features() : arm_features();
    for (size_t i = 3; i < parts.size(); i++) {
        if (compiler_features().count(parts[i])) {
            if (!has_feature(parts[i])) features_.push_back(parts[i]);
            continue;
        }
        if (!known.count(parts[i]))
            bad("unknown feature \"" + parts[i] + "\" for " + arch_ + " (known: " + known_list(known) + ")");
        if (!has_feature(parts[i])) features_.push_back(parts[i]);
    }
    std::sort(features_.begin(), features_.end());
}

bool Target::has_feature(const std::string &f) const {
    return std::find(features_.begin(), features_.end(), f) != features_.end();
}

std::string Target::to_string() const {
    std::string s = host_ ? "host" : arch_ + "-" + std::to_string(bits_) + "-" + os_;
    for (const auto &f : features_) s += "-" + f;
    return s;
}

std::string Target::c_flags() const {
    if (host_) return "-march=native";
    std::string s;
    if (arch_ == "x86") {
        s = bits_ == 64 ? "-march=x86-64" : "-m32 -march=i686";
        for (const auto &f : features_)
            if (!compiler_features().count(f)) s += " " + x86_features().at(f);
    } else {
        std::string march = bits_ == 64 ? "armv8-a" : "armv7-a";
        for (const auto &f : features_)
            if (!compiler_features().count(f)) march += arm_features().at(f);
        s = "-march=" + march;
    }
    return s;
}

Target get_host_target() { return Target(); }

Target get_jit_target_from_environment() {
    const char *v = std::getenv("TESSERA_TARGET");
    return v && *v ? Target(v) : Target();
}

}  // namespace tessera
