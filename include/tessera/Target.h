#pragma once
// Target: the machine compiled pipelines run on, in Halide's target-string syntax
// ("host", or "<arch>-<bits>-<os>[-<feature>...]", e.g.
// "x86-64-linux-avx2-avx512-avx512_skylake-f16c-fma-sse41"). Tessera compiles through
// C, so a target becomes the instruction-set flags given to the C compiler.

#include <string>
#include <vector>

namespace tessera {

class Target {
public:
    /** The machine this process runs on (-march=native). */
    Target() = default;
    /** Parses a target string; an unknown architecture, OS or feature is a CompileError
     * that lists the known ones. "host" is the default target. */
    explicit Target(const std::string &s);

    bool is_host() const { return host_; }
    const std::string &arch() const { return arch_; }
    int bits() const { return bits_; }
    const std::string &os() const { return os_; }
    const std::vector<std::string> &features() const { return features_; }
    bool has_feature(const std::string &f) const;

    /** The canonical target string ("host" for the host target). */
    std::string to_string() const;
    /** The instruction-set flags for the C compiler ("-march=native" for the host). */
    std::string c_flags() const;

    /** The same target string, compared without building it (realize compares the target
     * it is given with the one its code was compiled for at every call). */
    bool operator==(const Target &o) const {
        return host_ == o.host_ && features_ == o.features_ &&
               (host_ || (arch_ == o.arch_ && bits_ == o.bits_ && os_ == o.os_));
    }

private:
    bool host_ = true;
    std::string arch_ = "x86";
    int bits_ = 64;
    std::string os_ = "linux";
    std::vector<std::string> features_;
};

/** The target named by $TESSERA_TARGET (Halide's HL_JIT_TARGET), or the host. */
Target get_jit_target_from_environment();
Target get_host_target();

}  // namespace tessera
