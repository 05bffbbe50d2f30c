// Lowering ATL by reindexers (docs/atl.md, "Lowering"; the destination-passing lowering of
// the ATL paper's Fig. 3) into Tessera Funcs.
//
// Lowering descends the expression with a destination (a Func), a store mode (`=`, or
// `+=` under a sum), the loops and guards around the current node, and a reindexer θ:
// the function from the index of a cell of the current subexpression to the index of the
// destination's cell that holds it. A gen conses its variable onto the index; a reshape
// operator composes its own reindexer below θ and generates nothing. At each scalar leaf,
// θ([]) is the destination index, and the leaf becomes one update definition of the
// destination: `dest(θ([])) = value` (or `+=`) over a reduction domain of the loops around
// the leaf (the outermost loop outermost), restricted by the guards. Every destination is
// first defined as 0, the storage of the pad value (the ATL paper's calloc), unless its
// updates store every cell (writes_every_cell): then it is defined as undef, and nothing
// fills it before they run.
//
// A let becomes a Func of its own, computed at the root, with one extra dimension per loop
// variable around the let that its value or the guards around it mention (the ATL paper
// allocates the let per iteration of those loops).

#include <algorithm>
#include <climits>
#include <tuple>

#include "atl/Mutation.h"
#include "atl/PadCheck.h"
#include "atl/Tree.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"
#include "tessera/IROperator.h"

namespace tessera::atl {

using namespace detail;

namespace detail {
namespace {
thread_local Mutation current_mutation = Mutation::None;
}
Mutation &mutation_slot() { return current_mutation; }
}  // namespace detail

namespace {

bool injects(Mutation m) { return mutation() == m; }

/** One entry of a destination index: the coordinate and the extent of its dimension. */
struct Entry {
    Expr index;
    int64_t extent;
};
using IndexList = std::vector<Entry>;

/** One step of a reindexer: a reshape's reindexer, or a gen consing its variable. */
struct Step {
    TensorOp op;     // Gen for a cons
    int64_t k = 0;   // the reshape's amount; a cons's extent
    std::string var; // a cons's variable
    int64_t lo = 0;  // a cons's lower bound
};

/** θ: steps outermost first; applied to an index innermost step first (θ ∘ θ_R applies
 * θ_R, the step pushed last, first). */
using Reindexer = std::vector<Step>;


struct Loop {
    std::string var;
    int64_t lo, hi;
};

struct Destination {
    Func func;
    int rank = 0;                     // the tensor's dimensions
    std::vector<std::string> captured;  // the loop variables that are extra dimensions
    bool pure = false;                // defined by one pure definition (define_pure)
};

/** A stage that reads a let: the reading Func and its definition's index (0: pure). */
struct Reader {
    const ir::FunctionData *func;
    int stage;
    bool operator<(const Reader &o) const { return std::tie(func, stage) < std::tie(o.func, o.stage); }
};

struct UpdateInfo {
    RDom domain;
    std::vector<std::string> vars;  // per RDom dimension (r.x first): its ATL variable
};

}  // namespace

struct Program::Data {
    Tensor expression{0.0};
    PadType pad_type;
    std::vector<uint8_t> pad_cells;
    Func output;
    std::map<std::string, Func> lets;
    std::vector<Array> inputs;
    std::map<std::string, ImageParam> params;
    std::map<const ir::FunctionData *, std::vector<UpdateInfo>> updates;
    std::vector<std::string> per_iteration;
};

namespace {

class Lowering {
public:
    explicit Lowering(Program::Data &d) : data_(d) {}

    void lower_program(const TensorNode &e, const std::string &name) {
        Destination out;
        out.func = Func(name);
        out.rank = int(e.shape.size());
        data_.output = out.func;
        // The lets around the result come first; the result may then be pure.
        const TensorNode *body = &e;
        for (; body->op == TensorOp::Let; body = body->b.get()) define_let(*body, {}, {});
        if (!define_pure(out, *body, {})) {
            define_initial(out, *body, {});
            lower(*body, out, false, {}, {}, {});
        }
        // The result's shape is static: its window is exactly the tensor.
        const std::vector<Var> vars = out.func.args();
        for (size_t d = 0; d < vars.size(); d++)
            out.func.bound(vars[d], 0, int_constant(e.shape[vars.size() - 1 - d], "an extent"));
        place_per_iteration();
    }

private:
    /** A destination whose expression is gens around a scalar, under no guard, stores that
     * scalar at every cell: it is defined by that scalar as a pure definition, over Vars
     * named after the gens' variables (the cell index: the variable minus the gen's lower
     * bound) and, for a let, its extra dimensions' variables. No pad, no zeros, no update:
     * bounds inference computes the cells consumers need, and the Func schedules as any
     * pure Func (compute_at, tile, vectorize by variable name). False where that does not
     * apply (the destination is then lowered by updates). */
    bool define_pure(Destination &d, const TensorNode &e, const std::vector<std::shared_ptr<const CondNode>> &guards) {
        if (!guards.empty()) return false;
        std::vector<const TensorNode *> gens;
        const TensorNode *leaf = &e;
        while (leaf->op == TensorOp::Gen || (leaf->op == TensorOp::Guard && injects(Mutation::PureDespiteGuard))) {
            if (leaf->op == TensorOp::Gen) gens.push_back(leaf);
            leaf = leaf->a.get();
        }
        if (!is_scalar_op(leaf->op) || int(gens.size()) != d.rank) return false;
        std::set<std::string> free;
        mentions(*leaf, free);
        std::map<std::string, Expr> vars;
        std::vector<Expr> args;
        for (auto g = gens.rbegin(); g != gens.rend(); ++g) {
            const Var v((*g)->var);
            args.push_back(v);
            vars[(*g)->var] = injects(Mutation::GenLowerBoundIgnored) || (*g)->lo == 0
                                  ? Expr(v)
                                  : v + int_constant((*g)->lo, "a loop bound");
        }
        for (const std::string &c : d.captured) {
            args.push_back(Var(c));
            vars[c] = Var(c);
        }
        for (const std::string &v : free)
            if (!vars.count(v)) return false;
        guarded_ = false;
        reading_ = Reader{d.func.data().get(), 0};
        d.func(args) = scalar(*leaf, vars);
        d.pure = true;
        return true;
    }

    /** The pure definition of a destination lowered by updates: undef where its updates
     * store every cell (in every iteration it is computed for), else 0, the pad value. */
    void define_initial(Destination &d, const TensorNode &e, const std::vector<std::shared_ptr<const CondNode>> &guards) {
        std::vector<Var> vars;
        for (int i = 0; i < d.rank + int(d.captured.size()); i++) vars.push_back(Var("d" + std::to_string(i)));
        std::vector<Expr> args(vars.begin(), vars.end());
        const bool undefined = (guards.empty() && writes_every_cell(e)) || injects(Mutation::UndefDespitePad);
        d.func(args) = undefined ? undef<float>() : Expr(0.0f);
    }

    /** Whether lowering e stores every one of its cells (with `=`). Without a sum, each
     * store writes a cell of its own: gens, reshapes and concatenations map iterations to
     * cells one to one, guards and pads leave cells out, and a truncation cuts only cells
     * the pad check proved pad, which no leaf stores. So every cell is stored exactly
     * when the stores are as many as the cells. They are counted leaf by leaf: a leaf
     * under no guard stores once per iteration of its loops; under guards its iterations
     * are enumerated (the tails of a tiled program), within a budget past which the
     * answer is no. */
    static bool writes_every_cell(const TensorNode &e) {
        int64_t cells = 1;
        for (int64_t n : e.shape) cells *= n;
        int64_t budget = int64_t(1) << 20;  // guarded iterations enumerated at most
        return stores_of(e, {}, {}, budget) == cells;
    }

    /** The number of stores lowering e makes (see writes_every_cell); -1 under a sum or
     * past the budget. */
    static int64_t stores_of(const TensorNode &e, std::vector<Loop> loops, std::vector<std::shared_ptr<const CondNode>> guards,
                             int64_t &budget) {
        switch (e.op) {
        case TensorOp::Gen:
            if (e.extent() == 0) return 0;
            loops.push_back(Loop{e.var, e.lo, e.hi});
            return stores_of(*e.a, std::move(loops), std::move(guards), budget);
        case TensorOp::Sum: return -1;
        case TensorOp::Guard:
            guards.push_back(e.cond);
            return stores_of(*e.a, std::move(loops), std::move(guards), budget);
        case TensorOp::Let: return stores_of(*e.b, std::move(loops), std::move(guards), budget);
        case TensorOp::Concat: {
            const int64_t a = stores_of(*e.a, loops, guards, budget);
            const int64_t b = a < 0 ? -1 : stores_of(*e.b, std::move(loops), std::move(guards), budget);
            return b < 0 ? -1 : a + b;
        }
        default: break;
        }
        if (is_reshape(e.op)) return stores_of(*e.a, std::move(loops), std::move(guards), budget);
        if (!is_scalar_op(e.op)) return -1;
        int64_t iterations = 1;
        for (const Loop &l : loops) iterations *= l.hi - l.lo;
        if (guards.empty()) return iterations;
        if (iterations > budget) return -1;
        budget -= iterations;
        // Each iteration of the loops, the innermost fastest.
        Valuation v;
        for (const Loop &l : loops) v[l.var] = l.lo;
        int64_t stored = 0;
        while (true) {
            bool holds = true;
            for (const auto &g : guards) holds = holds && evaluate_cond(*g, v);
            stored += holds;
            size_t k = loops.size();
            while (k > 0 && ++v[loops[k - 1].var] == loops[k - 1].hi) {
                v[loops[k - 1].var] = loops[k - 1].lo;
                k--;
            }
            if (k == 0) return stored;
        }
    }

    void lower(const TensorNode &e, const Destination &dest, bool accumulate, Reindexer theta,
               std::vector<Loop> loops, std::vector<std::shared_ptr<const CondNode>> guards) {
        switch (e.op) {
        case TensorOp::Gen:
            if (e.extent() == 0) return;
            theta.push_back(Step{TensorOp::Gen, e.hi - e.lo, e.var, e.lo});
            loops.push_back(Loop{e.var, e.lo, e.hi});
            lower(*e.a, dest, accumulate, std::move(theta), std::move(loops), std::move(guards));
            return;
        case TensorOp::Sum:
            if (e.extent() == 0) return;  // all pad: the destination's zeros
            loops.push_back(Loop{e.var, e.lo, e.hi});
            lower(*e.a, dest, true, std::move(theta), std::move(loops), std::move(guards));
            return;
        case TensorOp::Guard:
            guards.push_back(e.cond);
            lower(*e.a, dest, accumulate, std::move(theta), std::move(loops), std::move(guards));
            return;
        case TensorOp::Let: lower_let(e, dest, accumulate, std::move(theta), std::move(loops), std::move(guards)); return;
        case TensorOp::Concat: {
            int64_t n1 = e.a->shape[0], n2 = e.b->shape[0];
            Reindexer left = theta, right = theta;
            left.push_back(Step{TensorOp::PadR, n2, {}, 0});
            if (!injects(Mutation::ConcatRightNotShifted)) right.push_back(Step{TensorOp::PadL, n1, {}, 0});
            lower(*e.a, dest, accumulate, std::move(left), loops, guards);
            lower(*e.b, dest, accumulate, std::move(right), std::move(loops), std::move(guards));
            return;
        }
        default:
            if (is_reshape(e.op)) {
                theta.push_back(Step{e.op, e.k, {}, 0});
                lower(*e.a, dest, accumulate, std::move(theta), std::move(loops), std::move(guards));
            } else {
                leaf(e, dest, accumulate, theta, loops, guards);
            }
            return;
        }
    }

    void lower_let(const TensorNode &e, const Destination &dest, bool accumulate, Reindexer theta,
                   std::vector<Loop> loops, std::vector<std::shared_ptr<const CondNode>> guards) {
        define_let(e, loops, guards);
        lower(*e.b, dest, accumulate, std::move(theta), std::move(loops), std::move(guards));
    }

    /** The Func of a let's value, computed at the root. */
    void define_let(const TensorNode &e, const std::vector<Loop> &loops,
                    const std::vector<std::shared_ptr<const CondNode>> &guards) {
        // The loop variables the let's value depends on: those it mentions and those of the
        // guards around it.
        std::set<std::string> mentioned;
        mentions(*e.a, mentioned);
        for (const auto &g : guards) cond_variables(*g, mentioned);
        Destination x;
        x.func = Func(e.array->name);
        x.rank = int(e.a->shape.size());
        std::vector<Loop> around;
        for (const Loop &l : loops)
            if (mentioned.count(l.var)) {
                x.captured.push_back(l.var);
                around.push_back(l);
            }
        // (The mutant still runs the loop, but stores every iteration into the same cells.)
        if (injects(Mutation::LetNotIndexedByItsLoop) && !x.captured.empty()) x.captured.pop_back();
        if (!define_pure(x, *e.a, guards)) {
            define_initial(x, *e.a, guards);
            lower(*e.a, x, false, {}, around, guards);
        }
        x.func.compute_root();
        data_.lets[e.array->name] = x.func;
        lets_[e.array.get()] = x;
    }

    /** The loop variables an expression mentions in indices, guards and reads. */
    static void mentions(const TensorNode &e, std::set<std::string> &out) {
        if (e.op == TensorOp::Guard) cond_variables(*e.cond, out);
        for (const Index &z : e.indices) index_variables(*z.node(), out);
        if (e.op == TensorOp::IndexValue) index_variables(*e.index.node(), out);
        if (e.a) mentions(*e.a, out);
        if (e.b) mentions(*e.b, out);
    }

    static IndexList apply(const Reindexer &theta, const std::map<std::string, Expr> &vars) {
        IndexList idx;
        for (auto s = theta.rbegin(); s != theta.rend(); ++s) {
            switch (s->op) {
            case TensorOp::Gen: {
                Expr v = vars.at(s->var);
                if (!injects(Mutation::GenLowerBoundIgnored)) v = v - int_constant(s->lo, "a loop bound");
                idx.insert(idx.begin(), Entry{v, s->k});
                break;
            }
            case TensorOp::Flatten: {
                Entry a = idx[0], b = idx[1];
                idx.erase(idx.begin());
                const int64_t stride = b.extent + (injects(Mutation::FlattenStrideOffByOne) ? 1 : 0);
                idx[0] = Entry{a.index * int_constant(stride, "an extent") + b.index, a.extent * b.extent};
                break;
            }
            case TensorOp::Transpose:
                if (!injects(Mutation::TransposeIgnored)) std::swap(idx[0], idx[1]);
                break;
            case TensorOp::Split: {
                Entry a = idx[0];
                Expr k = int_constant(s->k, "a split factor");
                idx[0] = Entry{a.index % (injects(Mutation::SplitRemainderOfNext) ? k + 1 : k), s->k};
                idx.insert(idx.begin(), Entry{a.index / k, (a.extent + s->k - 1) / s->k});
                break;
            }
            case TensorOp::TruncR: idx[0].extent -= s->k; break;
            case TensorOp::TruncL:
                idx[0] = Entry{injects(Mutation::TruncLeftNotShifted) ? idx[0].index
                                                                              : idx[0].index - int_constant(s->k, "a truncation"),
                               idx[0].extent - s->k};
                break;
            case TensorOp::PadR: idx[0].extent += s->k; break;
            case TensorOp::PadL: {
                const int64_t k = s->k - (injects(Mutation::PadLeftShiftOffByOne) ? 1 : 0);
                idx[0] = Entry{idx[0].index + int_constant(k, "a pad"), idx[0].extent + s->k};
                break;
            }
            default: throw InternalError(std::string("ATL: no reindexer for ") + op_name(s->op));
            }
        }
        return idx;
    }

    static Expr index(const IndexNode &z, const std::map<std::string, Expr> &vars) {
        return index_expr(z, [&](const std::string &v) { return vars.at(v); });
    }

    static Expr cond(const CondNode &p, const std::map<std::string, Expr> &vars) {
        return cond_expr(p, [&](const std::string &v) { return vars.at(v); });
    }

    Expr scalar(const TensorNode &e, const std::map<std::string, Expr> &vars) {
        switch (e.op) {
        case TensorOp::Literal: return Expr(float(e.literal));
        case TensorOp::IndexValue: return cast(Float(32), index(*e.index.node(), vars));
        case TensorOp::Add: return scalar(*e.a, vars) + scalar(*e.b, vars);
        case TensorOp::Sub: return scalar(*e.a, vars) - scalar(*e.b, vars);
        case TensorOp::Mul: return scalar(*e.a, vars) * scalar(*e.b, vars);
        case TensorOp::Div: return scalar(*e.a, vars) / scalar(*e.b, vars);
        case TensorOp::Read: {
            // Under a guard, a read may fall outside its array where the guard is false: the
            // update never runs there, but bounds inference does not narrow a reduction
            // domain by its `where` predicates, so such reads are clamped into the array
            // (which changes nothing where the guard holds: the read is in bounds there).
            std::vector<Expr> args;
            for (size_t d = e.indices.size(); d-- > 0;) {
                Expr z = index(*e.indices[d].node(), vars);
                if (guarded_) z = clamp(z, 0, int_constant(std::max<int64_t>(e.array->shape[d] - 1, 0), "an extent"));
                args.push_back(z);
            }
            if (e.array->input) return data_.params.at(e.array->name)(args);
            const Destination &x = lets_.at(e.array.get());
            readers_[e.array.get()].insert(reading_);
            for (const std::string &v : x.captured) args.push_back(vars.at(v));
            return x.func(args);
        }
        default: throw InternalError(std::string("ATL: ") + op_name(e.op) + " is not a scalar expression");
        }
    }

    void leaf(const TensorNode &e, const Destination &dest, bool accumulate, const Reindexer &theta,
              const std::vector<Loop> &loops, const std::vector<std::shared_ptr<const CondNode>> &guards) {
        std::map<std::string, Expr> vars;
        UpdateInfo info;
        if (!loops.empty()) {
            Region region;
            for (auto l = loops.rbegin(); l != loops.rend(); ++l) {
                region.push_back(Range(int_constant(l->lo, "a loop bound"), int_constant(l->hi - l->lo, "a loop extent")));
                info.vars.push_back(l->var);
            }
            info.domain = RDom(region, dest.func.name() + "_" + std::to_string(dest.func.num_update_definitions()));
            for (size_t i = 0; i < info.vars.size(); i++) {
                info.domain.data()->dims[i].name = info.vars[i];
                vars[info.vars[i]] = info.domain[int(i)];
            }
        }
        Expr where;
        for (const auto &g : guards) {
            if (injects(Mutation::GuardDropped)) break;
            Expr c = cond(*g, vars);
            where = where.defined() ? (where && c) : c;
        }
        if (where.defined()) {
            if (loops.empty()) {  // a guard on no variable: decided now
                for (const auto &g : guards)
                    if (!evaluate_cond(*g, {})) return;
            } else {
                info.domain.where(where);
            }
        }
        IndexList idx = apply(theta, vars);
        std::vector<Expr> coords;
        for (auto c = idx.rbegin(); c != idx.rend(); ++c) coords.push_back(c->index);
        for (const std::string &v : dest.captured) coords.push_back(vars.at(v));
        guarded_ = !guards.empty();
        reading_ = Reader{dest.func.data().get(), dest.func.num_update_definitions() + 1};
        Expr value = scalar(e, vars);
        if (accumulate && !injects(Mutation::SumStoresInsteadOfAdds)) dest.func(coords) += value;
        else dest.func(coords) = value;
        data_.updates[dest.func.data().get()].push_back(std::move(info));
    }

    /** A let computed per iteration of loops (captured variables) is computed inside the
     * one stage that reads it, at the innermost of those loops there, when it is a pure
     * definition (whose extra dimensions bounds inference then narrows to the iteration):
     * its buffer holds one iteration's cells, allocated anew in each, instead of every
     * iteration's at once. The stage must loop over every captured variable. */
    void place_per_iteration() {
        for (const auto &[array, x] : lets_) {
            auto readers = readers_.find(array);
            if (!x.pure || x.captured.empty() || readers == readers_.end() || readers->second.size() != 1) continue;
            const Reader r = *readers->second.begin();
            if (r.stage == 0) continue;
            const std::vector<UpdateInfo> &updates = data_.updates.at(r.func);
            const UpdateInfo &u = updates.at(size_t(r.stage - 1));
            // The innermost of the stage's loops (RDom dimension 0 is innermost) that is a
            // captured variable; all of them must be loops of the stage.
            int innermost = -1;
            size_t found = 0;
            for (size_t k = 0; k < u.vars.size(); k++)
                if (std::count(x.captured.begin(), x.captured.end(), u.vars[k])) {
                    found++;
                    if (innermost < 0) innermost = int(k);
                }
            if (found != x.captured.size()) continue;
            const Func reader = r.func == data_.output.data().get() ? data_.output : func_named(r.func);
            Func f = x.func;
            f.compute_at(LoopLevel(reader, u.domain[innermost], r.stage));
            data_.per_iteration.push_back(array->name + " per iteration of " + u.vars[size_t(innermost)]);
        }
    }

    Func func_named(const ir::FunctionData *f) const {
        for (const auto &[name, func] : data_.lets)
            if (func.data().get() == f) return func;
        throw InternalError("ATL: no Func for a reader");
    }

    Program::Data &data_;
    std::map<const ArrayData *, std::set<Reader>> readers_;
    Reader reading_{nullptr, 0};  // the stage whose value is being built
    std::map<const ArrayData *, Destination> lets_;
    bool guarded_ = false;  // the leaf being lowered is under a guard
};

}  // namespace

Program::Program(const Tensor &program, const std::string &name) : data_(std::make_shared<Data>()) {
    data_->expression = program;
    for (const auto &a : check_names(*program.node())) {
        data_->inputs.emplace_back(a);
        data_->params.emplace(a->name, ImageParam(Float(32), int(a->shape.size()), a->name));
    }
    data_->pad_cells = pad_cells(*program.node());
    data_->pad_type = pad_type_of(program.shape(), data_->pad_cells);
    Lowering(*data_).lower_program(*program.node(), name);
}

const Tensor &Program::expression() const { return data_->expression; }
const PadType &Program::pad_type() const { return data_->pad_type; }
Func Program::output() const { return data_->output; }

Func Program::let_func(const std::string &name) const {
    auto it = data_->lets.find(name);
    if (it == data_->lets.end()) throw CompileError("ATL: the program has no let named " + name);
    return it->second;
}

const std::vector<Array> &Program::inputs() const { return data_->inputs; }

ImageParam Program::input_param(const std::string &name) const {
    auto it = data_->params.find(name);
    if (it == data_->params.end()) throw CompileError("ATL: the program reads no input named " + name);
    return it->second;
}

int Program::updates(const Func &f) const {
    auto it = data_->updates.find(f.data().get());
    return it == data_->updates.end() ? 0 : int(it->second.size());
}

RVar Program::loop(const Func &f, int update, const std::string &var) const {
    auto it = data_->updates.find(f.data().get());
    if (it == data_->updates.end() || update < 0 || update >= int(it->second.size()))
        throw CompileError("ATL: Func " + f.name() + " has no update " + std::to_string(update));
    const UpdateInfo &u = it->second[size_t(update)];
    for (size_t i = 0; i < u.vars.size(); i++)
        if (u.vars[i] == var) return u.domain[int(i)];
    throw CompileError("ATL: update " + std::to_string(update) + " of Func " + f.name() + " has no loop over " + var);
}

Program::Storage Program::storage() const {
    const ir::LoweredPipeline code = lower::lower(data_->output.data());
    struct Count : ir::IRVisitor {
        int allocations = 0;
        using ir::IRVisitor::include;
        void visit(const ir::Allocate *op) override {
            allocations++;
            ir::IRVisitor::visit(op);
        }
    } count;
    count.include(code.body);
    Storage s;
    s.reused = code.reused_allocations;
    s.allocations = count.allocations + s.saved();
    s.per_iteration = data_->per_iteration;
    return s;
}

Value Program::run(const Inputs &inputs) const {
    for (const Array &a : data_->inputs) {
        const Value &v = input_value(*a.data(), inputs);
        std::vector<int> sizes(a.shape().rbegin(), a.shape().rend());
        Buffer<float> b(sizes, a.name());
        float *host = b.data();
        for (size_t i = 0; i < v.data.size(); i++) host[i] = float(v.data[i]);
        data_->params.at(a.name()).set(b);
    }
    const std::vector<int64_t> &shape = data_->expression.shape();
    std::vector<int> sizes(shape.rbegin(), shape.rend());
    Buffer<float> out(data_->output.realize(sizes));
    Value result(shape);
    const float *host = out.data();
    for (size_t i = 0; i < result.data.size(); i++) {
        result.data[i] = host[i];
        result.pad[i] = data_->pad_cells[i];
    }
    return result;
}

Value Program::run_reference(const Inputs &inputs) const { return evaluate(data_->expression, inputs); }

}  // namespace tessera::atl
