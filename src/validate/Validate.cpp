#include "validate/Validate.h"

#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"
#include "tessera/Error.h"
#include "validate/Isl.h"
#include "validate/LoopNest.h"
#include "validate/OneRun.h"

namespace tessera {

const char *verdict_name(Verdict v) {
    switch (v) {
    case Verdict::Proved: return "Proved";
    case Verdict::Refuted: return "Refuted";
    default: return "Unknown";
    }
}

namespace validator {

using namespace ir;

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

NamedCheck named(const std::string &name, const CheckResult &result) {
    NamedCheck c;
    c.name = name;
    c.verdict = result.verdict;
    c.detail = result.detail;
    return c;
}

/** What an assumption may name: the pipeline's Params, the bounds of its inputs, and the
 * bounds of its output (`out.min.d`, `out.extent.d`, as output_min/output_extent and the
 * .tsr parser make them). Anything else is the user's mistake, named in the message. */
class AssumptionChecker : public IRVisitor {
public:
    AssumptionChecker(const std::string &output, int dims, const std::string &assumption)
        : output_(output), dims_(dims), assumption_(assumption) {}

protected:
    using IRVisitor::visit;
    void visit(const Variable *v) override {
        switch (v->var_kind) {
        case VarKind::Param:
        case VarKind::InputBound: return;
        case VarKind::Pure: fail("names the Var " + v->name);
        case VarKind::Reduction: fail("names the RVar " + v->name);
        case VarKind::Internal:
            if (bound_.count(v->name) || is_output_bound(v->name)) return;
            fail("names " + v->name + ", which is not a bound of the output " + output_);
        }
    }
    void visit(const Call *c) override {
        if (c->call_kind == CallKind::Func) fail("calls Func " + c->name);
        if (c->call_kind == CallKind::Image) fail("reads the image " + c->name);
        IRVisitor::visit(c);
    }
    void visit(const Let *l) override {
        include(l->value);
        bound_.insert(l->name);
        include(l->body);
        bound_.erase(l->name);
    }
    void visit(const Load *l) override { fail("reads the buffer " + l->buffer); }

private:
    bool is_output_bound(const std::string &name) const {
        for (int d = 0; d < dims_; d++)
            for (const Expr &bound : {lower::buffer_min(output_, d), lower::buffer_extent(output_, d)})
                if (name == as<Variable>(bound)->name) return true;
        return false;
    }
    [[noreturn]] void fail(const std::string &what) const {
        throw CompileError("Can't validate Func \"" + output_ + "\" under the assumption " + assumption_ + ": it " + what +
                           "; an assumption may name only the pipeline's Params and the bounds of its inputs and output");
    }

    std::string output_;
    int dims_;
    std::string assumption_;
    std::set<std::string> bound_;
};

/** Whether some run satisfies the code's entry assertions (and with them the assumptions,
 * which are among them by now): an empty context would make every check hold vacuously.
 * Decided on the context of the loop nest, the set of parameter values the checks quantify
 * over. Returns "" when it is satisfiable, else why the checks cannot be trusted. `unused`
 * receives the assumptions the context could not hold (not affine): whether they can hold
 * together with the rest is not decided, so they forbid Proved. */
std::string context_problem(const LoweredPipeline &p, const StructureOptions &options, const std::vector<Expr> &assumptions,
                            std::vector<std::string> &unused) {
    IslContext ctx(options.max_operations);
    LoopNest nest;
    try {
        nest = loop_nest_of(ctx, p, [](const Statement &) { return false; });
    } catch (const Unsupported &u) {
        return std::string("whether any run satisfies the entry checks and the assumptions could not be decided: ") +
               (ctx.exhausted() ? "the operation limit was reached" : u.what());
    } catch (const InternalError &e) {
        // A bug of the validator's: no verdict rests on it.
        return std::string("an internal error of the validator (please report): ") + e.what();
    }
    for (const Expr &a : assumptions) {
        const std::string text = to_string(a) + " (";
        for (const std::string &u : nest.unmodelled_assertions)
            if (u.compare(0, text.size(), text) == 0) unused.push_back(u);
    }
    ctx.reset_operations();
    Isl<isl_set> context;
    try {
        context = full_context(nest);
    } catch (const Unsupported &) {
        // (isl_set_is_empty of the null set is an error, reported below.)
    }
    const isl_bool empty = isl_set_is_empty(context.get());
    if (empty == isl_bool_false) {
        // Products of parameters are parameters of their own there, known only by their
        // signs: a run exists if one such point has every product right.
        if (nest.products.exprs.empty()) return "";
        ctx.reset_operations();
        if (nest.products.realizable(context)) return "";
        if (ctx.exhausted())
            return "whether any run satisfies the entry checks and the assumptions could not be decided: the operation limit was reached";
        return "whether any run satisfies the entry checks and the assumptions is not decided: they multiply parameters (" +
               nest.products.exprs.begin()->first + ")";
    }
    if (empty == isl_bool_error)
        return "whether any run satisfies the entry checks and the assumptions could not be decided: the operation limit was reached";
    return assumptions.empty() ? "no run satisfies the code's entry checks: every run of the pipeline fails at entry"
                               : "the assumptions are contradictory: no run satisfies them together with the code's entry checks";
}

/** Whether some check is Unknown for a construct the model leaves out (a division by a
 * parameter, a layout that is not dense), not for the operation limit: fixing the
 * parameters may make it readable. */
bool left_out_a_construct(const std::vector<NamedCheck> &checks) {
    for (const NamedCheck &c : checks)
        if (c.verdict == Verdict::Unknown && c.detail.find("operation limit") == std::string::npos) return true;
    return false;
}

}  // namespace

std::optional<std::vector<Expr>> entry_assertions(const LoweredPipeline &p, const StructureOptions &options) {
    IslContext ctx(options.max_operations);
    try {
        return loop_nest_of(ctx, p, [](const Statement &) { return false; }).entry_assertions;
    } catch (const Unsupported &) {
        return std::nullopt;
    } catch (const InternalError &) {
        return std::nullopt;
    }
}

std::vector<Expr> checked_assumptions(const std::string &output, int dims, const std::vector<Expr> &assumptions) {
    std::vector<Expr> checked;
    for (size_t i = 0; i < assumptions.size(); i++) {
        const Expr &a = assumptions[i];
        if (!a.defined())
            throw CompileError("Can't validate Func \"" + output + "\": assumption " + std::to_string(i) + " is an undefined Expr");
        const std::string text = to_string(a);
        if (!a.type().is_bool() || a.type().lanes != 1)
            throw CompileError("Can't validate Func \"" + output + "\" under the assumption " + text +
                               ": it is not a condition (its type is " + a.type().to_string() + ", not bool)");
        AssumptionChecker checker(output, dims, text);
        checker.include(a);
        checked.push_back(a);
    }
    return checked;
}

Verdict overall_verdict(const std::vector<NamedCheck> &checks) {
    bool all_proved = true;
    for (const NamedCheck &c : checks) {
        if (c.verdict == Verdict::Refuted) return Verdict::Refuted;
        all_proved = all_proved && c.verdict == Verdict::Proved;
    }
    return all_proved ? Verdict::Proved : Verdict::Unknown;
}

ValidationReport validate_lowered(const LoweredPipeline &code, const StructureOptions &options,
                                  const std::vector<Expr> &assumptions) {
    // The assumptions become assertions at the entry of the code, so that every check takes
    // them as hypotheses exactly as it takes the code's own entry checks (the loop nest's
    // context, the value check's hypotheses).
    LoweredPipeline p = code;
    for (auto a = assumptions.rbegin(); a != assumptions.rend(); ++a)
        p.body = Block::make(AssertStmt::make(*a, {StringImm::make("assumed: " + to_string(*a))}), p.body);

    ValidationReport r;
    r.pipeline = p.name;
    r.rests_on = {
        "coordinate arithmetic stays in the int32 range, as the pipeline checks at entry (docs/semantics.md §11)",
        "the pipeline's buffers do not overlap",
        "the C emitter and the C compiler are trusted",
    };
    for (const Expr &a : assumptions) r.rests_on.push_back("assumed: " + to_string(a));

    std::vector<std::string> unused;
    const std::string problem = context_problem(p, options, assumptions, unused);
    if (!problem.empty()) {
        // Every check would hold vacuously: none is run, and the verdict is Unknown.
        for (const char *name : {"coverage", "races", "bounds", "values"})
            r.checks.push_back(named(name, {Verdict::Unknown, "not checked: " + problem}));
        r.checks.push_back(named("assumptions", {Verdict::Unknown, problem}));
        return r;
    }

    // Funcs with several values (Tuples) have one storage per value, which the model of
    // the algorithm (one value per point of each definition) does not describe; an extern
    // Func's values are what its C function computes, outside the code checked.
    if (p.output)
        for (const auto &f : pipeline_functions(p.output))
            if (f->outputs() > 1 || f->extern_definition) {
                const std::string why =
                    f->extern_definition
                        ? "not checked: Func \"" + f->name + "\" is computed by the C function \"" +
                              f->extern_definition->function_name + "\" (define_extern), which the validator does not model"
                        : "not checked: Func \"" + f->name + "\" has " + std::to_string(f->outputs()) +
                              " values at each point (a Tuple), which the validator does not model";
                for (const char *name : {"coverage", "races", "bounds", "values"})
                    r.checks.push_back(named(name, {Verdict::Unknown, why}));
                return r;
            }

    const StructureReport s = check_structure(p, options);
    r.checks.push_back(named("coverage", s.coverage));
    r.checks.push_back(named("races", s.races));
    r.checks.push_back(named("bounds", s.bounds));
    r.checks.push_back(named("values", s.values));
    // A store the value check refutes, replayed: the IR interpreter runs the code at the
    // counterexample's sizes and parameters, and its prophecy check compares every store
    // with the reference interpreter (with the inputs filled with a pattern, not the
    // counterexample's values, the run may not show the difference).
    if (s.values.verdict == Verdict::Refuted && !s.values_run.empty()) {
        OneRun run;
        run.values = s.values_run;
        const std::string shown = replay(p, run);
        r.checks[3].detail += shown.empty() ? "; the IR interpreter, run at those sizes and parameters with the inputs filled "
                                              "with a fixed pattern, does not show it (it needs other input values, or the "
                                              "run is too large to replay)"
                                            : "; confirmed by the IR interpreter, run at those sizes and parameters with the "
                                              "inputs filled with a fixed pattern: " + shown;
    }
    if (r.checks[2].verdict == Verdict::Refuted && !s.bounds_run.empty()) {
        OneRun run;
        run.values = s.bounds_run;
        confirm_bounds(p, run, r.checks[2]);
    }
    // What the model left out at every run may be readable at one: a check that run
    // refutes is refuted (the run is the counterexample); what it proves is not kept,
    // since it holds for that run only.
    // (Where a check reached the operation limit, the model at one run would too: only the
    // IR interpreter's replay is tried there.)
    const bool left_out = left_out_a_construct(r.checks);
    bool unknown = false;
    for (const NamedCheck &c : r.checks) unknown = unknown || c.verdict == Verdict::Unknown;
    if (unknown)
        for (RunKind kind : {RunKind::Small, RunKind::Spread, RunKind::Large})
        if (auto run = at_one_run(p, options, kind)) {
            if (left_out) {
                const StructureReport at_run = check_structure(run->code, options);
                const CheckResult *found[] = {&at_run.coverage, &at_run.races, &at_run.bounds, &at_run.values};
                for (size_t i = 0; i < 4; i++)
                    if (r.checks[i].verdict == Verdict::Unknown && found[i]->verdict == Verdict::Refuted) {
                        NamedCheck at = r.checks[i];
                        at.verdict = Verdict::Refuted;
                        at.detail = "at the run with " + run->words +
                                    " (where the code's expressions of the sizes are constants): " + found[i]->detail;
                        if (i == 2) confirm_bounds(p, *run, at);
                        if (at.verdict == Verdict::Refuted) r.checks[i] = at;
                    }
            }
            // Values read from memory no store wrote are not followed through storage by
            // the value check, nor floats as IEEE values; the IR interpreter follows them at
            // this run, with the prophecy check, and checks every access against its
            // storage.
            NamedCheck &bounds = r.checks[2], &values = r.checks[3];
            if (values.verdict == Verdict::Unknown || bounds.verdict == Verdict::Unknown)
                if (const std::string shown = replay(p, *run); !shown.empty()) {
                    NamedCheck &c = shown.find("out of bounds") != std::string::npos ? bounds : values;
                    if (c.verdict == Verdict::Unknown) {
                        c.verdict = Verdict::Refuted;
                        c.detail = "at the run with " + run->words +
                                   ", run by the IR interpreter with the inputs filled with a fixed pattern: " + shown;
                    }
                }
        }
    if (!assumptions.empty()) {
        std::string detail = "some run satisfies them together with the code's entry checks";
        Verdict v = Verdict::Proved;
        if (!unused.empty()) {
            // The value check takes such an assumption as a hypothesis, so a contradiction
            // there could make it hold vacuously.
            v = Verdict::Unknown;
            detail = "whether they can hold together is not decided: the polyhedral model leaves out";
            for (size_t i = 0; i < unused.size(); i++) detail += (i ? "; " : " ") + unused[i];
        }
        r.checks.push_back(named("assumptions", {v, detail}));
    }
    r.statements = s.statements;
    r.modelled = s.modelled;
    r.unmodelled = s.unmodelled;
    // Proved when every check is: every point of the window is written, with the value the
    // algorithm defines there, by stores that stay in bounds and do not race, for runs
    // that exist.
    r.verdict = overall_verdict(r.checks);
    for (const std::string &a : s.unmodelled_assertions) r.rests_on.push_back("not used as a hypothesis: " + a);
    return r;
}

}  // namespace validator

const NamedCheck *ValidationReport::check(const std::string &name) const {
    for (const NamedCheck &c : checks)
        if (c.name == name) return &c;
    return nullptr;
}

std::string ValidationReport::to_string() const {
    std::ostringstream o;
    o << pipeline << ": " << verdict_name(verdict) << "\n";
    for (const NamedCheck &c : checks) o << "  " << c.name << ": " << verdict_name(c.verdict) << " (" << c.detail << ")\n";
    o << "  stores looked at: " << statements << ", modelled: " << modelled << "\n";
    for (const std::string &u : unmodelled) o << "    not modelled: " << u << "\n";
    if (!passes.empty()) {
        // The counterexample where the verdict turns to Refuted; the passes after it
        // usually keep it.
        // A pass after which the verdict turns from Proved to Refuted broke the proof; from
        // Unknown, it may also have made the code readable to the validator.
        o << "  after each pass:\n";
        std::string first;
        for (size_t i = 0; i < passes.size(); i++) {
            const PassVerdict &p = passes[i];
            const bool turned = p.verdict == Verdict::Refuted && (i == 0 || passes[i - 1].verdict != Verdict::Refuted);
            o << "    " << p.pass << ": " << verdict_name(p.verdict) << (turned ? " (" + p.detail + ")" : "") << "\n";
            if (turned && first.empty())
                first = p.pass + " (" +
                        (i == 0 ? std::string("the first pass validated") : verdict_name(passes[i - 1].verdict) + std::string(" before it")) +
                        ")";
        }
        o << "  first refuted after: " << (first.empty() ? "none" : first) << "\n";
    }
    o << "  rests on:\n";
    for (const std::string &a : rests_on) o << "    " << a << "\n";
    return o.str();
}

std::string ValidationReport::to_json() const {
    using validator::json_string;
    std::ostringstream o;
    o << "{\"pipeline\": " << json_string(pipeline) << ", \"verdict\": " << json_string(verdict_name(verdict))
      << ", \"checks\": [";
    for (size_t i = 0; i < checks.size(); i++)
        o << (i ? ", " : "") << "{\"name\": " << json_string(checks[i].name)
          << ", \"verdict\": " << json_string(verdict_name(checks[i].verdict))
          << ", \"detail\": " << json_string(checks[i].detail) << "}";
    o << "], \"statements\": " << statements << ", \"modelled\": " << modelled << ", \"unmodelled\": [";
    for (size_t i = 0; i < unmodelled.size(); i++) o << (i ? ", " : "") << json_string(unmodelled[i]);
    o << "], \"rests_on\": [";
    for (size_t i = 0; i < rests_on.size(); i++) o << (i ? ", " : "") << json_string(rests_on[i]);
    o << "]";
    if (!passes.empty()) {
        o << ", \"passes\": [";
        for (size_t i = 0; i < passes.size(); i++)
            o << (i ? ", " : "") << "{\"pass\": " << json_string(passes[i].pass)
              << ", \"verdict\": " << json_string(verdict_name(passes[i].verdict))
              << ", \"detail\": " << json_string(passes[i].detail) << "}";
        o << "], \"first_refuted_pass\": " << json_string(first_refuted_pass);
    }
    o << "}\n";
    return o.str();
}

}  // namespace tessera
