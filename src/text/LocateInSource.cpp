// Errors found after parsing (lowering, compiling) placed in the .tsr file they concern:
// locate_in_source (include/tessera/Program.h).

#include <vector>

#include "tessera/Program.h"

namespace tessera {

namespace {

/** The names of the Funcs of `p` a message names as `Func "name"`, in order, each once. */
std::vector<std::string> funcs_named(const Program &p, const std::string &message) {
    std::vector<std::string> names;
    const std::string mark = "Func \"";
    for (size_t at = message.find(mark); at != std::string::npos; at = message.find(mark, at + 1)) {
        const size_t start = at + mark.size(), end = message.find('"', start);
        if (end == std::string::npos) break;
        const std::string name = message.substr(start, end - start);
        if (!p.defined_at.count(name)) continue;
        bool seen = false;
        for (const std::string &n : names) seen = seen || n == name;
        if (!seen) names.push_back(name);
    }
    return names;
}

/** Whether a message is about where or how a Func is computed (its schedule) rather than
 * what it computes. */
bool about_schedule(const std::string &message) {
    for (const char *word : {"schedul", "comput", "stored", "store_", "fold", "unroll", "vectoriz", "parallel", "split",
                             "tile", "bound", "loop", "specializ"})
        if (message.find(word) != std::string::npos) return true;
    return false;
}

std::string place_text(const Program &p, const Program::Place &at, const char *kind, const std::string &text) {
    std::string s = p.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + kind + ": " + text + "\n";
    if (at.line >= 1 && at.line <= int(p.source.size()))
        s += "    " + p.source[size_t(at.line - 1)] + "\n    " + std::string(size_t(at.col > 1 ? at.col - 1 : 0), ' ') + "^\n";
    return s;
}

}  // namespace

std::string locate_in_source(const Program &p, const std::string &message) {
    const std::vector<std::string> names = funcs_named(p, message);
    if (names.empty() || p.file.empty()) return message;
    const bool schedule = about_schedule(message);
    std::string out;
    for (size_t i = 0; i < names.size(); i++) {
        const std::string &n = names[i];
        auto scheduled = p.scheduled_at.find(n);
        const bool at_schedule = schedule && scheduled != p.scheduled_at.end();
        const Program::Place &at = at_schedule ? scheduled->second : p.defined_at.at(n);
        if (i == 0) {
            out += place_text(p, at, "error", message);
        } else {
            out += place_text(p, at, "note", "Func " + n + (at_schedule ? " is scheduled here" : " is defined here"));
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

}  // namespace tessera
