// What the fault tests' drivers share (fault_test.cpp, fault_repeat_test.cpp): the workers'
// launch environment, the checks on their reports and a clean teardown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/runtime/worker_group.hpp"

namespace weft::test {

// The backend under test: ctest registers the cases once per multi-process backend
// (WEFT_FAULT_BACKEND, default gloo).
std::string Backend();

// The environment of `ranks.size()` processes claiming ranks[i] of world_sizes[i], meeting at
// a store on a fresh port.
std::vector<WorkerSpec> Launch(const std::vector<int>& ranks, const std::vector<int>& world_sizes,
                               const std::vector<std::string>& args);
// n processes of a world of n.
std::vector<WorkerSpec> World(int n, const std::vector<std::string>& args);

// Every report received, one line each, for failure messages.
std::string Dump(const WorkerGroup& g);
std::string StatusName(int32_t s);

std::vector<size_t> AllBut(size_t n, size_t skip);
std::vector<size_t> All(size_t n);
bool AllHave(const WorkerGroup& g, const std::vector<size_t>& who, const std::string& kind);
// Whether some worker already reported a failed create, operation or check: waiting on
// for the others is then pointless.
bool AnyFailed(const WorkerGroup& g);

// Releases `who` from their hold and checks that their teardown returned OK within
// `max_seconds` and that each process then exited 0 (a sanitizer report would make it
// non-zero). Non-fatal failures (EXPECT); returns false after a fatal one.
bool ExpectCleanTeardown(WorkerGroup& g, const std::vector<size_t>& who, Clock::time_point deadline,
                         double max_seconds = 3.0);

}  // namespace weft::test
