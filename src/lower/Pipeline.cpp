// The state the lowering passes share (src/lower/Pipeline.h): finding a Func's plan, loops
// as compute and store sites, and the names lowering makes.

#include "lower/Pipeline.h"

#include <cstdint>

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace tessera::lower {

using namespace ir;

FuncPlan &PipelinePlan::plan_of(const FunctionData *f) {
    for (FuncPlan &p : funcs)
        if (p.func.get() == f) return p;
    throw InternalError("no plan for Func " + f->name);
}

const FuncPlan *PipelinePlan::find(const FunctionData *f) const {
    for (const FuncPlan &p : funcs)
        if (p.func.get() == f) return &p;
    return nullptr;
}

const FuncPlan *PipelinePlan::find(const std::string &func_name) const {
    for (const FuncPlan &p : funcs)
        if (p.func->name == func_name) return &p;
    return nullptr;
}

const FuncPlan *PipelinePlan::find_storage(const std::string &storage) const {
    for (const FuncPlan &p : funcs)
        if (p.storage == storage) return &p;
    return nullptr;
}

bool is_site(const For *loop, const std::shared_ptr<const LoopId> &site) {
    return site && loop->loop && loop->loop->same_loop(*site);
}

bool same_site(const std::shared_ptr<const LoopId> &a, const std::shared_ptr<const LoopId> &b) {
    return (!a && !b) || (a && b && a->same_loop(*b));
}

std::string describe_loop(const For *loop) {
    return loop->loop ? loop->loop->describe() : "the loop " + loop->name;
}

std::string loop_var(const FuncPlan &p, int stage, const std::string &loop) {
    return p.prefix + ".s" + std::to_string(stage) + "." + loop;
}
std::string loop_min(const FuncPlan &p, int stage, const std::string &loop) { return loop_var(p, stage, loop) + ".min"; }
std::string loop_max(const FuncPlan &p, int stage, const std::string &loop) { return loop_var(p, stage, loop) + ".max"; }

std::string dim_var_name(const Definition &d, int i) {
    const Variable *v = as<Variable>(d.args[size_t(i)]);
    return v ? v->name : "_" + std::to_string(i);
}

std::string describe_input_buffer(const std::string &name, const ir::BufferData *buffer, int position) {
    std::string text = "Input buffer \"" + name + "\"";
    if (!buffer || !buffer->unnamed) return text;
    std::string size;
    for (const auto &d : buffer->dims) size += (size.empty() ? "" : " x ") + std::to_string(d.extent);
    const int n = position + 1;
    const char *suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return text + " (an unnamed " + buffer->type.to_string() + " Buffer of " + (size.empty() ? "one element" : size) +
           ", the pipeline's " + std::to_string(n) + suffix + " input buffer)";
}

Stmt realization_part(const Stmt &s, const std::string &storage, bool producer) {
    struct Find : IRVisitor {
        const std::string *storage;
        bool producer;
        Stmt body;
        using IRVisitor::include;
        void visit(const ProducerConsumer *op) override {
            if (op->is_producer == producer && op->name == *storage && !body.defined()) body = op->body;
            IRVisitor::visit(op);
        }
    } find;
    find.storage = &storage;
    find.producer = producer;
    find.include(s);
    return find.body;
}

Expr buffer_min(const std::string &b, int dim) {
    return Variable::make(Int(32), b + ".min." + std::to_string(dim));
}
Expr buffer_extent(const std::string &b, int dim) {
    return Variable::make(Int(32), b + ".extent." + std::to_string(dim));
}
Expr buffer_stride(const std::string &b, int dim) {
    return Variable::make(Int(64), b + ".stride." + std::to_string(dim));
}

namespace {

/** The int64 expression e computed in int32, when that is coordinate arithmetic: widened
 * int32 values and constants of at most 2^20 in magnitude, combined by +, -, *, /, %, min,
 * max and select. Undefined otherwise. */
Expr narrowed(const Expr &e) {
    constexpr int64_t kSmall = int64_t(1) << 20;
    if (const IntImm *c = as<IntImm>(e)) return c->value >= -kSmall && c->value <= kSmall ? IntImm::make(Int(32), c->value) : Expr();
    if (const Cast *c = as<Cast>(e)) return c->value.type() == Int(32) ? c->value : Expr();
    auto both = [&](const Expr &a, const Expr &b, auto make) -> Expr {
        Expr x = narrowed(a), y = x.defined() ? narrowed(b) : Expr();
        return y.defined() ? make(x, y) : Expr();
    };
    if (const Add *op = as<Add>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Add::make(x, y); });
    if (const Sub *op = as<Sub>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Sub::make(x, y); });
    if (const Mul *op = as<Mul>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Mul::make(x, y); });
    if (const Div *op = as<Div>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Div::make(x, y); });
    if (const Mod *op = as<Mod>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Mod::make(x, y); });
    if (const Min *op = as<Min>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Min::make(x, y); });
    if (const Max *op = as<Max>(e)) return both(op->a, op->b, [](Expr x, Expr y) { return Max::make(x, y); });
    if (const Select *op = as<Select>(e))
        return both(op->true_value, op->false_value, [&](Expr x, Expr y) { return Select::make(op->condition, x, y); });
    return Expr();
}

}  // namespace

Expr saturate_to_int32(const Expr &e) {
    if (e.type() == Int(32)) return e;
    // Coordinate arithmetic with small constants stays in int32: it does not leave the
    // range (src/lower/MarkIndexArithmetic.cpp); a constant near the ends of int32 makes
    // the bound exact in 64 bits and saturated.
    if (Expr n = narrowed(e); n.defined()) return n;
    const Expr lo = IntImm::make(Int(64), int64_t(INT32_MIN) + 1), hi = IntImm::make(Int(64), int64_t(INT32_MAX) - 1);
    return Cast::make(Int(32), Max::make(Min::make(e, hi), lo));
}

}  // namespace tessera::lower
