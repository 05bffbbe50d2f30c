// Func, FuncRef and Stage: building definitions (with the validity checks) and realizing.

#include <algorithm>
#include <functional>
#include <set>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Function.h"
#include "ir/Names.h"
#include "lang/Definitions.h"
#include "lang/Random.h"
#include "lang/ImplicitVars.h"
#include "lang/Validity.h"
#include "semantics/ReferenceInterpreter.h"
#include "tessera/Func.h"

namespace tessera {

using namespace ir;

namespace {

std::shared_ptr<FunctionData> new_function(const std::string &name) {
    auto f = std::make_shared<FunctionData>();
    f->name = name;
    return f;
}

// Every Func called by a definition can no longer get updates: a Func only sees the
// definitions made before its use (docs/semantics.md §8, rule 6).
void freeze_callees(const FunctionData &f, const Definition &d) {
    struct Freeze : IRVisitor {
        const FunctionData *self;
        using IRVisitor::include;

    protected:
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Func && op->func.get() != self) op->func->frozen = true;
            IRVisitor::visit(op);
        }
    } freeze;
    freeze.self = &f;
    for (const Expr &a : d.args) freeze.include(a);
    freeze.include(d.value);
    for (const Expr &p : d.predicates) freeze.include(p);
}

void weaken_self_calls(const std::shared_ptr<FunctionData> &f, Definition &d);

}  // namespace

namespace lang {

Stage add_definition(const std::shared_ptr<FunctionData> &f, std::vector<Expr> args, const Expr &value,
                     const std::shared_ptr<RDomData> &over) {
    if (!f) throw CompileError("Definition of an undefined Func handle");
    if (!value.defined())
        throw CompileError("Func \"" + f->name + "\" is given an undefined Expr as its value");
    args = lang::coerce_coordinates(std::move(args), f->name);
    for (const Expr &a : args)
        if (lang::uses_random(a))
            throw CompileError("Func \"" + f->name + "\" is defined at a random coordinate; random numbers may be used in "
                               "the value of a definition only");
    Definition d;
    d.args = args;
    d.value = value;
    if (!f->defined()) {
        d.value = lang::resolve_random(value, args, nullptr);
        lang::check_pure_definition(*f, args, value);
        // Record the definition tentatively, so that the name check sees it, and undo it
        // if the pipeline's names clash.
        for (const Expr &a : args) f->args.push_back(as<Variable>(a)->name);
        f->type = value.type();
        d.pure_dims.assign(args.size(), true);
        d.schedule = ir::default_stage_schedule(f->args, {});
        f->definitions.push_back(d);
        try {
            ir::check_unique_names(f, 0);
        } catch (...) {
            f->definitions.clear();
            f->args.clear();
            throw;
        }
        freeze_callees(*f, f->definitions.back());
        return Stage(f, 0);
    }
    int update_index = int(f->definitions.size()) - 1;
    if (f->frozen)
        throw CompileError("Func \"" + f->name + "\" cannot be given update " + std::to_string(update_index) +
                           ", because it has already been realized or used in the definition of another "
                           "Func; add all updates of a Func before using it");
    d.rdom = lang::find_rdom(*f, update_index + 1, args, value);
    if (over && d.rdom && d.rdom != over)
        throw CompileError(ir::describe_definition(*f, update_index + 1) + " is a reduction over RDom " + over->name +
                           ", but its value uses RVars of RDom " + d.rdom->name);
    if (over) d.rdom = over;
    lang::check_update_definition(*f, update_index, args, value, d.rdom, d.pure_dims);
    d.value = lang::resolve_random(value, args, d.rdom);
    if (d.rdom) d.predicates = d.rdom->predicates;
    {
        std::vector<std::string> pure_vars, rvars;
        for (size_t i = 0; i < args.size(); i++)
            if (d.pure_dims[i]) pure_vars.push_back(as<Variable>(args[i])->name);
        if (d.rdom)
            for (const auto &dim : d.rdom->dims) rvars.push_back(dim.name);
        d.schedule = ir::default_stage_schedule(pure_vars, rvars);
    }
    weaken_self_calls(f, d);
    f->definitions.push_back(d);
    try {
        ir::check_unique_names(f, update_index + 1);
    } catch (...) {
        f->definitions.pop_back();
        throw;
    }
    if (d.rdom) d.rdom->used = true;
    freeze_callees(*f, f->definitions.back());
    return Stage(f, update_index + 1);
}

}  // namespace lang

namespace {

// A self-reference in an update must not own the Func it refers to: the definition is
// stored in that Func, and an owning pointer would form a cycle that is never freed. The
// Func handle keeps the FunctionData alive while its definitions exist.
class WeakenSelfCalls : public IRMutator {
public:
    explicit WeakenSelfCalls(const std::shared_ptr<FunctionData> &f) : f_(f) {}

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Func || c->func != f_ || c->func.use_count() == 0) return e;
        auto weak = std::make_shared<Call>(*c);
        weak->func = std::shared_ptr<FunctionData>(std::shared_ptr<void>(), f_.get());
        return Expr(std::shared_ptr<const ExprNode>(std::move(weak)));
    }

private:
    const std::shared_ptr<FunctionData> &f_;
};

void weaken_self_calls(const std::shared_ptr<FunctionData> &f, Definition &d) {
    WeakenSelfCalls w(f);
    for (Expr &a : d.args) a = w.mutate(a);
    d.value = w.mutate(d.value);
    for (Expr &p : d.predicates) p = w.mutate(p);
}

[[noreturn]] void undefined_func(const FunctionData &f, const char *what) {
    throw CompileError(std::string("Func \"") + f.name + "\" has no definition; cannot " + what + " it");
}

}  // namespace

std::string Stage::name() const {
    if (stage_ == 0) return func_->name;
    return func_->name + ".update(" + std::to_string(stage_ - 1) + ")";
}

Stage FuncRef::operator=(const Expr &e) {
    if (!func_) throw CompileError("Definition of an undefined Func handle");
    return lang::add_definition(func_, lang::definition_arguments(args_, e, *func_), e);
}
Stage FuncRef::operator=(const FuncRef &e) {
    if (e.size() > 1) return *this = Tuple(e);
    return *this = Expr(e);
}

Stage FuncRef::operator=(const Tuple &t) {
    if (!func_) throw CompileError("Definition of an undefined Func handle");
    const Expr value = lang::tuple_value(t);
    return lang::add_definition(func_, lang::definition_arguments(args_, value, *func_), value);
}

Stage FuncRef::update_with(int op, const Tuple &t) {
    if (!func_) throw CompileError("Definition of an undefined Func handle");
    if (!func_->defined() || func_->outputs() != int(t.size()))
        throw CompileError("Func \"" + func_->name + "\" is updated with a Tuple of " + std::to_string(t.size()) +
                           " values, but " +
                           (func_->defined() ? "it has " + std::to_string(func_->outputs()) + " value(s)"
                                             : std::string("it has no definition yet; define it first")));
    if (std::any_of(args_.begin(), args_.end(), lang::is_placeholder))
        return FuncRef(func_, lang::definition_arguments(args_, lang::tuple_value(t), *func_)).update_with(op, t);
    const std::vector<Expr> args = lang::coerce_coordinates(args_, func_->name);
    const std::vector<Type> types = func_->types();
    std::vector<Expr> values;
    for (size_t i = 0; i < t.size(); i++) {
        Expr self = Call::make_func(func_, args, int(i));
        Expr rhs = cast(types[i], t[i]);
        switch (op) {
        case 0: values.push_back(self + rhs); break;
        case 1: values.push_back(self - rhs); break;
        case 2: values.push_back(self * rhs); break;
        default: values.push_back(self / rhs); break;
        }
    }
    return lang::add_definition(func_, args_, lang::tuple_value(Tuple(values)));
}

FuncTupleElementRef::operator Expr() const { return ref_.element(index_); }

Stage FuncTupleElementRef::update_with(int op, const Expr &e) {
    const Expr self = ref_.element(index_);
    if (!e.defined()) throw CompileError("value " + std::to_string(index_) + " of a Func is updated with an undefined Expr");
    std::vector<Expr> values;
    for (int k = 0; k < int(ref_.size()); k++) values.push_back(ref_.element(k));
    const Expr rhs = op < 0 ? e : cast(self.type(), e);
    switch (op) {
    case 0: values[size_t(index_)] = self + rhs; break;
    case 1: values[size_t(index_)] = self - rhs; break;
    case 2: values[size_t(index_)] = self * rhs; break;
    case 3: values[size_t(index_)] = self / rhs; break;
    default: values[size_t(index_)] = rhs; break;
    }
    FuncRef ref = ref_;
    return ref = Tuple(values);
}

Stage FuncTupleElementRef::operator=(const Expr &e) { return update_with(-1, e); }
Stage FuncTupleElementRef::operator+=(const Expr &e) { return update_with(0, e); }
Stage FuncTupleElementRef::operator-=(const Expr &e) { return update_with(1, e); }
Stage FuncTupleElementRef::operator*=(const Expr &e) { return update_with(2, e); }
Stage FuncTupleElementRef::operator/=(const Expr &e) { return update_with(3, e); }

Stage FuncRef::operator+=(const Tuple &t) { return update_with(0, t); }
Stage FuncRef::operator-=(const Tuple &t) { return update_with(1, t); }
Stage FuncRef::operator*=(const Tuple &t) { return update_with(2, t); }
Stage FuncRef::operator/=(const Tuple &t) { return update_with(3, t); }

size_t FuncRef::size() const { return func_ && func_->defined() ? size_t(func_->outputs()) : 1; }

FuncTupleElementRef FuncRef::operator[](int i) const {
    (void)element(i);  // checked here, where the user wrote it
    return FuncTupleElementRef(*this, i);
}

Expr FuncRef::element(int i) const {
    if (!func_) throw CompileError("Call of an undefined Func handle");
    if (!func_->defined())
        throw CompileError("Func \"" + func_->name + "\" has no definition; cannot read its value " + std::to_string(i));
    if (i < 0 || i >= func_->outputs())
        throw CompileError("Func \"" + func_->name + "\" has " + std::to_string(func_->outputs()) +
                           " value(s) at each point; there is no value " + std::to_string(i));
    const std::vector<Expr> args = lang::call_coordinates(args_, func_->dimensions(), func_->name);
    return Call::make_func(func_, lang::coerce_coordinates(args, func_->name), i);
}

Stage FuncRef::update_with(int op, const Expr &e) {
    if (!e.defined()) throw CompileError("Func \"" + func_->name + "\" is updated with an undefined Expr");
    if (func_->defined() && func_->outputs() > 1)
        throw CompileError("Func \"" + func_->name + "\" has " + std::to_string(func_->outputs()) +
                           " values at each point (a Tuple); update it with a Tuple of as many");
    if (std::any_of(args_.begin(), args_.end(), lang::is_placeholder))
        return FuncRef(func_, lang::definition_arguments(args_, e, *func_)).update_with(op, e);
    if (!func_->defined()) {
        // As in Halide: f(args) += e on an undefined f first defines f as the identity of
        // the operation (0 for += and -=, 1 for *= and /=) everywhere.
        std::vector<Expr> pure_args;
        std::set<std::string> used;
        for (size_t i = 0; i < args_.size(); i++) {
            const Variable *v = as<Variable>(args_[i]);
            std::string name = (v && v->var_kind == VarKind::Pure && !used.count(v->name))
                                   ? v->name
                                   : "_" + std::to_string(i);
            used.insert(name);
            pure_args.push_back(Var(name));
        }
        Type t = e.type();
        lang::add_definition(func_, pure_args, op < 2 ? make_zero(t) : make_one(t));
        try {
            return update_with(op, e);
        } catch (...) {
            // The implicit pure definition exists only for this update: undo it.
            func_->definitions.clear();
            func_->args.clear();
            throw;
        }
    }
    Expr self = Call::make_func(func_, lang::coerce_coordinates(args_, func_->name));
    Expr rhs = cast(func_->type, e);
    Expr value;
    switch (op) {
    case 0: value = self + rhs; break;
    case 1: value = self - rhs; break;
    case 2: value = self * rhs; break;
    default: value = self / rhs; break;
    }
    return lang::add_definition(func_, args_, value);
}

Stage FuncRef::operator+=(const Expr &e) { return update_with(0, e); }
Stage FuncRef::operator-=(const Expr &e) { return update_with(1, e); }
Stage FuncRef::operator*=(const Expr &e) { return update_with(2, e); }
Stage FuncRef::operator/=(const Expr &e) { return update_with(3, e); }

FuncRef::operator Expr() const {
    if (!func_) throw CompileError("Call of an undefined Func handle");
    if (func_->defined() && func_->outputs() > 1)
        throw CompileError("Func \"" + func_->name + "\" has " + std::to_string(func_->outputs()) +
                           " values at each point (a Tuple); read one of them with " + func_->name + "(...)[i]");
    const std::vector<Expr> args = lang::call_coordinates(args_, func_->defined() ? func_->dimensions() : -1, func_->name);
    return Call::make_func(func_, lang::coerce_coordinates(args, func_->name));
}

Func::Func() : data_(new_function(ir::fresh_name('f'))) {}

Func::Func(const std::string &name) {
    if (name.empty()) throw CompileError("A Func needs a non-empty name");
    data_ = new_function(name);
}

Func::Func(const Expr &e) : Func() { (*this)() = e; }

const std::string &Func::name() const { return data_->name; }
bool Func::defined() const { return data_ && data_->defined(); }
int Func::dimensions() const { return defined() ? data_->dimensions() : 0; }

Type Func::type() const {
    if (!defined()) undefined_func(*data_, "take the type of");
    if (data_->outputs() > 1)
        throw CompileError("Func \"" + data_->name + "\" has " + std::to_string(data_->outputs()) +
                           " values at each point (a Tuple); take their types with types()");
    return data_->type;
}

std::vector<Type> Func::types() const {
    if (!defined()) undefined_func(*data_, "take the types of");
    return data_->types();
}

int Func::outputs() const { return defined() ? data_->outputs() : 0; }

Tuple Func::values() const {
    if (!defined()) undefined_func(*data_, "take the values of");
    return Tuple(tuple_components(data_->definitions[0].value));
}

std::vector<Var> Func::args() const {
    std::vector<Var> vars;
    if (defined())
        for (const auto &a : data_->args) vars.emplace_back(a);
    return vars;
}

Expr Func::value() const {
    if (!defined()) undefined_func(*data_, "take the value of");
    if (data_->outputs() > 1)
        throw CompileError("Func \"" + data_->name + "\" has " + std::to_string(data_->outputs()) +
                           " values at each point (a Tuple); take them with values()");
    return data_->definitions[0].value;
}

int Func::num_update_definitions() const { return defined() ? int(data_->definitions.size()) - 1 : 0; }

Expr Func::update_value(int i) const {
    update(i);
    if (data_->outputs() > 1)
        throw CompileError("Func \"" + data_->name + "\" has " + std::to_string(data_->outputs()) +
                           " values at each point (a Tuple); take those of update " + std::to_string(i) +
                           " with update_values(" + std::to_string(i) + ")");
    return data_->definitions[size_t(i) + 1].value;
}

Tuple Func::update_values(int i) const {
    update(i);
    return Tuple(tuple_components(data_->definitions[size_t(i) + 1].value));
}
std::vector<Expr> Func::update_args(int i) const { return update(i), data_->definitions[i + 1].args; }

FuncRef Func::operator()(const std::vector<Var> &args) const {
    std::vector<Expr> e(args.begin(), args.end());
    return FuncRef(data_, e);
}

Stage Func::update(int i) const {
    if (i < 0 || i >= num_update_definitions())
        throw CompileError("Func \"" + data_->name + "\" has no update definition " + std::to_string(i) + " (it has " +
                           std::to_string(num_update_definitions()) + ")");
    return Stage(data_, i + 1);
}

Realization Func::realize_reference(const std::vector<int> &sizes) const {
    if (!defined()) throw CompileError("Can't realize Func \"" + data_->name + "\": it has no definition");
    data_->frozen = true;
    std::vector<Buffer<>> buffers;
    for (const auto &b : semantics::reference_realize(data_, sizes)) buffers.emplace_back(b);
    return Realization(std::move(buffers));
}

void Func::realize_reference(const Realization &dst) const {
    if (!defined()) throw CompileError("Can't realize Func \"" + data_->name + "\": it has no definition");
    data_->frozen = true;
    std::vector<std::shared_ptr<BufferData>> buffers;
    for (size_t i = 0; i < dst.size(); i++) buffers.push_back(dst[i].data_handle());
    semantics::reference_realize_into(data_, buffers);
}

void Func::realize_reference(Buffer<> dst) const {
    if (!defined()) throw CompileError("Can't realize Func \"" + data_->name + "\": it has no definition");
    data_->frozen = true;
    semantics::reference_realize_into(data_, {dst.data_handle()});
}


}  // namespace tessera
