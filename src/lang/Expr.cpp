// Expr literals, Var and RVar.

#include <atomic>
#include <map>
#include <mutex>

#include "ir/Check.h"
#include "ir/IR.h"
#include "lang/Names.h"
#include "tessera/Expr.h"
#include "tessera/RDom.h"

namespace tessera {

using namespace ir;

namespace lang {
std::string fresh_name(char prefix) {
    static std::mutex mutex;
    static std::map<char, int> counters;
    std::lock_guard<std::mutex> lock(mutex);
    return std::string(1, prefix) + std::to_string(counters[prefix]++);
}
}  // namespace lang

Expr::Expr(int8_t v) : Expr(IntImm::make(Int(8), v)) {}
Expr::Expr(int16_t v) : Expr(IntImm::make(Int(16), v)) {}
Expr::Expr(int32_t v) : Expr(IntImm::make(Int(32), v)) {}
Expr::Expr(int64_t v) : Expr(IntImm::make(Int(64), v)) {}
Expr::Expr(uint8_t v) : Expr(UIntImm::make(UInt(8), v)) {}
Expr::Expr(uint16_t v) : Expr(UIntImm::make(UInt(16), v)) {}
Expr::Expr(uint32_t v) : Expr(UIntImm::make(UInt(32), v)) {}
Expr::Expr(uint64_t v) : Expr(UIntImm::make(UInt(64), v)) {}
Expr::Expr(float v) : Expr(FloatImm::make(Float(32), v)) {}
Expr::Expr(double v) : Expr(FloatImm::make(Float(64), v)) {}

Type Expr::type() const {
    if (!node_) throw CompileError("Use of an undefined Expr");
    return node_->type;
}

Var::Var() : name_(lang::fresh_name('v')) {}
Var::Var(const std::string &name) : name_(name) {
    if (name.empty()) throw CompileError("A Var needs a non-empty name");
}
Var::operator Expr() const { return Variable::make(Int(32), name_, VarKind::Pure); }

RVar::RVar(std::shared_ptr<RDomData> domain, int index) : domain_(std::move(domain)), index_(index) {}

const std::string &RVar::name() const {
    if (!domain_) throw CompileError("Use of an undefined RVar");
    return domain_->dims.at(index_).name;
}
Expr RVar::min() const { return domain_->dims.at(index_).min; }
Expr RVar::extent() const { return domain_->dims.at(index_).extent; }
RVar::operator Expr() const {
    if (!domain_) throw CompileError("Use of an undefined RVar");
    return Variable::make_rvar(domain_, index_);
}

namespace ir {
Expr Variable::make_rvar(const std::shared_ptr<RDomData> &d, int index) {
    auto v = std::make_shared<Variable>(Int(32), d->dims.at(index).name, VarKind::Reduction);
    v->rdom = d;
    v->rdom_index = index;
    return Expr(std::shared_ptr<const ExprNode>(std::move(v)));
}
}  // namespace ir

}  // namespace tessera
