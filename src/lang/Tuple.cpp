// Tuple (include/tessera/Tuple.h): several values at each point of one Func. A Tuple
// definition's value is one tuple() intrinsic over its components (src/ir/IR.h); a read
// of component i is a Call with value_index i.

#include "ir/Function.h"
#include "ir/IR.h"
#include "tessera/Func.h"
#include "tessera/Tuple.h"

namespace tessera {

using namespace ir;

Tuple::Tuple(const std::vector<Expr> &values) : values_(values) {
    if (values_.empty()) throw CompileError("A Tuple needs at least one value");
    for (size_t i = 0; i < values_.size(); i++)
        if (!values_[i].defined()) throw CompileError("Value " + std::to_string(i) + " of a Tuple is an undefined Expr");
}

Tuple::Tuple(const FuncRef &ref) {
    for (size_t i = 0; i < ref.size(); i++) values_.push_back(ref[int(i)]);
}

Expr &Tuple::operator[](size_t i) {
    if (i >= values_.size())
        throw CompileError("A Tuple of " + std::to_string(values_.size()) + " values has no value " + std::to_string(i));
    return values_[i];
}

const Expr &Tuple::operator[](size_t i) const { return const_cast<Tuple &>(*this)[i]; }

namespace {

void check_same_size(const char *what, const Tuple &a, const Tuple &b) {
    if (a.size() != b.size())
        throw CompileError(std::string(what) + " of Tuples of different sizes (" + std::to_string(a.size()) + " and " +
                           std::to_string(b.size()) + ")");
}

}  // namespace

Tuple select(const Expr &condition, const Tuple &true_value, const Tuple &false_value) {
    check_same_size("select", true_value, false_value);
    std::vector<Expr> values;
    for (size_t i = 0; i < true_value.size(); i++) values.push_back(select(condition, true_value[i], false_value[i]));
    return Tuple(values);
}

Tuple select(const Expr &c0, const Tuple &v0, const Expr &c1, const Tuple &v1, const Tuple &otherwise) {
    return select(c0, v0, select(c1, v1, otherwise));
}

Tuple cast(const std::vector<Type> &types, const Tuple &t) {
    if (types.size() != t.size())
        throw CompileError("cast of a Tuple of " + std::to_string(t.size()) + " values to " + std::to_string(types.size()) +
                           " types");
    std::vector<Expr> values;
    for (size_t i = 0; i < t.size(); i++) values.push_back(cast(types[i], t[i]));
    return Tuple(values);
}

namespace lang {

/** The value of a definition with the components of `t`: tuple(t...) for two or more. */
Expr tuple_value(const Tuple &t) { return ir::tuple_value(t.as_vector()); }

}  // namespace lang

}  // namespace tessera
