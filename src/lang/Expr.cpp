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

RVar::RVar() : name_(ir::fresh_name('r')) {}
RVar::RVar(const std::string &name) : name_(name) {
    if (name.empty()) throw CompileError("An RVar needs a non-empty name");
}
RVar::RVar(std::shared_ptr<RDomData> domain, int index) : domain_(std::move(domain)), index_(index) {}

namespace {

/** The RDom dimension an RVar stands for; a CompileError naming the RVar where it is free
 * or names a dimension its RDom lacks (r.y of a 1-D RDom). */
const RDomData::Dim &dimension_of(const std::shared_ptr<RDomData> &domain, int index, const std::string &free_name,
                                  const char *use) {
    if (!domain && free_name.empty()) throw CompileError("Use of a dimension of an undefined RDom");
    if (!domain)
        throw CompileError("RVar " + free_name + " is not a dimension of an RDom (it was made from a name, as RVar(\"" +
                           free_name + "\") or RVar()): it names loops in schedules (split, fuse, reorder, rfactor, ...) but has no " +
                           use + "; use an RDom's dimension (r.x, r[0], ...) there");
    if (index < 0 || index >= int(domain->dims.size())) {
        static const char *const suffix[] = {".x", ".y", ".z", ".w"};
        throw CompileError("RDom " + domain->name + " has " + std::to_string(domain->dims.size()) + " dimension" +
                           (domain->dims.size() == 1 ? "" : "s") + ", so " + domain->name +
                           (index < 4 ? std::string(suffix[index]) : "[" + std::to_string(index) + "]") + " does not exist");
    }
    return domain->dims[size_t(index)];
}

}  // namespace

const std::string &RVar::name() const {
    if (!domain_ && !name_.empty()) return name_;
    return dimension_of(domain_, index_, name_, "name").name;
}
Expr RVar::min() const { return dimension_of(domain_, index_, name_, "min").min; }
Expr RVar::extent() const { return dimension_of(domain_, index_, name_, "extent").extent; }
RVar::operator Expr() const {
    dimension_of(domain_, index_, name_, "value in an expression");
    return Variable::make_rvar(domain_, index_);
}

}  // namespace tessera
