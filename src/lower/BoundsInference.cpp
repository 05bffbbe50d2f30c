// Bounds inference: define the loop bounds of every stage and the extent of every
// realization, from the regions their consumers require (notes/seed002.md §5.5).
//
// Funcs are processed consumers first. For a Func realized at some site, the region its
// last definition must cover is the box of all reads of it in the consumer part of its
// realization; loops enclosing the site stay symbolic, so a Func computed inside a loop
// gets a per-iteration region. Each earlier definition covers the region of the next one
// plus everything that definition reads of the Func or writes to it (so definition k-1
// covers definition k in reduction dimensions too: the fix of §5.2). The realization is
// the region of the pure definition. The lets are placed at the top of the compute site,
// after those of the Funcs' consumers that share the site, so every bound is defined
// before it is used.

#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"
#include "lower/RequiredRegion.h"

namespace tessera::lower {

using namespace ir;
using analysis::Interval;

namespace {

using Lets = std::vector<std::pair<std::string, Expr>>;

Stmt insert_lets(const Stmt &body, const Lets &lets) {
    if (const LetStmt *l = as<LetStmt>(body)) return LetStmt::make(l->name, l->value, insert_lets(l->body, lets));
    Stmt s = body;
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) s = LetStmt::make(it->first, it->second, s);
    return s;
}

class InsertAtSite : public IRMutator {
public:
    InsertAtSite(const std::string &site, const Lets &lets) : site_(site), lets_(lets) {}

protected:
    Stmt visit(const For *op, const Stmt &self) override {
        if (op->name != site_) return IRMutator::visit(op, self);
        return For::make(op->name, op->min, op->extent, op->for_type, insert_lets(op->body, lets_));
    }

private:
    const std::string &site_;
    const Lets &lets_;
};

/** The consumer part of the realization of `storage`. */
class FindConsumer : public IRVisitor {
public:
    explicit FindConsumer(const std::string &storage) : storage_(storage) {}
    Stmt consumer;
    using IRVisitor::include;

protected:
    void visit(const ProducerConsumer *op) override {
        if (!op->is_producer && op->name == storage_) consumer = op->body;
        IRVisitor::visit(op);
    }

private:
    const std::string &storage_;
};

std::string dims_text(const FunctionData &f, int i) {
    return "dimension " + std::to_string(i) + " (" + f.args[size_t(i)] + ")";
}

Expr one() { return IntImm::make(Int(32), 1); }

}  // namespace

Stmt bounds_inference(const PipelinePlan &plan, Stmt s) {
    for (int k = int(plan.funcs.size()) - 1; k >= 0; k--) {
        const FuncPlan &p = plan.funcs[size_t(k)];
        const FunctionData &f = *p.func;
        const int n = f.dimensions();

        // The region the last definition must cover.
        std::vector<Interval> region(static_cast<size_t>(n));
        if (p.is_output) {
            for (int i = 0; i < n; i++)
                region[size_t(i)] = Interval{buffer_min(f.name, i),
                                             Sub::make(Add::make(buffer_min(f.name, i), buffer_extent(f.name, i)), one())};
        } else {
            FindConsumer find(p.storage);
            find.include(s);
            RequiredRegion r = required_region(find.consumer, p.storage, n, false);
            for (int i = 0; i < n; i++) {
                if (!r.touched()) {
                    region[size_t(i)] = Interval{IntImm::make(Int(32), 0), IntImm::make(Int(32), -1)};
                    continue;
                }
                const Interval &iv = r.box[size_t(i)];
                if (!iv.is_bounded())
                    throw CompileError("Func \"" + f.name + "\" is accessed in an unbounded way in " + dims_text(f, i) +
                                       " by Func \"" + r.unbounded_by[size_t(i)] +
                                       "\": the coordinates it is read at cannot be bounded; clamp them (for "
                                       "example with clamp(...) or a boundary condition)");
                region[size_t(i)] = iv;
            }
        }

        Lets lets;
        for (int st = int(p.defs.size()) - 1; st >= 0; st--) {
            const Definition &d = p.defs[size_t(st)];
            for (int i = 0; i < n; i++) {
                if (!d.pure_dims[size_t(i)]) continue;
                std::string v = dim_var_name(d, i);
                lets.emplace_back(loop_min(f.name, st, v), analysis::simplify(region[size_t(i)].min));
                lets.emplace_back(loop_max(f.name, st, v), analysis::simplify(region[size_t(i)].max));
                region[size_t(i)] = Interval{Variable::make(Int(32), loop_min(f.name, st, v)),
                                             Variable::make(Int(32), loop_max(f.name, st, v))};
            }
            if (st == 0) break;
            RequiredRegion self = required_region(p.stages[size_t(st)], p.storage, n, true);
            if (!self.touched()) continue;
            for (int i = 0; i < n; i++) {
                const Interval &iv = self.box[size_t(i)];
                if (!iv.is_bounded())
                    throw CompileError("In " + describe_definition(f, st) + ": Func \"" + f.name +
                                       "\" is read or written in an unbounded way in " + dims_text(f, i) +
                                       "; clamp the coordinates");
                region[size_t(i)] = analysis::interval_union(region[size_t(i)], iv);
            }
        }

        if (p.compute_site.empty()) {
            s = insert_lets(s, lets);
        } else {
            InsertAtSite insert(p.compute_site, lets);
            s = insert.mutate(s);
        }
    }
    return s;
}

}  // namespace tessera::lower
