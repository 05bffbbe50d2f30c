// random_float, random_uint and random_int (include/tessera/IROperator.h): a call made
// before its definition is random_hash(seed, call site), which add_definition
// (src/lang/Func.cpp) completes with the definition's coordinates. random_hash is an
// intrinsic with its own scalar meaning (src/ir/Scalar.cpp), so that the hash, whose
// rounds each use their input twice, stays one node: written out as arithmetic, each
// round would double the printed expression.

#include "lang/Random.h"

#include <atomic>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Scalar.h"
#include "tessera/Error.h"
#include "tessera/IROperator.h"
#include "tessera/RDom.h"

namespace tessera {

using namespace ir;

namespace {

std::atomic<uint32_t> next_call_site{0};

Expr u32(uint32_t v) { return make_const(UInt(32), int64_t(v)); }

Expr placeholder(const Expr &seed, const char *name) {
    Expr s = u32(0);
    if (seed.defined()) {
        if (!seed.type().is_int() && !seed.type().is_uint())
            throw CompileError(std::string(name) + " takes an integer seed, not a " + seed.type().to_string());
        s = cast(UInt(32), seed);
    }
    return Call::make_intrinsic(UInt(32), Intrinsic::Random, {s, u32(next_call_site++)});
}

class ResolveRandom : public IRMutator {
public:
    explicit ResolveRandom(const std::vector<Expr> &coordinates) : coordinates_(coordinates) {}

protected:
    using IRMutator::visit;
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Intrinsic || c->op != Intrinsic::Random || c->args.size() != 2) return e;
        std::vector<Expr> args = {c->args[0], c->args[1], u32(uint32_t(coordinates_.size()))};
        args.insert(args.end(), coordinates_.begin(), coordinates_.end());
        return Call::make_intrinsic(UInt(32), Intrinsic::Random, std::move(args));
    }

private:
    const std::vector<Expr> &coordinates_;
};

}  // namespace

Expr random_uint(Expr seed) { return placeholder(seed, "random_uint"); }
Expr random_int(Expr seed) { return reinterpret(Int(32), placeholder(seed, "random_int")); }
Expr random_float(Expr seed) {
    // The top 24 bits, scaled: every value a multiple of 2^-24 in [0, 1), exactly.
    return cast(Float(32), placeholder(seed, "random_float") >> u32(8)) * make_const(Float(32), 1.0 / 16777216.0);
}

namespace lang {

bool uses_random(const Expr &e) {
    struct Find : IRVisitor {
        bool found = false;
        using IRVisitor::visit;
        void visit(const Call *op) override {
            found = found || (op->call_kind == CallKind::Intrinsic && op->op == Intrinsic::Random && op->args.size() == 2);
            IRVisitor::visit(op);
        }
    } find;
    if (e.defined()) find.include(e);
    return find.found;
}

Expr resolve_random(const Expr &value, const std::vector<Expr> &args, const std::shared_ptr<ir::RDomData> &rdom) {
    if (!uses_random(value)) return value;
    std::vector<Expr> coordinates = args;
    if (rdom)
        for (int k = 0; k < int(rdom->dims.size()); k++) coordinates.push_back(RVar(rdom, k));
    if (int(coordinates.size()) + 3 > kMaxIntrinsicArgs)
        throw CompileError("random numbers in a definition with " + std::to_string(coordinates.size()) +
                           " coordinates (at most " + std::to_string(kMaxIntrinsicArgs - 3) + ")");
    return ResolveRandom(coordinates).mutate(value);
}

}  // namespace lang

}  // namespace tessera
