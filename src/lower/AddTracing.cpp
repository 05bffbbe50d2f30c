// Tracing (Func::trace_stores, trace_loads, trace_realizations; Halide's, without its
// trace callback): each store of a traced Func's value, each load of one, and each of its
// realizations writes a line to stderr, through the `trace` intrinsic, which lowering
// treats as print_when (an effect: never moved, merged or dropped) and which writes its
// parts one after the other:
//
//     Begin pipeline out.0()
//     Store f.0(3, 4) = 17
//     Load f.0(3, 4) = 17
//     Begin realization f.0(0, 8, 0, 4)        (min and extent of each dimension)
//     End realization f.0(0, 8, 0, 4)
//     End pipeline out.0()
//
// Run right after the loop nests are built, while stores and loads of Funcs still have
// their coordinates (Provide and Call); the value is bound to a let so that the line and
// the store use one evaluation of it. The ".0" is Halide's index of a Tuple's element: a
// Func with several values writes a line per value (".0", ".1", ...).

#include "ir/IRMutator.h"
#include "tessera/IROperator.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {


/** trace(true, value, parts...). */
Expr trace_call(const Expr &value, std::vector<Expr> parts) {
    std::vector<Expr> args{make_bool(true), value};
    args.insert(args.end(), parts.begin(), parts.end());
    return Call::make_intrinsic(value.type(), Intrinsic::Trace, std::move(args));
}

/** "Begin pipeline out.0()" as a statement. */
Stmt event(const std::string &line) { return Evaluate::make(trace_call(IntImm::make(Int(32), 0), {text(line)})); }

/** The parts "name.k(" c_0 ", " c_1 ... ")" of value k. */
std::vector<Expr> point(const std::string &func, const std::vector<Expr> &coords, int value_index = 0) {
    std::vector<Expr> parts{text(func + "." + std::to_string(value_index) + "(")};
    for (size_t i = 0; i < coords.size(); i++) {
        if (i > 0) parts.push_back(text(", "));
        parts.push_back(coords[i]);
    }
    parts.push_back(text(")"));
    return parts;
}

/** `value` written with the line "<what> func.k(coords) = value" when evaluated. */
Expr traced_value(const std::string &what, const std::string &func, const std::vector<Expr> &coords, const Expr &value,
                  const std::string &name, int value_index = 0) {
    const Expr v = Variable::make(value.type(), name);
    std::vector<Expr> parts = point(func, coords, value_index);
    parts.insert(parts.begin(), text(what + " "));
    parts.push_back(text(" = "));
    parts.push_back(v);
    return Let::make(name, value, trace_call(v, std::move(parts)));
}

class AddTracing : public IRMutator {
public:
    explicit AddTracing(const PipelinePlan &plan) : plan_(plan) {}

protected:
    Stmt visit(const Provide *op, const Stmt &self) override {
        Stmt s = IRMutator::visit(op, self);
        const FuncPlan *p = plan_.find_storage(op->name);
        if (!p && plan_.funcs.back().func->name == op->name) p = &plan_.funcs.back();  // the output's final copy
        if (!p || !p->func->schedule.trace_stores) return s;
        const Provide *q = s->as<Provide>();
        const std::vector<Expr> values = tuple_components(q->value);
        std::vector<Expr> traced;
        for (size_t k = 0; k < values.size(); k++)
            traced.push_back(traced_value("Store", p->func->name, q->args, values[k],
                                          p->prefix + ".stored" + (k ? "." + std::to_string(k) : ""), int(k)));
        return Provide::make(q->name, tuple_value(traced), q->args, q->provenance);
    }
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        if (op->call_kind != CallKind::Func) return e;
        const FuncPlan *p = plan_.find_storage(op->name);
        if (!p || !p->func->schedule.trace_loads) return e;
        const Call *c = as<Call>(e);
        return traced_value("Load", p->func->name, c->args, e, p->prefix + ".loaded", c->value_index);
    }
    Stmt visit(const Realize *op, const Stmt &self) override {
        Stmt s = IRMutator::visit(op, self);
        const FuncPlan *p = plan_.find_storage(op->name);
        if (!p || !p->func->schedule.trace_realizations) return s;
        const Realize *r = s->as<Realize>();
        std::vector<Expr> bounds;
        for (const ir::Range &b : r->bounds) {
            bounds.push_back(b.min);
            bounds.push_back(b.extent);
        }
        auto line = [&](const std::string &what) {
            std::vector<Expr> parts = point(p->func->name, bounds);
            parts.insert(parts.begin(), text(what + " realization "));
            return Evaluate::make(trace_call(IntImm::make(Int(32), 0), std::move(parts)));
        };
        return Realize::make(r->name, r->type, r->bounds, Block::make({line("Begin"), r->body, line("End")}));
    }

private:
    const PipelinePlan &plan_;
};

}  // namespace

Stmt add_tracing(const PipelinePlan &plan, Stmt s) {
    bool any = false;
    for (const FuncPlan &p : plan.funcs) {
        const FuncSchedule &f = p.func->schedule;
        any = any || f.trace_stores || f.trace_loads || f.trace_realizations;
    }
    if (!any) return s;
    const std::string out = plan.output->name;
    return Block::make({event("Begin pipeline " + out + ".0()"), AddTracing(plan).mutate(s), event("End pipeline " + out + ".0()")});
}

}  // namespace tessera::lower
