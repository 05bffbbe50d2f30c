// Var and RVar (Expr itself is the IR's: src/ir/Expr.cpp).

#include "ir/Check.h"
#include "ir/IR.h"
#include "ir/Names.h"
#include "tessera/Expr.h"
#include "tessera/RDom.h"

namespace tessera {

using namespace ir;

Var::Var() : name_(ir::fresh_name('v')) {}
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

}  // namespace tessera
