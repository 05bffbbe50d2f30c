// Tracing (Func::trace_stores, trace_loads, trace_realizations; src/lower/AddTracing.cpp):
// the lines a compiled pipeline writes, in Halide's format, in the order its schedule runs
// them, and the results unchanged.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "support/text.h"

using namespace tessera;

using test::lines_of;

TEST(Tracing, StoresInTheOrderTheScheduleRunsThem) {
    // Halide's tutorial gradient: the default order walks along rows, then the reorder
    // walks down columns.
    Var x("x"), y("y");
    Func gradient("gradient");
    gradient(x, y) = x + y;
    gradient.trace_stores();
    ::testing::internal::CaptureStderr();
    Buffer<int> out = gradient.realize({2, 2});
    std::vector<std::string> got = lines_of(::testing::internal::GetCapturedStderr());
    EXPECT_EQ(got, (std::vector<std::string>{"Begin pipeline gradient.0()", "Store gradient.0(0, 0) = 0",
                                             "Store gradient.0(1, 0) = 1", "Store gradient.0(0, 1) = 1",
                                             "Store gradient.0(1, 1) = 2", "End pipeline gradient.0()"}));
    EXPECT_EQ(out(1, 1), 2);

    Func columns("columns");
    columns(x, y) = x * 10 + y;
    columns.reorder(y, x).trace_stores();
    ::testing::internal::CaptureStderr();
    columns.realize({2, 2});
    got = lines_of(::testing::internal::GetCapturedStderr());
    EXPECT_EQ(got, (std::vector<std::string>{"Begin pipeline columns.0()", "Store columns.0(0, 0) = 0",
                                             "Store columns.0(0, 1) = 1", "Store columns.0(1, 0) = 10",
                                             "Store columns.0(1, 1) = 11", "End pipeline columns.0()"}));
}

TEST(Tracing, LoadsRealizationsAndVectorLanes) {
    // A producer computed at the root and read twice per point: its realization (the 3
    // points the consumer reads), its stores (a vector store writes a line per lane; the
    // second vector of 2 shifts inward to end at point 2, so point 1 is stored twice), and
    // the consumer's loads of it.
    Var x("x");
    Func producer("producer"), consumer("consumer");
    producer(x) = x * 2;
    consumer(x) = producer(x) + producer(x + 1);
    producer.compute_root().vectorize(x, 2).trace_stores().trace_loads().trace_realizations();
    ::testing::internal::CaptureStderr();
    Buffer<int> out = consumer.realize({2});
    std::vector<std::string> got = lines_of(::testing::internal::GetCapturedStderr());
    EXPECT_EQ(got, (std::vector<std::string>{"Begin pipeline consumer.0()", "Begin realization producer.0(0, 3)",
                                             "Store producer.0(0) = 0", "Store producer.0(1) = 2",
                                             "Store producer.0(1) = 2", "Store producer.0(2) = 4",
                                             "Load producer.0(0) = 0", "Load producer.0(1) = 2",
                                             "Load producer.0(1) = 2", "Load producer.0(2) = 4",
                                             "End realization producer.0(0, 3)", "End pipeline consumer.0()"}))
        << ::testing::PrintToString(got);
    EXPECT_EQ(out(0), 2);
    EXPECT_EQ(out(1), 6);
}
