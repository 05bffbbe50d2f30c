// Reduction domains.

#include "ir/IR.h"
#include "ir/Names.h"
#include "tessera/IROperator.h"
#include "tessera/RDom.h"

namespace tessera {

namespace {
const char *const dim_suffix[] = {".x", ".y", ".z", ".w"};
}

void RDom::init(const Region &region, const std::string &name) {
    if (region.empty()) throw CompileError("An RDom needs at least one dimension");
    data_ = std::make_shared<ir::RDomData>();
    data_->name = name.empty() ? ir::fresh_name('r') : name;
    for (size_t i = 0; i < region.size(); i++) {
        const Range &r = region[i];
        std::string dname = data_->name + (i < 4 ? std::string(dim_suffix[i]) : "." + std::to_string(i));
        if (!r.min.defined() || !r.extent.defined())
            throw CompileError("RDom " + data_->name + ": dimension " + dname + " has an undefined min or extent");
        for (const Expr *e : {&r.min, &r.extent}) {
            if (!e->type().is_integer())
                throw CompileError("RDom " + data_->name + ": the " + (e == &r.min ? "min" : "extent") +
                                   " of dimension " + dname + " has type " + e->type().to_string() +
                                   "; RDom bounds must be integers");
        }
        data_->dims.push_back({dname, cast(Int(32), r.min), cast(Int(32), r.extent)});
    }
    // Past the RDom's dimensions, y, z and w stand for dimensions it lacks: using one is
    // an error that says so (a free RVar in their place would name a loop nobody made).
    x = RVar(data_, 0);
    y = RVar(data_, 1);
    z = RVar(data_, 2);
    w = RVar(data_, 3);
}

RDom::RDom(const Region &region, const std::string &name) { init(region, name); }
RDom::RDom(Expr min0, Expr extent0, const std::string &name) { init({{min0, extent0}}, name); }
RDom::RDom(Expr min0, Expr extent0, Expr min1, Expr extent1, const std::string &name) {
    init({{min0, extent0}, {min1, extent1}}, name);
}
RDom::RDom(Expr min0, Expr extent0, Expr min1, Expr extent1, Expr min2, Expr extent2,
           const std::string &name) {
    init({{min0, extent0}, {min1, extent1}, {min2, extent2}}, name);
}
RDom::RDom(Expr min0, Expr extent0, Expr min1, Expr extent1, Expr min2, Expr extent2,
           Expr min3, Expr extent3, const std::string &name) {
    init({{min0, extent0}, {min1, extent1}, {min2, extent2}, {min3, extent3}}, name);
}

RDom::RDom(const Buffer<> &b) {
    if (!b.defined()) throw CompileError("RDom over an undefined Buffer");
    Region region;
    for (int i = 0; i < b.dimensions(); i++) region.push_back({b.dim(i).min(), b.dim(i).extent()});
    init(region, "");
}

int RDom::dimensions() const { return data_ ? static_cast<int>(data_->dims.size()) : 0; }

const std::string &RDom::name() const {
    if (!data_) throw CompileError("Use of an undefined RDom");
    return data_->name;
}

RVar RDom::operator[](int i) const {
    if (!data_ || i < 0 || i >= dimensions())
        throw CompileError("RDom " + (data_ ? data_->name : std::string("(undefined)")) + " has no dimension " +
                           std::to_string(i) + " (it has " + std::to_string(dimensions()) + ")");
    return RVar(data_, i);
}

RDom &RDom::where(Expr predicate) {
    if (!data_) throw CompileError("where() on an undefined RDom");
    if (!predicate.defined()) throw CompileError("RDom " + data_->name + ": where() given an undefined Expr");
    if (!predicate.type().is_bool())
        throw CompileError("RDom " + data_->name + ": the where() condition has type " +
                           predicate.type().to_string() + " but must be a boolean");
    if (data_->used)
        throw CompileError("RDom " + data_->name +
                           ": where() was called after the RDom was used in a definition; add "
                           "predicates before using the RDom");
    data_->predicates.push_back(std::move(predicate));
    return *this;
}

RDom::operator RVar() const {
    if (dimensions() != 1)
        throw CompileError("RDom " + name() + " has " + std::to_string(dimensions()) +
                           " dimensions and cannot be used as a single RVar; use " + name() + ".x, " +
                           name() + ".y, ...");
    return RVar(data_, 0);
}

RDom::operator Expr() const { return Expr(RVar(*this)); }

}  // namespace tessera
