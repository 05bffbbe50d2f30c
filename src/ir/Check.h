#pragma once
// Internal invariant checks. A failure is always a Tessera bug, never a user mistake:
// user mistakes are reported as CompileError/RuntimeError where they are detected.

#include <sstream>
#include <string>

#include "tessera/Error.h"

namespace tessera {

[[noreturn]] void throw_internal_error(const char *file, int line, const std::string &msg);

}  // namespace tessera

#define TESSERA_INTERNAL_ASSERT(cond, msg)                                             \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            std::ostringstream tessera_msg_;                                           \
            tessera_msg_ << "condition failed: " #cond ": " << msg;                   \
            ::tessera::throw_internal_error(__FILE__, __LINE__, tessera_msg_.str());   \
        }                                                                              \
    } while (0)

#define TESSERA_INTERNAL_ERROR(msg)                                                    \
    do {                                                                               \
        std::ostringstream tessera_msg_;                                               \
        tessera_msg_ << msg;                                                           \
        ::tessera::throw_internal_error(__FILE__, __LINE__, tessera_msg_.str());       \
    } while (0)
