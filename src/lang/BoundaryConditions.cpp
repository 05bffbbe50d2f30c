// Boundary conditions as ordinary Funcs: every read of the source goes through a clamped
// (or folded) coordinate, so the source is only read inside its bounds.

#include <functional>
#include <map>
#include <mutex>

#include "tessera/BoundaryConditions.h"

namespace tessera::BoundaryConditions {

namespace {

/** What a boundary condition reads: its values at a point (several for a Func with a
 * Tuple, each given the same boundary). */
struct Source {
    std::string name;
    int dims;
    std::function<std::vector<Expr>(const std::vector<Expr> &)> read;
};

Source source_of(const Func &f) {
    if (!f.defined()) throw CompileError("Boundary condition on Func \"" + f.name() + "\", which has no definition");
    return {f.name(), f.dimensions(), [f](const std::vector<Expr> &c) { return Tuple(f(c)).as_vector(); }};
}

Source source_of(const Buffer<> &b) {
    if (!b.defined()) throw CompileError("Boundary condition on an undefined Buffer");
    return {b.name(), b.dimensions(), [b](const std::vector<Expr> &c) { return std::vector<Expr>{b(c)}; }};
}

Source source_of(const ImageParam &in) {
    if (!in.data()) throw CompileError("Boundary condition on an undefined ImageParam");
    return {in.name(), in.dimensions(), [in](const std::vector<Expr> &c) { return std::vector<Expr>{in(c)}; }};
}

Region bounds_of(const Buffer<> &b) {
    Region r;
    for (int i = 0; i < b.dimensions(); i++) r.push_back({b.dim(i).min(), b.dim(i).extent()});
    return r;
}

Region bounds_of(const ImageParam &in) {
    Region r;
    for (int i = 0; i < in.dimensions(); i++) r.push_back({in.dim(i).min(), in.dim(i).extent()});
    return r;
}

using CoordMap = std::function<Expr(const Expr &x, const Expr &min, const Expr &extent)>;

// Builds f(x0, ..., xn) = source(map(x0), ..., map(xn)) (or the exterior select for
// constant_exterior) over fresh Vars.
Func wrap(const Source &src, const Region &bounds, const std::string &kind, const CoordMap &map,
          const std::vector<Expr> &exterior = {}) {
    if (int(bounds.size()) > src.dims)
        throw CompileError(kind + " on " + src.name + ": given bounds for " + std::to_string(bounds.size()) +
                           " dimensions but it has " + std::to_string(src.dims));
    std::vector<Var> args;
    std::vector<Expr> coords;
    Expr inside;
    for (int i = 0; i < src.dims; i++) {
        args.emplace_back(src.name + "_" + kind + "_" + std::to_string(i));
        Expr x = args.back();
        if (i < int(bounds.size()) && bounds[i].min.defined() && bounds[i].extent.defined()) {
            Expr mn = cast(Int(32), bounds[i].min), ex = cast(Int(32), bounds[i].extent);
            coords.push_back(map(x, mn, ex));
            Expr in_dim = x >= mn && x < mn + ex;
            inside = inside.defined() ? (inside && in_dim) : in_dim;
        } else {
            coords.push_back(x);
        }
    }
    // Each call makes a new Func; a second boundary condition of the same kind on the
    // same source gets a numbered name, so both can be used in one pipeline.
    static std::mutex mutex;
    static std::map<std::string, int> uses;
    std::string name = src.name + "_" + kind;
    {
        std::lock_guard<std::mutex> lock(mutex);
        int n = uses[name]++;
        if (n > 0) name += "_" + std::to_string(n + 1);
    }
    Func f(name);
    std::vector<Expr> values = src.read(coords);
    // One exterior value for every value of the source, or one each (a Tuple's).
    if (exterior.size() > 1 && exterior.size() != values.size())
        throw CompileError(kind + " on " + src.name + ": " + std::to_string(exterior.size()) + " exterior values for a source of " +
                           std::to_string(values.size()));
    for (size_t k = 0; k < values.size() && !exterior.empty() && inside.defined(); k++) {
        Expr e = exterior[exterior.size() == 1 ? 0 : k];
        if (!e.defined()) throw CompileError(kind + " on " + src.name + ": the exterior value is an undefined Expr");
        if (e.type() != values[k].type()) e = cast(values[k].type(), e);
        values[k] = select(inside, values[k], e);
    }
    f(args) = Tuple(values);
    return f;
}

Expr clamp_coord(const Expr &x, const Expr &mn, const Expr &ex) { return clamp(x, mn, mn + ex - 1); }

Expr mirror_image_coord(const Expr &x, const Expr &mn, const Expr &ex) {
    // Period 2 * extent: 0 1 .. e-1 e-1 .. 1 0 (Euclidean % keeps it non-negative).
    Expr c = (x - mn) % (2 * ex);
    c = select(c < ex, c, 2 * ex - 1 - c);
    return clamp(c + mn, mn, mn + ex - 1);
}

Expr mirror_interior_coord(const Expr &x, const Expr &mn, const Expr &ex) {
    // Period 2 * (extent - 1): 0 1 .. e-1 e-2 .. 1. With extent 1 the period is 0 and
    // x % 0 == 0 gives the only point.
    Expr c = (x - mn) % (2 * ex - 2);
    c = select(c < ex, c, 2 * ex - 2 - c);
    return clamp(c + mn, mn, mn + ex - 1);
}

Expr repeat_image_coord(const Expr &x, const Expr &mn, const Expr &ex) {
    return clamp((x - mn) % ex + mn, mn, mn + ex - 1);
}

}  // namespace

Func repeat_edge(const Func &source, const Region &bounds) {
    return wrap(source_of(source), bounds, "repeat_edge", clamp_coord);
}
Func repeat_edge(const Buffer<> &source) { return wrap(source_of(source), bounds_of(source), "repeat_edge", clamp_coord); }
Func repeat_edge(const ImageParam &source) {
    return wrap(source_of(source), bounds_of(source), "repeat_edge", clamp_coord);
}

Func constant_exterior(const Func &source, const Expr &value, const Region &bounds) {
    return wrap(source_of(source), bounds, "constant_exterior", clamp_coord, {value});
}
Func constant_exterior(const Func &source, const Tuple &value, const Region &bounds) {
    return wrap(source_of(source), bounds, "constant_exterior", clamp_coord, value.as_vector());
}
Func constant_exterior(const Buffer<> &source, const Expr &value) {
    return wrap(source_of(source), bounds_of(source), "constant_exterior", clamp_coord, {value});
}
Func constant_exterior(const ImageParam &source, const Expr &value) {
    return wrap(source_of(source), bounds_of(source), "constant_exterior", clamp_coord, {value});
}

Func mirror_image(const Func &source, const Region &bounds) {
    return wrap(source_of(source), bounds, "mirror_image", mirror_image_coord);
}
Func mirror_image(const Buffer<> &source) {
    return wrap(source_of(source), bounds_of(source), "mirror_image", mirror_image_coord);
}
Func mirror_image(const ImageParam &source) {
    return wrap(source_of(source), bounds_of(source), "mirror_image", mirror_image_coord);
}

Func mirror_interior(const Func &source, const Region &bounds) {
    return wrap(source_of(source), bounds, "mirror_interior", mirror_interior_coord);
}
Func mirror_interior(const Buffer<> &source) {
    return wrap(source_of(source), bounds_of(source), "mirror_interior", mirror_interior_coord);
}
Func mirror_interior(const ImageParam &source) {
    return wrap(source_of(source), bounds_of(source), "mirror_interior", mirror_interior_coord);
}

Func repeat_image(const Func &source, const Region &bounds) {
    return wrap(source_of(source), bounds, "repeat_image", repeat_image_coord);
}
Func repeat_image(const Buffer<> &source) {
    return wrap(source_of(source), bounds_of(source), "repeat_image", repeat_image_coord);
}
Func repeat_image(const ImageParam &source) {
    return wrap(source_of(source), bounds_of(source), "repeat_image", repeat_image_coord);
}

}  // namespace tessera::BoundaryConditions
