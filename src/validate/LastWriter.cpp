#include "validate/LastWriter.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

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

/** Whether some instance i has i -> i in `m` (a relation of a statement's instances to
 * themselves, built from two of their functions). */
bool any_on_diagonal(const Isl<isl_map> &m) {
    Isl<isl_map> same = check(isl_map_intersect(m.copy(), isl_map_identity(isl_space_map_from_set(
                                                              isl_space_domain(isl_map_get_space(m.get()))))),
                              "an instance's own times");
    return !is_empty(same);
}

/** The lexicographic maximum (or minimum) of a relation, as isl_map_lexmax, computed on each basic
 * relation and then combined: on relations whose pieces each determine their maximum (a
 * loop nest's instances) isl's maximum of the union, which splits all the pieces at once,
 * can grow past the limit where this stays small. */
Isl<isl_map> lexopt_by_pieces(const Isl<isl_map> &m, bool max) {
    std::vector<Isl<isl_map>> pieces;
    isl_map_foreach_basic_map(
        m.get(),
        [](isl_basic_map *b, void *user) {
            static_cast<std::vector<Isl<isl_map>> *>(user)->emplace_back(isl_map_from_basic_map(b));
            return isl_stat_ok;
        },
        &pieces);
    Isl<isl_pw_multi_aff> last;
    for (const Isl<isl_map> &piece : pieces) {
        Isl<isl_pw_multi_aff> f = check(max ? isl_map_lexmax_pw_multi_aff(piece.copy()) : isl_map_lexmin_pw_multi_aff(piece.copy()),
                                        "the last writes");
        if (last)
            f = check(max ? isl_pw_multi_aff_union_lexmax(last.release(), f.release())
                          : isl_pw_multi_aff_union_lexmin(last.release(), f.release()),
                      "the last writes");
        last = std::move(f);
    }
    if (!last) return check(isl_map_empty(isl_map_get_space(m.get())), "the last writes");
    return check(isl_map_coalesce(isl_map_from_pw_multi_aff(last.release())), "the last writes");
}
Isl<isl_map> lexmax_by_pieces(const Isl<isl_map> &m) { return lexopt_by_pieces(m, true); }
Isl<isl_map> lexmin_by_pieces(const Isl<isl_map> &m) { return lexopt_by_pieces(m, false); }

/** `m` simplified on `domain` (isl's gist: equal to m on it, with fewer pieces, anything
 * outside). */
Isl<isl_map> simplified_on(Isl<isl_map> m, const Isl<isl_set> &domain) {
    return check(isl_map_coalesce(isl_map_gist_domain(m.release(), domain.copy())), "the last writer");
}

/** { S[i] -> key[i_E, c] }: an instance's values of the loops `shared` (those it has in
 * common with a reader that key the storage's cells), then the cell of `cells`. */
Isl<isl_map> keyed(const Isl<isl_map> &cells, const std::vector<int> &shared) {
    isl_space *space = isl_space_domain(isl_map_get_space(cells.get()));
    isl_map *loops = keep_dims(isl_map_identity(isl_space_map_from_set(space)), isl_dim_out, shared);
    isl_map *key = isl_map_flat_range_product(loops, cells.copy());
    return check(isl_map_set_tuple_name(key, isl_dim_out, "key"), "a cell's key");
}

}  // namespace

/** The last write of each unfolded cell of a storage, in one iteration of the loops that
 * key it (the allocation's, and others: last_writers_unfolded): the same for every load
 * of the storage. */
struct LastWriterCache::Entry {
    std::string failed;  // why it could not be computed (empty if it was)
    Isl<isl_map> last;   // { key -> T }
    /** Per writer (in the order of the nest's statements): { key -> W[j] }, the writer's
     * instance that makes the last write of the key, where it does. */
    std::vector<Isl<isl_map>> instance;
    /** Per writer: { W[j] -> T }, the time of the next write of the same cell (of the
     * folded storage itself) after instance j, or at its time by another lane; where there
     * is one. Until then, the cell holds what j wrote. */
    std::vector<Isl<isl_map>> next;
    /** { key -> F[x] }: where every writer stores final values of one Func F and the key
     * (loops and cell) says which point's, that point; null otherwise. */
    Isl<isl_map> point;
};

namespace {

/** The sources of a read of folded storage, through its unfolded cells (the cells before
 * the fold's modulo; src/validate/LoopNest.h). With the modulo, every earlier write of a
 * congruent row is a candidate, and the last of them, a lexicographic maximum over the
 * pairs of reader and writer instances, grows past the limit. Without it, the last write
 * of each unfolded cell (in one allocation of the storage) is a function of the cell
 * alone, computed once for all the loads of the storage; a read's source is that write if
 *   (1) it comes before the read, and
 *   (2) no other write of the read's cell comes between it and the read,
 * both emptiness checks. False, `sources` untouched, where a check fails or some read's
 * unfolded cell has no write: the caller computes the last writer of the cell itself. */
bool last_writers_unfolded(IslContext &ctx, const Statement &s, const Statement::Read &read, const LoopNest &nest,
                           const std::vector<const Statement *> &writers,
                           const std::function<Isl<isl_map>(const Statement &)> &schedule,
                           const Isl<isl_map> &reader_schedule, const Isl<isl_set> &hull, LastWriterCache &cache,
                           ReadSources &sources) {
    // Folded storage: keyed by the loops the allocation is in and the parallel loops
    // around both (the rows of a sliding window live across the other loops). Storage
    // that is not folded, where reader and writers share a serial loop inside the
    // allocation (a row computed again at every iteration, read in the same one): keyed
    // by every loop they share, so that the last write of a cell is the one of the read's
    // own iteration, if there is one (writes between the two are in that iteration too).
    const bool folded = bool(read.unfolded_cells);
    std::vector<int> shared;
    bool serial = false;  // whether a shared serial loop inside the allocation is among them
    for (size_t i = 0; i < writers.size(); i++) {
        const Statement &w = *writers[i];
        if (!w.cells || bool(w.unfolded_cells) != folded) return false;
        std::vector<int> e;
        for (size_t k = 0; k < shared_loops(s, w); k++) {
            const bool outer = int(k) < w.loops_around_storage || s.parallel[k];
            if (outer || !folded) e.push_back(int(k));
            serial = serial || !outer;
        }
        if (i > 0 && e != shared) return false;
        shared = std::move(e);
    }
    if (!folded && !serial) return false;
    auto unfolded = [&](const Isl<isl_map> &unfolded_cells, const Isl<isl_map> &cells) { return folded ? unfolded_cells : cells; };
    std::string name = read.buffer;
    for (int k : shared) name += " " + std::to_string(k);
    std::shared_ptr<LastWriterCache::Entry> &entry = cache.entries[name];
    if (!entry) {
        entry = std::make_shared<LastWriterCache::Entry>();
        ctx.reset_operations();
        try {
            Isl<isl_map> times;  // { key -> T }
            std::vector<Isl<isl_map>> keys, cells, schedules;  // per writer
            for (const Statement *w : writers) {
                keys.push_back(keyed(unfolded(w->unfolded_cells, w->cells), shared));
                cells.push_back(keyed(w->cells, shared));
                schedules.push_back(schedule(*w));
                Isl<isl_map> t = check(isl_map_apply_range(isl_map_reverse(keys.back().copy()), schedules.back().copy()),
                                       "the times of the writes");
                t = check(isl_map_intersect_params(t.release(), hull.copy()), "the times of the writes");
                times = times ? check(isl_map_union(times.release(), t.release()), "the times of the writes") : std::move(t);
            }
            entry->last = lexmax_by_pieces(times);
            bool finals = true;
            for (const Statement *w : writers)
                finals = finals && w->provenance && final_value(*w->provenance) &&
                         w->provenance->func == writers.front()->provenance->func;
            if (finals) {
                Isl<isl_map> point;
                for (size_t i = 0; i < writers.size(); i++) {
                    Isl<isl_map> p = check(isl_map_apply_range(isl_map_reverse(keys[i].copy()), writers[i]->writes.copy()),
                                           "the points of the cells");
                    point = point ? check(isl_map_union(point.release(), p.release()), "the points of the cells") : std::move(p);
                }
                point = check(isl_map_coalesce(isl_map_intersect_params(point.release(), hull.copy())), "the points of the cells");
                if (isl_map_is_single_valued(point.get()) == isl_bool_true) entry->point = std::move(point);
            }
            for (size_t i = 0; i < writers.size(); i++) {
                Isl<isl_map> at = check(isl_map_apply_range(entry->last.copy(), isl_map_reverse(schedules[i].copy())),
                                        "the last writer");
                at = check(isl_map_intersect(at.release(), isl_map_reverse(keys[i].copy())), "the last writer");
                entry->instance.push_back(check(isl_map_coalesce(at.release()), "the last writer"));
            }
            for (size_t i = 0; i < writers.size(); i++) {
                Isl<isl_map> after;  // { W[j] -> T }: the writes of the same cell at or after j's time, but j
                for (size_t k = 0; k < writers.size(); k++) {
                    Isl<isl_map> pairs = check(isl_map_apply_range(cells[i].copy(), isl_map_reverse(cells[k].copy())),
                                               "the writes of a cell");
                    pairs = check(isl_map_intersect_params(pairs.release(), hull.copy()), "the writes of a cell");
                    pairs = check(isl_map_intersect(pairs.release(), isl_map_lex_le_map(schedules[i].copy(), schedules[k].copy())),
                                  "the next writes of a cell");
                    if (k == i)
                        pairs = check(isl_map_subtract(pairs.release(), isl_map_identity(isl_space_map_from_set(
                                                                            isl_set_get_space(writers[i]->domain.get())))),
                                      "the next writes of a cell");
                    Isl<isl_map> t = check(isl_map_apply_range(pairs.release(), schedules[k].copy()), "the next writes of a cell");
                    after = after ? check(isl_map_union(after.release(), t.release()), "the next writes of a cell") : std::move(t);
                }
                entry->next.push_back(lexmin_by_pieces(after));
            }
        } catch (const Unsupported &u) {
            entry->failed = u.what();
        }
        ctx.reset_operations();
    }
    if (!entry->failed.empty()) return false;
    const Isl<isl_map> read_key = keyed(unfolded(read.unfolded_cells, read.cells), shared);
    Isl<isl_map> last_of_read = check(isl_map_apply_range(read_key.copy(), entry->last.copy()), "the last writes");  // { S -> T }
    last_of_read = check(isl_map_coalesce(isl_map_intersect_params(last_of_read.release(), hull.copy())), "the last writes");
    // (1) before the read.
    if (any_on_diagonal(check(isl_map_lex_le_map(reader_schedule.copy(), last_of_read.copy()), "the last writes"))) return false;
    // A read whose unfolded cell no store writes: none here (else the caller decides).
    Isl<isl_set> reading = check(isl_set_intersect_params(isl_map_domain(read.cells.copy()), hull.copy()), "the reads");
    Isl<isl_set> without = check(isl_set_subtract(reading.release(), isl_map_domain(last_of_read.copy())), "the unwritten reads");
    if (isl_set_is_empty(without.get()) != isl_bool_true) return false;
    std::vector<Source> found;
    Isl<isl_map> next_of_read;  // { S -> T }: the next write of the cell after the last write of the unfolded cell
    for (size_t i = 0; i < writers.size(); i++) {
        Isl<isl_map> instances = check(isl_map_apply_range(read_key.copy(), entry->instance[i].copy()), "the last writer");
        if (is_empty(instances)) continue;
        if (isl_map_is_single_valued(instances.get()) != isl_bool_true) return false;
        instances = simplified_on(std::move(instances), s.domain);
        Isl<isl_map> next = check(isl_map_apply_range(instances.copy(), entry->next[i].copy()), "the next writes");
        next_of_read = next_of_read ? check(isl_map_union(next_of_read.release(), next.release()), "the next writes") : std::move(next);
        found.push_back({writers[i], std::move(instances)});
    }
    // (2) the read comes before the next write of its cell.
    if (next_of_read &&
        any_on_diagonal(check(isl_map_lex_le_map(next_of_read.release(), reader_schedule.copy()), "the next writes")))
        return false;
    sources.unwritten = Isl<isl_set>();
    sources.sources = std::move(found);
    if (entry->point)
        sources.point = simplified_on(check(isl_map_apply_range(read_key.copy(), entry->point.copy()), "the point read"), s.domain);
    return true;
}

}  // namespace

std::vector<ReadSources> last_writers(IslContext &ctx, const LoopNest &nest, const Statement &s, LastWriterCache *cache) {
    LastWriterCache own;
    if (!cache) cache = &own;
    const int tdims = schedule_dims(nest);
    const Isl<isl_map> reader_schedule = schedule_of(s, tdims);
    auto schedule = [&](const Statement &w) { return schedule_of(w, tdims); };
    if (!nest.context_hull) throw Unsupported("the polyhedral library could not compute the context's hull");
    const Isl<isl_set> &hull = nest.context_hull;
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
        // For each writer: the pairs (reader instance, writer instance) on one cell, in the
        // same allocation of the storage and the same iteration of the parallel loops around
        // both (the writes of other iterations are races).
        ctx.reset_operations();
        std::vector<std::pair<const Statement *, Isl<isl_map>>> candidates;
        for (const Statement *w : writers) {
            if (!w->cells) {
                sources.unknown = "the cells statement S" + std::to_string(w->id) + " writes in " + read.buffer +
                                  " are not modelled: " + (w->writes ? w->cells_unmodelled : w->unmodelled);
                break;
            }
            const size_t shared = shared_loops(s, *w);
            const int allocation = w->loops_around_storage;
            if (size_t(allocation) > shared) throw Unsupported("the storage " + read.buffer + " is allocated inside a loop the reader is not in");
            // Under the context's hull (what holds for its parameters holds for the
            // context's; the context's pieces would multiply the pairs'), but races under
            // the context itself (a race is a counterexample).
            Isl<isl_map> pairs = check(isl_map_apply_range(read.cells.copy(), isl_map_reverse(w->cells.copy())), "the writes of a cell");
            pairs = check(isl_map_intersect_params(pairs.release(), hull.copy()), "the writes of a cell");
            for (int k = 0; k < allocation; k++) pairs = check(isl_map_equate(pairs.release(), isl_dim_in, k, isl_dim_out, k), "one allocation");
            for (size_t k = size_t(allocation); k < shared; k++) {
                if (!s.parallel[k]) continue;
                Isl<isl_map> same_outside = check(isl_map_intersect_params(pairs.copy(), nest.context.copy()), "another iteration");
                for (size_t m = size_t(allocation); m < k; m++)
                    same_outside = check(isl_map_equate(same_outside.release(), isl_dim_in, int(m), isl_dim_out, int(m)), "one iteration");
                Isl<isl_map> other = check(isl_map_union(isl_map_order_lt(same_outside.copy(), isl_dim_in, int(k), isl_dim_out, int(k)),
                                                         isl_map_order_gt(same_outside.copy(), isl_dim_in, int(k), isl_dim_out, int(k))),
                                           "another iteration");
                if (!is_empty(other)) sources.races.push_back({w, s.dims[k], std::move(other)});
                pairs = check(isl_map_equate(pairs.release(), isl_dim_in, int(k), isl_dim_out, int(k)), "one iteration");
            }
            candidates.emplace_back(w, std::move(pairs));
        }
        if (!sources.unknown.empty()) continue;
        // Folded storage: first through the unfolded cells, with a budget of its own.
        ctx.reset_operations();
        try {
            if (last_writers_unfolded(ctx, s, read, nest, writers, schedule, reader_schedule, hull, *cache, sources)) continue;
        } catch (const Unsupported &) {
        }
        // The last write of the cell before each read, and which store made it.
        ctx.reset_operations();
        Isl<isl_map> times;
        for (auto &[w, pairs] : candidates) {
            const Isl<isl_map> writer_schedule = schedule(*w);
            pairs = check(isl_map_intersect(pairs.release(), isl_map_lex_gt_map(reader_schedule.copy(), writer_schedule.copy())),
                          "the earlier writes of a cell");
            if (is_empty(pairs)) continue;
            Isl<isl_map> t = check(isl_map_apply_range(pairs.copy(), writer_schedule.copy()), "the times of the writes");
            times = times ? check(isl_map_union(times.release(), t.release()), "the times of the writes") : std::move(t);
        }
        Isl<isl_set> reading = check(isl_set_intersect_params(isl_map_domain(read.cells.copy()), nest.context.copy()), "the reads");
        if (!times) {
            sources.unwritten = std::move(reading);
            continue;
        }
        Isl<isl_map> last = lexmax_by_pieces(times);
        sources.unwritten = check(isl_set_subtract(reading.release(), isl_map_domain(last.copy())), "the unwritten reads");
        sources.unwritten = check(isl_set_gist(sources.unwritten.release(), isl_set_intersect_params(s.domain.copy(), nest.context.copy())),
                                  "the unwritten reads");
        for (auto &[w, pairs] : candidates) {
            Isl<isl_map> at_last = check(isl_map_apply_range(last.copy(), isl_map_reverse(schedule(*w).release())),
                                         "the last writes");
            Isl<isl_map> instances = check(isl_map_intersect(pairs.release(), at_last.release()), "the last writer");
            if (is_empty(instances)) continue;
            const isl_bool single = isl_map_is_single_valued(instances.get());
            if (single == isl_bool_error) throw Unsupported("the polyhedral library could not decide a last writer");
            if (single != isl_bool_true) {
                sources.unknown = "lanes of statement S" + std::to_string(w->id) + " write one cell of " + read.buffer + " at once";
                break;
            }
            sources.sources.push_back({w, simplified_on(std::move(instances), s.domain)});
        }
    }
    return result;
}

}  // namespace tessera::validator
