// Uses the installed validator (Tessera::validator) through its public header only: a
// pipeline validated directly, then validated again when compiled, through the hook that
// including <tessera/Validate.h> installs in the core library.
#include <tessera/Validate.h>
#include <tessera/tessera.h>

#include <cstdio>

int main() {
    tessera::ImageParam in(tessera::UInt(8), 2, "in");
    tessera::Var x("x"), y("y");
    tessera::Func f("f");
    f(x, y) = in(x, y) + 1;
    f.vectorize(x, 8);
    const tessera::ValidationReport r = tessera::validate(f);
    if (r.verdict != tessera::Verdict::Proved) {
        std::fputs(r.to_string().c_str(), stderr);
        return 1;
    }
    int reports = 0;
    tessera::ValidateOptions options;
    options.on_report = [&](const tessera::ValidationReport &) { reports++; };
    f.validate_on_compile(options);
    f.compile_jit();
    if (reports != 1) return 1;
    std::puts("validated");
    return 0;
}
