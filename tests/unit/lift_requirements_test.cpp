// lift_requirements: a require in a statement's expressions becomes its value there and
// an assertion before the statement, with the lets around it kept around the lifted
// condition and message; requires in a loop's body stay in the loop.

#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "lower/Pipeline.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr var(const char *n) { return Variable::make(Int(32), n); }

Expr require_call(Expr condition, Expr value, std::vector<Expr> parts) {
    std::vector<Expr> args = {std::move(condition), std::move(value)};
    for (Expr &p : parts) args.push_back(std::move(p));
    const Type t = args[1].type();
    return Call::make_intrinsic(t, Intrinsic::Require, std::move(args));
}

TEST(LiftRequirements, AnAssertionBeforeTheStatementWithTheLetsAroundIt) {
    // for x: out[x] = (let v = x * x in require(v < 50, v, "square", v)) + 1
    Expr v = var("v");
    Expr value = Let::make("v", Mul::make(var("x"), var("x")),
                           require_call(LT::make(v, i32(50)), v, {StringImm::make("square"), v}));
    Stmt s = For::make("x", i32(0), i32(10), ForType::Serial,
                       Store::make("out", Add::make(value, i32(1)), Cast::make(Int(64), var("x")), nullptr), nullptr);
    const std::string lifted = to_string(lower::lift_requirements(s));
    EXPECT_EQ(lifted.find("require("), std::string::npos) << lifted;
    // Inside the loop, before the store; the condition and the message's value under the let.
    const size_t loop = lifted.find("for"), check = lifted.find("assert((let v = x * x in v < 50), "),
                 store = lifted.find("out[");
    EXPECT_NE(check, std::string::npos) << lifted;
    EXPECT_LT(loop, check) << lifted;
    EXPECT_LT(check, store) << lifted;
    EXPECT_NE(lifted.find("\"requirement failed:\", \" \", \"square\", \" \", (let v = x * x in v))"), std::string::npos) << lifted;
    EXPECT_NE(lifted.find("out[int64(x)] = (let v = x * x in v) + 1"), std::string::npos) << lifted;
}

}  // namespace
