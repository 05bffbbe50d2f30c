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

/** { S[i] -> T[position_0, i_0, position_1, i_1, ..., position_d, 0, ...] } on `domain`
 * (a set of S's instances): their order in the program (a vector store's lanes at one
 * time). */
Isl<isl_map> schedule_on(const Statement &s, int dims, const Isl<isl_set> &domain) {
    isl_space *space = isl_space_add_dims(isl_space_from_domain(isl_set_get_space(s.domain.get())), isl_dim_out, unsigned(dims));
    isl_map *m = isl_map_universe(isl_space_set_tuple_name(space, isl_dim_out, "T"));
    const int loops = int(s.positions.size()) - 1;
    for (int k = 0; k < loops; k++) {
        m = isl_map_fix_si(m, isl_dim_out, unsigned(2 * k), s.positions[size_t(k)]);
        m = isl_map_equate(m, isl_dim_in, k, isl_dim_out, 2 * k + 1);
    }
    m = isl_map_fix_si(m, isl_dim_out, unsigned(2 * loops), s.positions.back());
    for (int t = 2 * loops + 1; t < dims; t++) m = isl_map_fix_si(m, isl_dim_out, unsigned(t), 0);
    return check(isl_map_intersect_domain(m, domain.copy()), "a schedule");
}
/** The same on S's domain. */
Isl<isl_map> schedule_of(const Statement &s, int dims) { return schedule_on(s, dims, s.domain); }

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

/** The lexicographic maximum (or minimum) of a relation, as isl_map_lexmax, computed on
 * each basic relation and then combined. On relations whose pieces each determine their
 * maximum (a loop nest's instances) isl's maximum of the union, which splits all the pieces
 * at once, can grow past the limit where this stays small. Most pieces of a loop nest's
 * relations hold in other parameter regions or for other cells than the rest (a loop's
 * prologue and epilogue, a strip's first and later rows): a piece is compared only with
 * the pieces of the result whose domains meet its own, the others are kept as they are. */
Isl<isl_map> lexopt_by_pieces(const Isl<isl_map> &m, bool max) {
    std::vector<Isl<isl_map>> pieces;
    isl_map_foreach_basic_map(
        m.get(),
        [](isl_basic_map *b, void *user) {
            static_cast<std::vector<Isl<isl_map>> *>(user)->emplace_back(isl_map_from_basic_map(b));
            return isl_stat_ok;
        },
        &pieces);
    // The result so far, in groups whose domains do not meet: each a function and its domain.
    struct Group {
        Isl<isl_pw_multi_aff> f;
        Isl<isl_set> domain;
    };
    std::vector<Group> groups;
    for (const Isl<isl_map> &piece : pieces) {
        Group g;
        g.f = check(max ? isl_map_lexmax_pw_multi_aff(piece.copy()) : isl_map_lexmin_pw_multi_aff(piece.copy()), "the last writes");
        g.domain = check(isl_map_domain(piece.copy()), "the last writes");
        std::vector<Group> kept;
        for (Group &other : groups) {
            if (isl_set_is_disjoint(g.domain.get(), other.domain.get()) == isl_bool_true) {
                kept.push_back(std::move(other));
                continue;
            }
            g.f = check(max ? isl_pw_multi_aff_union_lexmax(g.f.release(), other.f.release())
                            : isl_pw_multi_aff_union_lexmin(g.f.release(), other.f.release()),
                        "the last writes");
            g.domain = check(isl_set_union(g.domain.release(), other.domain.release()), "the last writes");
        }
        kept.push_back(std::move(g));
        groups = std::move(kept);
    }
    Isl<isl_map> last = check(isl_map_empty(isl_map_get_space(m.get())), "the last writes");
    for (Group &g : groups)
        last = check(isl_map_union(last.release(), isl_map_from_pw_multi_aff(g.f.release())), "the last writes");
    return check(isl_map_coalesce(last.release()), "the last writes");
}
Isl<isl_map> lexmax_by_pieces(const Isl<isl_map> &m) { return lexopt_by_pieces(m, true); }
Isl<isl_map> lexmin_by_pieces(const Isl<isl_map> &m) { return lexopt_by_pieces(m, false); }

/** `m` simplified on `domain` (isl's gist: equal to m on it, with fewer pieces, anything
 * outside). */
Isl<isl_map> simplified_on(Isl<isl_map> m, const Isl<isl_set> &domain) {
    return check(isl_map_coalesce(isl_map_gist_domain(m.release(), domain.copy())), "the last writer");
}

/** A single-valued relation as a function (isl's pw_multi_aff); null if isl gives none. */
Isl<isl_pw_multi_aff> function_of(const Isl<isl_map> &m) { return Isl<isl_pw_multi_aff>(isl_pw_multi_aff_from_map(m.copy())); }

/** { i : a(i) <=lex b(i) } (`strict`: <lex) for two functions of the instances into one
 * space, by substituting them into the order (a preimage: no variable is eliminated, unlike
 * the composition of relations through the order's space). */
Isl<isl_set> where_ordered(const Isl<isl_pw_multi_aff> &a, const Isl<isl_pw_multi_aff> &b, bool strict) {
    isl_space *t = isl_space_range(isl_pw_multi_aff_get_space(a.get()));
    Isl<isl_set> order = check(isl_map_wrap(strict ? isl_map_lex_lt(t) : isl_map_lex_le(t)), "an order");
    Isl<isl_pw_multi_aff> both = check(isl_pw_multi_aff_range_product(a.copy(), b.copy()), "an order");
    return check(isl_set_preimage_pw_multi_aff(order.release(), both.release()), "an order");
}

/** Whether every instance of `instances` lies in some set of `sets` (sets of the
 * instances, each subtracted in turn, those of most pieces first: the writers of the steady
 * state of a partitioned loop, which cover most instances and leave the boundary parts'
 * sets little to subtract from). */
bool covered(IslContext &ctx, Isl<isl_set> instances, std::vector<Isl<isl_set>> sets) {
    std::stable_sort(sets.begin(), sets.end(), [](const Isl<isl_set> &a, const Isl<isl_set> &b) {
        return isl_set_n_basic_set(a.get()) > isl_set_n_basic_set(b.get());
    });
    for (const Isl<isl_set> &s : sets) {
        if (isl_set_is_empty(instances.get()) == isl_bool_true) return true;
        ctx.reset_operations();
        instances = check(isl_set_subtract(instances.release(), s.copy()), "the instances covered");
    }
    return isl_set_is_empty(instances.get()) == isl_bool_true;
}

/** The instances of a load's statement that make the load, under the context's hull. */
Isl<isl_set> reading_instances(const Statement::Read &read, const Isl<isl_set> &hull) {
    return check(isl_set_intersect_params(isl_map_domain(read.cells.copy()), hull.copy()), "the reads");
}

/** Whether every instance of `reading` has `f`'s value in the cells some writer writes
 * (`cells`, per writer): each writer's cells pulled back by f (a preimage). */
bool cells_cover(IslContext &ctx, const Isl<isl_set> &reading, const std::vector<Isl<isl_set>> &cells, const Isl<isl_pw_multi_aff> &f) {
    std::vector<Isl<isl_set>> writing;
    for (const Isl<isl_set> &c : cells) writing.push_back(check(isl_set_preimage_pw_multi_aff(c.copy(), f.copy()), "the cell's writes"));
    return covered(ctx, reading, std::move(writing));
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
    /** { key -> T }: the time of the first write of the key's cell of the storage itself
     * (folded: a congruent row) by another unfolded cell, at or after the key's last write
     * (at its time: another lane); where there is one. Until then, the cell holds what the
     * last write of the key wrote. */
    Isl<isl_map> next;
    /** { key -> F[x] }: where every writer stores final values of one Func F and the key
     * (loops and cell) says which point's, that point; null otherwise. */
    Isl<isl_map> point;
};

/** Per reading statement: whether the cells its loads of a storage need are written
 * (reads_written): all of them at once, or else per load (by its key). */
struct ReadsWritten {
    bool all = false;
    std::map<std::string, bool> by_read;
};

/** The rows of folded storage (its folded coordinates, with the loops that key them) and
 * the iterations that write them: last_writers_by_rows. */
struct LastWriterCache::Rows {
    std::string failed;  // why it could not be computed (empty if it was)
    int loops = 0;       // the outer loops that determine the rows (a row iteration: theirs)
    Isl<isl_map> last;   // { row -> T' }: the last iteration that writes the row
    Isl<isl_map> next;   // { row -> T' }: the first iteration from then on that writes another row into its cells
    /** Where `next` is past the limit (null): per writer, { row -> T' }, the iterations
     * that write another row into the row's cells, from its last on. */
    std::vector<Isl<isl_map>> other_writes;
    Isl<isl_map> point;  // { key -> F[x] }: as Entry::point (required here)
    const ir::FunctionData *func = nullptr;
    /** `last` and `next` as functions (null where isl gives none). */
    Isl<isl_pw_multi_aff> last_fn, next_fn;
    /** Per writer: { W[j] -> T' } (its row iteration), { W[j] -> key } (its cell), and
     * { [T' -> key] } (the cells it writes in each iteration). */
    std::vector<Isl<isl_map>> iteration, keys;
    std::vector<Isl<isl_set>> cells;
    /** Per reading statement: whether its loads' cells are written in their rows' last
     * iterations (3). */
    std::map<int, ReadsWritten> written_for;
    /** Per reading statement: whether (1) and (2) hold for all its loads of the storage at
     * once (absent: not decided yet). */
    std::map<int, bool> ordered_for;
};

/** Storage that every writer fills, in each iteration of the loops it shares with a
 * reader, before any load of it there: last_writers_in_allocation. */
struct LastWriterCache::Allocation {
    std::string failed;  // why it could not be computed (empty if it was)
    Isl<isl_map> point;  // { key -> F[x] }: as Entry::point (required here)
    const ir::FunctionData *func = nullptr;
    /** Per writer: { key }, the cells it writes in each iteration (the shared loops, then
     * the cell). */
    std::vector<Isl<isl_set>> cells;
    /** Per reading statement: whether the cells of its loads of the storage are written in
     * their iteration. */
    std::map<int, ReadsWritten> written_for;
};

namespace {

/** The pairs (iteration, cell) a writer writes, `cells`, simplified on the context's hull
 * (equal to them there, with what the hull implies left out; outside it, no read needs
 * them, and their intersection with it would cost a coalescing of its own). */
Isl<isl_set> written_under(Isl<isl_set> cells, const Isl<isl_set> &hull) {
    return check(isl_set_coalesce(isl_set_gist_params(cells.release(), hull.copy())), "the cells of an iteration");
}

/** Whether the pairs `left` (of an iteration and a cell) all lie in the writers' `cells`:
 * each writer's taken away in turn, the writers with the simplest cells first (the pairs
 * left then get fewer pieces; their union has the pieces of every writer's loops), each
 * with a budget of its own. */
bool all_written(IslContext &ctx, const std::vector<Isl<isl_set>> &cells, Isl<isl_set> left) {
    std::vector<size_t> order(cells.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return isl_set_n_basic_set(cells[a].get()) < isl_set_n_basic_set(cells[b].get());
    });
    for (size_t i : order) {
        if (isl_set_is_empty(left.get()) == isl_bool_true) break;
        ctx.reset_operations();
        left = check(isl_set_coalesce(isl_set_subtract(left.release(), cells[i].copy())), "the cell's writes");
    }
    return isl_set_is_empty(left.get()) == isl_bool_true;
}

/** Whether the cells that statement `s`'s load `read` needs (by `needed_by`) are written
 * (all_written), decided for all its loads of the storage at once, in `written_for`: the
 * taps of a stencil make one set of few pieces, simpler than each load's in turn. Where
 * their union has many pieces (each coalescing of it costs more than a load's own check,
 * and can reach the limit), or is not all written, each load is checked on its own, with
 * the set already made. */
bool reads_written(IslContext &ctx, const Statement &s, const Statement::Read &read, const std::vector<Isl<isl_set>> &cells,
                   std::map<int, ReadsWritten> &written_for, const std::function<bool(const Statement::Read &)> &alike,
                   const std::function<Isl<isl_set>(const Statement::Read &)> &needed_by) {
    constexpr int kFewPieces = 16;
    auto [checked, added] = written_for.emplace(s.id, ReadsWritten{});
    ReadsWritten &written = checked->second;
    if (added) {
        std::vector<std::pair<const Statement::Read *, Isl<isl_set>>> needed;
        try {
            bool all = true;
            for (const Statement::Read &r : s.reads) {
                if (r.buffer != read.buffer) continue;
                all = all && alike(r);
                if (!all) break;
                ctx.reset_operations();
                needed.emplace_back(&r, needed_by(r));
            }
            Isl<isl_set> left;
            for (size_t i = 0; all && i < needed.size(); i++) {
                ctx.reset_operations();
                left = left ? check(isl_set_coalesce(isl_set_union(left.release(), needed[i].second.copy())), "the cell's writes")
                            : needed[i].second;
                all = isl_set_n_basic_set(left.get()) <= kFewPieces;
            }
            written.all = all && all_written(ctx, cells, std::move(left));
        } catch (const Unsupported &) {
        }
        if (!written.all) {
            for (const auto &[r, n] : needed) {
                try {
                    written.by_read[r->key] = all_written(ctx, cells, n);
                } catch (const Unsupported &) {
                }
            }
        }
        ctx.reset_operations();
    }
    if (written.all) return true;
    if (auto it = written.by_read.find(read.key); it != written.by_read.end()) return it->second;
    return all_written(ctx, cells, needed_by(read));
}

/** { key -> F[x] }: the point whose final value the writers store into each cell (keyed
 * by `keys`, per writer), where one affine function of the key gives it for every writer
 * (a cell at a fixed offset from its point, as storage is); null otherwise. The function
 * is the affine hull of the first writer's relation; each writer's must lie in it. */
Isl<isl_map> common_point(const std::vector<const Statement *> &writers, const std::vector<Isl<isl_map>> &keys, const Isl<isl_set> &hull) {
    Isl<isl_map> point;
    for (size_t i = 0; i < writers.size(); i++) {
        Isl<isl_map> p = check(isl_map_apply_range(isl_map_reverse(keys[i].copy()), writers[i]->writes.copy()), "the points of the cells");
        p = check(isl_map_intersect_params(p.release(), hull.copy()), "the points of the cells");
        if (!point) {
            point = check(isl_map_from_basic_map(isl_map_affine_hull(p.copy())), "the points of the cells");
            if (isl_map_is_single_valued(point.get()) != isl_bool_true) return Isl<isl_map>();
        }
        if (isl_map_is_subset(p.get(), point.get()) != isl_bool_true) return Isl<isl_map>();
    }
    return point;
}

/** { row -> row' }: each row of `rows` (a relation into rows: the key loops, then the
 * folded coordinates) to the row of storage cells it lands in, its folded coordinates
 * taken modulo their folds. Throws Unsupported for a fold that is not a constant. */
Isl<isl_map> folding(const Isl<isl_map> &rows, int loops, const std::vector<long> &folds) {
    isl_space *space = isl_space_range(isl_map_get_space(rows.get()));
    isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
    isl_multi_aff *f = isl_multi_aff_identity(isl_space_map_from_set(space));
    for (size_t d = 0; d < folds.size(); d++) {
        if (folds[d] <= 0) {
            isl_local_space_free(ls);
            isl_multi_aff_free(f);
            throw Unsupported("a fold is not a constant");
        }
        isl_aff *v = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, unsigned(loops + int(d)));
        v = isl_aff_mod_val(v, isl_val_int_from_si(isl_local_space_get_ctx(ls), folds[d]));
        f = isl_multi_aff_set_aff(f, unsigned(loops + int(d)), v);
    }
    isl_local_space_free(ls);
    return check(isl_map_from_multi_aff(f), "the folded rows");
}

/** The loops shared by a load and all its writers that key the cells of their storage,
 * folded (`folded`) or not, into `shared`: for folded storage, those the allocation is in
 * and the parallel loops around both (the rows of a sliding window live across the other
 * loops); otherwise every loop they share. `serial` (if given) says whether a shared
 * serial loop inside the allocation is among them. False if a writer's cells are not
 * modelled, or folded otherwise, or if the writers differ in those loops. */
bool key_loops(const Statement &s, const std::vector<const Statement *> &writers, bool folded, std::vector<int> &shared,
               bool *serial = nullptr) {
    for (size_t i = 0; i < writers.size(); i++) {
        const Statement &w = *writers[i];
        if (!w.cells || bool(w.unfolded_cells) != folded) return false;
        std::vector<int> e;
        for (size_t k = 0; k < shared_loops(s, w); k++) {
            const bool outer = int(k) < w.loops_around_storage || s.parallel[k];
            if (outer || !folded) e.push_back(int(k));
            if (serial) *serial = *serial || !outer;
        }
        if (i > 0 && e != shared) return false;
        shared = std::move(e);
    }
    return true;
}

/** { S[i] -> T'[position_0, i_0, ..., position_{n-1}, i_{n-1}] }: the iteration of the
 * outer n loops an instance runs in (its schedule's first 2n dimensions). */
Isl<isl_map> iteration_of(const Isl<isl_map> &schedule, int n) {
    const isl_size dims = isl_map_dim(schedule.get(), isl_dim_out);
    return check(isl_map_project_out(schedule.copy(), isl_dim_out, unsigned(2 * n), unsigned(dims - 2 * n)), "an iteration");
}

bool rows_read_in_order(IslContext &ctx, const Statement &s, const Statement::Read &read, const std::vector<int> &shared,
                        LastWriterCache::Rows &rows, int tdims, const Isl<isl_set> &hull);

/** The sources of a read of folded storage whose writers all store final values of one
 * Func (a sliding window's rows), reasoned about by rows instead of cells. A row is a
 * value of the folded coordinates (with the loops that key the storage); the outer loops
 * of each writer determine the row it writes, and an iteration of those loops is a row
 * iteration. Then the read of a cell gets the value of its point if
 *   (1) the last iteration that writes the cell's row comes before the read's iteration
 *       of the same loops,
 *   (2) no iteration from that one up to the read's writes another row into the same
 *       cells (the fold's own correctness condition), and
 *   (3) that last iteration writes the cell itself;
 * every write of a cell stores its point's value, so which store wrote it last does not
 * matter. Unlike the maximum over the cells' writes, which splits on every boundary of
 * the rows' loops (a vector loop's prologue, steady state and shifted tail), the rows'
 * maximum has the pieces of the rows' loops only. False, `sources` untouched, where the
 * storage is not of this form or a check fails. */
bool last_writers_by_rows(IslContext &ctx, const Statement &s, const Statement::Read &read,
                          const std::vector<const Statement *> &writers, int tdims,
                          const std::function<Isl<isl_map>(const Statement &)> &schedule,
                          const Isl<isl_map> &reader_schedule, const Isl<isl_set> &hull, LastWriterCache &cache,
                          ReadSources &sources) {
    if (!read.unfolded_cells || read.folded.empty()) return false;
    std::vector<int> shared;
    if (!key_loops(s, writers, true, shared)) return false;
    for (const Statement *w : writers)
        if (!w->provenance || !final_value(*w->provenance) || w->provenance->func != writers.front()->provenance->func ||
            w->folded != read.folded || w->folds != read.folds)
            return false;
    std::string name = read.buffer;
    for (int k : shared) name += " " + std::to_string(k);
    std::shared_ptr<LastWriterCache::Rows> &rows = cache.rows[name];
    auto row_of = [&](const Isl<isl_map> &cells) {
        return keyed(check(keep_dims(cells.copy(), isl_dim_out, read.folded), "a row"), shared);
    };
    if (!rows) {
        rows = std::make_shared<LastWriterCache::Rows>();
        ctx.reset_operations();
        try {
            // The outer loops that determine each writer's row: the fewest that do for all
            // (the same number for every writer, so that their iterations compare).
            std::vector<Isl<isl_map>> row;  // per writer: { W[j] -> row }
            int loops = -1;
            for (const Statement *w : writers) {
                row.push_back(row_of(w->unfolded_cells));
                const int n = int(w->positions.size()) - 1;
                int k = 0;
                for (; k <= n; k++) {
                    Isl<isl_map> outer = check(isl_map_project_out(row.back().copy(), isl_dim_in, unsigned(k),
                                                                   unsigned(isl_map_dim(row.back().get(), isl_dim_in) - k)),
                                               "a row's loops");
                    if (isl_map_is_single_valued(outer.get()) == isl_bool_true) break;
                }
                if (k > n) throw Unsupported("a writer's row is not determined by its loops");
                loops = std::max(loops, k);
            }
            // A row determined by k loops is determined by more; each writer has them.
            for (const Statement *w : writers)
                if (int(w->positions.size()) - 1 < loops) throw Unsupported("the writers' rows are determined by different loops");
            rows->loops = loops;
            rows->func = writers.front()->provenance->func.get();
            // Each writer's rows and the iterations of the rows' loops that write them, on
            // the instances as far as those loops see them (the deeper loops' bounds left
            // out): a superset, exact where it matters, since (3) requires the row's last
            // iteration to write the cell read, and more writes of other rows into the
            // same cells only make (2) harder to meet. The exact relation has the pieces of
            // every deeper loop (a vector loop's prologue and shifted tail, each in several
            // cases of the sizes).
            if (loops == 0) throw Unsupported("the rows do not depend on the loops");
            Isl<isl_map> times;
            std::vector<Isl<isl_map>> writes;  // per writer: { row -> T' }
            for (size_t i = 0; i < writers.size(); i++) {
                const Statement &w = *writers[i];
                rows->iteration.push_back(iteration_of(schedule(w), loops));
                rows->keys.push_back(keyed(w.unfolded_cells, shared));
                if (!w.unfolded_coordinates || w.outer_domains.size() < size_t(loops)) throw Unsupported("a writer's rows are not modelled");
                const Isl<isl_set> &outer = w.outer_domains[size_t(loops - 1)];
                Isl<isl_map> r = check(isl_map_intersect_domain(row_of(w.unfolded_coordinates).release(), outer.copy()), "the rows' iterations");
                Isl<isl_map> t = check(isl_map_apply_range(isl_map_reverse(r.release()), iteration_of(schedule_on(w, tdims, outer), loops).release()),
                                       "the rows' iterations");
                t = check(isl_map_coalesce(isl_map_intersect_params(t.release(), hull.copy())), "the rows' iterations");
                writes.push_back(t);
                times = times ? check(isl_map_union(times.release(), t.release()), "the rows' iterations") : std::move(t);
            }
            // { [T' -> key] }: per writer, the cells it writes in each iteration (each
            // writer's and each of the steps below with a budget of its own).
            for (size_t i = 0; i < writers.size(); i++) {
                ctx.reset_operations();
                Isl<isl_map> c = check(isl_map_apply_range(isl_map_reverse(rows->iteration[i].copy()), rows->keys[i].copy()),
                                       "the cells of an iteration");
                rows->cells.push_back(written_under(check(isl_map_wrap(c.release()), "the cells of an iteration"), hull));
            }
            ctx.reset_operations();
            rows->point = common_point(writers, rows->keys, hull);
            if (!rows->point) throw Unsupported("the writers store other points into one cell");
            ctx.reset_operations();
            rows->last = lexmax_by_pieces(times);
            // { row -> row' }: the other rows that share its cells (congruent modulo the folds).
            Isl<isl_map> fold = folding(row.front(), int(shared.size()), read.folds);
            Isl<isl_map> others = check(isl_map_apply_range(fold.copy(), isl_map_reverse(fold.copy())), "the other rows");
            others = check(isl_map_subtract(others.release(), isl_map_identity(isl_space_map_from_set(
                                                                  isl_space_range(isl_map_get_space(fold.get()))))),
                           "the other rows");
            const Isl<isl_map> from_last = check(isl_map_lex_le_map(rows->last.copy(), isl_map_identity(isl_space_map_from_set(
                                                                                          isl_space_range(isl_map_get_space(rows->last.get()))))),
                                                 "the other rows");  // { row -> T' : T' >= last(row) }
            // { row -> T' }: the iterations from the row's last on that write another row
            // into its cells, and their first, once for all reads: from all writers' at
            // once, then, past the limit, from each writer's, each with a budget of its own;
            // past that too, each read is compared with each writer's (2).
            auto after = [&](const Isl<isl_map> &writes) {
                Isl<isl_map> t = check(isl_map_apply_range(others.copy(), writes.copy()), "the other rows");
                return check(isl_map_coalesce(isl_map_intersect(t.release(), from_last.copy())), "the other rows");
            };
            ctx.reset_operations();
            try {
                rows->next = lexmin_by_pieces(after(times));
            } catch (const Unsupported &) {
            }
            if (!rows->next) {
                Isl<isl_map> all;
                for (size_t k = 0; k < writers.size(); k++) {
                    ctx.reset_operations();
                    Isl<isl_map> t = after(writes[k]);
                    rows->other_writes.push_back(t);
                    all = all ? check(isl_map_union(all.release(), t.release()), "the other rows") : std::move(t);
                }
                ctx.reset_operations();
                try {
                    rows->next = lexmin_by_pieces(all);
                    rows->other_writes.clear();
                } catch (const Unsupported &) {
                }
            }
        } catch (const Unsupported &u) {
            rows->failed = u.what();
        }
        ctx.reset_operations();
    }
    if (!rows->failed.empty()) return false;
    // The load reads its point's value: the point its cell holds.
    auto reads_its_point = [&] {
        const Isl<isl_map> read_key = keyed(read.unfolded_cells, shared);
        sources.point = simplified_on(check(isl_map_apply_range(read_key.copy(), rows->point.copy()), "the point read"), s.domain);
        sources.point_of = rows->func;
        return true;
    };
    if (rows_read_in_order(ctx, s, read, shared, *rows, tdims, hull)) return reads_its_point();
    const Isl<isl_map> read_iteration = iteration_of(reader_schedule, rows->loops);  // { S -> T' }
    auto alike = [&](const Statement::Read &r) { return r.unfolded_cells && r.folded == read.folded && r.folds == read.folds; };
    // (1) and (2) for `read_rows` ({ S -> row } on the reads' instances): for all the
    // statement's loads of the storage at once first (the union of a stencil's taps has
    // few pieces, and each check is a question on the reading statement's instances,
    // whichever load reads), then, where that fails, for the load itself.
    auto ordered = [&](const Isl<isl_map> &read_rows) {
        // (1) the row's last iteration before the read's, for every read.
        if (isl_set_is_subset(check(isl_map_range(read_rows.copy()), "the rows read").get(),
                              check(isl_map_domain(rows->last.copy()), "the rows written").get()) != isl_bool_true)
            return false;
        Isl<isl_map> last = check(isl_map_apply_range(read_rows.copy(), rows->last.copy()), "the rows' last writes");  // { S -> T' }
        last = check(isl_map_coalesce(last.release()), "the rows' last writes");
        if (any_on_diagonal(check(isl_map_lex_le_map(read_iteration.copy(), last.copy()), "the rows' last writes"))) return false;
        // (2) no other row into the same cells until the read's iteration.
        if (rows->next) {
            Isl<isl_map> next = check(isl_map_apply_range(read_rows.copy(), rows->next.copy()), "the other rows");
            return !any_on_diagonal(check(isl_map_lex_le_map(next.release(), read_iteration.copy()), "the other rows"));
        }
        // { S -> T' }: the iterations up to the read's (from the row's last on).
        const Isl<isl_map> until = check(isl_map_lex_ge_map(read_iteration.copy(), isl_map_identity(isl_space_map_from_set(
                                                                                        isl_space_range(isl_map_get_space(read_iteration.get()))))),
                                         "the other rows");
        for (const Isl<isl_map> &w : rows->other_writes) {
            ctx.reset_operations();
            Isl<isl_map> between = check(isl_map_apply_range(read_rows.copy(), w.copy()), "the other rows");
            if (!is_empty(check(isl_map_intersect(between.release(), until.copy()), "the other rows"))) return false;
        }
        return true;
    };
    // { S -> row }: the rows a load reads, on the instances that read.
    auto rows_read = [&](const Statement::Read &r) {
        return check(isl_map_intersect_domain(row_of(r.unfolded_cells).release(),
                                              reading_instances(r, hull).release()),
                     "the rows read");
    };
    auto [joint, added] = rows->ordered_for.emplace(s.id, false);
    if (added) {
        try {
            Isl<isl_map> all;
            for (const Statement::Read &r : s.reads) {
                if (r.buffer != read.buffer) continue;
                if (!alike(r)) throw Unsupported("loads of other forms");
                ctx.reset_operations();
                Isl<isl_map> m = rows_read(r);
                all = all ? check(isl_map_coalesce(isl_map_union(all.release(), m.release())), "the rows read") : std::move(m);
            }
            ctx.reset_operations();
            joint->second = all && ordered(all);
        } catch (const Unsupported &) {
        }
        ctx.reset_operations();
    }
    if (!joint->second && !ordered(rows_read(read))) return false;
    // (3) the cell written in that iteration: the pairs (iteration, cell) the reads need.
    auto needed_by = [&](const Statement::Read &r) {
        Isl<isl_map> l = check(isl_map_apply_range(row_of(r.unfolded_cells).release(), rows->last.copy()), "the rows' last writes");
        Isl<isl_map> n = check(isl_map_range_product(l.release(), keyed(r.unfolded_cells, shared).release()), "the cell's writes");
        n = check(isl_map_intersect_domain(n.release(), reading_instances(r, hull).release()),
                  "the cell's writes");
        // { [T' -> key] }, not coalesced: reads_written coalesces the loads' union, and
        // all_written each remainder (a coalescing here cost a tenth of unsharp's time).
        return check(isl_map_range(n.release()), "the cell's writes");
    };
    if (!reads_written(ctx, s, read, rows->cells, rows->written_for, alike, needed_by)) return false;
    return reads_its_point();
}

/** Conditions (1), (2) and (3) of last_writers_by_rows for one load, each a question on
 * the reading statement's instances: the functions of an instance (the row it reads, that
 * row's last and next writing iterations, its own iteration, its cell) substituted into the
 * sets and orders they must meet, so that no variable is eliminated (the relations
 * composed through the rows' and the cells' spaces, each such composition a projection,
 * cost several times more). False where a condition does not hold or a function is not
 * available (the caller then decides by the relations). */
bool rows_read_in_order(IslContext &ctx, const Statement &s, const Statement::Read &read, const std::vector<int> &shared,
                        LastWriterCache::Rows &rows, int tdims, const Isl<isl_set> &hull) {
    if (!read.unfolded_coordinates || !rows.next) return false;
    ctx.reset_operations();
    try {
        if (!rows.last_fn) rows.last_fn = check(isl_pw_multi_aff_from_map(rows.last.copy()), "the rows' last writes");
        if (!rows.next_fn) rows.next_fn = check(isl_pw_multi_aff_from_map(rows.next.copy()), "the rows' next writes");
        // The instances that read, and the functions of an instance: its row, its cell (with
        // the loops that key it), the iteration of the rows' loops it runs in.
        const Isl<isl_set> reading = reading_instances(read, hull);
        auto row_map = check(keep_dims(read.unfolded_coordinates.copy(), isl_dim_out, read.folded), "a row");
        const Isl<isl_pw_multi_aff> row = function_of(keyed(row_map, shared));
        const Isl<isl_pw_multi_aff> key = function_of(keyed(read.unfolded_coordinates, shared));
        const Isl<isl_set> everywhere = check(isl_set_universe(isl_set_get_space(s.domain.get())), "the instances");
        const Isl<isl_pw_multi_aff> iteration = function_of(iteration_of(schedule_on(s, tdims, everywhere), rows.loops));
        if (!row || !key || !iteration) return false;
        // (1) the row is written, last before the read's iteration.
        const Isl<isl_set> written_rows = check(isl_pw_multi_aff_domain(rows.last_fn.copy()), "the rows written");
        if (isl_set_is_subset(reading.get(), check(isl_set_preimage_pw_multi_aff(written_rows.copy(), row.copy()), "the rows read").get()) !=
            isl_bool_true)
            return false;
        const Isl<isl_pw_multi_aff> last = check(isl_pw_multi_aff_pullback_pw_multi_aff(rows.last_fn.copy(), row.copy()), "the last writes");
        Isl<isl_set> late = check(isl_set_intersect(where_ordered(iteration, last, false).release(), reading.copy()), "the last writes");
        if (isl_set_is_empty(late.get()) != isl_bool_true) return false;
        // (2) no other row written into its cells from then until the read's iteration.
        const Isl<isl_pw_multi_aff> next = check(isl_pw_multi_aff_pullback_pw_multi_aff(rows.next_fn.copy(), row.copy()), "the next writes");
        Isl<isl_set> overwritten = check(isl_set_intersect(where_ordered(next, iteration, false).release(), reading.copy()), "the next writes");
        if (isl_set_is_empty(overwritten.get()) != isl_bool_true) return false;
        // (3) the cell is written in the row's last iteration.
        const Isl<isl_pw_multi_aff> needed = check(isl_pw_multi_aff_range_product(last.copy(), key.copy()), "the cell's writes");
        return cells_cover(ctx, reading, rows.cells, needed);
    } catch (const Unsupported &) {
        return false;
    }
}

/** Whether every cell `read` reads (with the loops `shared` that key it) is in some
 * writer's `cells`: a question on the reading instances, the cell's function substituted
 * into each writer's cells (see rows_read_in_order). False where it is not so shown. */
bool cells_written(IslContext &ctx, const Statement::Read &read, const std::vector<int> &shared,
                   const std::vector<Isl<isl_set>> &cells, const Isl<isl_set> &hull) {
    if (!read.cell_coordinates) return false;
    ctx.reset_operations();
    try {
        const Isl<isl_pw_multi_aff> key = function_of(keyed(read.cell_coordinates, shared));
        return key && cells_cover(ctx, reading_instances(read, hull), cells, key);
    } catch (const Unsupported &) {
        return false;
    }
}

/** The sources of a read of storage (not folded) that its writers fill, in each
 * iteration of the loops they share with the reader, before any load of it there: the
 * writers leave the reader's loops right after those (the allocation's, and any serial
 * loop inside it around both), at an earlier place in its body (a Func computed at a loop
 * of its consumer, or at the root, then read). Every write of an iteration then comes
 * after the earlier iterations' and before every read of the iteration, and where all of
 * them store final values of one Func, each cell at a point that the iteration and the
 * cell determine, a read gets its point's value if some write of its iteration writes its
 * cell; which one wrote it last does not matter (a parallel loop among the shared ones:
 * the other iterations' writes are races, reported apart). The maximum over the cells'
 * writes instead splits on every boundary of the writers' loops (a vector loop's shifted
 * tail, the steady state of a boundary condition), and can grow past the limit. False,
 * `sources` untouched, where the storage is not of this form or a check fails. */
bool last_writers_in_allocation(IslContext &ctx, const Statement &s, const Statement::Read &read,
                                const std::vector<const Statement *> &writers, const Isl<isl_set> &hull, LastWriterCache &cache,
                                ReadSources &sources) {
    if (read.unfolded_cells) return false;
    const int allocation = writers.front()->loops_around_storage;
    const size_t loops = shared_loops(s, *writers.front());  // the loops that key the cells
    for (const Statement *w : writers)
        if (!w->cells || !w->cell_coordinates || !w->coordinates || w->unfolded_cells || w->loops_around_storage != allocation ||
            !w->provenance || !final_value(*w->provenance) || w->provenance->func != writers.front()->provenance->func ||
            shared_loops(s, *w) != loops || w->positions[loops] >= s.positions[loops])
            return false;
    std::vector<int> shared;
    for (int k = 0; k < int(loops); k++) shared.push_back(k);
    std::shared_ptr<LastWriterCache::Allocation> &entry = cache.allocations[read.buffer + " " + std::to_string(loops)];
    if (!entry) {
        entry = std::make_shared<LastWriterCache::Allocation>();
        ctx.reset_operations();
        try {
            // The point of each cell, from the first writer's cells and points without its
            // domain (with it, the function takes on the pieces of the writer's loops), or
            // with the bounds of as few of its loops as make it a function (a loop over
            // one row, whose cell coordinate is 0); then every writer's points, on its
            // domain, must be those.
            const Statement &first = *writers.front();
            Isl<isl_map> point;
            for (size_t k = loops; !point && k <= first.outer_domains.size(); k++) {
                Isl<isl_map> cells = first.cell_coordinates, points = first.coordinates;
                if (k > loops) {
                    const Isl<isl_set> &outer = first.outer_domains[k - 1];
                    cells = check(isl_map_intersect_domain(cells.release(), outer.copy()), "the points of the cells");
                    points = check(isl_map_intersect_domain(points.release(), outer.copy()), "the points of the cells");
                }
                Isl<isl_map> p = check(isl_map_apply_range(isl_map_reverse(keyed(cells, shared).release()), points.release()),
                                       "the points of the cells");
                p = check(isl_map_coalesce(isl_map_intersect_params(p.release(), hull.copy())), "the points of the cells");
                if (isl_map_is_single_valued(p.get()) == isl_bool_true) point = std::move(p);
            }
            if (!point) throw Unsupported("a cell holds several points");
            point = check(isl_map_set_tuple_id(point.release(), isl_dim_out, isl_map_get_tuple_id(first.writes.get(), isl_dim_out)),
                          "the points of the cells");
            for (const Statement *w : writers) {
                ctx.reset_operations();
                const Isl<isl_map> key = keyed(w->cells, shared);
                Isl<isl_map> stored = check(isl_map_intersect_params(w->writes.copy(), hull.copy()), "the points of the cells");
                if (isl_map_is_subset(stored.get(), check(isl_map_apply_range(key.copy(), point.copy()), "the points of the cells").get()) !=
                    isl_bool_true)
                    throw Unsupported("the writers store other points into one cell");
                entry->cells.push_back(written_under(check(isl_map_range(key.copy()), "the cells of an iteration"), hull));
            }
            entry->point = std::move(point);
            entry->func = writers.front()->provenance->func.get();
        } catch (const Unsupported &u) {
            entry->failed = u.what();
        }
        ctx.reset_operations();
    }
    if (!entry->failed.empty()) return false;
    // The pairs (iteration, cell) the reads need.
    auto needed_by = [&](const Statement::Read &r) {
        Isl<isl_map> n = check(isl_map_intersect_params(keyed(r.cells, shared).release(), hull.copy()), "the cell's writes");
        return check(isl_map_range(n.release()), "the cell's writes");
    };
    auto alike = [&](const Statement::Read &r) { return r.cells && !r.unfolded_cells; };
    // Storage at the root (no loop keys its cells: a table of weights every statement
    // reads): each load's cells, often constants, substituted into the writers' cells;
    // elsewhere, the union of the loads' cells, one set for a stencil's taps, taken apart by
    // the writers once (per load, the writers' cells are taken away once for each tap).
    if (!(shared.empty() && cells_written(ctx, read, shared, entry->cells, hull)) &&
        !reads_written(ctx, s, read, entry->cells, entry->written_for, alike, needed_by))
        return false;
    sources.point = simplified_on(check(isl_map_apply_range(keyed(read.cells, shared).release(), entry->point.copy()), "the point read"),
                                  s.domain);
    sources.point_of = entry->func;
    return true;
}

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
bool last_writers_unfolded(IslContext &ctx, const Statement &s, const Statement::Read &read,
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
    if (!key_loops(s, writers, folded, shared, &serial)) return false;
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
            // { key -> key' }: the cell of the storage itself (folded) that each unfolded
            // cell is, as a cell of the unfolded ones (the identity where not folded).
            Isl<isl_map> fold;
            for (size_t i = 0; i < writers.size(); i++) {
                Isl<isl_map> f = check(isl_map_apply_range(isl_map_reverse(keys[i].copy()), cells[i].copy()), "the folded cells");
                fold = fold ? check(isl_map_union(fold.release(), f.release()), "the folded cells") : std::move(f);
            }
            Isl<isl_map> after;  // { key -> T }: the other writes of the key's storage cell from its last write on
            for (size_t k = 0; k < writers.size(); k++) {
                Isl<isl_map> pairs = check(isl_map_apply_range(fold.copy(), isl_map_reverse(cells[k].copy())),
                                           "the next writes of a cell");  // { key -> W[j] }
                pairs = check(isl_map_intersect_params(pairs.release(), hull.copy()), "the next writes of a cell");
                pairs = check(isl_map_intersect(pairs.release(), isl_map_lex_le_map(entry->last.copy(), schedules[k].copy())),
                              "the next writes of a cell");
                // The last write itself (and, by the maximum, no other write of the same
                // unfolded cell) is not another write; another lane at the same time is.
                pairs = check(isl_map_subtract(pairs.release(), isl_map_reverse(keys[k].copy())), "the next writes of a cell");
                Isl<isl_map> t = check(isl_map_apply_range(pairs.release(), schedules[k].copy()), "the next writes of a cell");
                after = after ? check(isl_map_union(after.release(), t.release()), "the next writes of a cell") : std::move(t);
            }
            entry->next = lexmin_by_pieces(after);
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
    Isl<isl_set> reading = reading_instances(read, hull);
    Isl<isl_set> without = check(isl_set_subtract(reading.release(), isl_map_domain(last_of_read.copy())), "the unwritten reads");
    if (isl_set_is_empty(without.get()) != isl_bool_true) return false;
    std::vector<Source> found;
    for (size_t i = 0; i < writers.size(); i++) {
        Isl<isl_map> instances = check(isl_map_apply_range(read_key.copy(), entry->instance[i].copy()), "the last writer");
        if (is_empty(instances)) continue;
        if (isl_map_is_single_valued(instances.get()) != isl_bool_true) return false;
        found.push_back({writers[i], simplified_on(std::move(instances), s.domain)});
    }
    // (2) the read comes before the next write of its cell by another unfolded cell.
    Isl<isl_map> next_of_read = check(isl_map_apply_range(read_key.copy(), entry->next.copy()), "the next writes");  // { S -> T }
    if (any_on_diagonal(check(isl_map_lex_le_map(next_of_read.release(), reader_schedule.copy()), "the next writes")))
        return false;
    sources.unwritten = Isl<isl_set>();
    sources.sources = std::move(found);
    if (entry->point) {
        sources.point = simplified_on(check(isl_map_apply_range(read_key.copy(), entry->point.copy()), "the point read"), s.domain);
        sources.point_of = writers.front()->provenance->func.get();
    }
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
        // (Made where a parallel loop needs them, else when the last writers are computed
        // from them.)
        ctx.reset_operations();
        std::vector<std::pair<const Statement *, Isl<isl_map>>> candidates;
        auto pairs_of = [&](const Statement &w) {
            // Under the context's hull (what holds for its parameters holds for the
            // context's; the context's pieces would multiply the pairs'), but races under
            // the context itself (a race is a counterexample).
            Isl<isl_map> pairs = check(isl_map_apply_range(read.cells.copy(), isl_map_reverse(w.cells.copy())), "the writes of a cell");
            pairs = check(isl_map_intersect_params(pairs.release(), hull.copy()), "the writes of a cell");
            for (int k = 0; k < w.loops_around_storage; k++)
                pairs = check(isl_map_equate(pairs.release(), isl_dim_in, k, isl_dim_out, k), "one allocation");
            return pairs;
        };
        for (const Statement *w : writers) {
            if (!w->cells) {
                sources.unknown = "the cells statement S" + std::to_string(w->id) + " writes in " + read.buffer +
                                  " are not modelled: " + (w->writes ? w->cells_unmodelled : w->unmodelled);
                break;
            }
            const size_t shared = shared_loops(s, *w);
            const int allocation = w->loops_around_storage;
            if (size_t(allocation) > shared) throw Unsupported("the storage " + read.buffer + " is allocated inside a loop the reader is not in");
            bool parallel = false;
            for (size_t k = size_t(allocation); k < shared; k++) parallel = parallel || s.parallel[k];
            if (!parallel) {
                candidates.emplace_back(w, Isl<isl_map>());
                continue;
            }
            Isl<isl_map> pairs = pairs_of(*w);
            for (size_t k = size_t(allocation); k < shared; k++) {
                if (!s.parallel[k]) continue;
                Isl<isl_map> same_outside = check(isl_map_intersect_params(pairs.copy(), nest.context.copy()), "another iteration");
                for (size_t m = size_t(allocation); m < k; m++)
                    same_outside = check(isl_map_equate(same_outside.release(), isl_dim_in, int(m), isl_dim_out, int(m)), "one iteration");
                Isl<isl_map> other = check(isl_map_union(isl_map_order_lt(same_outside.copy(), isl_dim_in, int(k), isl_dim_out, int(k)),
                                                         isl_map_order_gt(same_outside.copy(), isl_dim_in, int(k), isl_dim_out, int(k))),
                                           "another iteration");
                if (!is_empty(other) && !empty_within_wide_ranges(nest, other)) sources.races.push_back({w, s.dims[k], std::move(other)});
                pairs = check(isl_map_equate(pairs.release(), isl_dim_in, int(k), isl_dim_out, int(k)), "one iteration");
            }
            candidates.emplace_back(w, std::move(pairs));
        }
        if (!sources.unknown.empty()) continue;
        // Folded storage by rows, storage filled before it is read, then folded storage
        // through the unfolded cells, each with a budget of its own.
        ctx.reset_operations();
        try {
            if (last_writers_by_rows(ctx, s, read, writers, tdims, schedule, reader_schedule, hull, *cache, sources)) continue;
        } catch (const Unsupported &u) {
            (void)u;
        }
        ctx.reset_operations();
        try {
            if (last_writers_in_allocation(ctx, s, read, writers, hull, *cache, sources)) continue;
        } catch (const Unsupported &) {
        }
        ctx.reset_operations();
        try {
            if (last_writers_unfolded(ctx, s, read, writers, schedule, reader_schedule, hull, *cache, sources)) continue;
        } catch (const Unsupported &) {
        }
        // The last write of the cell before each read, and which store made it.
        ctx.reset_operations();
        Isl<isl_map> times;
        for (auto &[w, pairs] : candidates) {
            if (!pairs) pairs = pairs_of(*w);
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
