#pragma once
// The message of an expected error, for tests that check what it says.

#include <string>

namespace tessera::test {

/** The message of the exception of type E that `f` throws, or "" if it throws none (an
 * exception of another type propagates: the test fails on it). */
template<typename E, typename F>
std::string error_message(F &&f) {
    try {
        f();
    } catch (const E &e) {
        return e.what();
    }
    return "";
}

}  // namespace tessera::test
