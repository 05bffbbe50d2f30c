// libFuzzer target for the .tsr parser (built and run by tests/fuzz/run_parser_libfuzzer.sh
// with clang's -fsanitize=fuzzer, over a seed corpus of the examples in apps/). Any input
// must parse or give a CompileError or RuntimeError; an InternalError, another exception,
// a crash or a sanitizer report is a bug.

#include <cstddef>
#include <cstdint>
#include <string>

#include <tessera/tessera.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string source(reinterpret_cast<const char *>(data), size);
    try {
        tessera::parse_program(source, "fuzz.tsr");
    } catch (const tessera::CompileError &) {
    } catch (const tessera::RuntimeError &) {
    }
    return 0;
}
