#pragma once
// The three kinds of error Tessera reports (docs/semantics.md §8 and §9).

#include <stdexcept>
#include <string>

namespace tessera {

/** Base class of all Tessera errors. */
struct Error : std::runtime_error {
    explicit Error(const std::string &msg) : std::runtime_error(msg) {}
};

/** The user's algorithm or schedule is wrong. The message names the Func, the definition
 * and the variable in the user's own names. */
struct CompileError : Error {
    explicit CompileError(const std::string &msg) : Error(msg) {}
};

/** Bad inputs at run time: a buffer too small, a parameter out of range, a negative
 * reduction extent. */
struct RuntimeError : Error {
    explicit RuntimeError(const std::string &msg) : Error(msg) {}
};

/** A broken invariant inside Tessera itself: always a bug in Tessera. */
struct InternalError : Error {
    explicit InternalError(const std::string &msg) : Error(msg) {}
};

}  // namespace tessera
