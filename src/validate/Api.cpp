// The validator's public interface (tessera/Validate.h): validate a Func or a .tsr
// pipeline, validation at compile time through the core library's hook, and the
// per-pass mode that finds the lowering pass that broke a proof.

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/Substitute.h"
#include "lower/Lower.h"
#include "lower/Pipeline.h"
#include "tessera/Validate.h"
#include "validate/AtlMeaning.h"
#include "validate/Specification.h"
#include "validate/Validate.h"

namespace tessera {

namespace {

bool passes_requested_by_environment() {
    const char *v = std::getenv("TESSERA_VALIDATE_PASSES");
    return v && *v && std::string(v) != "0";
}

/** The variables that entry checks fix to a constant (`B.stride.0 == 1`: dimension 0 of
 * every buffer is dense), with their constants. The code an early pass leaves may still
 * read such a variable where the final code has the constant; under the entry checks the
 * two are the same code, and the validator's model of flat indices reads the final form. */
std::map<std::string, Expr> fixed_by(const std::vector<Expr> &checks) {
    std::map<std::string, Expr> fixed;
    std::function<void(const Expr &)> walk = [&](const Expr &c) {
        if (const ir::And *a = ir::as<ir::And>(c)) {
            walk(a->a);
            walk(a->b);
        } else if (const ir::EQ *eq = ir::as<ir::EQ>(c)) {
            for (const auto &[var, value] : {std::pair{eq->a, eq->b}, std::pair{eq->b, eq->a}})
                if (const ir::Variable *v = ir::as<ir::Variable>(var); v && (ir::as<ir::IntImm>(value) || ir::as<ir::UIntImm>(value)))
                    fixed[v->name] = value;
        }
    };
    for (const Expr &c : checks) walk(c);
    return fixed;
}

/** Lowers the pipeline computing `f` and validates the result (and, in the per-pass mode,
 * the code after each pass from storage flattening on) against f's algorithm, or against
 * `specification` where one is given (src/validate/Specification.h). `name` names the
 * report. */
ValidationReport validate_pipeline(const std::shared_ptr<ir::FunctionData> &f, const std::string &name,
                                   const ValidateOptions &options,
                                   const std::shared_ptr<ir::FunctionData> &specification = nullptr) {
    if (!f) throw CompileError("Can't validate an undefined Func");
    if (!f->defined()) throw CompileError("Can't validate Func \"" + f->name + "\": it has no definition");
    // Before lowering, so that a mistake in them is reported at once.
    const std::vector<Expr> assumptions = validator::checked_assumptions(f->name, f->dimensions(), options.assumptions);
    auto progress = [&](const std::string &what) {
        if (options.on_progress) options.on_progress(what);
    };
    validator::StructureOptions structure;
    structure.max_operations = options.max_operations;
    structure.rlimit = options.rlimit;
    structure.progress = options.on_progress;

    f->frozen = true;  // as compiling would: no update may follow
    lower::LowerOptions lowering;
    lowering.contract_floats = options.contract_floats;
    std::vector<std::pair<std::string, ir::LoweredPipeline>> snapshots;
    if (options.after_each_pass || passes_requested_by_environment())
        lowering.after_pass = [&](const ir::LoweredPipeline &code, const char *pass) { snapshots.emplace_back(pass, code); };
    progress("lowering " + f->name);
    auto checked = [&](const ir::LoweredPipeline &c) {
        return specification ? validator::against_specification(c, specification) : c;
    };
    const ir::LoweredPipeline lowered = lower::lower(f, lowering);
    const ir::LoweredPipeline code = checked(lowered);
    progress("validating " + name);
    ValidationReport r = validator::validate_lowered(code, structure, assumptions);
    // Lowering's last pass puts the shapes of Buffers read in the compiled code as
    // constants, after the code validated here (whose buffer strides stay variables: they
    // say which dimension an index term is of).
    if (options.fixed_buffer_shapes)
        r.rests_on.push_back("the compiled code has the shapes of the Buffers it reads as constants, checked on entry, "
                             "in place of the variables of the code validated (src/lower/SpecializeBufferShapes.cpp)");
    if (specification)
        r.rests_on.insert(r.rests_on.begin(), "checked against the specification Func \"" + specification->name +
                                                  "\" instead of the pipeline's own algorithm");
    if (!snapshots.empty()) {
        // The code each pass leaves is judged on the runs the compiled pipeline accepts:
        // under its entry checks, some of which a later pass adds (the buffer checks that
        // keep coordinates in the int32 range and make dimension 0 dense, which the model
        // of the code relies on).
        const std::optional<std::vector<Expr>> read = validator::entry_assertions(code, structure);
        const std::vector<Expr> final_checks = read ? *read : std::vector<Expr>{};
        const std::map<std::string, Expr> fixed = fixed_by(final_checks);
        for (auto &[pass, snapshot] : snapshots) {
            ValidationReport v = r;
            const bool final_code = snapshot.body.same_as(lowered.body);  // what the last pass leaves
            if (!final_code && !read) {
                // Without the final code's entry checks an early pass would be judged on
                // runs the pipeline rejects: no verdict.
                v.verdict = Verdict::Unknown;
                v.checks.clear();
            } else if (!final_code) {
                progress("validating the code after the pass \"" + pass + "\"");
                snapshot.body = ir::substitute(fixed, snapshot.body);
                for (auto c = final_checks.rbegin(); c != final_checks.rend(); ++c)
                    snapshot.body = ir::Block::make(
                        ir::AssertStmt::make(*c, {ir::StringImm::make("entry check of the compiled code")}), snapshot.body);
                v = validator::validate_lowered(checked(snapshot), structure, assumptions);
            }
            PassVerdict pv;
            pv.pass = pass;
            pv.verdict = v.verdict;
            for (const NamedCheck &c : v.checks)
                if (c.verdict == Verdict::Refuted && pv.detail.empty()) pv.detail = c.name + ": " + c.detail;
            r.passes.push_back(pv);
        }
        for (size_t i = 0; i < r.passes.size(); i++)
            if (r.passes[i].verdict == Verdict::Refuted && (i == 0 || r.passes[i - 1].verdict != Verdict::Refuted)) {
                r.first_refuted_pass = r.passes[i].pass;
                break;
            }
    }
    r.pipeline = name;
    return r;
}

/** The reasons a report is not Proved, one per line, for messages. */
std::string reasons(const ValidationReport &r, Verdict which) {
    std::string o;
    for (const NamedCheck &c : r.checks)
        if (c.verdict == which) o += "\n  " + c.name + ": " + c.detail;
    if (!r.first_refuted_pass.empty()) o += "\n  first refuted after the lowering pass \"" + r.first_refuted_pass + "\"";
    return o;
}

}  // namespace

ValidationReport validate(const Func &output, const ValidateOptions &options) {
    return validate_pipeline(output.data(), output.data() ? output.data()->name : std::string(), options);
}

ValidationReport validate(const Func &output, const Func &specification, const ValidateOptions &options) {
    if (!specification.data() || !specification.data()->defined())
        throw CompileError("Can't validate against a specification that is an undefined Func");
    specification.data()->frozen = true;
    return validate_pipeline(output.data(), output.data() ? output.data()->name : std::string(), options, specification.data());
}

ValidationReport validate(const Program &pipeline, const ValidateOptions &options) {
    const std::shared_ptr<ir::FunctionData> &f = pipeline.output.data();
    return validate_pipeline(f, pipeline.name.empty() && f ? f->name : pipeline.name, options);
}

ValidationReport validate(const atl::Program &program, const ValidateOptions &options) {
    ValidationReport r = validate(program.output(), options);
    if (options.on_progress) options.on_progress("atl lowering");
    r.checks.insert(r.checks.begin(), validator::check_atl_lowering(program, options));
    r.verdict = validator::overall_verdict(r.checks);
    r.rests_on.push_back("ATL's meaning is the reference interpreter's (src/atl/Interpret.cpp), over the reals: sums "
                         "are compared as terms, not in float rounding");
    return r;
}

ValidationReport validate(const atl::Derivation &derivation, const ValidateOptions &options) {
    if (options.on_progress) options.on_progress("atl rewrites");
    NamedCheck rewrites = validator::check_atl_derivation(derivation, options);
    ValidationReport r;
    try {
        r = validate(atl::Program(derivation.program()), options);
    } catch (const CompileError &e) {
        // A wrong derivation may not even lower (a truncation that now cuts live data):
        // the refutation says why; otherwise the error is the user's to see.
        if (rewrites.verdict != Verdict::Refuted) throw;
        r.pipeline = "atl";
        r.rests_on.push_back(std::string("the derived program was not lowered: ") + e.what());
    }
    r.checks.insert(r.checks.begin(), rewrites);
    r.verdict = validator::overall_verdict(r.checks);
    return r;
}

namespace {

Expr output_bound(const Func &output, int dim, const char *which) {
    // Only the Func's data is read here: the validator is a layer below the front-end.
    const std::shared_ptr<ir::FunctionData> &f = output.data();
    if (!f || !f->defined()) throw CompileError(std::string("output_") + which + " of a Func that has no definition");
    if (dim < 0 || dim >= f->dimensions())
        throw CompileError(std::string("output_") + which + "(" + f->name + ", " + std::to_string(dim) + "): Func \"" +
                           f->name + "\" has " + std::to_string(f->dimensions()) + " dimensions");
    // The output buffer's field, as lowered code names it (src/ir/LoweredPipeline.h).
    return std::string(which) == "min" ? lower::buffer_min(f->name, dim) : lower::buffer_extent(f->name, dim);
}

}  // namespace

Expr output_min(const Func &output, int dim) { return output_bound(output, dim, "min"); }
Expr output_extent(const Func &output, int dim) { return output_bound(output, dim, "extent"); }

namespace detail {

void validate_when_compiled(const Func &output, const ValidateOptions &options) {
    const ValidationReport r = validate(output, options);
    if (options.on_report) options.on_report(r);
    const std::string func = "Func \"" + output.data()->name + "\"";
    if (r.verdict == Verdict::Refuted)
        throw CompileError("The compiled code of " + func +
                           " does not compute what its algorithm defines (translation validation refuted it):" +
                           reasons(r, Verdict::Refuted));
    if (r.verdict == Verdict::Unknown) {
        if (options.strict)
            throw CompileError("Translation validation could not prove the compiled code of " + func +
                               " (validation is strict):" + reasons(r, Verdict::Unknown));
        if (!options.on_report)
            std::fprintf(stderr, "tessera: validation of %s: Unknown%s\n", func.c_str(), reasons(r, Verdict::Unknown).c_str());
    }
}

}  // namespace detail

}  // namespace tessera
