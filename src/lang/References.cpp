#include "lang/References.h"

#include <algorithm>

#include "ir/IRVisitor.h"

namespace tessera::lang {

using namespace ir;

namespace {

template<typename T>
void add_once(std::vector<std::shared_ptr<T>> &v, const std::shared_ptr<T> &x) {
    if (x && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

class Collect : public IRVisitor {
public:
    explicit Collect(References &refs) : refs_(refs) {}
    using IRVisitor::include;

protected:
    void visit(const Variable *op) override {
        add_once(refs_.params, op->param);
        add_once(refs_.inputs, op->input);
        if (op->rdom) add_references(refs_, op->rdom);
    }
    void visit(const Call *op) override {
        add_once(refs_.inputs, op->input);
        add_once(refs_.buffers, op->buffer);
        IRVisitor::visit(op);
    }

private:
    References &refs_;
};

void add_schedule(References &refs, const StageSchedule &s) {
    for (const Split &sp : s.splits) add_references(refs, sp.factor);
    for (const Specialization &sp : s.specializations) {
        add_references(refs, sp.condition);
        if (sp.schedule) add_schedule(refs, *sp.schedule);
    }
}

}  // namespace

void add_references(References &refs, const Expr &e) {
    if (!e.defined()) return;
    Collect c(refs);
    c.include(e);
}

void add_references(References &refs, const std::shared_ptr<RDomData> &r) {
    if (!r || std::find(refs.rdoms.begin(), refs.rdoms.end(), r) != refs.rdoms.end()) return;
    for (const auto &d : r->dims) {
        add_references(refs, d.min);
        add_references(refs, d.extent);
    }
    refs.rdoms.push_back(r);
    for (const Expr &p : r->predicates) add_references(refs, p);
}

void add_references(References &refs, const Definition &d) {
    for (const Expr &a : d.args) add_references(refs, a);
    add_references(refs, d.value);
    for (const Expr &p : d.predicates) add_references(refs, p);
    add_references(refs, d.rdom);
}

References pipeline_references(const std::shared_ptr<FunctionData> &output) {
    References refs;
    for (const auto &f : pipeline_functions(output)) {
        for (const Definition &d : f->definitions) {
            add_references(refs, d);
            if (d.schedule) add_schedule(refs, *d.schedule);
        }
        for (const Bound &b : f->schedule.bounds)
            for (const Expr &e : {b.min, b.extent, b.modulus, b.remainder}) add_references(refs, e);
        for (const StorageFold &fd : f->schedule.folds) add_references(refs, fd.extent);
    }
    return refs;
}

}  // namespace tessera::lang
