#pragma once
// Text helpers of the tests.

#include <sstream>
#include <string>
#include <vector>

namespace tessera::test {

/** The lines of `text`, without their newlines. */
inline std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

}  // namespace tessera::test
