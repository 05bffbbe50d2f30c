// The .tsr parser: tokens to a Program, built through the public C++ API, so that a
// pipeline written as text means exactly what the same pipeline written in C++ means (the
// same coercions, the same checks, the same errors). Expressions use the syntax the IR
// printer prints (docs/language.md), so what an error message shows can be pasted back.
//
// Errors do not stop the parse: each statement that fails is reported with its position
// and skipped, and the parse goes on with the next one.

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <tessera/BoundaryConditions.h>
#include <tessera/InlineReductions.h>
#include <tessera/Program.h>

#include "ir/IR.h"
#include "ir/Function.h"
#include "lang/Definitions.h"
#include "lower/Pipeline.h"
#include "text/Lexer.h"

namespace tessera {

namespace {

using text::Tok;
using text::Token;

struct ParseError {
    Token at;
    std::string message;
};

TailStrategy tail_from_name(const std::string &n, bool &ok) {
    ok = true;
    if (n == "Auto") return TailStrategy::Auto;
    if (n == "GuardWithIf") return TailStrategy::GuardWithIf;
    if (n == "ShiftInwards") return TailStrategy::ShiftInwards;
    if (n == "RoundUp") return TailStrategy::RoundUp;
    ok = false;
    return TailStrategy::Auto;
}

class Parser {
public:
    Parser(const std::string &source, std::string filename) : file_(std::move(filename)), toks_(text::lex(source)) {
        std::istringstream in(source);
        for (std::string l; std::getline(in, l);) lines_.push_back(l);
    }

    /** One expression over the names of pipeline `p`: its parameters, and the bounds of its
     * inputs and of its output. */
    Expr parse_expression_of(const Program &p) {
        for (const Argument &a : p.arguments) {
            if (a.param) params_[a.name] = a.param;
            if (a.input)
                bounded_[a.name] = {"input '" + a.name + "'", a.input->dimensions, [in = a.input](int d, bool extent) {
                                        return ir::Variable::make_input_bound(in, d, extent);
                                    }};
        }
        if (const std::shared_ptr<ir::FunctionData> &f = p.output.data())
            bounded_[f->name] = {"the output '" + f->name + "'", f->dimensions(), [name = f->name](int d, bool extent) {
                                     // The output buffer's fields, as lowered code names them.
                                     return extent ? lower::buffer_extent(name, d) : lower::buffer_min(name, d);
                                 }};
        Expr e;
        try {
            e = expr();
            while (peek().kind == Tok::Newline) pos_++;
            if (peek().kind != Tok::End) fail(peek(), "expected the end of the expression, found " + describe(peek()));
        } catch (const ParseError &err) {
            report(err.at, err.message.empty() ? "not an expression" : err.message);
        }
        if (!errors_.empty()) {
            std::string message = errors_.front();
            if (!message.empty() && message.back() == '\n') message.pop_back();
            throw CompileError(message);
        }
        return e;
    }

    Program parse() {
        while (peek().kind != Tok::End) {
            if (peek().kind == Tok::Newline) {
                pos_++;
                continue;
            }
            const size_t start = pos_;
            try {
                statement();
                if (peek().kind != Tok::Newline && peek().kind != Tok::End)
                    fail(peek(), "expected the end of the statement, found " + describe(peek()));
            } catch (const ParseError &e) {
                if (!e.message.empty()) report(e.at, e.message);  // empty: follows from an error reported
                if (pos_ == start) pos_++;
                while (peek().kind != Tok::Newline && peek().kind != Tok::End) pos_++;
            }
        }
        if (!output_.defined() && errors_.empty() && !output_failed_) {
            Token end = toks_.back();
            report(end, "the file has no `output` statement naming the Func the pipeline computes");
        }
        if (!errors_.empty()) {
            std::string all;
            for (const auto &e : errors_) all += e;
            all += std::to_string(errors_.size()) + (errors_.size() == 1 ? " error" : " errors") + " in " + file_;
            throw CompileError(all);
        }
        Program p;
        p.name = name_.empty() ? output_.name() : name_;
        p.arguments = arguments_;
        p.output = output_;
        p.file = file_;
        p.source = lines_;
        p.defined_at = defined_at_;
        p.scheduled_at = scheduled_at_;
        return p;
    }

private:
    // -----------------------------------------------------------------------------------
    // Tokens and errors

    const Token &peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
    const Token &next() {
        const Token &t = peek();
        if (pos_ < toks_.size() - 1) pos_++;
        return t;
    }
    bool is(const char *punct, size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text == punct; }
    bool is_ident(const char *name, size_t k = 0) const { return peek(k).kind == Tok::Ident && peek(k).text == name; }
    bool accept(const char *punct) {
        if (!is(punct)) return false;
        pos_++;
        return true;
    }
    static std::string describe(const Token &t) {
        switch (t.kind) {
        case Tok::Newline: return "the end of the line";
        case Tok::End: return "the end of the file";
        case Tok::String: return "a string";
        case Tok::Error: return "'" + t.text + "'";
        default: return "'" + t.text + "'";
        }
    }
    [[noreturn]] void fail(const Token &at, const std::string &msg) const { throw ParseError{at, msg}; }
    void expect(const char *punct, const std::string &what) {
        if (!accept(punct)) fail(peek(), std::string("expected '") + punct + "' " + what + ", found " + describe(peek()));
    }
    Token ident(const char *what) {
        if (peek().kind == Tok::Error) fail(peek(), peek().text);
        if (peek().kind != Tok::Ident) fail(peek(), std::string("expected ") + what + ", found " + describe(peek()));
        return next();
    }
    void report(const Token &at, const std::string &msg) {
        std::string text = file_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": error: " + msg + "\n";
        if (at.line >= 1 && at.line <= int(lines_.size())) {
            const std::string &l = lines_[size_t(at.line - 1)];
            text += "    " + l + "\n    " + std::string(size_t(std::max(at.col - 1, 0)), ' ') + "^\n";
        }
        errors_.push_back(text);
    }
    /** Runs a C++ API call; its CompileError becomes an error at `at`. */
    template<typename F>
    auto api(const Token &at, F &&f) -> decltype(f()) {
        try {
            return f();
        } catch (const CompileError &e) {
            fail(at, e.what());
        }
    }

    // -----------------------------------------------------------------------------------
    // Statements

    void statement() {
        const Token &t = peek();
        if (t.kind == Tok::Error) fail(t, t.text);
        if (t.kind != Tok::Ident) fail(t, "a statement starts with a name or a keyword, not " + describe(t));
        const std::string &w = t.text;
        if (failed_.count(w)) fail(t, "");
        if (w == "pipeline") return pipeline_statement();
        if (w == "input") return input_statement();
        if (w == "param") return param_statement();
        if (w == "var") return var_statement();
        if (w == "rdom") return rdom_statement();
        if (w == "func") return func_statement();
        if (w == "output") return output_statement();
        if (rdoms_.count(w) && is(".", 1)) return where_statement();
        if (funcs_.count(w)) {
            if (is("(", 1)) return update_statement();
            if (is(".", 1)) return schedule_statement();
        }
        if (inputs_.count(w) || params_.count(w) || vars_.count(w))
            fail(t, "'" + w + "' is not a Func; only Funcs have definitions and schedules");
        fail(t, "unknown name '" + w + "' (a statement starts with pipeline, input, param, var, rdom, func, output, "
                "or the name of a Func or RDom)");
    }

    void declare(const Token &name) {
        if (taken(name.text) || failed_.count(name.text)) fail(name, "'" + name.text + "' is already declared");
        reserved(name);
    }
    /** A Func's name may also be the name of a Var (calls are told apart by their '('). */
    void declare_func(const Token &name) {
        if (funcs_.count(name.text) || inputs_.count(name.text) || params_.count(name.text) || rdoms_.count(name.text) ||
            failed_.count(name.text))
            fail(name, "'" + name.text + "' is already declared");
        reserved(name);
    }
    void reserved(const Token &name) {
        Type t;
        if (type_from_name(name.text, t) || builtin(name.text))
            fail(name, "'" + name.text + "' is a type or built-in function name; choose another name");
    }
    bool taken(const std::string &n) const {
        return funcs_.count(n) || inputs_.count(n) || params_.count(n) || rdoms_.count(n) || vars_.count(n);
    }

    void pipeline_statement() {
        next();
        name_ = ident("the pipeline's name").text;
    }

    Type type(const char *what) {
        const Token t = ident(what);
        Type ty;
        if (!type_from_name(t.text, ty))
            fail(t, "unknown type '" + t.text + "' (the types are bool, int8, int16, int32, int64, uint8, uint16, "
                    "uint32, uint64, float32, float64)");
        return ty;
    }

    int64_t small_int(const char *what) {
        if (peek().kind != Tok::Int) fail(peek(), std::string("expected ") + what + ", found " + describe(peek()));
        const Token t = next();
        if (t.u > 1000000) fail(t, std::string(what) + " is too large");
        return int64_t(t.u);
    }

    void input_statement() {
        next();
        const Type t = type("the input's element type");
        const Token name = ident("the input's name");
        declare(name);
        expect("[", "and the number of dimensions after the input's name");
        const int64_t dims = small_int("the number of dimensions");
        expect("]", "after the number of dimensions");
        ImageParam in = api(name, [&] { return ImageParam(t, int(dims), name.text); });
        inputs_[name.text] = in;
        arguments_.emplace_back(in);
    }

    void param_statement() {
        next();
        const Type t = type("the parameter's type");
        const Token name = ident("the parameter's name");
        declare(name);
        auto p = detail::make_param(t, name.text);
        params_[name.text] = p;
        arguments_.emplace_back(p);
        if (accept("=")) {
            const Token at = peek();
            Expr v = expr();
            if (v.type() != t && !(v.type().is_int() && ir::as<ir::IntImm>(v)) &&
                !(v.type().is_float() && t.is_float()))
                fail(at, "the default value of parameter '" + name.text + "' has type " + v.type().to_string() +
                             ", not " + t.to_string());
            if (const auto *i = ir::as<ir::IntImm>(v)) {
                if (!t.is_float() && !t.can_represent(i->value))
                    fail(at, "the default value does not fit in " + t.to_string());
                detail::set_param(*p, t, i->value, uint64_t(i->value), double(i->value));
            } else if (const auto *u = ir::as<ir::UIntImm>(v)) {
                detail::set_param(*p, t, int64_t(u->value), u->value, double(u->value));
            } else if (const auto *f = ir::as<ir::FloatImm>(v)) {
                detail::set_param(*p, t, 0, 0, f->value);
            } else {
                fail(at, "the default value of a parameter must be a literal");
            }
        }
        if (is_ident("in")) {
            next();
            expect("[", "before the parameter's range");
            Expr lo = expr();
            expect(",", "between the range's bounds");
            Expr hi = expr();
            const Token close = peek();
            expect("]", "after the parameter's range");
            api(close, [&] {
                detail::set_param_range(*p, lo, hi);
                return 0;
            });
        }
    }

    void var_statement() {
        next();
        do {
            const Token name = ident("a variable name");
            declare(name);
            vars_.insert(name.text);
        } while (accept(","));
    }

    void rdom_statement() {
        next();
        const Token name = ident("the RDom's name");
        declare(name);
        expect("(", "and the RDom's bounds (min, extent, ...)");
        Region region;
        do {
            Expr mn = expr();
            expect(",", "between the min and the extent of an RDom dimension");
            Expr ext = expr();
            region.emplace_back(mn, ext);
        } while (accept(","));
        expect(")", "after the RDom's bounds");
        if (region.size() > 4) fail(name, "an RDom has at most 4 dimensions");
        rdoms_[name.text] = api(name, [&] { return RDom(region, name.text); });
    }

    void where_statement() {
        const Token name = next();
        next();  // .
        const Token w = ident("'where'");
        if (w.text != "where") fail(w, "an RDom statement is " + name.text + ".where(condition)");
        expect("(", "after where");
        Expr c = expr();
        expect(")", "after the condition");
        api(w, [&] {
            rdoms_[name.text].where(c);
            return 0;
        });
    }

    void func_statement() {
        next();
        const Token name = ident("the Func's name");
        declare_func(name);
        defined_at_[name.text] = Program::Place{name.line, name.col};
        try {
            func_definition(name);
        } catch (const ParseError &) {
            // Later statements that use the Func would only repeat this error: they are
            // skipped silently.
            failed_.insert(name.text);
            throw;
        }
    }

    void func_definition(const Token &name) {
        if (accept("=")) return func_binding(name);
        expect("(", "and its pure variables, or '=' and a boundary condition");
        std::vector<Var> args;
        if (!is(")")) {
            do {
                const Token v = ident("a pure variable");
                if (params_.count(v.text) || rdoms_.count(v.text))
                    fail(v, "'" + v.text + "' is not a variable; the arguments of a pure definition are Vars");
                vars_.insert(v.text);
                args.emplace_back(v.text);
            } while (accept(","));
        }
        expect(")", "after the pure variables");
        const Token eq = peek();
        expect("=", "and the Func's value");
        Expr value = expr();
        Func f(name.text);
        api(eq, [&] {
            f(args) = value;
            return 0;
        });
        funcs_[name.text] = f;
    }

    /** func NAME = boundary_condition(...) | STAGE.rfactor(...) */
    void func_binding(const Token &name) {
        const Token what = ident("a boundary condition or an rfactor");
        static const std::set<std::string> bcs = {"repeat_edge", "constant_exterior", "mirror_image",
                                                  "mirror_interior", "repeat_image"};
        Func made;
        if (bcs.count(what.text)) {
            made = boundary_condition(what);
        } else if (funcs_.count(what.text)) {
            pos_--;
            Stage st = stage_of(ident("a Func"));
            const Token r = ident("rfactor");
            if (r.text != "rfactor") fail(r, "only rfactor makes a new Func from a stage");
            expect("(", "after rfactor");
            std::vector<std::pair<RVar, Var>> pairs;
            auto pair = [&] {
                RVar rv = rvar_ref();
                expect(",", "between the RVar and the Var");
                const std::string vn = ident("a Var").text;
                vars_.insert(vn);
                pairs.emplace_back(rv, Var(vn));
            };
            if (accept("[")) {
                do {
                    expect("[", "around each (RVar, Var) pair");
                    pair();
                    expect("]", "after the pair");
                } while (accept(","));
                expect("]", "after the pairs");
            } else {
                pair();
            }
            expect(")", "after rfactor's arguments");
            made = api(r, [&] { return st.rfactor(pairs); });
        } else {
            fail(what, "'" + what.text + "' is neither a boundary condition (repeat_edge, constant_exterior, "
                       "mirror_image, mirror_interior, repeat_image) nor a Func to rfactor");
        }
        made.data()->name = name.text;
        funcs_[name.text] = made;
    }

    Func boundary_condition(const Token &bc) {
        expect("(", "after the boundary condition");
        const Token src = ident("the input or Func it applies to");
        Expr value;
        if (bc.text == "constant_exterior") {
            expect(",", "and the exterior value");
            value = expr();
        }
        if (inputs_.count(src.text)) {
            expect(")", "(the bounds of an input are its buffer's)");
            const ImageParam &in = inputs_[src.text];
            return api(bc, [&]() -> Func {
                if (bc.text == "repeat_edge") return BoundaryConditions::repeat_edge(in);
                if (bc.text == "constant_exterior") return BoundaryConditions::constant_exterior(in, value);
                if (bc.text == "mirror_image") return BoundaryConditions::mirror_image(in);
                if (bc.text == "mirror_interior") return BoundaryConditions::mirror_interior(in);
                return BoundaryConditions::repeat_image(in);
            });
        }
        if (!funcs_.count(src.text)) fail(src, "unknown input or Func '" + src.text + "'");
        Region bounds;
        while (accept(",")) {
            expect("[", "around each dimension's [min, extent]");
            Expr mn = expr();
            expect(",", "between min and extent");
            Expr ext = expr();
            expect("]", "after the extent");
            bounds.emplace_back(mn, ext);
        }
        expect(")", "after the bounds");
        const Func &f = funcs_[src.text];
        return api(bc, [&]() -> Func {
            if (bc.text == "repeat_edge") return BoundaryConditions::repeat_edge(f, bounds);
            if (bc.text == "constant_exterior") return BoundaryConditions::constant_exterior(f, value, bounds);
            if (bc.text == "mirror_image") return BoundaryConditions::mirror_image(f, bounds);
            if (bc.text == "mirror_interior") return BoundaryConditions::mirror_interior(f, bounds);
            return BoundaryConditions::repeat_image(f, bounds);
        });
    }

    void update_statement() {
        const Token name = next();
        Func f = funcs_[name.text];
        expect("(", "");
        std::vector<Expr> args;
        if (!is(")")) {
            do args.push_back(expr());
            while (accept(","));
        }
        expect(")", "after the update's coordinates");
        const Token op = next();
        if (op.kind != Tok::Punct || (op.text != "=" && op.text != "+=" && op.text != "-=" && op.text != "*=" &&
                                      op.text != "/="))
            fail(op, "expected =, +=, -=, *= or /= after the update's coordinates, found " + describe(op));
        Expr value = expr();
        api(op, [&] {
            FuncRef ref = f(args);
            if (op.text == "=") {
                ref = value;
            } else if (const std::vector<Expr> values = ir::tuple_components(value); values.size() > 1) {
                // f(x) += tuple(a, b): each value of a Func with several.
                const Tuple t(values);
                if (op.text == "+=") ref += t;
                else if (op.text == "-=") ref -= t;
                else if (op.text == "*=") ref *= t;
                else ref /= t;
            } else if (op.text == "+=") {
                ref += value;
            } else if (op.text == "-=") {
                ref -= value;
            } else if (op.text == "*=") {
                ref *= value;
            } else {
                ref /= value;
            }
            return 0;
        });
    }

    void output_statement() {
        next();
        const Token name = ident("the output Func");
        if (failed_.count(name.text)) {
            output_failed_ = true;
            fail(name, "");
        }
        if (!funcs_.count(name.text)) fail(name, "'" + name.text + "' is not a Func");
        if (output_.defined()) fail(name, "the pipeline already has an output (" + output_.name() + ")");
        output_ = funcs_[name.text];
    }

    // -----------------------------------------------------------------------------------
    // Schedules

    /** NAME or NAME.a.b (an RVar "r.x", a loop "x.v"). */
    std::string name_path() {
        std::string n = ident("a loop name").text;
        while (is(".") && peek(1).kind == Tok::Ident) {
            next();
            n += "." + next().text;
        }
        return n;
    }
    VarOrRVar loop_name() {
        const std::string n = name_path();
        const size_t dot = n.find('.');
        const bool rvar = dot != std::string::npos && rdoms_.count(n.substr(0, dot));
        if (rdoms_.count(n)) return VarOrRVar(RVar(rdoms_.at(n)));  // a 1-D RDom names its RVar
        return VarOrRVar(n, rvar);
    }
    std::vector<VarOrRVar> loop_names() {
        std::vector<VarOrRVar> v;
        do v.push_back(loop_name());
        while (accept(","));
        return v;
    }
    TailStrategy optional_tail() {
        if (!accept(",")) return TailStrategy::Auto;
        const Token t = ident("a tail strategy");
        bool ok;
        TailStrategy s = tail_from_name(t.text, ok);
        if (!ok) fail(t, "unknown tail strategy '" + t.text + "' (GuardWithIf, ShiftInwards, RoundUp or Auto)");
        return s;
    }
    /** The number of arguments from here (just after a '(') to the matching ')'. */
    int count_args() const {
        int depth = 0, count = 0;
        bool any = false;
        for (size_t j = pos_; j < toks_.size() && toks_[j].kind != Tok::End; j++) {
            const Token &t = toks_[j];
            if (t.kind == Tok::Punct && (t.text == "(" || t.text == "[")) depth++;
            if (t.kind == Tok::Punct && (t.text == ")" || t.text == "]")) {
                if (depth == 0) break;
                depth--;
            }
            if (t.kind == Tok::Punct && t.text == "," && depth == 0) count++;
            any = true;
        }
        return any ? count + 1 : 0;
    }
    /** Whether the argument list from here ends in ", <tail strategy>)". */
    bool last_arg_is_tail() const {
        int depth = 0;
        for (size_t j = pos_; j + 2 < toks_.size(); j++) {
            const Token &t = toks_[j];
            if (t.kind == Tok::Punct && (t.text == "(" || t.text == "[")) depth++;
            if (t.kind == Tok::Punct && (t.text == ")" || t.text == "]")) {
                if (depth == 0) return false;
                depth--;
            }
            bool ok = false;
            if (depth == 0 && t.kind == Tok::Punct && t.text == "," && toks_[j + 1].kind == Tok::Ident &&
                toks_[j + 2].kind == Tok::Punct && toks_[j + 2].text == ")") {
                tail_from_name(toks_[j + 1].text, ok);
                if (ok) return true;
            }
        }
        return false;
    }

    /** FUNC, FUNC.update(i) or FUNC.stage(k): a stage (the pure one for a bare Func). */
    Stage stage_of(const Token &name, int *stage_index = nullptr) {
        Func f = funcs_.at(name.text);
        int k = -1;
        if (is(".") && (is_ident("update", 1) || is_ident("stage", 1))) {
            next();
            const bool update = next().text == "update";
            expect("(", "");
            const int64_t i = small_int("a stage number");
            expect(")", "");
            k = update ? int(i) + 1 : int(i);
            if (k >= int(f.data()->definitions.size()))
                fail(name, "Func \"" + f.name() + "\" has " + std::to_string(f.data()->definitions.size() - 1) +
                               " update definitions");
        }
        if (stage_index) *stage_index = k;
        expect(".", "and a directive");
        return k <= 0 ? Stage(f.data(), 0) : f.update(k - 1);
    }

    LoopLevel level() {
        const Token g = ident("the Func of the loop level");
        if (!funcs_.count(g.text)) fail(g, "'" + g.text + "' is not a Func");
        Func f = funcs_[g.text];
        int k = -1;
        if (is(".") && (is_ident("update", 1) || is_ident("stage", 1))) {
            next();
            const bool update = next().text == "update";
            expect("(", "");
            k = int(small_int("a stage number")) + (update ? 1 : 0);
            expect(")", "");
        }
        expect(",", "and the loop");
        VarOrRVar v = loop_name();
        return LoopLevel(f, v, k);
    }

    void schedule_statement() {
        const Token name = next();
        scheduled_at_.emplace(name.text, Program::Place{name.line, name.col});
        Func func = funcs_[name.text];
        pos_--;
        int k = -1;
        Stage stage = stage_of(next(), &k);
        bool is_func = k < 0;  // Func-level directives apply to a bare Func only
        while (true) {
            const Token d = ident("a scheduling directive");
            expect("(", "after the directive's name");
            const std::string &n = d.text;
            if (n == "split") {
                VarOrRVar old = loop_name();
                expect(",", "");
                VarOrRVar o = loop_name();
                expect(",", "");
                VarOrRVar i = loop_name();
                expect(",", "");
                Expr fac = expr();
                TailStrategy t = optional_tail();
                api(d, [&] { return &stage.split(old, o, i, fac, t); });
            } else if (n == "fuse") {
                VarOrRVar i = loop_name();
                expect(",", "");
                VarOrRVar o = loop_name();
                expect(",", "");
                VarOrRVar f = loop_name();
                api(d, [&] { return &stage.fuse(i, o, f); });
            } else if (n == "reorder") {
                std::vector<VarOrRVar> v = loop_names();
                api(d, [&] { return &stage.reorder(v); });
            } else if (n == "tile") {
                // tile(x, y, xi, yi, fx, fy[, tail]) or tile(x, y, xo, yo, xi, yi, fx, fy[, tail])
                const int count = count_args() - (last_arg_is_tail() ? 1 : 0);
                if (count != 6 && count != 8) fail(d, "tile takes 6 or 8 arguments (and a tail strategy)");
                std::vector<VarOrRVar> names;
                for (int a = 0; a < count - 2; a++) {
                    if (a) expect(",", "");
                    names.push_back(loop_name());
                }
                expect(",", "");
                Expr fx = expr();
                expect(",", "");
                Expr fy = expr();
                TailStrategy t = optional_tail();
                if (names.size() == 4)
                    api(d, [&] { return &stage.tile(names[0], names[1], names[2], names[3], fx, fy, t); });
                else
                    api(d, [&] {
                        return &stage.tile(names[0], names[1], names[2], names[3], names[4], names[5], fx, fy, t);
                    });
            } else if (n == "vectorize" || n == "unroll" || n == "parallel") {
                VarOrRVar v = loop_name();
                if (accept(",")) {
                    Expr fac = expr();
                    TailStrategy t = optional_tail();
                    api(d, [&] {
                        if (n == "vectorize") return &stage.vectorize(v, fac, t);
                        if (n == "unroll") return &stage.unroll(v, fac, t);
                        return &stage.parallel(v, fac, t);
                    });
                } else {
                    api(d, [&] {
                        if (n == "vectorize") return &stage.vectorize(v);
                        if (n == "unroll") return &stage.unroll(v);
                        return &stage.parallel(v);
                    });
                }
            } else if (n == "serial") {
                VarOrRVar v = loop_name();
                api(d, [&] { return &stage.serial(v); });
            } else if (n == "rename") {
                VarOrRVar a = loop_name();
                expect(",", "");
                VarOrRVar b = loop_name();
                api(d, [&] { return &stage.rename(a, b); });
            } else if (n == "allow_race_conditions") {
                api(d, [&] { return &stage.allow_race_conditions(); });
            } else if (n == "atomic") {
                // atomic() or Halide's atomic(true) (which the API refuses, saying why).
                bool override_test = false;
                if (is_ident("true") || is_ident("false")) override_test = next().text == "true";
                api(d, [&] { return &stage.atomic(override_test); });
            } else if (n == "specialize") {
                Expr c = expr();
                expect(")", "after the condition");
                stage = api(d, [&] { return stage.specialize(c); });
                is_func = false;
                if (!accept(".")) return;
                continue;
            } else if (n == "specialize_fail") {
                if (peek().kind != Tok::String) fail(peek(), "specialize_fail takes a message string");
                const std::string msg = next().text;
                api(d, [&] {
                    stage.specialize_fail(msg);
                    return 0;
                });
            } else if (n == "update") {
                // f.compute_root().update(0)...: the rest of the chain schedules that update.
                const int64_t i = small_int("an update number");
                expect(")", "");
                if (i + 1 >= int64_t(func.data()->definitions.size()))
                    fail(d, "Func \"" + func.name() + "\" has " + std::to_string(func.data()->definitions.size() - 1) +
                                " update definitions");
                stage = func.update(int(i));
                is_func = false;
                if (!accept(".")) return;
                continue;
            } else if (n == "in") {
                if (!is_func) fail(d, "in() applies to a Func, not to one of its stages");
                Func w;
                if (is(")")) {
                    w = api(d, [&] { return func.in(); });
                } else if (accept("[")) {
                    std::vector<Func> fs;
                    do fs.push_back(func_ref());
                    while (accept(","));
                    expect("]", "after the list of Funcs");
                    w = api(d, [&] { return func.in(fs); });
                } else {
                    Func g = func_ref();
                    w = api(d, [&] { return func.in(g); });
                }
                expect(")", "after in's argument");
                func = w;
                stage = Stage(w.data(), 0);
                if (!accept(".")) return;
                continue;
            } else {
                if (!is_func)
                    fail(d, "'" + n + "' is not a directive of a stage (a Func's storage and compute level are set on "
                            "the Func itself, not on update(i) or a specialization)");
                func_directive(func, d);
            }
            expect(")", "after the directive's arguments");
            if (!accept(".")) return;
        }
    }

    /** r or r.x, r.y, ...: an RVar of a declared RDom. */
    RVar rvar_ref() {
        const Token r = ident("an RVar");
        // Not an RDom: a reduction loop that split, fuse or rename made (rfactor checks it is one).
        if (!rdoms_.count(r.text)) return RVar(r.text);
        const RDom &dom = rdoms_.at(r.text);
        if (!accept(".")) return RVar(dom);
        const Token d = ident("x, y, z or w");
        static const std::map<std::string, int> dims = {{"x", 0}, {"y", 1}, {"z", 2}, {"w", 3}};
        auto it = dims.find(d.text);
        if (it == dims.end() || it->second >= dom.dimensions()) fail(d, "RDom " + r.text + " has no dimension '" + d.text + "'");
        return dom[it->second];
    }

    Func func_ref() {
        const Token g = ident("a Func");
        if (!funcs_.count(g.text)) fail(g, "'" + g.text + "' is not a Func");
        return funcs_[g.text];
    }

    Var pure_var() {
        const Token v = ident("a pure Var");
        return Var(v.text);
    }

    void func_directive(Func &f, const Token &d) {
        const std::string &n = d.text;
        if (n == "compute_root") api(d, [&] { return &f.compute_root(); });
        else if (n == "compute_inline") api(d, [&] { return &f.compute_inline(); });
        else if (n == "store_root") api(d, [&] { return &f.store_root(); });
        else if (n == "trace_stores") api(d, [&] { return &f.trace_stores(); });
        else if (n == "trace_loads") api(d, [&] { return &f.trace_loads(); });
        else if (n == "trace_realizations") api(d, [&] { return &f.trace_realizations(); });
        else if (n == "compute_with") {
            Func g = func_ref();
            expect(",", "and the loop");
            VarOrRVar v = loop_name();
            api(d, [&] { return &f.compute_with(g, v); });
        } else if (n == "compute_at") {
            LoopLevel l = level();
            api(d, [&] { return &f.compute_at(l); });
        } else if (n == "store_at") {
            LoopLevel l = level();
            api(d, [&] { return &f.store_at(l); });
        } else if (n == "bound") {
            Var v = pure_var();
            expect(",", "");
            Expr mn = expr();
            expect(",", "");
            Expr ext = expr();
            api(d, [&] { return &f.bound(v, mn, ext); });
        } else if (n == "bound_extent") {
            Var v = pure_var();
            expect(",", "");
            Expr ext = expr();
            api(d, [&] { return &f.bound_extent(v, ext); });
        } else if (n == "align_bounds") {
            Var v = pure_var();
            expect(",", "");
            Expr m = expr();
            Expr r = accept(",") ? expr() : Expr(0);
            api(d, [&] { return &f.align_bounds(v, m, r); });
        } else if (n == "reorder_storage") {
            std::vector<Var> vs;
            do vs.push_back(pure_var());
            while (accept(","));
            api(d, [&] { return &f.reorder_storage(vs); });
        } else if (n == "fold_storage") {
            Var v = pure_var();
            expect(",", "");
            Expr ext = expr();
            bool forward = true;
            if (accept(",")) {
                const Token b = ident("true or false");
                if (b.text != "true" && b.text != "false") fail(b, "expected true or false");
                forward = b.text == "true";
            }
            api(d, [&] { return &f.fold_storage(v, ext, forward); });
        } else {
            fail(d, "unknown scheduling directive '" + n + "'");
        }
    }

    // -----------------------------------------------------------------------------------
    // Expressions

    /** sum, product, maximum and minimum (include/tessera/InlineReductions.h). */
    struct InlineReduction {
        Expr (*over_used)(Expr, const std::string &);
        Expr (*over_named)(const RDom &, Expr, const std::string &);
    };
    static const InlineReduction *inline_reduction(const std::string &n) {
        static const std::map<std::string, InlineReduction> reductions = {
            {"sum", {sum, sum}}, {"product", {product, product}}, {"maximum", {maximum, maximum}},
            {"minimum", {minimum, minimum}}};
        auto it = reductions.find(n);
        return it == reductions.end() ? nullptr : &it->second;
    }

    static bool builtin(const std::string &n) {
        static const std::set<std::string> names = {
            "min",   "max",    "clamp",  "abs",   "absd",  "select", "sqrt",     "exp",         "log",
            "pow",   "sin",    "cos",    "tan",   "asin",  "acos",   "atan",     "atan2",       "sinh",
            "cosh",  "tanh",   "asinh",  "acosh", "atanh", "floor",  "ceil",     "round",       "trunc",
            "fract", "is_nan", "is_inf", "is_finite", "lerp", "fast_exp", "fast_log", "fast_pow", "fast_inverse",
            "fast_inverse_sqrt", "bitwise_and", "bitwise_or", "bitwise_xor",
            "bitwise_not", "shift_left", "shift_right", "popcount", "count_leading_zeros", "count_trailing_zeros",
            "random_hash", "print", "print_when", "require", "tuple", "argmin", "argmax",
            "cast", "reinterpret", "undef", "true", "false"};
        return names.count(n) > 0 || inline_reduction(n);
    }

    Expr expr() { return binary(0); }

    /** Precedence climbing; level 0 is ||. */
    Expr binary(int level) {
        static const std::vector<std::vector<std::string>> levels = {
            {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"},
            {"*", "/", "%"}};
        if (level == int(levels.size())) return unary();
        Expr a = binary(level + 1);
        while (true) {
            const Token &t = peek();
            if (t.kind != Tok::Punct) return a;
            const auto &ops = levels[size_t(level)];
            if (std::find(ops.begin(), ops.end(), t.text) == ops.end()) return a;
            const Token op = next();
            Expr b = binary(level + 1);
            a = api(op, [&]() -> Expr {
                const std::string &o = op.text;
                if (o == "||") return a || b;
                if (o == "&&") return a && b;
                if (o == "|") return a | b;
                if (o == "^") return a ^ b;
                if (o == "&") return a & b;
                if (o == "==") return a == b;
                if (o == "!=") return a != b;
                if (o == "<") return a < b;
                if (o == "<=") return a <= b;
                if (o == ">") return a > b;
                if (o == ">=") return a >= b;
                if (o == "<<") return a << b;
                if (o == ">>") return a >> b;
                if (o == "+") return a + b;
                if (o == "-") return a - b;
                if (o == "*") return a * b;
                if (o == "/") return a / b;
                return a % b;
            });
            if (level == 5 || level == 6) {
                // Comparisons do not chain: a < b < c is an error rather than (a < b) < c.
                const Token &n = peek();
                if (n.kind == Tok::Punct && std::find(ops.begin(), ops.end(), n.text) != ops.end())
                    fail(n, "comparisons do not chain; parenthesize one of them");
            }
        }
    }

    /** A numeric literal, with the sign of a unary minus in front of it. */
    Expr number(const Token &t, bool negative) {
        if (t.kind == Tok::Float) {
            const double v = negative ? -t.f : t.f;
            return make_const(t.f32 ? Float(32) : Float(64), v);
        }
        const uint64_t limit = negative ? uint64_t(1) << 31 : (uint64_t(1) << 31) - 1;
        if (t.u > limit)
            fail(t, "the integer literal " + std::string(negative ? "-" : "") + t.text +
                        " does not fit in int32; write it as int64(" + (negative ? "-" : "") + t.text + ")");
        return make_const(Int(32), negative ? -int64_t(t.u) : int64_t(t.u));
    }

    Expr unary() {
        const Token &t = peek();
        if (t.kind == Tok::Punct && (t.text == "-" || t.text == "!" || t.text == "~")) {
            const Token op = next();
            if (op.text == "-" && (peek().kind == Tok::Int || peek().kind == Tok::Float)) return number(next(), true);
            Expr a = unary();
            return api(op, [&]() -> Expr {
                if (op.text == "-") return -a;
                if (op.text == "!") return !a;
                return ~a;
            });
        }
        return primary();
    }

    /** The arguments of a call; `text` allows strings among them (a print's parts). */
    std::vector<Expr> call_args(bool text = false) {
        expect("(", "");
        std::vector<Expr> args;
        if (!is(")")) {
            do args.push_back(text && peek().kind == Tok::String ? ir::StringImm::make(next().text) : expr());
            while (accept(","));
        }
        expect(")", "after the arguments");
        return args;
    }

    Expr primary() {
        if (peek().kind == Tok::Newline || peek().kind == Tok::End)
            fail(peek(), "expected an expression, found " + describe(peek()));  // not consumed: the next statement stays
        const Token t = next();
        switch (t.kind) {
        case Tok::Int:
        case Tok::Float: return number(t, false);
        case Tok::Error: fail(t, t.text);
        case Tok::Punct:
            if (t.text == "(") {
                Expr e = expr();
                expect(")", "to close the parenthesis");
                return e;
            }
            fail(t, "expected an expression, found " + describe(t));
        case Tok::Ident: break;
        default: fail(t, "expected an expression, found " + describe(t));
        }
        const std::string &n = t.text;
        if (failed_.count(n)) fail(t, "");
        Type ty;
        if (n == "true" || n == "false") return make_bool(n == "true");
        if (type_from_name(n, ty)) return typed(t, ty);
        if (n == "cast" || n == "reinterpret" || n == "undef") {
            expect("<", "and a type after " + n);
            Type to = type("a type");
            expect(">", "after the type");
            std::vector<Expr> a = call_args();
            if (n == "undef") {
                if (!a.empty()) fail(t, "undef takes no argument: undef<type>()");
                return api(t, [&] { return undef(to); });
            }
            if (a.size() != 1) fail(t, n + " takes one argument");
            return api(t, [&] { return n == "cast" ? cast(to, a[0]) : reinterpret(to, a[0]); });
        }
        if (builtin(n)) {
            // sum(r, e) and the other inline reductions name an RDom first.
            std::optional<RDom> over;
            if ((inline_reduction(n) || n == "argmin" || n == "argmax") && is("(") && peek(1).kind == Tok::Ident &&
                rdoms_.count(peek(1).text) && is(",", 2))
                over = rdoms_[peek(1).text];
            std::vector<Expr> a;
            if (over) {
                pos_ += 3;  // '(' r ','
                a.push_back(expr());
                expect(")", "after the arguments");
            } else {
                a = call_args(n == "print" || n == "print_when" || n == "require");
            }
            return api(t, [&] { return call_builtin(t, a, over); });
        }
        // A name followed by '(' is a call (Var and Func names may coincide, as in C++).
        if (vars_.count(n) && !(is("(") && funcs_.count(n)) && !(is(".") && inputs_.count(n))) return Var(n);
        if (params_.count(n)) return detail::param_expr(params_[n]);
        if (rdoms_.count(n)) {
            const RDom &r = rdoms_[n];
            if (is(".") && peek(1).kind == Tok::Ident) {
                next();
                const Token d = next();
                static const std::map<std::string, int> dims = {{"x", 0}, {"y", 1}, {"z", 2}, {"w", 3}};
                auto it = dims.find(d.text);
                if (it == dims.end() || it->second >= r.dimensions())
                    fail(d, "RDom " + n + " has no dimension '" + d.text + "'");
                return r[it->second];
            }
            return api(t, [&]() -> Expr { return r; });
        }
        if (funcs_.count(n)) {
            if (!is("(")) fail(t, "Func '" + n + "' is used without coordinates; write " + n + "(...)");
            std::vector<Expr> a = call_args();
            const Func &f = funcs_[n];
            if (is("[")) {
                // f(...)[i]: value i of a Func with several (a Tuple).
                const Token open = next();
                const Token index = next();
                if (index.kind != Tok::Int) fail(index, "expected the index of one of " + n + "'s values, found " + describe(index));
                expect("]", "after the index of the value");
                return api(open, [&]() -> Expr { return f(a)[int(index.u)]; });
            }
            return api(t, [&]() -> Expr { return f(a); });
        }
        if (inputs_.count(n)) {
            const ImageParam &in = inputs_[n];
            if (is("(")) {
                std::vector<Expr> a = call_args();
                return api(t, [&] { return in(a); });
            }
            if (accept(".")) return input_bound(in, t);
            fail(t, "input '" + n + "' is used without coordinates; write " + n + "(...)");
        }
        if (bounded_.count(n)) {
            const Bounded &b = bounded_[n];
            if (!accept("."))
                fail(t, "only the bounds of " + b.what + " can be used here: " + n + ".min(0), " + n + ".extent(0), " + n +
                            ".width(), ...");
            const auto [dim, extent] = bound_selector(b.what, b.dims, t);
            return b.make(dim, extent);
        }
        fail(t, "unknown name '" + n + "'");
    }

    /** in.min.0 / in.extent.0 (as printed), in.min(0), in.extent(0), in.width(), ... */
    Expr input_bound(const ImageParam &in, const Token &at) {
        const auto [dim, extent] = bound_selector("input '" + in.name() + "'", in.dimensions(), at);
        return extent ? in.dim(dim).extent() : in.dim(dim).min();
    }

    /** After `name.`: which bound (min.0, extent(1), width(), ...) of the buffer `what` with
     * `dims` dimensions; the dimension, and whether it is the extent. */
    std::pair<int, bool> bound_selector(const std::string &what, int dims, const Token &at) {
        const Token which = ident("min, extent, width, height or channels");
        int dim = -1;
        bool extent = which.text != "min";
        if (which.text == "min" || which.text == "extent") {
            if (accept(".")) {
                dim = int(small_int("a dimension"));
            } else {
                expect("(", "and a dimension");
                dim = int(small_int("a dimension"));
                expect(")", "");
            }
        } else if (which.text == "width" || which.text == "height" || which.text == "channels") {
            expect("(", "");
            expect(")", "");
            dim = which.text == "width" ? 0 : which.text == "height" ? 1 : 2;
        } else {
            fail(which, "an input has min, extent, width, height and channels");
        }
        if (dim >= dims) fail(at, what + " has " + std::to_string(dims) + " dimensions");
        return {dim, extent};
    }

    /** T(integer literal) and T(nan|inf|-inf) are literals of type T; T(e) is a cast. */
    Expr typed(const Token &t, Type ty) {
        expect("(", "after the type (a cast or a typed literal is " + t.text + "(...))");
        const bool neg = is("-") && (peek(1).kind == Tok::Int || peek(1).kind == Tok::Ident) && is(")", 2);
        if (neg) next();
        if (peek().kind == Tok::Int && is(")", 1)) {
            const Token v = next();
            next();
            if (ty.is_float()) return make_const(ty, double(v.u) * (neg ? -1 : 1));
            if (ty.is_bool()) {
                if (v.u > 1 || neg) fail(v, "a bool literal is true or false");
                return make_bool(v.u == 1);
            }
            if (ty.is_uint()) {
                if (neg) fail(v, "a negative literal of unsigned type " + ty.to_string());
                if (ty.bits < 64 && v.u > ((uint64_t(1) << ty.bits) - 1))
                    fail(v, v.text + " does not fit in " + ty.to_string());
                return ir::UIntImm::make(ty, v.u);
            }
            const uint64_t limit = (uint64_t(1) << (ty.bits - 1)) - (neg ? 0 : 1);
            if (v.u > limit) fail(v, (neg ? "-" : "") + v.text + " does not fit in " + ty.to_string());
            return ir::IntImm::make(ty, neg ? int64_t(0 - v.u) : int64_t(v.u));
        }
        if (ty.is_float() && peek().kind == Tok::Ident && (peek().text == "nan" || peek().text == "inf") && is(")", 1)) {
            const bool nan = next().text == "nan";
            next();
            const double v = nan ? std::nan("") : (neg ? -INFINITY : INFINITY);
            return make_const(ty, v);
        }
        if (neg) pos_--;
        Expr e = expr();
        expect(")", "after the cast's operand");
        return api(t, [&] { return cast(ty, e); });
    }

    Expr call_builtin(const Token &t, const std::vector<Expr> &a, const std::optional<RDom> &over = std::nullopt) {
        const std::string &n = t.text;
        auto arity = [&](size_t k) {
            if (a.size() != k)
                fail(t, n + " takes " + std::to_string(k) + " argument" + (k == 1 ? "" : "s") + ", not " +
                            std::to_string(a.size()));
        };
        static const std::map<std::string, Expr (*)(Expr)> unary = {
            {"sqrt", sqrt},   {"exp", exp},     {"log", log},     {"sin", sin},       {"cos", cos},
            {"tan", tan},     {"asin", asin},   {"acos", acos},   {"atan", atan},     {"sinh", sinh},
            {"cosh", cosh},   {"tanh", tanh},   {"asinh", asinh}, {"acosh", acosh},   {"atanh", atanh},
            {"floor", floor}, {"ceil", ceil},   {"round", round}, {"trunc", trunc},   {"fract", fract},
            {"is_nan", is_nan}, {"is_inf", is_inf}, {"is_finite", is_finite}, {"abs", abs},
            {"popcount", popcount}, {"count_leading_zeros", count_leading_zeros},
            {"count_trailing_zeros", count_trailing_zeros}, {"fast_exp", fast_exp}, {"fast_log", fast_log},
            {"fast_inverse", fast_inverse}, {"fast_inverse_sqrt", fast_inverse_sqrt}};
        if (auto it = unary.find(n); it != unary.end()) {
            arity(1);
            return it->second(a[0]);
        }
        if (n == "bitwise_not") {
            arity(1);
            return ~a[0];
        }
        if (n == "random_hash") {
            // As printed: (seed, call site, n, c_1, ..., c_n), docs/semantics.md.
            auto count = [](const Expr &e) -> int64_t {
                if (const auto *u = ir::as<ir::UIntImm>(e)) return int64_t(u->value);
                if (const auto *i = ir::as<ir::IntImm>(e)) return i->value;
                return -1;
            };
            if (a.size() < 3 || count(a[2]) != int64_t(a.size()) - 3)
                fail(t, "random_hash takes (seed, call site, n) and then n coordinates");
            std::vector<Expr> args = {cast(UInt(32), a[0]), cast(UInt(32), a[1]), cast(UInt(32), a[2])};
            args.insert(args.end(), a.begin() + 3, a.end());
            return ir::Call::make_intrinsic(UInt(32), ir::Intrinsic::Random, std::move(args));
        }
        if (n == "print") return print(a);
        if (n == "require") {
            if (a.size() < 2) fail(t, "require takes (condition, value, message...)");
            return detail::make_require(a[0], std::vector<Expr>(a.begin() + 1, a.end()));
        }
        if (n == "print_when") {
            if (a.size() < 2) fail(t, "print_when takes (condition, value, ...)");
            return detail::make_print(a[0], std::vector<Expr>(a.begin() + 1, a.end()));
        }
        if (n == "select") {
            if (a.size() < 3 || a.size() % 2 == 0) fail(t, "select takes (condition, value, ..., default)");
            const bool tuples = ir::tuple_components(a.back()).size() > 1;
            if (tuples) {
                // select on tuples: value by value.
                Tuple e(ir::tuple_components(a.back()));
                for (size_t i = a.size() - 1; i >= 2; i -= 2)
                    e = select(a[i - 2], Tuple(ir::tuple_components(a[i - 1])), e);
                return lang::tuple_value(e);
            }
            Expr e = a.back();
            for (size_t i = a.size() - 1; i >= 2; i -= 2) e = select(a[i - 2], a[i - 1], e);
            return e;
        }
        if (n == "tuple") return lang::tuple_value(Tuple(a));
        if (n == "argmin" || n == "argmax") {
            // (e) over the RDom e uses, or (r, e) over a named RDom: a tuple of the RDom's
            // coordinates and the value.
            arity(1);
            if (n == "argmin") return lang::tuple_value(over ? argmin(*over, a[0], n) : argmin(a[0], n));
            return lang::tuple_value(over ? argmax(*over, a[0], n) : argmax(a[0], n));
        }
        if (const InlineReduction *r = inline_reduction(n)) {
            // (e) over the RDom e uses, or (r, e) over a named RDom.
            arity(1);
            return over ? r->over_named(*over, a[0], n) : r->over_used(a[0], n);
        }
        if (n == "clamp" || n == "lerp") {
            arity(3);
            return n == "clamp" ? clamp(a[0], a[1], a[2]) : lerp(a[0], a[1], a[2]);
        }
        arity(2);
        if (n == "min") return min(a[0], a[1]);
        if (n == "max") return max(a[0], a[1]);
        if (n == "absd") return absd(a[0], a[1]);
        if (n == "pow") return pow(a[0], a[1]);
        if (n == "fast_pow") return fast_pow(a[0], a[1]);
        if (n == "atan2") return atan2(a[0], a[1]);
        if (n == "bitwise_and") return a[0] & a[1];
        if (n == "bitwise_or") return a[0] | a[1];
        if (n == "bitwise_xor") return a[0] ^ a[1];
        if (n == "shift_left") return a[0] << a[1];
        if (n == "shift_right") return a[0] >> a[1];
        fail(t, "'" + n + "' cannot be called here");
    }

    std::string file_;
    std::vector<Token> toks_;
    std::vector<std::string> lines_;
    size_t pos_ = 0;
    std::vector<std::string> errors_;

    std::string name_;
    std::map<std::string, Func> funcs_;
    std::map<std::string, ImageParam> inputs_;
    std::map<std::string, std::shared_ptr<ir::ParamData>> params_;
    std::map<std::string, RDom> rdoms_;
    std::set<std::string> vars_;
    std::set<std::string> failed_;  // Funcs whose definition failed
    std::map<std::string, Program::Place> defined_at_, scheduled_at_;
    bool output_failed_ = false;
    std::vector<Argument> arguments_;
    Func output_;
    /** In an expression over a pipeline parsed before (parse_expression): its inputs and
     * output by name, of which only the bounds can be named. */
    struct Bounded {
        std::string what;  // for messages: "input 'in'", "the output 'f'"
        int dims = 0;
        std::function<Expr(int dim, bool extent)> make;
    };
    std::map<std::string, Bounded> bounded_;
};

}  // namespace

const Argument *Program::argument(const std::string &n) const {
    for (const Argument &a : arguments)
        if (a.name == n) return &a;
    return nullptr;
}

Program parse_program(const std::string &source, const std::string &filename) {
    return Parser(source, filename).parse();
}

Expr parse_expression(const Program &p, const std::string &text, const std::string &what) {
    return Parser(text, what).parse_expression_of(p);
}

Program parse_program_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CompileError(path + ": cannot open the file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_program(ss.str(), path);
}

}  // namespace tessera
