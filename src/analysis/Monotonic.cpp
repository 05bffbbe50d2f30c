#include "analysis/Monotonic.h"

#include "ir/Substitute.h"

namespace tessera::analysis {

using namespace ir;

namespace {

Monotonic flip(Monotonic m) {
    if (m == Monotonic::Increasing) return Monotonic::Decreasing;
    if (m == Monotonic::Decreasing) return Monotonic::Increasing;
    return m;
}

/** The direction of a + b, given the directions of a and b. */
Monotonic combine(Monotonic a, Monotonic b) {
    if (a == Monotonic::Constant) return b;
    if (b == Monotonic::Constant) return a;
    if (a == b) return a;
    return Monotonic::Unknown;
}

/** The sign of a constant, or 0 if e is not a constant. */
int const_sign(const Expr &e) {
    if (const IntImm *i = as<IntImm>(e)) return i->value > 0 ? 1 : i->value < 0 ? -1 : 2;
    if (const UIntImm *u = as<UIntImm>(e)) return u->value > 0 ? 1 : 2;
    return 0;
}

Monotonic walk(const Expr &e, const std::string &var) {
    if (!uses_var(e, var)) return Monotonic::Constant;
    if (!e.type().is_int() || e.type().lanes != 1) return Monotonic::Unknown;
    if (const Variable *v = as<Variable>(e)) return v->name == var ? Monotonic::Increasing : Monotonic::Constant;
    if (const Add *a = as<Add>(e)) return combine(walk(a->a, var), walk(a->b, var));
    if (const Sub *s = as<Sub>(e)) return combine(walk(s->a, var), flip(walk(s->b, var)));
    if (const Min *m = as<Min>(e)) return combine(walk(m->a, var), walk(m->b, var));
    if (const Max *m = as<Max>(e)) return combine(walk(m->a, var), walk(m->b, var));
    if (const Mul *m = as<Mul>(e)) {
        // By a constant factor: its sign decides (zero makes a constant).
        for (const auto &[c, x] : {std::pair{m->a, m->b}, std::pair{m->b, m->a}}) {
            const int sign = const_sign(c);
            if (sign == 2) return Monotonic::Constant;
            if (sign == 1) return walk(x, var);
            if (sign == -1) return flip(walk(x, var));
        }
        return Monotonic::Unknown;
    }
    if (const Div *d = as<Div>(e)) {
        // Euclidean division by a positive constant is non-decreasing in the dividend.
        if (const_sign(d->b) == 1) return walk(d->a, var);
        return Monotonic::Unknown;
    }
    if (const Select *s = as<Select>(e)) {
        // Both branches moving the same way is not enough (the condition may switch from
        // the larger to the smaller); a condition independent of var is.
        if (!uses_var(s->condition, var)) return combine(walk(s->true_value, var), walk(s->false_value, var));
        return Monotonic::Unknown;
    }
    return Monotonic::Unknown;
}

}  // namespace

Monotonic monotonic_in(const Expr &e, const std::string &var) { return walk(e, var); }

}  // namespace tessera::analysis
