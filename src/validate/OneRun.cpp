#include "validate/OneRun.h"

#include <algorithm>
#include <cstring>
#include <exception>

#include "ir/IRPrinter.h"
#include "semantics/IRInterpreter.h"
#include "tessera/Error.h"
#include "validate/Isl.h"
#include "validate/LoopNest.h"

namespace tessera::validator {

using namespace ir;

std::optional<OneRun> at_one_run(const LoweredPipeline &p, const StructureOptions &options, RunKind kind) {
    IslContext ctx(options.max_operations);
    try {
        LoopNest nest = loop_nest_of(ctx, p, [](const Statement &) { return false; });
        const Isl<isl_set> context = full_context(nest);
        if (isl_set_is_empty(context.get()) != isl_bool_false) return std::nullopt;
        // Windows and buffers of at least one point: a run with an empty window shows
        // nothing.
        Isl<isl_set> runs = context;
        for (isl_size i = 0, n = isl_set_dim(runs.get(), isl_dim_param); i < n; i++) {
            const char *name = isl_set_get_dim_name(runs.get(), isl_dim_param, unsigned(i));
            if (name && std::strstr(name, ".extent.") && !nest.products.exprs.count(name))
                runs = check(param_within(runs.release(), i, 1, INT32_MAX), "a run");
        }
        Isl<isl_point> run;
        if (kind == RunKind::Small) {
            run = small_sample(runs, "a run");
        } else {
            // Windows near the origin; each dimension's extents near a value of their own
            // (sizes that differ from one dimension to the next show what equal ones hide:
            // a loop divided by the wrong one of two extents), or large ones (a mistake
            // at the far end of a fixed RDom shows only in a window that reaches it).
            const isl_size n = isl_set_dim(runs.get(), isl_dim_param);
            for (long radius : {4L, 32L}) {
                isl_set *box = runs.copy();
                for (isl_size i = 0; i < n; i++) {
                    const char *name = isl_set_get_dim_name(box, isl_dim_param, unsigned(i));
                    if (!name || nest.products.exprs.count(name)) continue;
                    long lo = 0, hi = 0;
                    if (std::strstr(name, ".min.")) {
                        lo = -radius;
                        hi = radius;
                    } else if (const char *extent = std::strstr(name, ".extent.")) {
                        const long target = kind == RunKind::Spread ? 8 + 17 * std::atol(extent + std::strlen(".extent.")) : 64;
                        lo = std::max(1L, target - radius);
                        hi = target + (kind == RunKind::Spread ? radius : 0);
                    } else {
                        continue;
                    }
                    box = param_within(box, i, lo, hi);
                }
                Isl<isl_set> boxed(box);
                if (boxed && isl_set_is_empty(boxed.get()) == isl_bool_false) {
                    run = check(isl_set_sample_point(boxed.release()), "a run");
                    break;
                }
            }
            if (!run) return std::nullopt;
        }
        if (isl_point_is_void(run.get()) != isl_bool_false) return std::nullopt;
        if (!nest.products.exprs.empty() && !nest.products.realized_at(context, run)) return std::nullopt;
        OneRun one;
        LoweredPipeline &q = one.code;
        q = p;
        std::vector<Stmt> checks;
        std::string &words = one.words;
        const isl_size n = isl_set_dim(context.get(), isl_dim_param);
        for (isl_size i = 0; i < n; i++) {
            const char *name = isl_set_get_dim_name(context.get(), isl_dim_param, unsigned(i));
            auto type = name ? nest.parameters.find(name) : nest.parameters.end();
            if (type == nest.parameters.end() || nest.products.exprs.count(name)) continue;
            if (!(type->second.is_int() || type->second.is_uint()) || type->second.bits > 32) continue;
            Isl<isl_val> v(isl_point_get_coordinate_val(run.get(), isl_dim_param, int(i)));
            if (!v || isl_val_is_int(v.get()) != isl_bool_true) return std::nullopt;
            const Expr value = type->second.is_int() ? IntImm::make(type->second, isl_val_get_num_si(v.get()))
                                                     : UIntImm::make(type->second, uint64_t(isl_val_get_num_si(v.get())));
            q.body = LetStmt::make(name, value, q.body);
            checks.push_back(AssertStmt::make(EQ::make(Variable::make(type->second, name), value),
                                              {StringImm::make(std::string("the run with ") + name + " = " + to_string(value))}));
            words += (words.empty() ? "" : ", ") + std::string(name) + " = " + to_string(value);
            one.values[name] = isl_val_get_num_si(v.get());
        }
        if (words.empty()) return std::nullopt;
        for (auto c = checks.rbegin(); c != checks.rend(); ++c) q.body = Block::make(*c, q.body);
        return one;
    } catch (const Unsupported &) {
        return std::nullopt;
    }
}


namespace {

/** Fills a buffer with a fixed pattern of small values of its type. */
void fill(ir::BufferData &b) {
    int64_t count = 1;
    for (const ir::BufferDim &d : b.dims) count *= std::max<int64_t>(d.extent, 0);
    const Type t = b.type;
    const int bytes = (t.bits + 7) / 8;  // a bool takes a byte
    for (int64_t i = 0; i < count; i++) {
        const int64_t v = t.is_bool() ? i % 2 : (i * 7 + 3) % 17;
        uint8_t *at = b.host + i * bytes;
        if (t.is_float() && t.bits == 32) {
            const float f = float(v) / 17.0f;
            std::memcpy(at, &f, 4);
        } else if (t.is_float() && t.bits == 64) {
            const double f = double(v) / 17.0;
            std::memcpy(at, &f, 8);
        } else {
            std::memset(at, 0, size_t(bytes));
            std::memcpy(at, &v, size_t(std::min(bytes, 8)));  // little-endian
        }
    }
}

}  // namespace

std::string replay(const LoweredPipeline &p, const OneRun &run) {
    bool completed = false;
    return replay(p, run, completed, kMaxReplayStores);
}

std::string replay(const LoweredPipeline &p, const OneRun &run, bool &completed, int64_t max_stores) {
    completed = false;
    std::vector<semantics::ArgValue> args;
    try {
        for (const PipelineArgument &a : p.args) {
            if (a.kind == PipelineArgument::Kind::Param) {
                if (auto v = run.values.find(a.name); v != run.values.end()) {
                    args.push_back(semantics::ArgValue::of_int(v->second));
                } else {
                    if (!a.param) return "";
                    args.push_back(semantics::ArgValue::of_param(*a.param));
                }
                continue;
            }
            std::vector<int> sizes;
            int64_t elements = 1;
            for (int d = 0; d < a.dimensions; d++) {
                auto e = run.values.find(a.name + ".extent." + std::to_string(d));
                sizes.push_back(e == run.values.end() ? 1 : int(e->second));
                elements *= std::max(sizes.back(), 1);
                if (elements > kMaxReplayElements) return "";  // the run shows nothing in time
            }
            std::shared_ptr<ir::BufferData> b = tessera::detail::make_buffer(a.type, sizes, a.name);
            for (int d = 0; d < a.dimensions; d++)
                if (auto m = run.values.find(a.name + ".min." + std::to_string(d)); m != run.values.end())
                    b->dims[size_t(d)].min = int32_t(m->second);
            if (a.kind == PipelineArgument::Kind::InputBuffer) fill(*b);
            args.push_back(semantics::ArgValue::of_buffer(b));
        }
        semantics::RunOptions options;
        options.max_stores = max_stores;
        options.prophecy = true;
        semantics::run(p, args, options);
        completed = true;
    } catch (const InternalError &e) {
        // What the run shows of memory: a value of memory no store wrote in the window
        // (or an index or a condition computed from it), or an access outside its
        // storage; and of values, a store of another value than the reference
        // interpreter's at the point its annotation names (the prophecy check).
        const std::string what = e.what();
        if (what.find("poison") != std::string::npos || what.find("out of bounds") != std::string::npos ||
            what.find(semantics::kProphecyMismatch) != std::string::npos) {
            completed = true;
            return what;
        }
    } catch (const std::exception &) {
        // An entry check the run fails, the work limit, an argument the run cannot make:
        // the run shows nothing.
    }
    return "";
}

void confirm_bounds(const LoweredPipeline &p, const OneRun &run, CheckResult &bounds) {
    // A larger budget than other replays: whether a Refuted verdict stands is worth more
    // time than looking for one.
    bool completed = false;
    const std::string shown = replay(p, run, completed, 10 * kMaxReplayStores);
    if (!shown.empty()) {
        bounds.detail += "; confirmed by the IR interpreter, run at those sizes and parameters: " + shown;
    } else if (completed) {
        bounds.verdict = Verdict::Unknown;
        bounds.detail = "the polyhedral model finds " + bounds.detail +
                        "; but the IR interpreter, run at those sizes and parameters, reads nothing outside its "
                        "storage and no unwritten memory reaches the output: the model is not exact here";
    }
}

}  // namespace tessera::validator
