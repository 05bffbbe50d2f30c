// The JIT's thread pool (src/codegen/Runtime.cpp, tessera_jit_parallel_for): every
// iteration of a parallel loop runs once, whichever threads claim them; loops started
// from several threads at once (the second runs serially in its thread) and loops run back
// to back, thousands of short ones included, give the same results. And its heap blocks
// (tessera_jit_malloc), kept per thread for the next allocation of about their size: a
// block serves only an allocation it holds, whichever thread freed it, and a thread's
// blocks go when it exits.

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

/** A pipeline with a parallel loop of `rows` iterations over strips of 2 rows, whose
 * values are checked against the formula. */
Func strips(const std::string &name, int salt) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func g(name + "_g"), f(name);
    g(x, y) = x * 3 + y * 7 + salt;
    f(x, y) = g(x, y) * 2 + g(x + 1, y);
    f.split(y, yo, yi, 2).parallel(yo);
    g.compute_at(f, yo);
    return f;
}

int expected(int x, int y, int salt) { return (x * 3 + y * 7 + salt) * 2 + (x + 1) * 3 + y * 7 + salt; }

}  // namespace

TEST(ThreadPool, EveryIterationRunsOnceBackToBack) {
    Func f = strips("f", 5);
    for (int run = 0; run < 50; run++) {
        const int h = 2 * (1 + run % 17);
        Buffer<int32_t> out = f.realize({7, h});
        for (int y = 0; y < h; y++)
            for (int x = 0; x < 7; x++) ASSERT_EQ(out(x, y), expected(x, y, 5)) << "run " << run << " at " << x << ", " << y;
    }
}

TEST(ThreadPool, ManyShortLoopsInARow) {
    // Thousands of loops of 1-20 iterations, one after the other: a worker that looked for
    // work in one loop often claims its iteration in the next (the loop's description is
    // read after the claim, src/codegen/Runtime.cpp), and must run the next loop's
    // function on the next loop's closure.
    Func f = strips("short", 11), g = strips("other", 23);
    f.compile_jit();
    g.compile_jit();
    int failures = 0;
    for (int run = 0; run < 3000 && failures == 0; run++) {
        const int h = 2 * (1 + (run * 7) % 20);
        const bool first = run % 3 != 0;
        Buffer<int32_t> out = (first ? f : g).realize({5, h});
        for (int y = 0; y < h; y++)
            for (int x = 0; x < 5; x++) failures += out(x, y) != expected(x, y, first ? 11 : 23);
        EXPECT_EQ(failures, 0) << "run " << run;
    }
}

TEST(ThreadPool, LoopsStartedFromSeveralThreadsAtOnce) {
    // Compiled before the threads start (compiling is not what is tested here).
    std::vector<Func> pipelines;
    for (int t = 0; t < 4; t++) {
        pipelines.push_back(strips("p" + std::to_string(t), t * 100));
        pipelines.back().compile_jit();
    }
    std::vector<int> failures(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int run = 0; run < 30; run++) {
                Buffer<int32_t> out = pipelines[size_t(t)].realize({9, 40});
                for (int y = 0; y < 40; y++)
                    for (int x = 0; x < 9; x++) failures[size_t(t)] += out(x, y) != expected(x, y, t * 100);
            }
        });
    for (std::thread &th : threads) th.join();
    for (int t = 0; t < 4; t++) EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
}

TEST(JitAllocations, KeptBlocksServeAllocationsOfOtherSizesAndThreads) {
    // g's rows per strip are a heap allocation of the image's width: run after run, from
    // threads that come and go, widths up and down (a kept block of a 300-wide row must not
    // serve a 3000-wide one, nor go to a 7-wide one). A block too small would be written
    // past its end; wrong values or a crash would show it.
    Func f = strips("widths", 3);
    f.compile_jit();
    // Ten widths three times apart: more sizes than a thread keeps blocks, so kept blocks
    // are also freed to make room.
    std::vector<int> widths = {5, 300, 7, 160, 3000, 150, 1, 2999, 64};
    for (int w = 1; w <= 20000; w *= 3) widths.push_back(w);
    std::vector<int> failures(3, 0);
    for (int round = 0; round < 2; round++) {
        std::vector<std::thread> threads;
        for (int t = 0; t < 3; t++)
            threads.emplace_back([&, t] {
                for (size_t k = 0; k < widths.size(); k++) {
                    const int w = widths[(k + size_t(t)) % widths.size()], h = 2 * (3 + t);
                    Buffer<int32_t> out = f.realize({w, h});
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) failures[size_t(t)] += out(x, y) != expected(x, y, 3);
                }
            });
        for (std::thread &th : threads) th.join();
    }
    for (int t = 0; t < 3; t++) EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
}
