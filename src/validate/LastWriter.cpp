#include "validate/LastWriter.h"

#include <algorithm>

namespace tessera::validator {

namespace {

/** The number of dimensions of the common schedule space T: 2d + 1 for the deepest
 * statement's d loops. */
int schedule_dims(const LoopNest &nest) {
    size_t loops = 0;
    for (const Statement &s : nest.statements) loops = std::max(loops, s.positions.size() - 1);
    return int(2 * loops + 1);
}

/** { S[i] -> T[position_0, i_0, position_1, i_1, ..., position_d, 0, ...] } on S's domain:
 * its instances in program order (a vector store's lanes at one time). */
Isl<isl_map> schedule_of(const Statement &s, int dims) {
    isl_space *space = isl_space_add_dims(isl_space_from_domain(isl_set_get_space(s.domain.get())), isl_dim_out, unsigned(dims));
    isl_map *m = isl_map_universe(isl_space_set_tuple_name(space, isl_dim_out, "T"));
    const int loops = int(s.positions.size()) - 1;
    for (int k = 0; k < loops; k++) {
        m = isl_map_fix_si(m, isl_dim_out, unsigned(2 * k), s.positions[size_t(k)]);
        m = isl_map_equate(m, isl_dim_in, k, isl_dim_out, 2 * k + 1);
    }
    m = isl_map_fix_si(m, isl_dim_out, unsigned(2 * loops), s.positions.back());
    for (int t = 2 * loops + 1; t < dims; t++) m = isl_map_fix_si(m, isl_dim_out, unsigned(t), 0);
    return check(isl_map_intersect_domain(m, s.domain.copy()), "a schedule");
}

/** The number of loops two statements share (the same loop statements, outermost first). */
size_t shared_loops(const Statement &a, const Statement &b) {
    size_t n = 0;
    while (n < a.loop_ids.size() && n < b.loop_ids.size() && a.loop_ids[n] == b.loop_ids[n]) n++;
    return n;
}

bool is_empty(const Isl<isl_map> &m) {
    const isl_bool e = isl_map_is_empty(m.get());
    if (e == isl_bool_error) throw Unsupported("the polyhedral library could not decide an emptiness");
    return e == isl_bool_true;
}

}  // namespace

std::vector<ReadSources> last_writers(IslContext &ctx, const LoopNest &nest, const Statement &s) {
    const int tdims = schedule_dims(nest);
    const Isl<isl_map> reader_schedule = schedule_of(s, tdims);
    std::vector<ReadSources> result;
    for (const Statement::Read &read : s.reads) {
        std::vector<const Statement *> writers;
        for (const Statement &w : nest.statements)
            if (w.store->buffer == read.buffer) writers.push_back(&w);
        if (writers.empty()) continue;  // an input of the pipeline
        ReadSources r;
        r.read = &read;
        result.push_back(std::move(r));
        ReadSources &sources = result.back();
        if (!read.cells) {
            sources.unknown = "the cells read from " + read.buffer + " are not modelled: " + read.unmodelled;
            continue;
        }
        ctx.reset_operations();
        // For each writer: the pairs (reader instance, earlier writer instance) on one cell,
        // in the same allocation of the storage and the same iteration of the parallel loops
        // around both; then their times in the common schedule space.
        std::vector<std::pair<const Statement *, Isl<isl_map>>> candidates;
        Isl<isl_map> times;
        for (const Statement *w : writers) {
            if (!w->cells) {
                sources.unknown = "the cells statement S" + std::to_string(w->id) + " writes in " + read.buffer +
                                  " are not modelled: " + (w->writes ? w->cells_unmodelled : w->unmodelled);
                break;
            }
            const size_t shared = shared_loops(s, *w);
            const int allocation = w->loops_around_storage;
            if (size_t(allocation) > shared) throw Unsupported("the storage " + read.buffer + " is allocated inside a loop the reader is not in");
            Isl<isl_map> pairs = check(isl_map_apply_range(read.cells.copy(), isl_map_reverse(w->cells.copy())), "the writes of a cell");
            pairs = check(isl_map_intersect_params(pairs.release(), nest.context.copy()), "the writes of a cell");
            for (int k = 0; k < allocation; k++) pairs = check(isl_map_equate(pairs.release(), isl_dim_in, k, isl_dim_out, k), "one allocation");
            for (size_t k = size_t(allocation); k < shared; k++) {
                if (!s.parallel[k]) continue;
                Isl<isl_map> same_outside = pairs;
                for (size_t m = size_t(allocation); m < k; m++)
                    same_outside = check(isl_map_equate(same_outside.release(), isl_dim_in, int(m), isl_dim_out, int(m)), "one iteration");
                Isl<isl_map> other = check(isl_map_union(isl_map_order_lt(same_outside.copy(), isl_dim_in, int(k), isl_dim_out, int(k)),
                                                         isl_map_order_gt(same_outside.copy(), isl_dim_in, int(k), isl_dim_out, int(k))),
                                           "another iteration");
                if (!is_empty(other)) sources.races.push_back({w, s.dims[k], std::move(other)});
                pairs = check(isl_map_equate(pairs.release(), isl_dim_in, int(k), isl_dim_out, int(k)), "one iteration");
            }
            if (!sources.unknown.empty()) break;
            const Isl<isl_map> writer_schedule = schedule_of(*w, tdims);
            pairs = check(isl_map_intersect(pairs.release(), isl_map_lex_gt_map(reader_schedule.copy(), writer_schedule.copy())),
                          "the earlier writes of a cell");
            if (is_empty(pairs)) continue;
            Isl<isl_map> t = check(isl_map_apply_range(pairs.copy(), writer_schedule.copy()), "the times of the writes");
            times = times ? check(isl_map_union(times.release(), t.release()), "the times of the writes") : std::move(t);
            candidates.emplace_back(w, std::move(pairs));
        }
        if (!sources.unknown.empty()) continue;
        Isl<isl_set> reading = check(isl_set_intersect_params(isl_map_domain(read.cells.copy()), nest.context.copy()), "the reads");
        if (!times) {
            sources.unwritten = std::move(reading);
            continue;
        }
        // The last write before each read, and which store made it.
        Isl<isl_map> last = check(isl_map_lexmax(times.release()), "the last writes");
        sources.unwritten = check(isl_set_subtract(reading.release(), isl_map_domain(last.copy())), "the unwritten reads");
        sources.unwritten = check(isl_set_gist(sources.unwritten.release(), isl_set_intersect_params(s.domain.copy(), nest.context.copy())),
                                  "the unwritten reads");
        for (auto &[w, pairs] : candidates) {
            Isl<isl_map> at_last = check(isl_map_apply_range(last.copy(), isl_map_reverse(schedule_of(*w, tdims).release())),
                                         "the last writes");
            Isl<isl_map> instances = check(isl_map_coalesce(isl_map_intersect(pairs.release(), at_last.release())), "the last writer");
            if (is_empty(instances)) continue;
            const isl_bool single = isl_map_is_single_valued(instances.get());
            if (single == isl_bool_error) throw Unsupported("the polyhedral library could not decide a last writer");
            if (single != isl_bool_true) {
                sources.unknown = "lanes of statement S" + std::to_string(w->id) + " write one cell of " + read.buffer + " at once";
                break;
            }
            sources.sources.push_back({w, std::move(instances)});
        }
    }
    return result;
}

}  // namespace tessera::validator
