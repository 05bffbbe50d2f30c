#include "validate/Validate.h"

#include <sstream>

namespace tessera::validator {

namespace {

std::string json_string(const std::string &s) {
    std::string o = "\"";
    for (char c : s) {
        switch (c) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        case '\t': o += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                o += buf;
            } else {
                o += c;
            }
        }
    }
    return o + "\"";
}

}  // namespace

ValidationReport validate_lowered(const ir::LoweredPipeline &p, const StructureOptions &options) {
    ValidationReport r;
    r.pipeline = p.name;
    const StructureReport s = check_structure(p, options);
    r.checks.push_back({"coverage", s.coverage});
    r.checks.push_back({"races", s.races});
    r.checks.push_back({"bounds", s.bounds});
    r.checks.push_back({"values", s.values});
    r.statements = s.statements;
    r.modelled = s.modelled;
    r.unmodelled = s.unmodelled;
    // Proved when every check is: every point of the window is written, with the value the
    // algorithm defines there, by stores that stay in bounds and do not race.
    bool all_proved = true;
    r.verdict = Verdict::Unknown;
    for (const NamedCheck &c : r.checks) {
        if (c.result.verdict == Verdict::Refuted) r.verdict = Verdict::Refuted;
        all_proved = all_proved && c.result.verdict == Verdict::Proved;
    }
    if (all_proved) r.verdict = Verdict::Proved;
    r.rests_on = {
        "coordinate arithmetic stays in the int32 range, as the pipeline checks at entry (docs/semantics.md §11)",
        "the pipeline's buffers do not overlap",
        "the C emitter and the C compiler are trusted",
    };
    for (const std::string &a : s.unmodelled_assertions) r.rests_on.push_back("not used as a hypothesis: " + a);
    return r;
}

std::string ValidationReport::to_string() const {
    std::ostringstream o;
    o << pipeline << ": " << verdict_name(verdict) << "\n";
    for (const NamedCheck &c : checks) o << "  " << c.name << ": " << verdict_name(c.result.verdict) << " (" << c.result.detail << ")\n";
    o << "  stores looked at: " << statements << ", modelled: " << modelled << "\n";
    for (const std::string &u : unmodelled) o << "    not modelled: " << u << "\n";
    o << "  rests on:\n";
    for (const std::string &a : rests_on) o << "    " << a << "\n";
    return o.str();
}

std::string ValidationReport::to_json() const {
    std::ostringstream o;
    o << "{\"pipeline\": " << json_string(pipeline) << ", \"verdict\": " << json_string(verdict_name(verdict))
      << ", \"checks\": [";
    for (size_t i = 0; i < checks.size(); i++)
        o << (i ? ", " : "") << "{\"name\": " << json_string(checks[i].name)
          << ", \"verdict\": " << json_string(verdict_name(checks[i].result.verdict))
          << ", \"detail\": " << json_string(checks[i].result.detail) << "}";
    o << "], \"statements\": " << statements << ", \"modelled\": " << modelled << ", \"unmodelled\": [";
    for (size_t i = 0; i < unmodelled.size(); i++) o << (i ? ", " : "") << json_string(unmodelled[i]);
    o << "], \"rests_on\": [";
    for (size_t i = 0; i < rests_on.size(); i++) o << (i ? ", " : "") << json_string(rests_on[i]);
    o << "]}\n";
    return o.str();
}

}  // namespace tessera::validator
