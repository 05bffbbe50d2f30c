// Outlined functions. The outermost parallel loop's iteration is a function, run by
// tessera_parallel_for (OpenMP in a generated file; the JIT runtime module's threads under
// the JIT, so that a pipeline compiles without OpenMP's outlining), and so is each large
// loop inside it. The values a function uses from outside are passed in a closure struct
// and bound, in the function, to identifiers of the same names. Under the JIT the
// functions are compiled in two translation units at once, balanced by size
// (CodeGenC.cpp). Also the heuristics that decide what to outline and what the C compiler
// should unroll.

#include <algorithm>
#include <functional>

#include "codegen/Emitter.h"
#include "ir/Check.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace tessera::codegen {

bool Emitter::captures_of(const Stmt &s, const std::string &skip, std::vector<Capture> &captures) {
    const NamesIn uses = names_in(s, false);
    for (const std::string &name : uses.free_vars) {
        auto it = vars_.find(name);
        if (it == vars_.end() || it->second.empty() || name == skip) continue;
        const VarBinding &b = it->second.back();
        if (!b.type.is_scalar() && !b.native) return false;
        captures.push_back(Capture{name, b.ident, b.type.is_scalar() ? c_type_name(b.type) : vtype(b.type), false, b,
                                   BufBinding{}});
    }
    for (const std::string &name : uses.free_buffers) {
        auto it = bufs_.find(name);
        if (it == bufs_.end() || it->second.empty()) continue;
        const BufBinding &b = it->second.back();
        const std::string q = b.writable ? "" : "const ";
        captures.push_back(Capture{name, b.ident, q + c_type_name(b.type) + " *restrict", true, VarBinding{}, b});
    }
    return true;
}

std::string Emitter::closure_here(const std::string &fn, const std::vector<Capture> &captures, const std::vector<std::pair<std::string, std::string>> &extra, std::string &type) {
    std::ostringstream t;
    t << "struct " << fn << "_closure {\n";
    for (size_t k = 0; k < extra.size(); k++) t << "    " << extra[k].first << " _" << k << ";\n";
    // A field per C identifier: names bound to one variable (copies, bind_value) share it.
    std::set<std::string> fields;
    for (const Capture &c : captures)
        if (fields.insert(c.field).second) t << "    " << c.ctype << " " << c.field << ";\n";
    if (extra.empty() && captures.empty()) t << "    int _unused;\n";
    t << "};\n";
    type = t.str();
    std::string init;
    for (const auto &[ctype, value] : extra) init += (init.empty() ? "" : ", ") + value;
    fields.clear();
    for (const Capture &c : captures)
        if (fields.insert(c.field).second) init += (init.empty() ? "" : ", ") + c.field;
    if (init.empty()) init = "0";
    const std::string cv = issue("_c");
    line("const struct " + fn + "_closure " + cv + " = {" + init + "};");
    return cv;
}

std::string Emitter::outlined_body(const std::string &closure, const std::string &ci, const std::vector<Capture> &captures, const std::function<void()> &emit, bool &control_only) {
    std::ostringstream saved_body;
    flush_temp();
    std::swap(saved_body, body_);
    const int saved_indent = indent_;
    std::vector<std::set<std::string>> saved_scopes(1);
    std::swap(saved_scopes, scopes_);
    const int saved_accesses = memory_accesses_;
    memory_accesses_ = 0;
    indent_ = 1;
    scopes_.back().insert(ci);
    std::map<std::string, std::string> id_of_field;
    for (const Capture &c : captures) {
        std::string &id = id_of_field[c.field];
        if (id.empty()) {
            id = declare(c.field);
            line((c.buffer ? "" : "const ") + c.ctype + " " + id + " = ((const struct " + closure + " *)" + ci + ")->" +
                 c.field + ";");
            line("(void)" + id + ";");
        }
        if (c.buffer) {
            bufs_[c.ir_name].push_back(BufBinding{id, c.buf.type, c.buf.writable});
        } else {
            VarBinding b = c.var;
            b.ident = id;
            b.counter.clear();  // a loop's counter stays in the loop's function
            vars_[c.ir_name].push_back(b);
        }
    }
    parallel_.push_back(ParallelScope{issue("_par_status"), issue("_par_end"), {}, {}, false, false});
    emit();
    flush_temp();
    const ParallelScope ps = parallel_.back();
    parallel_.pop_back();
    for (const Capture &c : captures) {
        if (c.buffer) bufs_[c.ir_name].pop_back();
        else vars_[c.ir_name].pop_back();
    }
    std::ostringstream fun;
    fun << "    int " << ps.status << " = TESSERA_SUCCESS;\n";
    for (const std::string &a : ps.allocations) fun << "    " << a << "\n";
    fun << body_.str();
    if (ps.label_used) fun << ps.end_label << ":;\n";
    for (const std::string &id : ps.idents) fun << "    " << helpers_.use("tessera_free") << "(" << id << ");\n";
    fun << "    return " << ps.status << ";\n}\n";

    std::swap(saved_body, body_);
    indent_ = saved_indent;
    std::swap(saved_scopes, scopes_);
    control_only = memory_accesses_ == 0;
    memory_accesses_ = saved_accesses;
    return fun.str();
}

bool Emitter::emit_outlined_parallel_loop(const For *f, const std::string &mn, const std::string &ex) {
    std::vector<Capture> captures;
    if (!captures_of(f->body, f->name, captures)) return false;
    const Type t = f->min.type();
    const std::string T = c_type_name(t);
    const std::string fn = issue(fn_ + "_par");
    std::string type;
    const std::string cv = closure_here(fn, captures, {{T, mn}}, type);
    const std::string status = issue("_par_status");
    line("const int " + status + " = " + helpers_.use("tessera_parallel_for") + "(" + fn + ", (const void *)&" + cv +
         ", (int64_t)" + ex + ");");
    open_block("if (" + status + " != TESSERA_SUCCESS)");
    uses_cleanup_ = true;
    line("_status = " + status + ";");
    line("goto tessera_cleanup;");
    close_block();

    const std::string closure = fn + "_closure", ci = issue("_closure");
    const std::string counter = issue(sanitize_identifier(f->name) + "_i");
    in_parallel_function_++;
    const bool saved_split = split_parallel_body_;
    split_parallel_body_ = ir::memory_accesses(f->body) >= kSplitParallelBodyAccesses;
    bool control_only = false;
    const std::string body = outlined_body(closure, ci, captures, [&] {
        scopes_.back().insert(counter);
        const std::string x = declare_var(f->name, t);
        line("const " + T + " " + x + " = (" + T + ")((uint64_t)((const struct " + closure + " *)" + ci +
             ")->_0 + (uint64_t)" + counter + ");" + name_comment(f->name, x));
        emit_stmt(f->body);
        vars_[f->name].pop_back();
    }, control_only);
    in_parallel_function_--;
    split_parallel_body_ = saved_split;
    outlined_.push_back(Outlined{type,
                                 "/* An iteration of the parallel loop " + comment_text(f->name) + " of " + fn_ +
                                     ". */\n" + (control_only ? kControlOnly : "") + "TESSERA_OUTLINED int " + fn +
                                     "(const void *" + ci + ", int64_t " + counter + ") {\n" + body,
                                 "TESSERA_OUTLINED int " + fn + "(const void *, int64_t);\n"});
    return true;
}

bool Emitter::emit_outlined_statement(const Stmt &loop, const std::string &what) {
    std::vector<Capture> captures;
    if (!captures_of(loop, "", captures)) return false;
    const std::string fn = issue(fn_ + "_" + sanitize_identifier(what));
    std::string type;
    const std::string cv = closure_here(fn, captures, {}, type);
    const std::string e = issue("_e");
    line("const int " + e + " = " + fn + "((const void *)&" + cv + ");");
    open_block("if (" + e + " != TESSERA_SUCCESS)");
    fail_with(e);
    close_block();

    const std::string closure = fn + "_closure", ci = issue("_closure");
    in_outlined_loop_++;
    bool control_only = false;
    const std::string body = outlined_body(closure, ci, captures, [&] { emit_stmt(loop); }, control_only);
    in_outlined_loop_--;
    outlined_.push_back(Outlined{type,
                                 "/* " + comment_text(what) + " of " + fn_ + ". */\n" +
                                     (control_only ? kControlOnly : "") + "TESSERA_OUTLINED int " + fn +
                                     "(const void *" + ci + ") {\n" + body,
                                 "TESSERA_OUTLINED int " + fn + "(const void *);\n"});
    return true;
}

int Emitter::full_unroll_count(const For *f) {
    // The loop and the loops inside run a constant number of times, at most
    // kFullUnrollIterations in all: a small reduction window (a 3x3 box).
    const IntImm *extent = as<IntImm>(f->extent);
    if (!extent || extent->value < 2 || extent->value > kFullUnrollIterations) return 0;
    struct Count : IRVisitor {
        int64_t depth = 1, most = 1;  // iterations of the loops around here, and their most
        bool constant = true;
        using IRVisitor::include;
        void visit(const For *op) override {
            const IntImm *e = as<IntImm>(op->extent);
            if (!e || e->value < 0 || op->for_type == ForType::Parallel) {
                constant = false;
                return;
            }
            const int64_t outer = depth;
            depth = std::min<int64_t>(depth * std::max<int64_t>(e->value, 1), kFullUnrollIterations + 1);
            most = std::max(most, depth);
            include(op->body);
            depth = outer;
        }
    } count;
    count.include(f->body);
    return count.constant && extent->value * count.most <= kFullUnrollIterations ? int(extent->value) : 0;
}

bool Emitter::worth_unrolling(const For *f) {
    const IntImm *extent = as<IntImm>(f->extent);
    if (extent && extent->value <= kUnrollSmallLoops) return false;
    struct Find : IRVisitor {
        bool loop_or_guard = false, clamped_index = false;
        int in_index = 0;
        using IRVisitor::include;
        void visit(const For *) override { loop_or_guard = true; }
        void visit(const IfThenElse *) override { loop_or_guard = true; }
        // A clamp, in an index or in a let (which may be one), marks a boundary piece.
        void visit(const Min *) override { clamped_index = clamped_index || in_index > 0; }
        void visit(const Max *) override { clamped_index = clamped_index || in_index > 0; }
        void visit(const Select *) override { clamped_index = clamped_index || in_index > 0; }
        void index(const Expr &e) {
            in_index++;
            include(e);
            in_index--;
        }
        void visit(const Load *op) override { index(op->index); }
        void visit(const Store *op) override {
            include(op->value);
            index(op->index);
        }
        void visit(const LetStmt *op) override {
            index(op->value);
            include(op->body);
        }
        void visit(const Let *op) override {
            index(op->value);
            include(op->body);
        }
    } find;
    find.include(f->body);
    const int accesses = ir::memory_accesses(f->body);
    return !find.loop_or_guard && !find.clamped_index && accesses > 0 && accesses <= kUnrollSmallLoopAccesses;
}

int64_t stack_array_elements(const Allocate *a) {
    int64_t elements = 1;
    for (const Expr &e : a->extents) {
        const IntImm *c = as<IntImm>(e);
        if (!c || c->value < 0 || c->value > kStackAllocationBytes) return -1;
        elements = std::min(elements * c->value, kStackAllocationBytes + 1);
    }
    return elements * a->type.bytes() <= kStackAllocationBytes ? elements : -1;
}

/** The iterations the loop nest `f` runs in all (of its innermost bodies, along its
 * longest path), or -1 if some loop in it has an extent that is not a constant. */
static int64_t constant_iterations(const For *f) {
    const IntImm *extent = as<IntImm>(f->extent);
    if (!extent) return -1;
    struct Inner : IRVisitor {
        int64_t most = 1;
        using IRVisitor::include;
        void visit(const For *op) override {
            const int64_t n = constant_iterations(op);
            most = most < 0 || n < 0 ? -1 : std::max(most, n);
        }
    } inner;
    inner.include(f->body);
    return inner.most < 0 ? -1 : extent->value * inner.most;
}

/** Whether the loop nest `f` does little enough work to stay inside its caller's function
 * (kOutlinedNestMinIterations). */
static bool few_constant_iterations(const For *f) {
    const int64_t n = constant_iterations(f);
    return n >= 0 && n <= kOutlinedNestMinIterations;
}

/** A loop large enough to be a function of its own: kOutlinedLoopAccesses loads and
 * stores or more, and more than a few constant iterations. */
static bool large_loop(const For *f) {
    return ir::memory_accesses(f->body) >= kOutlinedLoopAccesses && !few_constant_iterations(f);
}

/** How many levels of large loops `s` holds, at most: 0 for none, 1 where the large loops
 * in it have none inside them, and so on. The loops in a stack array's block do not count:
 * they stay with the array, in the function of the loop around it (outlined alone, the
 * array's block would be a call per iteration of that loop: an inline reduction's per
 * vector of pixels). */
static int large_loop_levels(const Stmt &s) {
    struct Levels : IRVisitor {
        int most = 0;
        using IRVisitor::include;
        void visit(const For *op) override {
            const int inside = large_loop_levels(op->body);
            most = std::max(most, inside + (large_loop(op) ? 1 : 0));
        }
        void visit(const Allocate *op) override {
            if (stack_array_elements(op) < 0) IRVisitor::visit(op);
        }
    } levels;
    levels.include(s);
    return levels.most;
}

bool Emitter::worth_outlining(const Stmt &loop) {
    const For *f = as<For>(loop);
    if (!large_loop(f)) return false;
    const NamesIn uses = names_in(loop, false);
    for (const std::string &b : uses.free_buffers) {
        auto it = bufs_.find(b);
        if (it != bufs_.end() && !it->second.empty() && it->second.back().on_stack) return false;
    }
    // The innermost large loops, or the loop directly around them: a stage's loop over
    // rows is one call per execution rather than one per row for each of its loops over
    // a row (steady state and tail), whose calls and closures cost as much as a short
    // row's work.
    return large_loop_levels(f->body) <= 1;
}

}  // namespace tessera::codegen
