#pragma once
// Readable text for IR trees, in a syntax close to Halide's stmt files.
//
// Expressions are printed infix with the fewest parentheses that keep them unambiguous
// (C precedence; operators of equal precedence associate to the left):
//
//   a + b*c          ->  a + b * c
//   (a + b)*c        ->  (a + b) * c
//   a - (b - c)      ->  a - (b - c)
//   Cast(uint8, x)   ->  uint8(x)
//   IntImm(int32, 3) ->  3          FloatImm(float32, 3.5) -> 3.5f
//   IntImm(int64, 3) ->  int64(3)   FloatImm(float64, 3.5) -> 3.5
//   UIntImm(uint8,3) ->  uint8(3)   UIntImm(bool, 1)       -> true
//   select(c, a, b), min(a, b), f(x, y), sqrt(x), buf[i], ramp(b, s, 8), x8(v),
//   (let t = v in body)  (parenthesized unless it is a whole expression or a let body)
//
// Statements are printed one per line, indented by two spaces per nesting level:
//
//   parallel (y, 0, 100) {
//     for (x, 0, 100) {
//       f[y * 100 + x] = x + y // f(x, y)
//     }
//   }
//
// Stores and provides show their provenance annotation as a trailing comment: the Func
// and stage (`f(x, y)` for the pure definition, `f.update(k)(x, y)` for update k) and the
// values of the RDom variables (`r.x=e, r.y=e`).

#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>

#include "ir/IR.h"
#include "ir/IRVisitor.h"  // TESSERA_FOR_EACH_EXPR / TESSERA_FOR_EACH_STMT

namespace tessera {

/** Prints an expression in the syntax described above. Declared in namespace tessera so
 * that argument-dependent lookup finds it: `std::cout << expr` works anywhere. An
 * undefined Expr prints as `<undefined>`. */
std::ostream &operator<<(std::ostream &os, const Expr &e);

}  // namespace tessera

namespace tessera::ir {

using tessera::operator<<;

/** Prints a statement, one line per statement, each line ending in a newline. */
std::ostream &operator<<(std::ostream &os, const Stmt &s);

std::string to_string(const Expr &e);
std::string to_string(const Stmt &s);
/** A provenance annotation as it appears in the trailing comment, without the `// `:
 * `f(x, y)`, `f.update(0)(x, y) r.x=e0, r.y=e1`. */
std::string to_string(const Provenance &p);

/** The printer itself, for passes and back ends that want to print IR with a given
 * starting indentation (in levels of two spaces). */
class IRPrinter {
public:
    explicit IRPrinter(std::ostream &os, int indent = 0) : os_(os), indent_(indent) {}

    void print(const Expr &e);
    void print(const Stmt &s);
    void print(const Provenance &p);

private:
    std::ostream &os_;
    int indent_;

    void print_expr(const Expr &e, int min_prec);
    void print_args(const std::vector<Expr> &args);
    void print_args_named(const char *name, std::initializer_list<Expr> args);
    void print_binary(const char *op, int prec, bool left_assoc, const Expr &a, const Expr &b,
                      int min_prec);
    void print_stmt(const Stmt &s);
    void print_body(const Stmt &body);
    void print_provenance_comment(const std::shared_ptr<const Provenance> &p);
    void do_indent();

#define TESSERA_DECLARE_PRINT(N) void print_node(const N *op, int min_prec);
    TESSERA_FOR_EACH_EXPR(TESSERA_DECLARE_PRINT)
#undef TESSERA_DECLARE_PRINT
#define TESSERA_DECLARE_PRINT(N) void print_node(const N *op);
    TESSERA_FOR_EACH_STMT(TESSERA_DECLARE_PRINT)
#undef TESSERA_DECLARE_PRINT
};

}  // namespace tessera::ir
