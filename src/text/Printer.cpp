// The .tsr printer: a pipeline (its Funcs, RDoms, inputs, parameters and schedule) as .tsr
// text that parse_program reads back into the same pipeline. Expressions are printed by
// the IR printer, whose syntax the parser reads; stage schedules are replayed from the
// directives recorded on each stage (StageSchedule::history), Func schedules are printed
// from their data.

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <tessera/Program.h>

#include "ir/IRPrinter.h"
#include "ir/Function.h"
#include "lang/References.h"

namespace tessera {

namespace {

using namespace ir;

std::string str(const Expr &e) { return ir::to_string(e); }

std::string level_text(const LoopLevel &l) {
    if (l.is_root()) return "root";
    const int k = l.stage_index();
    std::string g = l.func();
    if (k == 0) g += ".stage(0)";
    if (k > 0) g += ".update(" + std::to_string(k - 1) + ")";
    return g + ", " + l.var();
}

class Printer {
public:
    explicit Printer(const Func &output) : output_(output) {}

    std::string print(const std::string &name, const std::vector<Argument> &declared) {
        funcs_ = dependency_order(output_.data());
        all_ = pipeline_functions(output_.data());
        refs_ = lang::pipeline_references(output_.data());

        if (!name.empty() && name != output_.name()) out_ << "pipeline " << name << "\n";
        // Inputs and parameters: first those declared (in their order), then the others.
        std::set<const void *> done;
        for (const Argument &a : declared) {
            if (a.param) param(*a.param), done.insert(a.param.get());
            if (a.input) input(a.input->name, a.input->type, a.input->dimensions), done.insert(a.input.get());
        }
        for (const auto &in : refs_.inputs)
            if (!done.count(in.get())) input(in->name, in->type, in->dimensions);
        for (const auto &b : refs_.buffers) input(b->name, b->type, int(b->dims.size()));
        for (const auto &p : refs_.params)
            if (!done.count(p.get())) param(*p);

        // The algorithm, producers first; each RDom just before its first use.
        for (const auto &f : funcs_) {
            if (f->extern_definition)
                throw CompileError("Func \"" + f->name + "\" is computed by the C function \"" +
                                   f->extern_definition->function_name +
                                   "\" (define_extern), which the .tsr language cannot express");
            if (!f->schedule.wraps.empty()) continue;
            for (size_t k = 0; k < f->definitions.size(); k++) {
                const Definition &d = f->definitions[k];
                lang::References used;
                lang::add_references(used, d);
                for (const auto &r : used.rdoms) rdom(r);
                if (k == 0) {
                    out_ << "func " << f->name << "(";
                    for (size_t i = 0; i < f->args.size(); i++) out_ << (i ? ", " : "") << f->args[i];
                } else {
                    out_ << f->name << "(";
                    for (size_t i = 0; i < d.args.size(); i++) out_ << (i ? ", " : "") << str(d.args[i]);
                }
                out_ << ") = " << str(d.value) << "\n";
            }
        }
        out_ << "output " << output_.name() << "\n";

        // The schedule.
        std::ostringstream sched;
        for (const auto &f : all_) {
            if (!f->schedule.wraps.empty()) continue;
            schedule_of(*f, f->name, sched);
            // Its in() wrappers, each once, with the consumers it serves.
            std::map<FunctionData *, std::vector<std::string>> by_wrapper;
            std::vector<std::shared_ptr<FunctionData>> order;
            for (const auto &[consumer, w] : f->schedule.wrappers) {
                if (!by_wrapper.count(w.get())) order.push_back(w);
                by_wrapper[w.get()].push_back(consumer);
            }
            for (const auto &w : order) {
                const auto &consumers = by_wrapper[w.get()];
                std::string call = f->name + ".in(";
                if (consumers.size() == 1 && consumers[0].empty()) {
                } else if (consumers.size() == 1) {
                    call += consumers[0];
                } else {
                    call += "[";
                    for (size_t i = 0; i < consumers.size(); i++) call += (i ? ", " : "") + consumers[i];
                    call += "]";
                }
                call += ")";
                std::ostringstream ws;
                schedule_of(*w, call, ws);
                sched << (ws.str().empty() ? call + "\n" : ws.str());
            }
        }
        if (!sched.str().empty()) out_ << "\n# schedule\n" << sched.str();
        return out_.str();
    }

private:
    void input(const std::string &name, Type t, int dims) {
        out_ << "input " << t.to_string() << " " << name << "[" << dims << "]\n";
    }

    void param(const ParamData &p) {
        out_ << "param " << p.type.to_string() << " " << p.name;
        if (p.has_value) {
            Expr v = p.type.is_float() ? make_const(p.type, p.value.f)
                     : p.type.is_bool() ? make_bool(p.value.u != 0)
                     : p.type.is_int()  ? make_const(p.type, p.value.i)
                                        : Expr(UIntImm::make(p.type, p.value.u));
            out_ << " = " << str(v);
        }
        if (p.min_value.defined() && p.max_value.defined())
            out_ << " in [" << str(p.min_value) << ", " << str(p.max_value) << "]";
        out_ << "\n";
    }

    void rdom(const std::shared_ptr<RDomData> &r) {
        if (printed_rdoms_.count(r.get())) return;
        printed_rdoms_.insert(r.get());
        out_ << "rdom " << r->name << "(";
        for (size_t i = 0; i < r->dims.size(); i++)
            out_ << (i ? ", " : "") << str(r->dims[i].min) << ", " << str(r->dims[i].extent);
        out_ << ")\n";
        for (const Expr &p : r->predicates) out_ << r->name << ".where(" << str(p) << ")\n";
    }

    /** The directives of a stage schedule, from `from` on; a specialize() entry is
     * followed by the specialization's own directives in the same chain. */
    void stage_directives(const ir::StageSchedule &s, size_t from, const std::string &prefix, std::ostream &os) {
        size_t spec = 0;
        for (size_t i = 0; i < s.history.size(); i++) {
            const std::string &h = s.history[i];
            const bool is_spec = h.rfind("specialize(", 0) == 0, is_fail = h.rfind("specialize_fail(", 0) == 0;
            if (i < from) {
                spec += is_spec || is_fail;
                continue;
            }
            if (is_spec && spec < s.specializations.size() && s.specializations[spec].schedule) {
                const ir::Specialization &sp = s.specializations[spec++];
                const std::string chain = prefix + ".specialize(" + str(sp.condition) + ")";
                std::ostringstream inner;
                stage_directives(*sp.schedule, i, chain, inner);
                if (sp.schedule->allow_race_conditions && !s.allow_race_conditions)
                    inner << chain << ".allow_race_conditions()\n";
                os << (inner.str().empty() ? chain + "\n" : inner.str());
                continue;
            }
            if (is_fail && spec < s.specializations.size()) {
                const ir::Specialization &sp = s.specializations[spec++];
                os << prefix << ".specialize_fail(" << str(StringImm::make(sp.failure_message)) << ")\n";
                continue;
            }
            os << prefix << "." << h << "\n";
        }
        if (s.allow_race_conditions && from == 0) os << prefix << ".allow_race_conditions()\n";
    }

    void schedule_of(const FunctionData &f, const std::string &name, std::ostream &os) {
        for (size_t k = 0; k < f.definitions.size(); k++) {
            const std::string prefix = k == 0 ? name : name + ".update(" + std::to_string(k - 1) + ")";
            stage_directives(*f.definitions[k].schedule, 0, prefix, os);
        }
        const ir::FuncSchedule &s = f.schedule;
        auto level = [&](const LoopLevel &l, const char *what) {
            if (!l.defined()) return;
            if (l.is_inlined()) {
                os << name << ".compute_inline()\n";
                return;
            }
            if (l.is_root()) os << name << "." << what << "_root()\n";
            else os << name << "." << what << "_at(" << level_text(l) << ")\n";
        };
        level(s.compute_level, "compute");
        level(s.store_level, "store");
        if (const auto with = s.compute_with.lock()) os << name << ".compute_with(" << with->name << ", " << s.compute_with_var << ")\n";
        for (const auto &b : s.bounds) {
            if (b.min.defined()) os << name << ".bound(" << b.var << ", " << str(b.min) << ", " << str(b.extent) << ")\n";
            else if (b.extent.defined()) os << name << ".bound_extent(" << b.var << ", " << str(b.extent) << ")\n";
            if (b.modulus.defined())
                os << name << ".align_bounds(" << b.var << ", " << str(b.modulus) << ", " << str(b.remainder) << ")\n";
        }
        if (!s.storage_order.empty() && s.storage_order != f.args) {
            os << name << ".reorder_storage(";
            for (size_t i = 0; i < s.storage_order.size(); i++) os << (i ? ", " : "") << s.storage_order[i];
            os << ")\n";
        }
        for (const auto &fd : s.folds)
            os << name << ".fold_storage(" << fd.var << ", " << str(fd.extent) << (fd.forward ? "" : ", false") << ")\n";
        if (s.trace_stores) os << name << ".trace_stores()\n";
        if (s.trace_loads) os << name << ".trace_loads()\n";
        if (s.trace_realizations) os << name << ".trace_realizations()\n";
    }

    Func output_;
    std::vector<std::shared_ptr<FunctionData>> funcs_, all_;
    lang::References refs_;
    std::set<const RDomData *> printed_rdoms_;
    std::ostringstream out_;
};

}  // namespace

std::string print_program(const Program &p) { return Printer(p.output).print(p.name, p.arguments); }

std::string print_program(const Func &output, const std::string &name) { return Printer(output).print(name, {}); }

}  // namespace tessera
