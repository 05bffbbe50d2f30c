// The text form of ATL (docs/atl.md, "The language"): input declarations, then
// `output = EXPR` and the `rewrite` steps that schedule it, in the syntax Tensor::to_string prints. A recursive-descent parser
// that builds the program through the C++ API, so every shape check applies; errors are
// CompileErrors with the file, line and column.

#include <cctype>
#include <functional>

#include "atl/Tree.h"
#include "tessera/Error.h"

namespace tessera::atl {

namespace {

class Parser {
public:
    Parser(const std::string &text, const std::string &file) : s_(text), file_(file) {}

    Parsed parse() {
        Parsed out;
        for (;;) {
            skip();
            if (at_end()) fail("expected `output = EXPR`");
            std::string word = identifier("`input` or `output`");
            if (word == "input") {
                std::string name = identifier("an input's name");
                expect("[");
                std::vector<int64_t> shape;
                if (!accept("]")) {
                    do shape.push_back(integer()); while (accept(","));
                    expect("]");
                }
                for (const Array &a : out.inputs)
                    if (a.name() == name) fail("the input " + name + " is declared twice");
                out.inputs.emplace_back(name, shape);
                arrays_.push_back(out.inputs.back());
            } else if (word == "output") {
                expect("=");
                out.program = tensor();
                rewrites(out);
                return out;
            } else {
                fail("expected `input` or `output`, found `" + word + "`");
            }
        }
    }

private:
    /** `rewrite STEP` lines after the output, each applied once here so that a wrong step
     * is reported at its line. */
    void rewrites(Parsed &out) {
        Derivation d(out.program);
        for (skip(); !at_end(); skip()) {
            const size_t start = pos_;
            const bool word = std::isalpha((unsigned char)s_[pos_]);
            if (!word || identifier("`rewrite`") != "rewrite") {
                pos_ = start;
                fail("unexpected text after the output's expression (only `rewrite STEP` lines may follow it)");
            }
            while (!at_end() && s_[pos_] == ' ') pos_++;
            const size_t step = pos_;
            while (!at_end() && s_[pos_] != '\n' && s_[pos_] != '#') pos_++;
            std::string text = s_.substr(step, pos_ - step);
            text.erase(text.find_last_not_of(" \t\r") + 1);
            try {
                d.apply(text);
            } catch (const CompileError &e) {
                pos_ = step;
                fail(e.what());
            }
            out.rewrites.push_back(text);
        }
    }

    // ---- lexing ----------------------------------------------------------------------
    bool at_end() const { return pos_ >= s_.size(); }

    void skip() {
        while (!at_end()) {
            if (std::isspace((unsigned char)s_[pos_])) pos_++;
            else if (s_[pos_] == '#')
                while (!at_end() && s_[pos_] != '\n') pos_++;
            else break;
        }
    }

    [[noreturn]] void fail(const std::string &what) const {
        int line = 1, col = 1;
        for (size_t i = 0; i < pos_ && i < s_.size(); i++) {
            if (s_[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        throw CompileError(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
    }

    bool accept(const std::string &sym) {
        skip();
        if (s_.compare(pos_, sym.size(), sym) != 0) return false;
        // A word must end at a word boundary; `<` must not be the start of `<=`.
        size_t end = pos_ + sym.size();
        if (std::isalpha((unsigned char)sym[0]) && end < s_.size() && (std::isalnum((unsigned char)s_[end]) || s_[end] == '_'))
            return false;
        if ((sym == "<" || sym == ">" || sym == "=") && end < s_.size() && s_[end] == '=') return false;
        if (sym == "+" && end < s_.size() && s_[end] == '+') return false;
        if (sym == "." && end < s_.size() && s_[end] == '.') return false;
        pos_ = end;
        return true;
    }

    void expect(const std::string &sym) {
        if (!accept(sym)) fail("expected `" + sym + "`");
    }

    bool peek_word(const std::string &w) {
        size_t save = pos_;
        bool ok = accept(w);
        pos_ = save;
        return ok;
    }

    std::string identifier(const std::string &what) {
        skip();
        if (at_end() || !(std::isalpha((unsigned char)s_[pos_]) || s_[pos_] == '_')) fail("expected " + what);
        size_t start = pos_;
        while (!at_end() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) pos_++;
        return s_.substr(start, pos_ - start);
    }

    bool at_number() {
        skip();
        return !at_end() && std::isdigit((unsigned char)s_[pos_]);
    }

    int64_t integer() {
        bool negative = accept("-");
        if (!at_number()) fail("expected an integer");
        int64_t v = 0;
        while (!at_end() && std::isdigit((unsigned char)s_[pos_])) {
            v = v * 10 + (s_[pos_++] - '0');
            if (v > (int64_t(1) << 40)) fail("the integer is too large");
        }
        return negative ? -v : v;
    }

    // ---- indices and conditions -------------------------------------------------------
    Index index() {
        Index z = index_term();
        for (;;) {
            if (accept("+")) z = z + index_term();
            else if (accept("-")) z = z - index_term();
            else return z;
        }
    }

    Index index_term() {
        Index z = index_factor();
        for (;;) {
            if (accept("*")) z = z * index_factor();
            else if (accept("/")) z = z / index_factor();
            else if (accept("%")) z = z % index_factor();
            else return z;
        }
    }

    Index index_factor() {
        if (accept("(")) {
            Index z = index();
            expect(")");
            return z;
        }
        if (at_number()) return Index(integer());
        if (accept("-")) return at_number() ? Index(-integer()) : Index(0) - index_factor();
        if (accept("ceil_div")) {
            expect("(");
            Index a = index();
            expect(",");
            Index b = index();
            expect(")");
            return ceil_div(a, b);
        }
        return Index(identifier("an index"));
    }

    Cond condition() {
        Cond c = comparison();
        while (accept("&&")) c = c && comparison();
        return c;
    }

    Cond comparison() {
        Index a = index();
        if (accept("<=")) return a <= index();
        if (accept(">=")) return a >= index();
        if (accept("==")) return a == index();
        if (accept("<")) return a < index();
        if (accept(">")) return a > index();
        fail("expected a comparison (<, <=, ==, >=, >)");
    }

    // ---- tensors ----------------------------------------------------------------------
    Tensor tensor() {
        if (accept("gen")) return loop(true);
        if (accept("sum")) return loop(false);
        if (accept("let")) {
            std::string name = identifier("the let's name");
            expect("=");
            Tensor value = tensor();
            expect("in");
            return let(name, value, [&](const Array &x) {
                arrays_.push_back(x);
                Tensor body = tensor();
                arrays_.pop_back();
                return body;
            });
        }
        skip();
        if (!at_end() && s_[pos_] == '[') {
            pos_++;
            Cond p = condition();
            expect("]");
            return guard(p, tensor());
        }
        Tensor left = additive();
        if (accept("++")) return concat(left, tensor());
        return left;
    }

    Tensor loop(bool is_gen) {
        Index i(identifier("the loop variable"));
        int64_t lo = 0, hi;
        if (accept("<")) {
            hi = integer();
        } else {
            expect("in");
            lo = integer();
            expect("..");
            hi = integer();
        }
        expect(":");
        Tensor body = tensor();
        return is_gen ? gen(i, lo, hi, body) : sum(i, lo, hi, body);
    }

    Tensor additive() {
        Tensor t = multiplicative();
        for (;;) {
            if (accept("+")) t = t + multiplicative();
            else if (accept("-")) t = t - multiplicative();
            else return t;
        }
    }

    Tensor multiplicative() {
        Tensor t = atom();
        for (;;) {
            if (accept("*")) t = t * atom();
            else if (accept("/")) t = t / atom();
            else return t;
        }
    }

    Tensor atom() {
        if (accept("(")) {
            Tensor t = tensor();
            expect(")");
            return t;
        }
        bool negative = false;
        if (accept("-")) {
            if (!at_number()) return Tensor(0.0) - atom();
            negative = true;
        }
        if (at_number()) {
            size_t start = pos_;
            while (!at_end() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '.' || s_[pos_] == 'e' ||
                                 s_[pos_] == 'E' || ((s_[pos_] == '-' || s_[pos_] == '+') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))))
                pos_++;
            try {
                double v = std::stod(s_.substr(start, pos_ - start));
                return Tensor(negative ? -v : v);
            } catch (const std::exception &) {
                pos_ = start;
                fail("expected a number");
            }
        }
        skip();
        size_t word_start = pos_;
        std::string word = identifier("an expression");
        if (word == "real") {
            expect("(");
            Index z = index();
            expect(")");
            return real(z);
        }
        if (word == "flatten" || word == "transpose") {
            expect("(");
            Tensor e = tensor();
            expect(")");
            return word == "flatten" ? flatten(e) : transpose(e);
        }
        static const std::map<std::string, std::function<Tensor(int64_t, const Tensor &)>> reshapes = {
            {"split", [](int64_t k, const Tensor &e) { return split(k, e); }},
            {"trunc_l", [](int64_t k, const Tensor &e) { return trunc_l(k, e); }},
            {"trunc_r", [](int64_t k, const Tensor &e) { return trunc_r(k, e); }},
            {"pad_l", [](int64_t k, const Tensor &e) { return pad_l(k, e); }},
            {"pad_r", [](int64_t k, const Tensor &e) { return pad_r(k, e); }},
        };
        auto r = reshapes.find(word);
        if (r != reshapes.end()) {
            expect("(");
            int64_t k = integer();
            expect(",");
            Tensor e = tensor();
            expect(")");
            return r->second(k, e);
        }
        for (auto a = arrays_.rbegin(); a != arrays_.rend(); ++a) {
            if (a->name() != word) continue;
            std::vector<Index> idx;
            if (accept("[")) {
                do idx.push_back(index()); while (accept(","));
                expect("]");
            }
            return (*a)(idx);
        }
        pos_ = word_start;
        fail("`" + word + "` is neither an input nor a let-bound name in scope");
    }

    const std::string &s_;
    std::string file_;
    size_t pos_ = 0;
    std::vector<Array> arrays_;  // inputs, then the lets in scope, innermost last
};

}  // namespace

Parsed parse(const std::string &text, const std::string &file) { return Parser(text, file).parse(); }

}  // namespace tessera::atl
