#include "validate/StructureChecks.h"

#include <algorithm>
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

CheckResult check_races(const LoopNest &nest) {
    int pairs = 0, benign = 0;
    std::set<int> parallel_loops;
    for (size_t i = 0; i < nest.statements.size(); i++) {
        const Statement &a = nest.statements[i];
        for (size_t k = 0; k < a.parallel.size(); k++) {
            // A parallel loop around the allocation: each iteration writes storage of its own.
            if (!a.parallel[k] || int(k) < a.loops_around_storage) continue;
            parallel_loops.insert(a.loop_ids[k]);
            if (!a.writes)
                return {Verdict::Unknown, "statement S" + std::to_string(a.id) + " in parallel loop " + a.dims[k] +
                                              " is not modelled: " + a.unmodelled};
            if (!a.cells)
                return {Verdict::Unknown, "the cells that statement S" + std::to_string(a.id) + " in parallel loop " +
                                              a.dims[k] + " writes are not modelled: " + a.cells_unmodelled};
            for (size_t j = i; j < nest.statements.size(); j++) {
                const Statement &b = nest.statements[j];
                // b runs in the same parallel loop: the same loops up to and including k.
                if (b.loop_ids.size() <= k || b.loop_ids[k] != a.loop_ids[k]) continue;
                if (b.store->buffer != a.store->buffer) continue;
                if (!b.writes || !b.cells)
                    return {Verdict::Unknown, "statement S" + std::to_string(b.id) + " in parallel loop " + b.dims[k] +
                                                  " is not modelled: " + (b.writes ? b.cells_unmodelled : b.unmodelled)};
                pairs++;
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
                    benign++;
                }
                same = check(isl_map_intersect_params(same.release(), nest.context.copy()), "a race");
                for (size_t m = 0; m < k; m++)
                    same = check(isl_map_equate(same.release(), isl_dim_in, int(m), isl_dim_out, int(m)), "a race");
                Isl<isl_map> lt = check(isl_map_order_lt(same.copy(), isl_dim_in, int(k), isl_dim_out, int(k)), "a race");
                Isl<isl_map> gt = check(isl_map_order_gt(same.release(), isl_dim_in, int(k), isl_dim_out, int(k)), "a race");
                Isl<isl_map> race = check(isl_map_union(lt.release(), gt.release()), "a race");
                const isl_bool empty = isl_map_is_empty(race.get());
                if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide a race");
                if (empty == isl_bool_true) continue;
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
    if (parallel_loops.empty()) return {Verdict::Proved, "no parallel loop"};
    return {Verdict::Proved, "no two iterations of the " + std::to_string(parallel_loops.size()) +
                                 " parallel loop(s) write one cell with different values (" + std::to_string(pairs) +
                                 " pair(s) of stores compared, " + std::to_string(benign) +
                                 " of them storing final values, which agree where they write the same point)"};
}

CheckResult check_bounds(const LoopNest &nest, std::map<std::string, int64_t> *run) {
    int checked = 0;
    for (const Statement &s : nest.statements) {
        if (!s.writes) continue;  // not looked at
        for (const Statement::Access &a : s.accesses) {
            if (!a.outside)
                return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " " + a.what +
                                              ", and where is not modelled: " + a.unmodelled};
            checked++;
            Isl<isl_set> outside = check(isl_set_intersect_params(a.outside.copy(), nest.context.copy()), "a bound");
            const isl_bool empty = isl_set_is_empty(outside.get());
            if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide a bound");
            if (empty == isl_bool_true) continue;
            Isl<isl_point> pt = small_sample(outside, "an example");
            std::string what = "statement S" + std::to_string(s.id) + " (a store of " + s.provenance->func_name() + ") " +
                               a.what + " outside its region at " + describe_coords(pt.get(), 0, int(s.dims.size())) +
                               ", with " + describe_params(outside.get(), pt.get());
            *run = point_params(outside.get(), pt.get());
            return refuted_unless_unmodelled(nest, what);
        }
    }
    return {Verdict::Proved, "the " + std::to_string(checked) + " access(es) of the stores looked at stay inside their storage's region"};
}

}  // namespace

CheckResult refuted_unless_unmodelled(const LoopNest &nest, const std::string &counterexample) {
    if (nest.unmodelled_assertions.empty()) return {Verdict::Refuted, counterexample};
    return {Verdict::Unknown, counterexample + ", unless an assertion not modelled rules it out; " +
                                  std::to_string(nest.unmodelled_assertions.size()) +
                                  " assertion(s) are not in the context, the first: " + nest.unmodelled_assertions.front()};
}

StructureReport check_structure(const LoweredPipeline &p, const StructureOptions &options) {
    IslContext ctx(options.max_operations);
    StructureReport r;
    // Each step within the operation limit; a step that reaches it answers Unknown.
    auto guarded = [&](auto step) -> CheckResult {
        ctx.reset_operations();
        try {
            return step();
        } catch (const Unsupported &u) {
            return {Verdict::Unknown, ctx.exhausted() ? std::string("the operation limit was reached") : std::string(u.what())};
        } catch (const InternalError &e) {
            // A bug of the validator's: the pipeline is not the cause, so it gets no verdict.
            return {Verdict::Unknown, std::string("an internal error of the validator (please report): ") + e.what()};
        }
    };
    // Every store is modelled: the value check follows the values through storage.
    auto wanted = [](const Statement &) { return true; };
    LoopNest nest;
    if (options.progress) options.progress("modelling the loop nest");
    const CheckResult built = guarded([&] {
        nest = loop_nest_of(ctx, p, wanted);
        return CheckResult{Verdict::Proved, ""};
    });
    if (built.verdict != Verdict::Proved) {
        r.coverage = r.races = r.bounds = r.values = {Verdict::Unknown, "the loop nest could not be modelled: " + built.detail};
        return r;
    }
    for (const Statement &s : nest.statements) {
        if (!wanted(s)) continue;
        r.statements++;
        if (s.writes) r.modelled++;
        else r.unmodelled.push_back("S" + std::to_string(s.id) + " (a store to " + s.store->buffer + "): " + s.unmodelled);
    }
    r.unmodelled_assertions = nest.unmodelled_assertions;
    if (options.progress) options.progress("checking coverage");
    r.coverage = guarded([&] { return check_coverage(ctx, p, nest); });
    if (options.progress) options.progress("checking races");
    r.races = guarded([&] { return check_races(nest); });
    if (options.progress) options.progress("checking bounds");
    r.bounds = guarded([&] { return check_bounds(nest, &r.bounds_run); });
    if (options.progress) options.progress("checking values");
    r.values = guarded([&] { return check_values(ctx, p, nest, options.rlimit, &r.values_run, options.progress); });
    return r;
}

}  // namespace tessera::validator
