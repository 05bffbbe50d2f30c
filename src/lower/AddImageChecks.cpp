// Checks made once on entry to a pipeline, before any value is computed: parameters in
// their declared ranges, RDom extents not negative (regression R1, docs/semantics.md §14), and every
// input buffer covering the region the pipeline reads from it. A failing check stops the
// pipeline with a message naming the buffer, the dimension, and the required and given
// ranges; nothing is ever read out of bounds.

#include <set>

#include "analysis/Simplify.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"
#include "lower/RequiredRegion.h"

namespace tessera::lower {

using namespace ir;

namespace {


/** Every image read (Buffers and ImageParams) and every Param, in order of first use. */
class Inputs : public IRVisitor {
public:
    std::vector<const Call *> images;
    std::vector<std::shared_ptr<ParamData>> params;
    using IRVisitor::include;

protected:
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Image && seen_.insert(op->name).second) images.push_back(op);
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override {
        if (op->var_kind == VarKind::Param && seen_.insert(op->name).second) params.push_back(op->param);
    }

private:
    std::set<std::string> seen_;
};

Stmt prepend(std::vector<Stmt> checks, const Stmt &s) {
    checks.push_back(s);
    return Block::make(checks);
}

// Insert checks after the leading lets (they may use the bounds those lets define).
Stmt insert_after_lets(const Stmt &s, const std::vector<Stmt> &checks) {
    if (const LetStmt *l = as<LetStmt>(s)) return LetStmt::make(l->name, l->value, insert_after_lets(l->body, checks));
    return prepend(checks, s);
}

}  // namespace

/** The leading lets of s (the bounds inference computed), in order. */
std::vector<std::pair<std::string, Expr>> leading_lets(const Stmt &s) {
    std::vector<std::pair<std::string, Expr>> lets;
    for (const LetStmt *l = as<LetStmt>(s); l; l = as<LetStmt>(l->body)) lets.emplace_back(l->name, l->value);
    return lets;
}

Stmt add_image_checks(const PipelinePlan &plan, Stmt s, std::vector<ExternRegion> *extern_regions) {
    std::vector<Stmt> startup;

    // Parameter ranges.
    Inputs inputs;
    inputs.include(s);
    for (const auto &p : inputs.params) {
        Expr v = Variable::make_param(p);
        if (p->min_value.defined())
            startup.push_back(AssertStmt::make(GE::make(v, p->min_value),
                                               {text("Param " + p->name + " is "), v, text(" but must be at least "),
                                                p->min_value, text(" (set_range)")}));
        if (p->max_value.defined())
            startup.push_back(AssertStmt::make(LE::make(v, p->max_value),
                                               {text("Param " + p->name + " is "), v, text(" but must be at most "),
                                                p->max_value, text(" (set_range)")}));
    }

    // RDom extents: a negative extent is an error before any value is computed.
    for (const FuncPlan &p : plan.funcs) {
        for (size_t st = 1; st < p.defs.size(); st++) {
            const Definition &d = p.defs[st];
            if (!d.rdom) continue;
            for (const auto &dim : d.rdom->dims) {
                Expr ex = analysis::simplify(dim.extent);
                const IntImm *c = as<IntImm>(ex);
                if (c && c->value >= 0) continue;
                startup.push_back(AssertStmt::make(
                    GE::make(ex, IntImm::make(Int(32), 0)),
                    {text("RDom " + d.rdom->name + " used in " + describe_definition(*p.func, int(st)) + " has extent "),
                     ex, text(" in dimension " + dim.name + "; RDom extents must not be negative")}));
            }
        }
    }

    // The output buffer covers what is written to it: RoundUp and ShiftInwards splits of
    // the output compute past the window's end when its extent is not a multiple of (or is
    // smaller than) the split factor. Checked first: the inputs' regions follow from the
    // output's, so this is the cause when both fail.
    std::vector<Stmt> coverage;
    // An output whose updates write through a reduction dimension inside its bound region
    // there is computed in the output buffer (src/lower/InlineFunctions.cpp,
    // writes_inside_bounds): the buffer must be that region.
    if (const FuncPlan &out = plan.funcs.back(); out.storage == out.func->name) {
        const FunctionData &f = *out.func;
        for (int i = 0; i < f.dimensions(); i++) {
            bool reduction = false;
            for (size_t st = 1; st < out.defs.size(); st++) reduction = reduction || !out.defs[st].pure_dims[size_t(i)];
            for (const ir::Bound &b : f.schedule.bounds) {
                if (!reduction || b.var != f.args[size_t(i)]) continue;
                const Expr one = IntImm::make(Int(32), 1);
                const Expr mn = buffer_min(f.name, i), mx = Sub::make(Add::make(mn, buffer_extent(f.name, i)), one);
                const Expr last = Sub::make(Add::make(b.min, b.extent), one);
                coverage.push_back(AssertStmt::make(
                    And::make(EQ::make(mn, b.min), EQ::make(mx, last)),
                    {text("Output buffer \"" + f.name + "\" covers ["), mn, text(", "), mx,
                     text("] in dimension " + std::to_string(i) + " (" + f.args[size_t(i)] + "), but Func \"" + f.name +
                         "\" is bound to ["),
                     b.min, text(", "), last,
                     text("] there, where its updates write through a reduction dimension: realize it over its bound "
                         "region")}));
                break;
            }
        }
    }
    std::vector<RegionQuery> queries{RegionQuery{plan.output->name, plan.output->dimensions(), true}};
    for (const Call *img : inputs.images) queries.push_back(RegionQuery{img->name, int(img->args.size()), false});
    const std::vector<RequiredRegion> regions = required_regions_with_lets(s, queries);
    {
        const FunctionData &out = *plan.output;
        const int dims = out.dimensions();
        const RequiredRegion &r = regions[0];
        for (int i = 0; i < dims && r.touched(); i++) {
            const analysis::Interval &iv = r.box[size_t(i)];
            if (!iv.is_bounded()) continue;  // bounds inference has already reported it
            Expr lo = analysis::simplify_index(iv.min), hi = analysis::simplify_index(iv.max);
            Expr mn = buffer_min(out.name, i);
            Expr mx = Sub::make(Add::make(mn, buffer_extent(out.name, i)), IntImm::make(Int(32), 1));
            Expr ok = Or::make(GT::make(lo, hi), And::make(LE::make(mn, lo), LE::make(hi, mx)));
            coverage.push_back(AssertStmt::make(
                ok, {text("Output buffer \"" + out.name + "\" is written at ["), lo, text(", "), hi,
                     text("] in dimension " + std::to_string(i) + " (" + out.args[size_t(i)] +
                         "), but it covers only ["),
                     mn, text(", "), mx,
                     text("]: a RoundUp or ShiftInwards split of the output (TailStrategy::Auto is ShiftInwards on a "
                         "pure definition, as in Halide) computes past the end of a window whose extent is not a "
                         "multiple of (or is smaller than) the split factor; use "
                         "TailStrategy::GuardWithIf, or realize a window that fits the split")}));
        }
    }

    // Input buffers cover what is read.
    for (size_t k = 0; k < inputs.images.size(); k++) {
        const Call *img = inputs.images[k];
        const int dims = int(img->args.size());
        const RequiredRegion &r = regions[k + 1];
        for (int i = 0; i < dims; i++) {
            const analysis::Interval &iv = r.box[size_t(i)];
            const std::string what = describe_input_buffer(img->name, img->buffer.get(), int(k));
            if (!iv.is_bounded())
                throw CompileError(what + " is accessed in an unbounded way in dimension " +
                                   std::to_string(i) + " by Func \"" + r.unbounded_by[size_t(i)] +
                                   "\"; clamp the coordinates (for example with a boundary condition)");
            Expr lo = analysis::simplify_index(iv.min), hi = analysis::simplify_index(iv.max);
            if (extern_regions && img->input && img->input->extern_image) {
                // An extern Func's image: the region realize computes it over.
                if (i == 0) {
                    ExternRegion e;
                    e.image = img->name;
                    e.lets = leading_lets(s);
                    for (const auto &l : regions[0].lets) e.lets.push_back(l);
                    extern_regions->push_back(e);
                }
                extern_regions->back().min.push_back(lo);
                extern_regions->back().max.push_back(hi);
            }
            Expr mn = buffer_min(img->name, i);
            Expr mx = Sub::make(Add::make(mn, buffer_extent(img->name, i)), IntImm::make(Int(32), 1));
            Expr ok = Or::make(GT::make(lo, hi), And::make(LE::make(mn, lo), LE::make(hi, mx)));
            coverage.push_back(AssertStmt::make(
                ok, {text(what + " is read at ["), lo, text(", "), hi,
                     text("] in dimension " + std::to_string(i) + ", but it covers only ["), mn, text(", "), mx,
                     text("]")}));
        }
    }
    if (!coverage.empty()) {
        // The named bounds the checks use (required_regions_with_lets), around them.
        Stmt checks = Block::make(coverage);
        const auto &lets = regions[0].lets;
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) checks = LetStmt::make(it->first, it->second, checks);
        s = insert_after_lets(s, {checks});
    }
    if (!startup.empty()) s = prepend(startup, s);
    return s;
}

}  // namespace tessera::lower
