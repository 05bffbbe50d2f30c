#pragma once
// Reduction domains: RDom is a box of points with optional `where` predicates; its
// dimensions are RVars r.x, r.y, r.z, r.w (or r[i]). Update definitions that use an RDom
// iterate it lexicographically with r.x innermost.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/Buffer.h"
#include "tessera/Expr.h"

namespace tessera {

namespace ir {
struct RDomData {
    struct Dim {
        std::string name;  // user-visible: "r.x" or the RDom's name + ".x"
        Expr min, extent;
    };
    std::string name;
    std::vector<Dim> dims;
    std::vector<Expr> predicates;  // conjunction of `where` conditions
    bool used = false;             // set once an update definition uses this RDom
};
}  // namespace ir

/** A (min, extent) pair, as in Halide. */
struct Range {
    Expr min, extent;
    Range() = default;
    Range(Expr mn, Expr ex) : min(std::move(mn)), extent(std::move(ex)) {}
};
using Region = std::vector<Range>;

class RDom {
public:
    RDom() = default;
    /** RDom(min0, extent0, min1, extent1, ..., [name]). */
    explicit RDom(const Region &region, const std::string &name = "");
    RDom(Expr min0, Expr extent0, const std::string &name = "");
    RDom(Expr min0, Expr extent0, Expr min1, Expr extent1, const std::string &name = "");
    RDom(Expr min0, Expr extent0, Expr min1, Expr extent1, Expr min2, Expr extent2,
         const std::string &name = "");
    RDom(Expr min0, Expr extent0, Expr min1, Expr extent1, Expr min2, Expr extent2, Expr min3,
         Expr extent3, const std::string &name = "");
    /** The domain of a buffer: one dimension per buffer dimension. */
    explicit RDom(const Buffer<> &b);

    bool defined() const { return data_ != nullptr; }
    int dimensions() const;
    const std::string &name() const;
    RVar operator[](int i) const;

    /** Restrict the domain to points where `predicate` holds (before any use). */
    RDom &where(Expr predicate);

    /** A one-dimensional RDom used as its only RVar. */
    operator RVar() const;
    operator Expr() const;

    /** Its dimensions (of an undefined RDom, or past its dimensions: an error on use). */
    RVar x{nullptr, 0}, y{nullptr, 1}, z{nullptr, 2}, w{nullptr, 3};

    const std::shared_ptr<ir::RDomData> &data() const { return data_; }

private:
    void init(const Region &region, const std::string &name);
    std::shared_ptr<ir::RDomData> data_;
};

}  // namespace tessera
