#include "ir/IRPrinter.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "ir/Check.h"
#include "ir/Function.h"

namespace tessera {

std::ostream &operator<<(std::ostream &os, const Expr &e) {
    ir::IRPrinter(os).print(e);
    return os;
}

}  // namespace tessera

namespace tessera::ir {

namespace {

// Binding strength of each printed form; an operand is parenthesized when its own
// precedence is below the minimum its position asks for.
constexpr int kLet = 0;    // `let x = v in body`: the body extends as far right as possible
constexpr int kOr = 1;     // ||
constexpr int kAnd = 2;    // &&
constexpr int kCmp = 3;    // == != < <= > >=  (not associative)
constexpr int kAdd = 4;    // + -
constexpr int kMul = 5;    // * / %
constexpr int kUnary = 6;  // !   (everything else binds tighter)
// Position of a call argument or any other comma-separated operand: everything but a
// `let` goes without parentheses there.
constexpr int kArg = kOr;

void print_float(std::ostream &os, Type t, double v) {
    if (std::isnan(v) || std::isinf(v)) {
        os << t.to_string() << "(" << (std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf")) << ")";
        return;
    }
    char buf[64];
    std::to_chars_result r = t.bits == 32 ? std::to_chars(buf, buf + sizeof(buf), float(v))
                                          : std::to_chars(buf, buf + sizeof(buf), v);
    std::string s(buf, r.ptr);
    // Shortest round-trip form; make sure it reads as a floating-point literal.
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    os << s;
    if (t.bits == 32) os << "f";
}

void print_string_literal(std::ostream &os, const std::string &s) {
    os << '"';
    for (char c : s) {
        switch (c) {
        case '"': os << "\\\""; break;
        case '\\': os << "\\\\"; break;
        case '\n': os << "\\n"; break;
        case '\t': os << "\\t"; break;
        case '\r': os << "\\r"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                char hex[8];
                std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned char>(c));
                os << hex;
            } else {
                os << c;
            }
        }
    }
    os << '"';
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Entry points

void IRPrinter::print(const Expr &e) { print_expr(e, kLet); }

void IRPrinter::print(const Stmt &s) {
    if (!s.defined()) {
        do_indent();
        os_ << "<undefined>\n";
        return;
    }
    print_stmt(s);
}

void IRPrinter::print(const Provenance &p) {
    if (p.kind == Provenance::Kind::FinalCopy) os_ << "final ";
    if (p.atomic) os_ << "atomic ";
    os_ << (p.func ? p.func->name : std::string("?"));
    if (p.stage > 0) os_ << ".update(" << (p.stage - 1) << ")";
    print_args(p.coords);
    if (p.func && p.func->defined() && p.func->outputs() > 1) os_ << "[" << p.value_index << "]";
    for (size_t i = 0; i < p.rvars.size(); i++) {
        os_ << (i == 0 ? " " : ", ") << p.rvars[i].first << "=";
        print_expr(p.rvars[i].second, kArg);
    }
}

std::ostream &operator<<(std::ostream &os, const Stmt &s) {
    IRPrinter(os).print(s);
    return os;
}

std::string to_string(const Expr &e) {
    std::ostringstream ss;
    IRPrinter(ss).print(e);
    return ss.str();
}

std::string to_string(const Stmt &s) {
    std::ostringstream ss;
    IRPrinter(ss).print(s);
    return ss.str();
}

std::string to_string(const Provenance &p) {
    std::ostringstream ss;
    IRPrinter(ss).print(p);
    return ss.str();
}

// ---------------------------------------------------------------------------------------
// Expressions

void IRPrinter::print_expr(const Expr &e, int min_prec) {
    if (!e.defined()) {
        os_ << "<undefined>";
        return;
    }
    switch (e->kind) {
#define TESSERA_DISPATCH(N) \
    case ExprKind::N: print_node(static_cast<const N *>(e.get()), min_prec); return;
        TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
    }
    TESSERA_INTERNAL_ERROR("unknown expression kind");
}

void IRPrinter::print_args(const std::vector<Expr> &args) {
    os_ << "(";
    for (size_t i = 0; i < args.size(); i++) {
        if (i > 0) os_ << ", ";
        print_expr(args[i], kArg);
    }
    os_ << ")";
}

void IRPrinter::print_binary(const char *op, int prec, bool left_assoc, const Expr &a,
                             const Expr &b, int min_prec) {
    bool paren = prec < min_prec;
    if (paren) os_ << "(";
    print_expr(a, left_assoc ? prec : prec + 1);
    os_ << " " << op << " ";
    print_expr(b, prec + 1);
    if (paren) os_ << ")";
}

void IRPrinter::print_node(const IntImm *op, int) {
    if (op->type == Int(32)) {
        os_ << op->value;
    } else {
        os_ << op->type.to_string() << "(" << op->value << ")";
    }
}

void IRPrinter::print_node(const UIntImm *op, int) {
    if (op->type.is_bool()) {
        os_ << (op->value ? "true" : "false");
    } else {
        os_ << op->type.to_string() << "(" << op->value << ")";
    }
}

void IRPrinter::print_node(const FloatImm *op, int) {
    print_float(os_, op->type, op->value);  // FloatImm::make allows float32 and float64 only
}

void IRPrinter::print_node(const StringImm *op, int) { print_string_literal(os_, op->value); }

void IRPrinter::print_node(const Variable *op, int) { os_ << op->name; }

void IRPrinter::print_node(const Cast *op, int) {
    // T(literal) is the typed literal itself; a cast of a literal is spelled out so that
    // the two print differently (the .tsr parser reads both back).
    const bool literal = as<IntImm>(op->value) || as<UIntImm>(op->value) || as<FloatImm>(op->value);
    os_ << (literal ? "cast<" + op->type.to_string() + ">(" : op->type.to_string() + "(");
    print_expr(op->value, kArg);
    os_ << ")";
}

void IRPrinter::print_node(const Add *op, int p) { print_binary("+", kAdd, true, op->a, op->b, p); }
void IRPrinter::print_node(const Sub *op, int p) { print_binary("-", kAdd, true, op->a, op->b, p); }
void IRPrinter::print_node(const Mul *op, int p) { print_binary("*", kMul, true, op->a, op->b, p); }
void IRPrinter::print_node(const Div *op, int p) { print_binary("/", kMul, true, op->a, op->b, p); }
void IRPrinter::print_node(const Mod *op, int p) { print_binary("%", kMul, true, op->a, op->b, p); }
void IRPrinter::print_node(const EQ *op, int p) { print_binary("==", kCmp, false, op->a, op->b, p); }
void IRPrinter::print_node(const NE *op, int p) { print_binary("!=", kCmp, false, op->a, op->b, p); }
void IRPrinter::print_node(const LT *op, int p) { print_binary("<", kCmp, false, op->a, op->b, p); }
void IRPrinter::print_node(const LE *op, int p) { print_binary("<=", kCmp, false, op->a, op->b, p); }
void IRPrinter::print_node(const GT *op, int p) { print_binary(">", kCmp, false, op->a, op->b, p); }
void IRPrinter::print_node(const GE *op, int p) { print_binary(">=", kCmp, false, op->a, op->b, p); }
void IRPrinter::print_node(const And *op, int p) { print_binary("&&", kAnd, true, op->a, op->b, p); }
void IRPrinter::print_node(const Or *op, int p) { print_binary("||", kOr, true, op->a, op->b, p); }

void IRPrinter::print_node(const Min *op, int) { print_args_named("min", {op->a, op->b}); }
void IRPrinter::print_node(const Max *op, int) { print_args_named("max", {op->a, op->b}); }

void IRPrinter::print_node(const Not *op, int min_prec) {
    bool paren = kUnary < min_prec;
    if (paren) os_ << "(";
    os_ << "!";
    print_expr(op->a, kUnary);
    if (paren) os_ << ")";
}

void IRPrinter::print_node(const Select *op, int) {
    print_args_named("select", {op->condition, op->true_value, op->false_value});
}

void IRPrinter::print_node(const Call *op, int) {
    if (op->call_kind == CallKind::Intrinsic && (op->op == Intrinsic::Reinterpret || op->op == Intrinsic::Undef)) {
        os_ << intrinsic_name(op->op) << "<" << op->type.to_string() << ">";
    } else {
        os_ << op->name;
    }
    print_args(op->args);
    if (op->call_kind == CallKind::Func && op->func && op->func->defined() && op->func->outputs() > 1)
        os_ << "[" << op->value_index << "]";
}

void IRPrinter::print_node(const Let *op, int min_prec) {
    bool paren = kLet < min_prec;
    if (paren) os_ << "(";
    // Print a chain of lets without recursing on the bodies.
    const Let *let = op;
    while (true) {
        os_ << "let " << let->name << " = ";
        print_expr(let->value, kLet + 1);
        os_ << " in ";
        const Let *next = as<Let>(let->body);
        if (!next) break;
        let = next;
    }
    print_expr(let->body, kLet);
    if (paren) os_ << ")";
}

void IRPrinter::print_node(const Load *op, int) {
    os_ << op->buffer << "[";
    print_expr(op->index, kLet);
    os_ << "]";
}

void IRPrinter::print_node(const Ramp *op, int) {
    os_ << "ramp(";
    print_expr(op->base, kArg);
    os_ << ", ";
    print_expr(op->stride, kArg);
    os_ << ", " << op->lanes << ")";
}

void IRPrinter::print_node(const Broadcast *op, int) {
    os_ << "x" << op->lanes << "(";
    print_expr(op->value, kArg);
    os_ << ")";
}

void IRPrinter::print_args_named(const char *name, std::initializer_list<Expr> args) {
    os_ << name << "(";
    bool first = true;
    for (const Expr &a : args) {
        if (!first) os_ << ", ";
        first = false;
        print_expr(a, kArg);
    }
    os_ << ")";
}

// ---------------------------------------------------------------------------------------
// Statements

void IRPrinter::do_indent() {
    for (int i = 0; i < indent_; i++) os_ << "  ";
}

void IRPrinter::print_body(const Stmt &body) {
    indent_++;
    print(body);
    indent_--;
}

void IRPrinter::print_stmt(const Stmt &start) {
    // Blocks and let statements are chains (a Block's rest is usually another Block, a
    // LetStmt's body is printed at the same level); walk them in a loop so that long
    // sequences of statements do not recurse deeply.
    Stmt s = start;
    while (s.defined()) {
        if (const Block *b = as<Block>(s)) {
            print_stmt(b->first);
            s = b->rest;
            continue;
        }
        if (const LetStmt *l = as<LetStmt>(s)) {
            do_indent();
            os_ << "let " << l->name << " = ";
            print_expr(l->value, kLet);
            os_ << "\n";
            s = l->body;
            continue;
        }
        switch (s->kind) {
#define TESSERA_DISPATCH(N) \
    case StmtKind::N: print_node(static_cast<const N *>(s.get())); return;
            TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        }
        TESSERA_INTERNAL_ERROR("unknown statement kind");
    }
}

void IRPrinter::print_node(const LetStmt *op) {
    do_indent();
    os_ << "let " << op->name << " = ";
    print_expr(op->value, kLet);
    os_ << "\n";
    print_stmt(op->body);
}

void IRPrinter::print_node(const AssertStmt *op) {
    do_indent();
    os_ << "assert(";
    print_expr(op->condition, kArg);
    for (const Expr &m : op->message) {
        os_ << ", ";
        print_expr(m, kArg);
    }
    os_ << ")\n";
}

void IRPrinter::print_node(const For *op) {
    do_indent();
    os_ << for_type_name(op->for_type) << " (" << op->name << ", ";
    print_expr(op->min, kArg);
    os_ << ", ";
    print_expr(op->extent, kArg);
    os_ << ") {\n";
    print_body(op->body);
    do_indent();
    os_ << "}\n";
}

void IRPrinter::print_provenance_comment(const std::shared_ptr<const Provenance> &p) {
    if (!p) return;
    os_ << " // ";
    print(*p);
}

void IRPrinter::print_node(const Store *op) {
    do_indent();
    os_ << op->buffer << "[";
    print_expr(op->index, kLet);
    os_ << "] = ";
    print_expr(op->value, kLet);
    print_provenance_comment(op->provenance);
    os_ << "\n";
}

void IRPrinter::print_node(const Provide *op) {
    do_indent();
    os_ << op->name;
    print_args(op->args);
    os_ << " = ";
    print_expr(op->value, kLet);
    print_provenance_comment(op->provenance);
    os_ << "\n";
}

void IRPrinter::print_node(const Allocate *op) {
    do_indent();
    os_ << "allocate " << op->name << "[" << op->type.to_string();
    for (const Expr &e : op->extents) {
        os_ << " * ";
        print_expr(e, kMul + 1);
    }
    os_ << "] {\n";
    print_body(op->body);
    do_indent();
    os_ << "}\n";
}

void IRPrinter::print_node(const Realize *op) {
    do_indent();
    os_ << "realize " << op->name << "(";
    for (size_t i = 0; i < op->bounds.size(); i++) {
        if (i > 0) os_ << ", ";
        print_expr(op->bounds[i].min, kArg);
        os_ << ", ";
        print_expr(op->bounds[i].extent, kArg);
    }
    os_ << ") {\n";
    print_body(op->body);
    do_indent();
    os_ << "}\n";
}

void IRPrinter::print_node(const Block *op) {
    print_stmt(op->first);
    print_stmt(op->rest);
}

void IRPrinter::print_node(const IfThenElse *op) {
    do_indent();
    os_ << "if (";
    print_expr(op->condition, kLet);
    os_ << ") {\n";
    print_body(op->then_case);
    // `else if` chains stay at one level.
    Stmt rest = op->else_case;
    while (rest.defined()) {
        const IfThenElse *elif = as<IfThenElse>(rest);
        do_indent();
        if (elif) {
            os_ << "} else if (";
            print_expr(elif->condition, kLet);
            os_ << ") {\n";
            print_body(elif->then_case);
            rest = elif->else_case;
        } else {
            os_ << "} else {\n";
            print_body(rest);
            break;
        }
    }
    do_indent();
    os_ << "}\n";
}

void IRPrinter::print_node(const Evaluate *op) {
    do_indent();
    print_expr(op->value, kLet);
    os_ << "\n";
}

void IRPrinter::print_node(const Free *op) {
    do_indent();
    os_ << "free " << op->name << "\n";
}

void IRPrinter::print_node(const ProducerConsumer *op) {
    do_indent();
    os_ << (op->is_producer ? "produce " : "consume ") << op->name << " {\n";
    print_body(op->body);
    do_indent();
    os_ << "}\n";
}

}  // namespace tessera::ir
