#include "validate/Coverage.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IRVisitor.h"

namespace tessera::validator {

using namespace ir;

namespace {

/** The output window { F[x] : B.min.d <= x_d < B.min.d + B.extent.d } of output buffer B. */
Isl<isl_set> output_window(isl_ctx *ctx, const std::string &buffer, int dims, isl_id *func_id) {
    isl_space *s = isl_space_set_alloc(ctx, 0, unsigned(dims));
    s = isl_space_set_tuple_id(s, isl_dim_set, func_id);
    Isl<isl_space> space = check(s, "the window's space");
    Isl<isl_set> window = check(isl_set_universe(space.copy()), "the window");
    for (int d = 0; d < dims; d++) {
        auto param = [&](const std::string &field) {
            const std::string name = buffer + "." + field + "." + std::to_string(d);
            return check(isl_pw_aff_param_on_domain_id(isl_set_universe(space.copy()), isl_id_alloc(ctx, name.c_str(), nullptr)),
                         "a buffer field");
        };
        Isl<isl_pw_aff> x = check(isl_pw_aff_var_on_domain(isl_local_space_from_space(space.copy()), isl_dim_set, unsigned(d)),
                                  "a coordinate");
        Isl<isl_pw_aff> mn = param("min"), ex = param("extent");
        Isl<isl_pw_aff> end = check(isl_pw_aff_add(mn.copy(), ex.release()), "the window's end");
        window = check(isl_set_intersect(window.release(), isl_pw_aff_ge_set(x.copy(), mn.release())), "the window");
        window = check(isl_set_intersect(window.release(), isl_pw_aff_lt_set(x.release(), end.release())), "the window");
    }
    return window;
}

/** For each coordinate of the point a statement writes, the deepest of its dimensions
 * (enclosing loops, outermost first, then the lane) that the coordinate depends on; -1
 * for none. Read off the coordinate's expression (lets expanded): a loop variable is its
 * loop's dimension, a fused loop's variable the dimension of its inner loop, a ramp the
 * lane. */
std::vector<int> deepest_dimensions(const Statement &s) {
    std::map<std::string, int> dim_of;
    for (size_t i = 0; i < s.dims.size(); i++) dim_of[s.dims[i]] = int(i);
    for (const Statement::Fused &f : s.fused) dim_of[f.var] = dim_of.count(f.inner) ? dim_of[f.inner] : int(s.dims.size());
    const int lane = s.store->value.type().lanes > 1 ? int(s.dims.size()) - 1 : -1;
    struct Deepest : IRVisitor {
        const std::map<std::string, int> &dim_of;
        int lane, deepest = -1;
        Deepest(const std::map<std::string, int> &d, int l) : dim_of(d), lane(l) {}
        using IRVisitor::include;
        void visit(const Variable *op) override {
            if (auto it = dim_of.find(op->name); it != dim_of.end()) deepest = std::max(deepest, it->second);
        }
        void visit(const Ramp *op) override {
            // A ramp whose lanes all read the same value would not depend on the lane; a
            // ramp counts as depending on it, which only makes the decomposition stop sooner.
            deepest = std::max(deepest, lane < 0 ? int(dim_of.size()) : lane);
            IRVisitor::visit(op);
        }
    };
    std::vector<int> deepest;
    for (const Expr &c : s.coords) {
        Deepest d(dim_of, lane);
        d.include(c);
        deepest.push_back(d.deepest);
    }
    return deepest;
}

/** A statement storing to the output, in a coverage problem where its first `depth`
 * dimensions are parameters (named "loop " + the loop variable). */
struct Writer {
    const Statement *s;
    Isl<isl_map> writes;       // { S[dims from depth on] -> F[x] }
    Isl<isl_map> coordinates;  // the same, beyond the domain (Statement::coordinates)
    std::vector<Isl<isl_set>> outer_domains;  // Statement::outer_domains, the same way
    std::vector<int> deepest;
};

/** Coverage of an output window by its stores, decomposed along the loops around them.
 *
 * The direct check, the window minus the union of the written points, has to negate
 * every written piece; with a loop partitioned at points that are floors of the
 * parameters (a ShiftInwards split, boundary conditions, a parallel loop over strips),
 * each piece carries those floors for every coordinate at once, and the subtraction
 * grows past isl's limit. Along the loops the same question splits into small ones.
 * Take the outermost loops (up to depth m) that determine some coordinates D of every
 * store's point (y, for strips of rows over yo and yi): a loop path p is the stores under
 * one sequence of those loops, and d_p maps their values to the D coordinates written.
 *   (a) every D part of a window point is some d_p(l) with l a value of p's loops at which
 *       some store of p runs;
 *   (b) for each path p and each such l (the loops now parameters), the stores of p cover
 *       the window points whose D part is d_p(l).
 * Together they cover the window: a point's D part is d_p(l) for some p and l by (a), and
 * (b) at that p and l writes the point. (a) is a coverage problem in the D coordinates
 * alone; (b) one in fewer stores, decomposed again. Each is sufficient, not necessary: a
 * part that fails leaves the question to the direct check. */
class Decomposition {
public:
    explicit Decomposition(IslContext &ctx) : ctx_(ctx) {}

    /** Whether the writers cover `target` (a set of output points, under parameters that
     * include the loops before `depth`, which fix the coordinates `determined` says).
     * False if not shown (not covered, or a limit). */
    bool covers(const std::vector<Writer> &writers, const Isl<isl_set> &target, int depth, std::vector<bool> determined) {
        if (writers.size() <= kDirect) return direct(writers, target);
        const std::optional<Level> level = next_level(writers, depth, determined);
        if (!level) return direct(writers, target);
        try {
            ctx_.reset_operations();
            // (a): the D parts of the window are all written by some path.
            std::map<std::vector<int>, std::vector<const Writer *>> paths;
            for (const Writer &w : writers)
                paths[std::vector<int>(w.s->loop_ids.begin() + depth, w.s->loop_ids.begin() + level->depth)].push_back(&w);
            Isl<isl_set> images;
            std::map<const Writer *, Isl<isl_map>> heads;  // { [loops depth .. level) -> [x_D] }
            for (const Writer &w : writers) {
                Isl<isl_map> head = head_of(w, depth, *level);
                Isl<isl_set> image = check(isl_map_range(head.copy()), "the written coordinates");
                images = images ? check(isl_set_union(images.release(), image.release()), "the written coordinates")
                                : std::move(image);
                heads.emplace(&w, std::move(head));
            }
            images = check(isl_set_coalesce(images.release()), "the written coordinates");
            Isl<isl_set> wanted = project_to(target, level->coordinates);
            Isl<isl_set> missing = check(isl_set_subtract(wanted.release(), images.release()), "the unwritten coordinates");
            if (isl_set_is_empty(missing.get()) != isl_bool_true) return false;
            // (b): each path covers the rest at each of its loops' values.
            for (int j : level->coordinates) determined[size_t(j)] = true;
            for (const auto &[ids, members] : paths) {
                for (const Isl<isl_map> &head : classes(members, heads)) {
                    ctx_.reset_operations();  // each part within the limit
                    const int count = level->depth - depth;
                    Isl<isl_map> fixed = loops_to_params(head, *members.front()->s, depth, count);
                    Isl<isl_set> at = check(isl_map_range(fixed.release()), "a loop path's coordinates");
                    Isl<isl_set> sub_target = check(isl_set_intersect(target.copy(), widen(at, target, level->coordinates).release()),
                                                    "a loop path's points");
                    std::vector<Writer> sub;
                    for (const Writer *w : members) {
                        Writer inner{w->s, loops_to_params(w->writes, *w->s, depth, count),
                                     loops_to_params(w->coordinates, *w->s, depth, count), {}, w->deepest};
                        for (const Isl<isl_set> &d : w->outer_domains)
                            inner.outer_domains.push_back(loops_to_params(d, *w->s, depth, count));
                        sub.push_back(std::move(inner));
                    }
                    if (!covers(sub, sub_target, level->depth, determined)) return false;
                    subproblems_++;
                }
            }
            return true;
        } catch (const Unsupported &) {
            return false;
        }
    }

    int subproblems() const { return subproblems_; }

private:
    /** At most this many stores: checked directly. */
    static constexpr size_t kDirect = 3;

    struct Level {
        int depth;                     // the loops before it are the path's
        std::vector<int> coordinates;  // D: the coordinates they determine, first
    };

    /** The shallowest depth past `depth` at which the loops of every writer determine a
     * coordinate not yet determined. */
    std::optional<Level> next_level(const std::vector<Writer> &writers, int depth, const std::vector<bool> &determined) const {
        size_t loops = SIZE_MAX;
        for (const Writer &w : writers) loops = std::min(loops, w.s->loop_ids.size());
        for (int d = depth + 1; d <= int(loops); d++) {
            Level level{d, {}};
            for (size_t j = 0; j < determined.size(); j++) {
                if (determined[j]) continue;
                bool all = true;
                for (const Writer &w : writers) all = all && w.deepest[j] < d;
                if (all) level.coordinates.push_back(int(j));
            }
            if (!level.coordinates.empty()) return level;
        }
        return std::nullopt;
    }

    /** { [loops depth .. level.depth) -> [x_D] } of a writer, where those loops run (by
     * their bounds alone: that deeper loops run too is for (b) to show). */
    Isl<isl_map> head_of(const Writer &w, int depth, const Level &level) const {
        Isl<isl_map> m = check(isl_map_intersect_domain(w.coordinates.copy(), w.outer_domains[size_t(level.depth - 1)].copy()),
                               "a loop path's coordinates");
        m = check(keep_dims(m.release(), isl_dim_out, level.coordinates), "a loop path's coordinates");
        const isl_size in = isl_map_dim(m.get(), isl_dim_in);
        const unsigned keep = unsigned(level.depth - depth);
        m = check(isl_map_project_out(m.release(), isl_dim_in, keep, unsigned(in) - keep), "a loop path's coordinates");
        m = check(isl_map_reset_tuple_id(m.release(), isl_dim_in), "a loop path's coordinates");
        return check(isl_map_reset_tuple_id(m.release(), isl_dim_out), "a loop path's coordinates");
    }

    /** The heads of a path's writers as one map if they agree where more than one runs
     * (the usual case: one loop path, one function of its loops), else each its own. */
    static std::vector<Isl<isl_map>> classes(const std::vector<const Writer *> &members,
                                             const std::map<const Writer *, Isl<isl_map>> &heads) {
        Isl<isl_map> all;
        for (const Writer *w : members) {
            const Isl<isl_map> &h = heads.at(w);
            all = all ? check(isl_map_union(all.release(), h.copy()), "a loop path's coordinates") : h;
        }
        all = check(isl_map_coalesce(all.release()), "a loop path's coordinates");
        if (isl_map_is_single_valued(all.get()) == isl_bool_true) return {all};
        std::vector<Isl<isl_map>> each;
        for (const Writer *w : members) each.push_back(heads.at(w));
        return each;
    }

    /** `m` with its first `count` input dimensions (loops depth .. depth + count of s)
     * made parameters named after the loops. */
    Isl<isl_map> loops_to_params(const Isl<isl_map> &m, const Statement &s, int depth, int count) const {
        isl_map *r = m.copy();
        for (int i = 0; i < count; i++)
            r = isl_map_set_dim_id(r, isl_dim_in, unsigned(i), loop_id(s, depth + i));
        const isl_size params = r ? isl_map_dim(r, isl_dim_param) : 0;
        r = isl_map_move_dims(r, isl_dim_param, unsigned(params), isl_dim_in, 0, unsigned(count));
        return check(r, "a loop path's parameters");
    }
    /** The same for a set of instances (as the domain of a map to nothing). */
    Isl<isl_set> loops_to_params(const Isl<isl_set> &m, const Statement &s, int depth, int count) const {
        const Isl<isl_map> as_map = check(isl_map_from_domain(m.copy()), "a loop path's parameters");
        return check(isl_map_domain(loops_to_params(as_map, s, depth, count).release()), "a loop path's parameters");
    }
    /** The parameter standing for dimension `k` of s (a loop: the paths' loops are the
     * same, and so are their names). */
    isl_id *loop_id(const Statement &s, int k) const {
        return isl_id_alloc(ctx_.get(), ("loop " + s.dims[size_t(k)]).c_str(), nullptr);
    }

    /** The set of output points whose `coordinates` are in `part` (a set of those alone). */
    static Isl<isl_set> widen(const Isl<isl_set> &part, const Isl<isl_set> &target, const std::vector<int> &coordinates) {
        isl_set *r = isl_set_reset_tuple_id(part.copy());
        const isl_size dims = isl_set_dim(target.get(), isl_dim_set);
        for (int j = 0; j < int(dims); j++)
            if (std::find(coordinates.begin(), coordinates.end(), j) == coordinates.end())
                r = isl_set_insert_dims(r, isl_dim_set, unsigned(j), 1);
        r = isl_set_set_tuple_id(r, isl_set_get_tuple_id(target.get()));
        return check(r, "a loop path's points");
    }

    /** `set` projected onto `coordinates`, without its tuple's name. */
    static Isl<isl_set> project_to(const Isl<isl_set> &set, const std::vector<int> &coordinates) {
        isl_map *r = keep_dims(isl_map_from_range(set.copy()), isl_dim_out, coordinates);
        return check(isl_set_reset_tuple_id(isl_map_range(r)), "the window's coordinates");
    }

    /** The window minus the union of the written points is empty. */
    bool direct(const std::vector<Writer> &writers, const Isl<isl_set> &target) {
        try {
            ctx_.reset_operations();
            Isl<isl_set> missing = target;
            Isl<isl_set> params = check(isl_set_params(target.copy()), "the parameters");
            for (const Writer &w : writers) {
                Isl<isl_set> points = check(isl_set_gist_params(isl_map_range(w.writes.copy()), params.copy()), "the written points");
                missing = check(isl_set_subtract(missing.release(), points.release()), "the unwritten part");
            }
            subproblems_++;
            return isl_set_is_empty(missing.get()) == isl_bool_true;
        } catch (const Unsupported &) {
            return false;
        }
    }

    IslContext &ctx_;
    int subproblems_ = 0;
};

}  // namespace

CheckResult check_coverage(IslContext &ctx, const LoweredPipeline &p, const LoopNest &nest) {
    const PipelineArgument *out = output_buffer(p);
    if (!out || !p.output) return {Verdict::Unknown, "the pipeline has no output buffer argument"};
    isl_id *func_id = isl_id_alloc(ctx.get(), p.output->name.c_str(), p.output.get());
    Isl<isl_set> window = output_window(ctx.get(), out->name, out->dimensions, func_id);
    std::vector<Writer> writers;
    for (const Statement &s : nest.statements) {
        if (s.store->buffer != out->name) continue;
        if (!s.writes)
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " (a store to the output " + out->name +
                                          ") is not modelled: " + s.unmodelled};
        if (!s.provenance || s.provenance->func != p.output)
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " stores to the output " + out->name +
                                          " a value of another Func"};
        writers.push_back({&s, s.writes, s.coordinates, s.outer_domains, deepest_dimensions(s)});
    }
    const std::string stores = std::to_string(writers.size()) + " store(s) to " + out->name;
    Isl<isl_set> target = check(isl_set_intersect_params(window.copy(), nest.context.copy()), "the window");
    // First along the loops, then, if that shows nothing, at once: the union of the points
    // the stores write (each simplified under the context: the domains of partitioned
    // loops carry pieces that the context decides) taken out of the window.
    Decomposition parts(ctx);
    if (parts.covers(writers, target, 0, std::vector<bool>(size_t(out->dimensions), false)))
        return {Verdict::Proved, "the " + stores + " write every point of the window (" +
                                     std::to_string(parts.subproblems()) + " part(s), along the loops)"};
    ctx.reset_operations();
    Isl<isl_set> written = check(isl_set_empty(isl_set_get_space(window.get())), "the written points");
    for (const Writer &w : writers) {
        Isl<isl_set> points = check(isl_set_gist_params(isl_map_range(w.writes.copy()), nest.context.copy()), "the written points");
        written = check(isl_set_coalesce(isl_set_union(written.release(), points.release())), "the written points");
    }
    Isl<isl_set> missing = check(isl_set_subtract(target.release(), written.release()), "the unwritten part");
    const isl_bool empty = isl_set_is_empty(missing.get());
    if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide coverage");
    if (empty == isl_bool_true || empty_within_wide_ranges(nest, missing))
        return {Verdict::Proved, "the " + stores + " write every point of the window"};
    Isl<isl_point> pt = small_sample(missing, "a counterexample");
    std::string where = "the window point " + p.output->name + describe_coords(pt.get(), 0, out->dimensions) +
                        " is never written, with " + describe_params(missing.get(), pt.get());
    return refuted_unless_unmodelled(nest, where);
}

}  // namespace tessera::validator
