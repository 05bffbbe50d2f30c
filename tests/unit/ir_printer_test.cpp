// The IR printer: expression syntax, minimal parenthesization, constants, and the
// layout of statements with their provenance comments.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "ir/IR.h"
#include "support/hand_lowered.h"
#include "ir/IRPrinter.h"

using namespace tessera;
using tessera::ir::Stmt;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return ir::Variable::make(t, name); }
Expr i32(int64_t v) { return ir::IntImm::make(Int(32), v); }
Expr add(Expr a, Expr b) { return ir::Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return ir::Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return ir::Mul::make(std::move(a), std::move(b)); }
Expr div(Expr a, Expr b) { return ir::Div::make(std::move(a), std::move(b)); }
Expr mod(Expr a, Expr b) { return ir::Mod::make(std::move(a), std::move(b)); }
Expr lt(Expr a, Expr b) { return ir::LT::make(std::move(a), std::move(b)); }

std::string str(const Expr &e) { return ir::to_string(e); }
std::string str(const Stmt &s) { return ir::to_string(s); }

TEST(IRPrinter, ArithmeticPrecedence) {
    Expr a = var("a"), b = var("b"), c = var("c");
    EXPECT_EQ(str(mul(add(a, b), c)), "(a + b) * c");
    EXPECT_EQ(str(add(a, mul(b, c))), "a + b * c");
    EXPECT_EQ(str(mul(c, add(a, b))), "c * (a + b)");
    EXPECT_EQ(str(add(mul(a, b), c)), "a * b + c");
    // Left-associative: parentheses only where the tree is right-nested.
    EXPECT_EQ(str(sub(sub(a, b), c)), "a - b - c");
    EXPECT_EQ(str(sub(a, sub(b, c))), "a - (b - c)");
    EXPECT_EQ(str(sub(a, add(b, c))), "a - (b + c)");
    EXPECT_EQ(str(add(add(a, b), c)), "a + b + c");
    EXPECT_EQ(str(add(a, add(b, c))), "a + (b + c)");
    EXPECT_EQ(str(div(mul(a, b), c)), "a * b / c");
    EXPECT_EQ(str(div(a, mul(b, c))), "a / (b * c)");
    EXPECT_EQ(str(mod(add(a, b), c)), "(a + b) % c");
    EXPECT_EQ(str(mul(add(a, b), sub(b, c))), "(a + b) * (b - c)");
}

TEST(IRPrinter, ComparisonAndLogicPrecedence) {
    Expr a = var("a"), b = var("b"), c = var("c"), d = var("d");
    Expr p = var("p", Bool()), q = var("q", Bool());
    EXPECT_EQ(str(lt(add(a, b), mul(c, d))), "a + b < c * d");
    EXPECT_EQ(str(ir::EQ::make(lt(a, b), lt(c, d))), "(a < b) == (c < d)");
    EXPECT_EQ(str(ir::NE::make(p, ir::GE::make(a, b))), "p != (a >= b)");
    EXPECT_EQ(str(ir::And::make(lt(a, b), ir::LE::make(c, d))), "a < b && c <= d");
    EXPECT_EQ(str(ir::Or::make(ir::And::make(p, q), ir::GT::make(a, b))), "p && q || a > b");
    EXPECT_EQ(str(ir::And::make(ir::Or::make(p, q), p)), "(p || q) && p");
    EXPECT_EQ(str(ir::And::make(p, ir::And::make(q, p))), "p && (q && p)");
    EXPECT_EQ(str(ir::Not::make(lt(a, b))), "!(a < b)");
    EXPECT_EQ(str(ir::Not::make(p)), "!p");
    EXPECT_EQ(str(ir::Not::make(ir::Not::make(p))), "!!p");
    EXPECT_EQ(str(ir::And::make(ir::Not::make(p), q)), "!p && q");
}

TEST(IRPrinter, Constants) {
    EXPECT_EQ(str(i32(3)), "3");
    EXPECT_EQ(str(i32(-3)), "-3");
    EXPECT_EQ(str(ir::IntImm::make(Int(64), 3)), "int64(3)");
    EXPECT_EQ(str(ir::IntImm::make(Int(8), -128)), "int8(-128)");
    EXPECT_EQ(str(ir::UIntImm::make(UInt(8), 3)), "uint8(3)");
    EXPECT_EQ(str(ir::UIntImm::make(UInt(64), ~uint64_t(0))), "uint64(18446744073709551615)");
    EXPECT_EQ(str(ir::UIntImm::make(Bool(), 1)), "true");
    EXPECT_EQ(str(ir::UIntImm::make(Bool(), 0)), "false");
    EXPECT_EQ(str(ir::FloatImm::make(Float(32), 3.5)), "3.5f");
    EXPECT_EQ(str(ir::FloatImm::make(Float(32), 3.0)), "3.0f");
    EXPECT_EQ(str(ir::FloatImm::make(Float(32), -0.0)), "-0.0f");
    EXPECT_EQ(str(ir::FloatImm::make(Float(32), 0.1)), "0.1f");  // shortest float32 form
    EXPECT_EQ(str(ir::FloatImm::make(Float(64), 3.5)), "3.5");
    EXPECT_EQ(str(ir::FloatImm::make(Float(64), 0.1)), "0.1");
    EXPECT_EQ(str(ir::FloatImm::make(Float(64), 2.0)), "2.0");
    EXPECT_EQ(str(ir::FloatImm::make(Float(64), 1e300)), "1e+300");
    EXPECT_EQ(str(ir::FloatImm::make(Float(32), std::numeric_limits<double>::infinity())),
              "float32(inf)");
    EXPECT_EQ(str(ir::FloatImm::make(Float(64), -std::numeric_limits<double>::infinity())),
              "float64(-inf)");
    EXPECT_EQ(str(ir::FloatImm::make(Float(32), std::nan(""))), "float32(nan)");
    EXPECT_EQ(str(ir::StringImm::make("say \"hi\"\n")), "\"say \\\"hi\\\"\\n\"");
    // A negative constant operand needs no parentheses.
    EXPECT_EQ(str(add(var("x"), i32(-3))), "x + -3");
    EXPECT_EQ(str(sub(var("x"), i32(-3))), "x - -3");
}

TEST(IRPrinter, CastsCallsAndVectors) {
    Expr x = var("x"), y = var("y");
    EXPECT_EQ(str(ir::Cast::make(UInt(8), add(x, i32(1)))), "uint8(x + 1)");
    EXPECT_EQ(str(mul(ir::Cast::make(Int(64), x), ir::IntImm::make(Int(64), 2))),
              "int64(x) * int64(2)");
    EXPECT_EQ(str(ir::Select::make(lt(x, y), add(x, y), i32(0))), "select(x < y, x + y, 0)");
    EXPECT_EQ(str(ir::Min::make(x, ir::Max::make(y, i32(0)))), "min(x, max(y, 0))");
    EXPECT_EQ(str(mul(ir::Min::make(x, y), i32(2))), "min(x, y) * 2");
    Expr fx = var("fx", Float(32));
    EXPECT_EQ(str(ir::Call::make_intrinsic(Float(32), ir::Intrinsic::Sqrt, {fx})), "sqrt(fx)");
    EXPECT_EQ(str(ir::Call::make_intrinsic(Int(32), ir::Intrinsic::BitAnd, {x, add(y, i32(1))})),
              "bitwise_and(x, y + 1)");
    EXPECT_EQ(str(ir::Call::make_intrinsic(UInt(32), ir::Intrinsic::Reinterpret, {fx})),
              "reinterpret<uint32>(fx)");
    EXPECT_EQ(str(ir::Load::make(Float(32), "buf", add(mul(y, i32(10)), x))), "buf[y * 10 + x]");
    Expr ramp = ir::Ramp::make(x, i32(1), 8);
    EXPECT_EQ(str(ramp), "ramp(x, 1, 8)");
    EXPECT_EQ(str(ir::Broadcast::make(add(y, i32(2)), 8)), "x8(y + 2)");
    EXPECT_EQ(str(add(ramp, ir::Broadcast::make(y, 8))), "ramp(x, 1, 8) + x8(y)");
    EXPECT_EQ(str(ir::Cast::make(Float(32, 8), ramp)), "float32x8(ramp(x, 1, 8))");
    EXPECT_EQ(str(ir::Variable::make(Int(32), "r.x", ir::VarKind::Reduction)), "r.x");
}

TEST(IRPrinter, Lets) {
    Expr t = var("t"), x = var("x");
    Expr let = ir::Let::make("t", add(x, i32(1)), mul(t, t));
    EXPECT_EQ(str(let), "let t = x + 1 in t * t");
    // Inside an operator or argument list a let is parenthesized.
    EXPECT_EQ(str(add(let, x)), "(let t = x + 1 in t * t) + x");
    EXPECT_EQ(str(add(x, let)), "x + (let t = x + 1 in t * t)");
    EXPECT_EQ(str(ir::Min::make(let, x)), "min((let t = x + 1 in t * t), x)");
    // Chains print flat; a let as a value is parenthesized.
    Expr chain = ir::Let::make("u", i32(2), ir::Let::make("v", i32(3), add(var("u"), var("v"))));
    EXPECT_EQ(str(chain), "let u = 2 in let v = 3 in u + v");
    EXPECT_EQ(str(ir::Let::make("w", let, var("w"))), "let w = (let t = x + 1 in t * t) in w");
}

TEST(IRPrinter, StreamOperatorsAndUndefined) {
    Expr e = add(var("x"), i32(1));
    std::ostringstream os;
    os << e << "; " << Expr();  // found by argument-dependent lookup from the global namespace
    EXPECT_EQ(os.str(), "x + 1; <undefined>");

    Stmt s = ir::Evaluate::make(e);
    std::ostringstream os2;
    os2 << s;
    EXPECT_EQ(os2.str(), "x + 1\n");
    EXPECT_EQ(str(Stmt()), "<undefined>\n");
}

TEST(IRPrinter, NestedLoopsWithProvenance) {
    Expr x = var("f.s0.x"), y = var("f.s0.y");
    auto prov = std::make_shared<ir::Provenance>();
    prov->func = tessera::test::named_func("f");
    prov->stage = 0;
    prov->coords = {x, y};
    Stmt provide = ir::Provide::make("f", add(x, mul(y, i32(2))), {x, y}, prov);
    Stmt inner = ir::For::make("f.s0.x", i32(0), i32(8), ir::ForType::Vectorized, provide);
    Stmt outer = ir::For::make("f.s0.y", i32(0), var("n"), ir::ForType::Parallel, inner);
    Stmt produce = ir::ProducerConsumer::make("f", true, outer);
    Stmt consume = ir::ProducerConsumer::make(
        "f", false, ir::Evaluate::make(ir::Call::make_intrinsic(Int(32), ir::Intrinsic::Abs, {y})));
    Stmt realize = ir::Realize::make("f", Int(32), {{i32(0), i32(8)}, {i32(0), var("n")}},
                                     ir::Block::make({produce, consume}));
    EXPECT_EQ(str(realize),
              "realize f(0, 8, 0, n) {\n"
              "  produce f {\n"
              "    parallel (f.s0.y, 0, n) {\n"
              "      vectorized (f.s0.x, 0, 8) {\n"
              "        f(f.s0.x, f.s0.y) = f.s0.x + f.s0.y * 2 // f(f.s0.x, f.s0.y)\n"
              "      }\n"
              "    }\n"
              "  }\n"
              "  consume f {\n"
              "    abs(f.s0.y)\n"
              "  }\n"
              "}\n");
}

TEST(IRPrinter, StatementsOfLoweredCode) {
    Expr rx = var("r.x"), n = var("n"), t = var("t");
    auto prov = std::make_shared<ir::Provenance>();
    prov->func = tessera::test::named_func("g");
    prov->stage = 2;  // update definition 1
    prov->coords = {i32(0)};
    prov->rvars = {{"r.x", rx}, {"r.y", add(n, i32(1))}};
    Stmt store = ir::Store::make("g", ir::Cast::make(UInt(8), rx), rx, prov);
    Stmt store_plain = ir::Store::make("g", ir::UIntImm::make(UInt(8), 7), sub(rx, i32(1)), nullptr);
    Stmt ite = ir::IfThenElse::make(
        lt(rx, i32(5)), store,
        ir::IfThenElse::make(ir::EQ::make(rx, i32(7)), store_plain,
                             ir::AssertStmt::make(lt(rx, n), {ir::StringImm::make("r.x out of range: "), rx})));
    Stmt loop = ir::For::make("r.x", i32(0), t, ir::ForType::Unrolled, ite);
    Stmt let = ir::LetStmt::make("t", mul(n, i32(2)), loop);
    Stmt alloc = ir::Allocate::make("g", UInt(8), {add(n, i32(1)), i32(4)}, let);
    Stmt guard = ir::IfThenElse::make(lt(i32(0), n), alloc,
                                      ir::Evaluate::make(i32(0)));
    EXPECT_EQ(str(guard),
              "if (0 < n) {\n"
              "  allocate g[uint8 * (n + 1) * 4] {\n"
              "    let t = n * 2\n"
              "    unrolled (r.x, 0, t) {\n"
              "      if (r.x < 5) {\n"
              "        g[r.x] = uint8(r.x) // g.update(1)(0) r.x=r.x, r.y=n + 1\n"
              "      } else if (r.x == 7) {\n"
              "        g[r.x - 1] = uint8(7)\n"
              "      } else {\n"
              "        assert(r.x < n, \"r.x out of range: \", r.x)\n"
              "      }\n"
              "    }\n"
              "  }\n"
              "} else {\n"
              "  0\n"
              "}\n");
    EXPECT_EQ(ir::to_string(*prov), "g.update(1)(0) r.x=r.x, r.y=n + 1");
}

TEST(IRPrinter, SerialLoopsAndSequences) {
    Expr i = var("i");
    Stmt body = ir::Block::make({
        ir::Store::make("a", i, i, nullptr),
        ir::Store::make("b", mul(i, i), add(i, i32(1)), nullptr),
    });
    Stmt loop = ir::For::make("i", i32(0), i32(16), ir::ForType::Serial, body);
    Stmt seq = ir::Block::make({loop, ir::Evaluate::make(i32(1)), ir::Evaluate::make(i32(2))});
    EXPECT_EQ(str(seq),
              "for (i, 0, 16) {\n"
              "  a[i] = i\n"
              "  b[i + 1] = i * i\n"
              "}\n"
              "1\n"
              "2\n");
    // An IRPrinter with a starting indentation indents every line.
    std::ostringstream os;
    ir::IRPrinter(os, 2).print(ir::Evaluate::make(i));
    EXPECT_EQ(os.str(), "    i\n");
}

TEST(IRPrinter, AllocateWithoutExtentsAndPureProvenance) {
    auto prov = std::make_shared<ir::Provenance>();
    prov->func = tessera::test::named_func("h");
    Stmt s = ir::Allocate::make("h", Float(64), {},
                                ir::Store::make("h", ir::FloatImm::make(Float(64), 0.5), i32(0), prov));
    EXPECT_EQ(str(s),
              "allocate h[float64] {\n"
              "  h[0] = 0.5 // h()\n"
              "}\n");
}

}  // namespace
