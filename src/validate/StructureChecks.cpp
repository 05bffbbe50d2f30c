#include "validate/StructureChecks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <set>
#include <sstream>

#include "ir/Function.h"
#include "tessera/Error.h"
#include "validate/Coverage.h"
#include "validate/LoopNest.h"
#include "validate/ValueCheck.h"

namespace tessera::validator {

using namespace ir;

namespace {

std::string val_string(isl_val *v) {
    char *s = isl_val_to_str(v);
    std::string r = s ? s : "?";
    free(s);
    isl_val_free(v);
    return r;
}

}  // namespace

/** "name = value, ..." for the parameters of a point of `set`, and its set coordinates
 * "(c0, c1, ...)" from `first` on, `count` of them. */
std::string describe_params(isl_set *set, isl_point *pt) {
    std::ostringstream o;
    const isl_size n = isl_set_dim(set, isl_dim_param);
    for (isl_size i = 0; i < n; i++) {
        const char *name = isl_set_get_dim_name(set, isl_dim_param, unsigned(i));
        o << (i ? ", " : "") << (name ? name : "?") << " = "
          << val_string(isl_point_get_coordinate_val(pt, isl_dim_param, int(i)));
    }
    return o.str();
}

/** The integer parameters of a point of `set`, by name. */
std::map<std::string, int64_t> point_params(isl_set *set, isl_point *pt) {
    std::map<std::string, int64_t> values;
    const isl_size n = isl_set_dim(set, isl_dim_param);
    for (isl_size i = 0; i < n; i++) {
        const char *name = isl_set_get_dim_name(set, isl_dim_param, unsigned(i));
        isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_param, int(i));
        if (name && v && isl_val_is_int(v) == isl_bool_true) values[name] = isl_val_get_num_si(v);
        isl_val_free(v);
    }
    return values;
}

std::string describe_coords(isl_point *pt, int first, int count) {
    std::ostringstream o;
    o << "(";
    for (int i = 0; i < count; i++)
        o << (i ? ", " : "") << val_string(isl_point_get_coordinate_val(pt, isl_dim_set, first + i));
    o << ")";
    return o.str();
}

/** A point of `set`, with small parameter values where there is one (every parameter
 * within [-64, 64], then [-4096, 4096]), so that a counterexample reads like a case a
 * user would try. */
Isl<isl_point> small_sample(const Isl<isl_set> &set, const char *what) {
    for (long bound : {64L, 4096L}) {
        Isl<isl_set> boxed(params_within(set.copy(), bound));
        if (boxed && isl_set_is_empty(boxed.get()) == isl_bool_false)
            return check(isl_set_sample_point(boxed.release()), what);
    }
    return check(isl_set_sample_point(set.copy()), what);
}

namespace {

/** Whether statement b runs in a's parallel loop k (the same loops up to and including k)
 * and writes the same storage: the pairs the race check compares. */
bool shares_parallel_loop(const Statement &a, const Statement &b, size_t k) {
    return b.loop_ids.size() > k && b.loop_ids[k] == a.loop_ids[k] && b.store->buffer == a.store->buffer;
}

/** What the race check compared, on the stores it looked at. */
struct RaceTally {
    int pairs = 0, benign = 0;
    std::set<int> parallel_loops;
};

/** The first race between a store `in_scope` says to look at and any store in the same
 * parallel loop (Unknown if one is not modelled), or Proved with `tally` filled. */
CheckResult check_races(const LoopNest &nest, const std::function<bool(const Statement &)> &in_scope, RaceTally &tally) {
    for (size_t i = 0; i < nest.statements.size(); i++) {
        const Statement &a = nest.statements[i];
        if (!in_scope(a)) continue;
        for (size_t k = 0; k < a.parallel.size(); k++) {
            // A parallel loop around the allocation: each iteration writes storage of its own.
            if (!a.parallel[k] || int(k) < a.loops_around_storage) continue;
            tally.parallel_loops.insert(a.loop_ids[k]);
            if (!a.writes)
                return {Verdict::Unknown, "statement S" + std::to_string(a.id) + " in parallel loop " + a.dims[k] +
                                              " is not modelled: " + a.unmodelled};
            if (!a.cells)
                return {Verdict::Unknown, "the cells that statement S" + std::to_string(a.id) + " in parallel loop " +
                                              a.dims[k] + " writes are not modelled: " + a.cells_unmodelled};
            for (size_t j = i; j < nest.statements.size(); j++) {
                const Statement &b = nest.statements[j];
                if (!shares_parallel_loop(a, b, k)) continue;
                if (!b.writes || !b.cells)
                    return {Verdict::Unknown, "statement S" + std::to_string(b.id) + " in parallel loop " + b.dims[k] +
                                                  " is not modelled: " + (b.writes ? b.cells_unmodelled : b.unmodelled)};
                tally.pairs++;
                // Instance pairs writing the same cell (a folded dimension makes different
                // points share cells), in one iteration of the loops outside k and
                // different iterations of k.
                Isl<isl_map> same = check(isl_map_apply_range(a.cells.copy(), isl_map_reverse(b.cells.copy())),
                                          "the instances writing one cell");
                // Two stores of the same point's final value (the definition of a Func
                // that has no update, or the final copy of an output) write the same value:
                // such overlaps are what a ShiftInwards split of a parallel loop does, and
                // are benign once each store is shown to write the algorithm's value.
                if (final_value(*a.provenance) && final_value(*b.provenance) && a.provenance->func == b.provenance->func) {
                    Isl<isl_map> same_point = check(isl_map_apply_range(a.writes.copy(), isl_map_reverse(b.writes.copy())),
                                                    "the instances writing one point");
                    same = check(isl_map_subtract(same.release(), same_point.release()), "a race");
                    tally.benign++;
                }
                same = check(isl_map_intersect_params(same.release(), nest.context.copy()), "a race");
                for (size_t m = 0; m < k; m++)
                    same = check(isl_map_equate(same.release(), isl_dim_in, int(m), isl_dim_out, int(m)), "a race");
                Isl<isl_map> lt = check(isl_map_order_lt(same.copy(), isl_dim_in, int(k), isl_dim_out, int(k)), "a race");
                Isl<isl_map> gt = check(isl_map_order_gt(same.release(), isl_dim_in, int(k), isl_dim_out, int(k)), "a race");
                Isl<isl_map> race = check(isl_map_union(lt.release(), gt.release()), "a race");
                const isl_bool empty = isl_map_is_empty(race.get());
                if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide a race");
                if (empty == isl_bool_true || empty_within_wide_ranges(nest, race)) continue;
                Isl<isl_set> pairs_set = check(isl_map_wrap(race.copy()), "a race");
                Isl<isl_point> pt = small_sample(pairs_set, "a race's example");
                const int na = int(a.dims.size()), nb = int(b.dims.size());
                std::string what = "iterations " + a.dims[k] + " = " + describe_coords(pt.get(), int(k), 1) + " and " +
                                   describe_coords(pt.get(), na + int(k), 1) + " of parallel loop " + a.dims[k] +
                                   " both write one cell of " + a.store->buffer + " (values of " +
                                   a.provenance->func_name() + " and " + b.provenance->func_name() + "; statements S" +
                                   std::to_string(a.id) + " at " + describe_coords(pt.get(), 0, na) + " and S" +
                                   std::to_string(b.id) + " at " + describe_coords(pt.get(), na, nb) + "), with " +
                                   describe_params(pairs_set.get(), pt.get());
                return refuted_unless_unmodelled(nest, what);
            }
        }
    }
    return {Verdict::Proved, ""};
}

std::string races_proved(const RaceTally &t) {
    if (t.parallel_loops.empty()) return "no parallel loop";
    return "no two iterations of the " + std::to_string(t.parallel_loops.size()) +
           " parallel loop(s) write one cell with different values (" + std::to_string(t.pairs) +
           " pair(s) of stores compared, " + std::to_string(t.benign) +
           " of them storing final values, which agree where they write the same point)";
}

/** The first access of a store `in_scope` says to look at that leaves its storage's
 * region, or Proved with `checked` counting the accesses. */
CheckResult check_bounds(const LoopNest &nest, const std::function<bool(const Statement &)> &in_scope, int &checked,
                         std::map<std::string, int64_t> *run) {
    for (const Statement &s : nest.statements) {
        if (!in_scope(s) || !s.writes) continue;  // not looked at
        for (const Statement::Access &a : s.accesses) {
            if (!a.outside)
                return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " " + a.what +
                                              ", and where is not modelled: " + a.unmodelled};
            checked++;
            Isl<isl_set> outside = check(isl_set_intersect_params(a.outside.copy(), nest.context.copy()), "a bound");
            const isl_bool empty = isl_set_is_empty(outside.get());
            if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide a bound");
            if (empty == isl_bool_true || empty_within_wide_ranges(nest, outside)) continue;
            Isl<isl_point> pt = small_sample(outside, "an example");
            std::string what = "statement S" + std::to_string(s.id) + " (a store of " + s.provenance->func_name() + ") " +
                               a.what + " outside its region at " + describe_coords(pt.get(), 0, int(s.dims.size())) +
                               ", with " + describe_params(outside.get(), pt.get());
            *run = point_params(outside.get(), pt.get());
            return refuted_unless_unmodelled(nest, what);
        }
    }
    return {Verdict::Proved, ""};
}

std::string bounds_proved(int checked) {
    return "the " + std::to_string(checked) + " access(es) of the stores looked at stay inside their storage's region";
}

}  // namespace

CheckResult refuted_unless_unmodelled(const LoopNest &nest, const std::string &counterexample) {
    if (nest.unmodelled_assertions.empty()) return {Verdict::Refuted, counterexample};
    return {Verdict::Unknown, counterexample + ", unless an assertion not modelled rules it out; " +
                                  std::to_string(nest.unmodelled_assertions.size()) +
                                  " assertion(s) are not in the context, the first: " + nest.unmodelled_assertions.front()};
}

namespace {

/** The checks of one part of the stores (a range of them in program order), on a loop
 * nest of its own: the part's stores modelled, with the stores their checks need (those
 * writing what they load, those in their parallel loops). */
struct Part {
    std::function<bool(const Statement &)> mine;    // the stores checked
    std::function<bool(const Statement &)> wanted;  // the stores modelled
    bool coverage = false;                          // checks coverage
    bool final_values = false;                      // checks the output's final values
    int size = 0;                                   // stores modelled (about)
};

struct PartReport {
    CheckResult built{Verdict::Proved, ""};
    CheckResult coverage, races, bounds, values;
    RaceTally race_tally;
    int bounds_checked = 0;
    ValueTally value_tally;
    int statements = 0, modelled = 0;
    std::vector<std::string> unmodelled, unmodelled_assertions;
    std::map<std::string, int64_t> values_run, bounds_run;
};

PartReport check_part(const LoweredPipeline &p, const StructureOptions &options, const Part &part,
                      const std::function<void(const std::string &)> &step, const std::function<void()> &store_done,
                      const std::function<bool()> &cancelled) {
    IslContext ctx(options.max_operations);
    PartReport r;
    // Each step within the operation limit; a step that reaches it answers Unknown.
    auto guarded = [&](auto f) -> CheckResult {
        ctx.reset_operations();
        try {
            return f();
        } catch (const Unsupported &u) {
            return {Verdict::Unknown, ctx.exhausted() ? std::string("the operation limit was reached") : std::string(u.what())};
        } catch (const InternalError &e) {
            // A bug of the validator's: the pipeline is not the cause, so it gets no verdict.
            return {Verdict::Unknown, std::string("an internal error of the validator (please report): ") + e.what()};
        }
    };
    LoopNest nest;
    step("modelling the loop nest");
    r.built = guarded([&] {
        nest = loop_nest_of(ctx, p, part.wanted);
        return CheckResult{Verdict::Proved, ""};
    });
    if (r.built.verdict != Verdict::Proved) return r;
    for (const Statement &s : nest.statements) {
        if (!part.mine(s)) continue;
        r.statements++;
        if (s.writes) r.modelled++;
        else r.unmodelled.push_back("S" + std::to_string(s.id) + " (a store to " + s.store->buffer + "): " + s.unmodelled);
    }
    r.unmodelled_assertions = nest.unmodelled_assertions;
    if (part.coverage) {
        step("checking coverage");
        r.coverage = guarded([&] { return check_coverage(ctx, p, nest); });
    }
    step("checking races");
    r.races = guarded([&] { return check_races(nest, part.mine, r.race_tally); });
    step("checking bounds");
    r.bounds = guarded([&] { return check_bounds(nest, part.mine, r.bounds_checked, &r.bounds_run); });
    step("checking values");
    // Every store to the output, modelled where the part's nest leaves some out, for what
    // the output holds after the pipeline.
    const PipelineArgument *out = output_buffer(p);
    const std::string output = out ? out->name : "";
    bool all_outputs = true;
    for (const Statement &s : nest.statements) all_outputs = all_outputs && (s.store->buffer != output || part.wanted(s));
    std::unique_ptr<LoopNest> outputs;
    ValueCheckScope scope;
    scope.checks = part.mine;
    scope.final_values = part.final_values;
    scope.store_done = store_done;
    scope.cancelled = cancelled;
    scope.output_writers = [&]() -> const LoopNest & {
        if (all_outputs) return nest;
        if (!outputs)
            outputs = std::make_unique<LoopNest>(
                loop_nest_of(ctx, p, [&](const Statement &s) { return s.store->buffer == output; }));
        return *outputs;
    };
    r.values = guarded([&] { return check_values(ctx, p, nest, options.rlimit, &r.values_run, scope, &r.value_tally); });
    return r;
}

/** The stores split into parts whose checks run at once, each on a loop nest of its own
 * (isl objects belong to one context, which one thread uses): the stores of each
 * outermost loop (with the stores outside loops before it), whose allocations are its own,
 * so that few stores are modelled in two parts; ranges in program order, so that the first
 * store a check fails on is the same as in one part. Each part's nest, and so its results,
 * are the same whichever thread runs it and however many cores the machine has. A part
 * has at least kMinStoresPerPart stores (a smaller group joins the next); a pipeline of
 * fewer stores is one part. */
constexpr size_t kMinStoresPerPart = 4;
constexpr size_t kMaxSharedWriters = 2;

/** The stores, unmodelled (their loops, storage and loads, which the parts are made of),
 * with the isl context their nest's sets belong to: declared first, it outlives them. */
struct Plan {
    explicit Plan(unsigned long max_operations) : ctx(max_operations) {}
    IslContext ctx;
    LoopNest nest;
};

std::vector<Part> parts_of(const LoweredPipeline &p, const StructureOptions &options, int &stores) {
    auto plan = std::make_shared<Plan>(options.max_operations);
    const auto all = [](const Statement &) { return true; };
    try {
        plan->nest = loop_nest_of(plan->ctx, p, [](const Statement &) { return false; });
    } catch (const std::exception &) {
        plan->nest.statements.clear();
    }
    const std::vector<Statement> &planned = plan->nest.statements;
    const size_t n = planned.size();
    stores = int(n);
    // Ranges [first, last) of statement ids.
    std::vector<std::pair<int, int>> ranges;
    auto outermost = [&](size_t i) { return planned[i].loop_ids.empty() ? -1 : planned[i].loop_ids[0]; };
    for (size_t i = 0; i < n; i++) {
        const bool joins = !ranges.empty() && (outermost(i) == outermost(i - 1) || outermost(i - 1) < 0 ||
                                               size_t(ranges.back().second - ranges.back().first) < kMinStoresPerPart);
        if (joins) ranges.back().second = int(i) + 1;
        else ranges.push_back({int(i), int(i) + 1});
    }
    if (ranges.size() > 1 && size_t(ranges.back().second - ranges.back().first) < kMinStoresPerPart) {
        ranges[ranges.size() - 2].second = ranges.back().second;
        ranges.pop_back();
    }
    // A part that loads what more than kMaxSharedWriters stores of other parts write joins
    // the part before it (until it does not): those stores would be modelled, and their
    // last writes computed, twice. Small tables (a kernel's weights) stay shared.
    auto loaded_by = [&](const std::pair<int, int> &range) {
        std::set<std::string> loaded;
        for (int i = range.first; i < range.second; i++)
            loaded.insert(planned[size_t(i)].loaded.begin(), planned[size_t(i)].loaded.end());
        return loaded;
    };
    auto foreign_writers = [&](const std::pair<int, int> &range) {
        const std::set<std::string> loaded = loaded_by(range);
        size_t count = 0;
        for (size_t i = 0; i < n; i++)
            if ((int(i) < range.first || int(i) >= range.second) && loaded.count(planned[i].store->buffer)) count++;
        return count;
    };
    for (size_t k = 1; k < ranges.size();) {
        if (foreign_writers(ranges[k]) > kMaxSharedWriters) {
            ranges[k - 1].second = ranges[k].second;
            ranges.erase(ranges.begin() + long(k));
            k = std::max<size_t>(k - 1, 1);
        } else {
            k++;
        }
    }
    if (ranges.size() < 2) return {Part{all, all, true, true, int(n)}};
    const PipelineArgument *out = output_buffer(p);
    const std::string output = out ? out->name : "";
    std::vector<Part> parts;
    for (const auto &[first, last] : ranges) {
        Part part;
        part.mine = [first = first, last = last](const Statement &s) { return s.id >= first && s.id < last; };
        part.size = last - first;
        // The storages the part's stores load.
        auto loaded = std::make_shared<const std::set<std::string>>(loaded_by({first, last}));
        part.wanted = [plan, first = first, last = last, loaded](const Statement &s) {
            if (s.id >= first && s.id < last) return true;
            // Every store the part's loads may read.
            if (loaded->count(s.store->buffer)) return true;
            // The race check compares each of the part's stores with the later stores in
            // its parallel loops.
            for (int i = first; i < last && i <= s.id; i++) {
                const Statement &a = plan->nest.statements[size_t(i)];
                for (size_t k = size_t(std::max(a.loops_around_storage, 0)); k < a.parallel.size(); k++)
                    if (a.parallel[k] && shares_parallel_loop(a, s, k)) return true;
            }
            return false;
        };
        parts.push_back(std::move(part));
    }
    // Last, a part for what is about all the stores to the output: coverage, and the
    // output's final values (its results come after every store's, as in one part).
    Part outputs;
    outputs.mine = [](const Statement &) { return false; };
    outputs.wanted = [output](const Statement &s) { return s.store->buffer == output; };
    outputs.coverage = outputs.final_values = true;
    for (const Statement &s : planned) outputs.size += s.store->buffer == output ? 1 : 0;
    parts.push_back(std::move(outputs));
    return parts;
}

/** The first part whose result is not Proved (it has the first store, in program order,
 * that the check fails on), or none. */
const PartReport *first_not_proved(const std::vector<PartReport> &reports, CheckResult PartReport::*check) {
    for (const PartReport &r : reports)
        if ((r.*check).verdict != Verdict::Proved) return &r;
    return nullptr;
}

}  // namespace

StructureReport check_structure(const LoweredPipeline &p, const StructureOptions &options) {
    int stores = 0;
    const std::vector<Part> parts = parts_of(p, options, stores);
    std::mutex told;  // the progress reports, from every part
    std::set<std::string> steps;
    auto step = [&](const std::string &what) {
        std::lock_guard<std::mutex> lock(told);
        if (options.progress && steps.insert(what).second) options.progress(what);
    };
    // Progress for long checks: how many stores are done, at most every few seconds.
    int stores_done = 0;
    auto last_report = std::chrono::steady_clock::now();
    auto store_done = [&] {
        std::lock_guard<std::mutex> lock(told);
        stores_done++;
        if (options.progress && std::chrono::steady_clock::now() - last_report > std::chrono::seconds(3)) {
            options.progress("checking values: " + std::to_string(stores_done) + " of " + std::to_string(stores) + " stores done");
            last_report = std::chrono::steady_clock::now();
        }
    };
    std::vector<PartReport> reports(parts.size());
    // Two threads take the parts, the largest first, where the machine has the cores, else
    // one: the same results either way.
    std::vector<size_t> order(parts.size());
    for (size_t k = 0; k < order.size(); k++) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return parts[a].size > parts[b].size; });
    std::vector<std::exception_ptr> failed(parts.size());
    std::atomic<size_t> next{0};
    std::atomic<size_t> values_failed{parts.size()};  // the first part whose value check failed
    auto work = [&] {
        for (size_t i = next++; i < order.size(); i = next++) {
            const size_t k = order[i];
            try {
                // The value check of a part stops where a part of earlier stores (whose
                // result is the one reported) has failed.
                reports[k] = check_part(p, options, parts[k], step, store_done, [&, k] { return values_failed.load() < k; });
                if (reports[k].values.verdict != Verdict::Proved) {
                    size_t first = values_failed.load();
                    while (k < first && !values_failed.compare_exchange_weak(first, k)) {
                    }
                }
            } catch (...) {
                failed[k] = std::current_exception();
            }
        }
    };
    std::thread helper;
    if (parts.size() > 1 && std::thread::hardware_concurrency() > 1) helper = std::thread(work);
    work();
    if (helper.joinable()) helper.join();
    for (const std::exception_ptr &e : failed)
        if (e) std::rethrow_exception(e);

    StructureReport r;
    for (const PartReport &part : reports)
        if (part.built.verdict != Verdict::Proved) {
            r.coverage = r.races = r.bounds = r.values = {Verdict::Unknown, "the loop nest could not be modelled: " + part.built.detail};
            return r;
        }
    RaceTally races;
    int bounds = 0;
    ValueTally values;
    for (const PartReport &part : reports) {
        r.statements += part.statements;
        r.modelled += part.modelled;
        r.unmodelled.insert(r.unmodelled.end(), part.unmodelled.begin(), part.unmodelled.end());
        races.pairs += part.race_tally.pairs;
        races.benign += part.race_tally.benign;
        races.parallel_loops.insert(part.race_tally.parallel_loops.begin(), part.race_tally.parallel_loops.end());
        bounds += part.bounds_checked;
        values.stores += part.value_tally.stores;
        values.loads += part.value_tally.loads;
        values.cases += part.value_tally.cases;
        values.final_values = values.final_values || part.value_tally.final_values;
    }
    r.unmodelled_assertions = reports.front().unmodelled_assertions;
    for (size_t k = 0; k < parts.size(); k++)
        if (parts[k].coverage) r.coverage = reports[k].coverage;
    const PartReport *failed_races = first_not_proved(reports, &PartReport::races);
    r.races = failed_races ? failed_races->races : CheckResult{Verdict::Proved, races_proved(races)};
    const PartReport *failed_bounds = first_not_proved(reports, &PartReport::bounds);
    r.bounds = failed_bounds ? failed_bounds->bounds : CheckResult{Verdict::Proved, bounds_proved(bounds)};
    if (failed_bounds) r.bounds_run = failed_bounds->bounds_run;
    const PartReport *failed_values = first_not_proved(reports, &PartReport::values);
    r.values = failed_values ? failed_values->values
                             : values.stores == 0 ? CheckResult{Verdict::Unknown, "no store to check"}
                                                  : CheckResult{Verdict::Proved, values_proved(values)};
    if (failed_values) r.values_run = failed_values->values_run;
    return r;
}

}  // namespace tessera::validator
