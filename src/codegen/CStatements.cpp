// Statements and their C blocks: lets, assertions, loops, stores and allocations (C arrays
// for small constant sizes, aligned heap blocks freed on every exit otherwise), the
// temporaries that hold each operation's value, and the error exits.

#include <algorithm>

#include "codegen/Emitter.h"
#include "ir/Check.h"
#include "ir/AtomicStore.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"

namespace tessera::codegen {

void Emitter::line(const std::string &s) {
    flush_temp();
    write_line(indent_, s);
}

void Emitter::raw(const std::string &s) {
    flush_temp();
    body_ << s;
}

void Emitter::write_line(int indent, const std::string &s) {
    for (int i = 0; i < indent; i++) body_ << "    ";
    body_ << s << "\n";
}

void Emitter::flush_temp() {
    if (!pending_.active) return;
    pending_.active = false;
    write_line(pending_.indent, "const " + pending_.type + " " + pending_.id + " = " + pending_.rhs + ";" +
                                    pending_.comment);
}

std::string Emitter::hold_temp(const std::string &type, const std::string &rhs) {
    flush_temp();
    const std::string id = "_t" + std::to_string(next_temp_++);
    pending_ = PendingTemp{true, type, id, rhs, "", indent_};
    return id;
}

bool Emitter::declare_pending_as(const std::string &value, const std::string &id, const std::string &comment) {
    if (!pending_.active || pending_.id != value) return false;
    pending_.id = id;
    pending_.comment = comment;
    flush_temp();
    return true;
}

void Emitter::open_block(const std::string &head) {
    line(head + " {");
    indent_++;
    enter_scope();
}

void Emitter::close_block(const std::string &tail) {
    leave_scope();
    indent_--;
    line(tail);
}

void Emitter::fail_to(const std::string &code, const std::string &message_var_or_literal) {
    fail_with(helpers_.use("tessera_report_error") + "(" + code + ", " + message_var_or_literal + ")");
}

void Emitter::fail_with(const std::string &report) {
    if (!parallel_.empty()) {
        // Inside a parallel loop: record the error for the thread that waits for the
        // loop, and end this iteration (freeing what it allocated).
        ParallelScope &p = parallel_.back();
        const std::string e = "_e" + std::to_string(next_temp_++);
        line("const int " + e + " = " + report + ";");
        if (p.shared_status) raw("#ifdef _OPENMP\n#pragma omp atomic write\n#endif\n");
        line(p.status + " = " + e + ";");
        line("goto " + p.end_label + ";");
        p.label_used = true;
        return;
    }
    uses_cleanup_ = true;
    line("_status = " + report + ";");
    line("goto tessera_cleanup;");
}

void Emitter::fail_with_message(const std::string &code, const ErrorMessage &m) {
    fail_with(helpers_.use("tessera_format_error") + "(" + code + ", " + c_string_literal(m.format) + m.args + ")");
}

std::string Emitter::type_code_macro(Type t) {
    switch (t.code) {
    case TypeCode::Int: return "TESSERA_TYPE_INT";
    case TypeCode::UInt: return "TESSERA_TYPE_UINT";
    case TypeCode::Float: return "TESSERA_TYPE_FLOAT";
    case TypeCode::Bool: return "TESSERA_TYPE_BOOL";
    }
    return "?";
}

void Emitter::emit_stmt(const Stmt &s) {
    if (!s.defined()) return;
    switch (s->kind) {
    case StmtKind::LetStmt: {
        const LetStmt *l = as<LetStmt>(s);
        bind_value(l->name, l->value);
        emit_stmt(l->body);
        vars_[l->name].pop_back();
        return;
    }
    case StmtKind::AssertStmt: emit_assert(as<AssertStmt>(s)); return;
    case StmtKind::For: emit_for(as<For>(s), s); return;
    case StmtKind::Store: emit_store(as<Store>(s)); return;
    case StmtKind::Allocate: emit_allocate(as<Allocate>(s), s); return;
    case StmtKind::Free: emit_free(as<Free>(s)); return;
    case StmtKind::Block: {
        const Block *b = as<Block>(s);
        emit_stmt(b->first);
        emit_stmt(b->rest);
        return;
    }
    case StmtKind::IfThenElse: {
        const IfThenElse *i = as<IfThenElse>(s);
        const std::string c = scalar(i->condition);
        open_block("if (" + c + ")");
        emit_stmt(i->then_case);
        if (i->else_case.defined()) {
            close_block("} else {");
            indent_++;
            enter_scope();
            emit_stmt(i->else_case);
        }
        close_block();
        return;
    }
    case StmtKind::Evaluate: {
        for (const std::string &x : emit(as<Evaluate>(s)->value)) line("(void)" + x + ";");
        return;
    }
    case StmtKind::ProducerConsumer: {
        const ProducerConsumer *pc = as<ProducerConsumer>(s);
        line(std::string("/* ") + (pc->is_producer ? "produce " : "consume ") + comment_text(pc->name) + " */");
        emit_stmt(pc->body);
        return;
    }
    case StmtKind::Provide:
        TESSERA_INTERNAL_ERROR("Provide to \"" << as<Provide>(s)->name
                                               << "\" must be flattened to a Store before code generation");
    case StmtKind::Realize:
        TESSERA_INTERNAL_ERROR("Realize of \"" << as<Realize>(s)->name
                                               << "\" must be flattened to an Allocate before code generation");
    }
    TESSERA_INTERNAL_ERROR("no C code for statement kind " << int(s->kind));
}

void Emitter::emit_assert(const AssertStmt *a) {
    Lanes c = emit(a->condition);
    std::string cond;
    for (size_t i = 0; i < c.size(); i++) cond += (i ? " && " : "") + c[i];
    if (c.size() > 1) cond = "(" + cond + ")";
    open_block("if (!" + cond + ")");
    // A vector assertion reports its first failing lane, with that lane's values (as the
    // IR interpreter does).
    std::vector<Lanes> values;
    for (const Expr &part : a->message) values.push_back(as<StringImm>(part) ? Lanes() : emit(part));
    for (size_t i = 0; i < c.size(); i++) {
        const bool last = i + 1 == c.size();
        if (!last) open_block("if (!" + c[i] + ")");
        ErrorMessage m;
        for (size_t k = 0; k < a->message.size(); k++) {
            if (const StringImm *str = as<StringImm>(a->message[k])) m.text(str->value);
            else m.value(a->message[k].type().element_of(), lane(values[k], int(i)));
        }
        fail_with_message("TESSERA_ERROR_ASSERTION", m);
        if (!last) close_block();
    }
    close_block();
}

void Emitter::emit_for(const For *f, const Stmt &self) {
    if (may_outline_here() && f->for_type == ForType::Serial && worth_outlining(self) &&
        emit_outlined_statement(self, f->name))
        return;
    const std::string mn = scalar(f->min), ex = scalar(f->extent);
    const Type t = f->min.type();
    const std::string T = c_type_name(t);
    // The outermost parallel loop runs its iterations on OpenMP threads; parallel loops
    // inside it, and every vectorized or unrolled loop that lowering left as a loop,
    // run serially in their thread.
    const bool threads = f->for_type == ForType::Parallel && parallel_.empty();
    if (f->for_type != ForType::Serial && !threads) {
        line(std::string("/* ") + for_type_name(f->for_type) + " loop " + comment_text(f->name) +
             ": emitted as a serial loop */");
    }
    if (threads && emit_outlined_parallel_loop(f, mn, ex)) return;
    std::string status;
    if (threads) {
        status = issue("_par_status");
        line("int " + status + " = TESSERA_SUCCESS;");
    }
    const IntImm *cmin = as<IntImm>(f->min), *cext = as<IntImm>(f->extent);
    std::string header, first_line, second_line;
    enter_scope();
    if (t == Int(32) && cmin && cext && cext->value >= 0 && cmin->value + cext->value <= INT32_MAX) {
        // Constant bounds: the counter never overflows.
        const std::string x = declare_var(f->name, t);
        header = "for (int32_t " + x + " = " + mn + "; " + x + " < " + int_literal(t, cmin->value + cext->value) +
                 "; " + x + "++) {" + name_comment(f->name, x);
    } else if (t.bits <= 32) {
        // The end is computed once, in 64 bits (min + extent may exceed the type); the
        // counter is 64-bit so that it never overflows.
        leave_scope();
        const std::string end = temp(Int(64), "(int64_t)" + mn + " + (int64_t)" + ex);
        enter_scope();
        const std::string counter = declare(issue(sanitize_identifier(f->name) + "_i"));
        header = "for (int64_t " + counter + " = " + mn + "; " + counter + " < " + end + "; " + counter + "++) {";
        const std::string x = declare_var(f->name, t);
        first_line = "const " + T + " " + x + " = (" + T + ")" + counter + ";" + name_comment(f->name, x);
        // A pure loop's variable (a coordinate of a Func's region, not an RDom's) never
        // leaves the int32 range (docs/semantics.md §11): widened, it is the counter
        // (CExpressions.cpp), so that the indices computed from it are affine in the
        // counter and the C compiler vectorizes the loops that read and write them; through
        // the int32 truncation it could not. An RDom's variable wraps (§7.2) and stays
        // the truncation.
        if (t == Int(32) && f->loop && f->loop->pure) {
            vars_[f->name].back().counter = counter;
            second_line = "(void)" + x + ";";
        }
    } else {
        // 64-bit loop variable: count iterations and wrap (min + i).
        const std::string counter = declare(issue(sanitize_identifier(f->name) + "_i"));
        header = "for (int64_t " + counter + " = 0; " + counter + " < " + ex + "; " + counter + "++) {";
        const std::string x = declare_var(f->name, t);
        first_line = "const " + T + " " + x + " = (" + T + ")((uint64_t)" + mn + " + (uint64_t)" + counter + ");" +
                     name_comment(f->name, x);
    }
    if (threads) raw("#ifdef _OPENMP\n#pragma omp parallel for schedule(dynamic, 1)\n#endif\n");
    // (Clang unrolls such loops itself, and warns where a pragma asks for what it cannot do.)
    if (const int n = threads ? 0 : full_unroll_count(f))
        raw("#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC unroll " + std::to_string(n) + "\n#endif\n");
    else if (!threads && worth_unrolling(f))
        raw("#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC unroll " + std::to_string(kUnrollSmallLoops) +
            "\n#endif\n");
    line(header);
    indent_++;
    if (!threads) {
        if (!first_line.empty()) line(first_line);
        if (!second_line.empty()) line(second_line);
        emit_stmt(f->body);
    } else {
        // The iteration's body is emitted apart, so that the pointers of the
        // allocations it makes can be declared at its top and freed at its end.
        parallel_.push_back(ParallelScope{status, issue("_par_end"), {}, {}, false});
        std::ostringstream outer;
        flush_temp();
        std::swap(outer, body_);
        if (!first_line.empty()) line(first_line);
        if (!second_line.empty()) line(second_line);
        emit_stmt(f->body);
        flush_temp();
        std::swap(outer, body_);
        const ParallelScope p = parallel_.back();
        parallel_.pop_back();
        for (const std::string &a : p.allocations) line(a);
        raw(outer.str());
        if (p.label_used) line(p.end_label + ":;");
        for (const std::string &id : p.idents) line(helpers_.use("tessera_free") + "(" + id + ");");
    }
    vars_[f->name].pop_back();
    close_block();
    if (threads) {
        open_block("if (" + status + " != TESSERA_SUCCESS)");
        uses_cleanup_ = true;
        line("_status = " + status + ";");
        line("goto tessera_cleanup;");
        close_block();
    }
}

void Emitter::emit_store(const Store *st) {
    memory_accesses_++;
    const BufBinding &b = buffer(st->buffer);
    TESSERA_INTERNAL_ASSERT(b.writable, "store into the input buffer \"" << st->buffer << "\"");
    check_element_type(st->buffer, b, st->value.type().element_of());
    const std::string prov =
        st->provenance ? "  /* " + comment_text(to_string(*st->provenance)) + " */" : std::string();
    if (st->provenance && st->provenance->atomic) return emit_atomic_store(st, b, prov);
    const int lanes = st->value.type().lanes;
    const Ramp *dense = dense_ramp(st->index);
    if (native(st->value.type()) && dense) {
        const Type vt = st->value.type();
        std::string v = vec(st->value);
        if (vt.is_bool()) v = vtemp(UInt(8).with_lanes(lanes), "(" + vtype(UInt(8).with_lanes(lanes)) + ")" + v + " & " +
                                                                splat(UInt(8).with_lanes(lanes), "1"));
        const std::string base = scalar(dense->base);
        line("memcpy(&" + b.ident + "[" + base + "], &" + v + ", sizeof(" + v + "));" + prov);
        return;
    }
    in_gather_index_++;
    Lanes idx = emit(st->index);
    in_gather_index_--;
    Lanes val = emit(st->value);
    for (int i = 0; i < lanes; i++)
        line(b.ident + "[" + lane(idx, i) + "] = " + lane(val, i) + ";" + (i == 0 ? prov : std::string()));
}

void Emitter::emit_atomic_store(const Store *st, const BufBinding &b, const std::string &prov) {
    // Each lane becomes a loop that computes the value from the point's current contents
    // and swaps it in unless another thread changed the point in between (the C11-style
    // builtins of GCC and Clang, on 1- to 8-byte integers). The value reads the buffer only
    // at the point stored (CheckSchedules accepts only such updates; CommonSubexpressions
    // leaves the store whole): `f[i] op e` (src/ir/AtomicStore.h), whose e is computed once
    // for all lanes; lanes of one vector that write one point then both count.
    const Type t = st->value.type(), et = t.element_of();
    const std::string T = c_type_name(et);
    const std::optional<ir::AtomicStoreParts> parts = ir::atomic_store_parts(*st);
    TESSERA_INTERNAL_ASSERT(parts, "the atomic store to \"" << st->buffer << "\" is not f[i] op e");
    const Lanes operand = parts->operand.defined() ? emit(parts->operand) : Lanes();
    const Lanes index = emit(st->index);
    flush_temp();
    for (int l = 0; l < t.lanes; l++) {
        open_block("");
        const std::string p = declare(issue("_atomic_p")), old = declare(issue("_atomic_old")),
                          fresh = declare(issue("_atomic_new"));
        line(T + " *" + p + " = &" + b.ident + "[" + lane(index, l) + "];" + (l == 0 ? prov : std::string()));
        line(T + " " + old + " = __atomic_load_n(" + p + ", __ATOMIC_RELAXED);");
        std::string e;
        if (!operand.empty()) {
            e = declare(issue("_atomic_e"));
            line("const " + T + " " + e + " = " + lane(operand, l) + ";");
        }
        line(T + " " + fresh + ";");
        open_block("do");
        vars_[parts->old].push_back(VarBinding{old, et, false});
        vars_[parts->operand_lane].push_back(VarBinding{e, et, false});
        const std::string v = scalar(parts->combine);
        flush_temp();
        vars_[parts->operand_lane].pop_back();
        vars_[parts->old].pop_back();
        line(fresh + " = (" + T + ")(" + v + ");");
        close_block("} while (!__atomic_compare_exchange_n(" + p + ", &" + old + ", " + fresh +
                    ", 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));");
        close_block();
    }
}

/** A heap allocation goes back to the allocator at its Free, so that the next allocation
 * takes its memory, whose pages are already mapped; the pointer becomes NULL, which the
 * end of the Allocate and an error exit free again harmlessly. A C array is the block's;
 * and where a statement with the Free was outlined into a function of its own, the
 * pointer there is a copy from the closure: the allocation's own function frees it, at
 * the end of the Allocate. */
void Emitter::emit_free(const Free *f) {
    auto it = bufs_.find(f->name);
    TESSERA_INTERNAL_ASSERT(it != bufs_.end() && !it->second.empty(), "a Free of \"" << f->name << "\" outside its allocation");
    const BufBinding &b = it->second.back();
    if (!b.owned) return;
    line(helpers_.use("tessera_free") + "(" + b.ident + ");  /* free " + comment_text(f->name) + " */");
    line(b.ident + " = NULL;");
}

void Emitter::emit_allocate(const Allocate *a, const Stmt &self) {
    TESSERA_INTERNAL_ASSERT(a->type.is_scalar(), "allocation \"" << a->name << "\" of vector type "
                                                                 << a->type.to_string());
    const std::string ct = c_type_name(a->type);
    std::vector<std::string> extents;
    for (const Expr &e : a->extents) {
        const Type et = e.type();
        TESSERA_INTERNAL_ASSERT(et.is_scalar() && et.is_integer(), "allocation extent of type " << et.to_string());
        const std::string x = scalar(e);
        extents.push_back(et == Int(64) ? x : "(int64_t)" + x);
    }
    // A small allocation of constant size is an array in a C block (as Halide puts it
    // on the stack): nothing to check, to free or to fail, and the C compiler may keep
    // its elements in registers (the accumulators of an unrolled tile).
    const int64_t elements = stack_array_elements(a);
    if (elements >= 0) {
        // Inside a parallel loop's function, an array whose block holds a large loop is
        // outlined with it (a loop alone would see the array through a pointer, and the
        // C compiler would no longer keep its elements in registers).
        if (may_outline_here() && ir::memory_accesses(a->body) >= kOutlinedLoopAccesses &&
            emit_outlined_statement(self, a->name))
            return;
        std::string dims;
        for (size_t i = 0; i < a->extents.size(); i++) dims += (i ? " x " : "") + std::to_string(as<IntImm>(a->extents[i])->value);
        line("/* allocate " + comment_text(a->name) + ": " + a->type.to_string() + "[" + comment_text(dims) +
             "], in this block */");
        line("{");
        indent_++;
        enter_scope();
        std::string id = name_buffer(a->name);
        if (visible(id)) id = issue(id);
        scopes_.back().insert(id);
        line(ct + " " + id + "[" + std::to_string(std::max<int64_t>(elements, 1)) + "];" + name_comment(a->name, id));
        bufs_[a->name].push_back(BufBinding{id, a->type, true, true});
        emit_stmt(a->body);
        bufs_[a->name].pop_back();
        close_block();
        return;
    }
    // The pointer lives at function scope (or at the top of the parallel loop's
    // iteration) so that an error exit can free it.
    std::string id = name_buffer(a->name);
    if (visible(id) || std::count(allocation_idents_.begin(), allocation_idents_.end(), id)) id = issue(id);
    if (parallel_.empty()) {
        scopes_[0].insert(id);
        allocations_.push_back(ct + " *restrict " + id + " = NULL;" + name_comment(a->name, id));
        allocation_idents_.push_back(id);
    } else {
        id = issue(id);
        parallel_.back().allocations.push_back(ct + " *restrict " + id + " = NULL;" + name_comment(a->name, id));
        parallel_.back().idents.push_back(id);
    }

    std::string dims;
    for (size_t i = 0; i < extents.size(); i++) dims += (i ? " x " : "") + extents[i];
    line("/* allocate " + comment_text(a->name) + ": " + a->type.to_string() + "[" + comment_text(dims) + "] */");
    const std::string bytes = "_t" + std::to_string(next_temp_++);
    line("uint64_t " + bytes + " = " + std::to_string(a->type.bytes()) + ";");
    if (!extents.empty()) {
        std::string cond;
        for (size_t i = 0; i < extents.size(); i++)
            cond += (i ? " || !" : "!") + helpers_.use("tessera_size_mul") + "(&" + bytes + ", " + extents[i] + ")";
        open_block("if (" + cond + ")");
        ErrorMessage m;
        m.text("allocation \"" + a->name + "\": the size (");
        for (size_t i = 0; i < extents.size(); i++) {
            if (i) m.text(" x ");
            m.value(Int(64), extents[i]);
        }
        m.text(" elements) is negative or too large");
        fail_with_message("TESSERA_ERROR_ALLOCATION_SIZE", m);
        close_block();
    }
    line(id + " = (" + ct + " *)" + helpers_.use("tessera_malloc") + "(" + bytes + ");");
    open_block("if (" + id + " == NULL)");
    fail_to("TESSERA_ERROR_OUT_OF_MEMORY", c_string_literal("allocation \"" + a->name + "\": out of memory"));
    close_block();

    bufs_[a->name].push_back(BufBinding{id, a->type, true, false, true});
    emit_stmt(a->body);
    bufs_[a->name].pop_back();
    line(helpers_.use("tessera_free") + "(" + id + ");");
    line(id + " = NULL;");
}

}  // namespace tessera::codegen
