// The derived Slurm store port: every task must compute the same one, and nearby jobs and
// steps sharing a first node should not collide.
#include "backends/env/slurm_port.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <set>

namespace weft::backends {
namespace {

TEST(SlurmPortTest, MatchesTheDocumentedFormula) {
  // port = 20000 + (job_id + 24721 * step_id) mod 40000
  EXPECT_EQ(SlurmDefaultPort(0, 0), 20000);
  EXPECT_EQ(SlurmDefaultPort(1, 0), 20001);
  EXPECT_EQ(SlurmDefaultPort(39999, 0), 59999);
  EXPECT_EQ(SlurmDefaultPort(40000, 0), 20000);
  EXPECT_EQ(SlurmDefaultPort(0, 1), 44721);
  EXPECT_EQ(SlurmDefaultPort(123456, 2), 20000 + (123456 + 2 * 24721) % 40000);
}

TEST(SlurmPortTest, Deterministic) {
  for (int64_t job : std::initializer_list<int64_t>{0, 7, 123456, 987654321}) {
    for (int64_t step : std::initializer_list<int64_t>{0, 1, 4294967291}) {
      EXPECT_EQ(SlurmDefaultPort(job, step), SlurmDefaultPort(job, step));
    }
  }
}

TEST(SlurmPortTest, AlwaysInRange) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (int64_t job :
       std::initializer_list<int64_t>{kMin, kMin + 1, -1, 0, 1, 4294967295, kMax - 1, kMax}) {
    for (int64_t step :
         std::initializer_list<int64_t>{kMin, -1, 0, 1, 4294967291, 4294967292, kMax}) {
      const uint16_t port = SlurmDefaultPort(job, step);
      EXPECT_GE(port, 20000) << job << "." << step;
      EXPECT_LT(port, 60000) << job << "." << step;
    }
  }
  for (int64_t job = 0; job < 100000; job += 7) {
    for (int64_t step = 0; step < 8; ++step) {
      const uint16_t port = SlurmDefaultPort(job, step);
      ASSERT_TRUE(port >= 20000 && port < 60000) << job << "." << step;
    }
  }
}

TEST(SlurmPortTest, ConsecutiveJobsGetDistinctPorts) {
  std::set<uint16_t> ports;
  for (int64_t job = 5000000; job < 5000000 + kSlurmPortSpan; ++job) {
    ports.insert(SlurmDefaultPort(job, 0));
  }
  EXPECT_EQ(ports.size(), size_t{kSlurmPortSpan});
}

TEST(SlurmPortTest, StepsKeepClearOfNeighbouringJobs) {
  // Step s of job j against step 0 of any job within 500 ids, and the steps of one job against
  // each other: the usual neighbours on a shared first node.
  const int64_t job = 77777;
  for (int64_t step = 1; step <= 20; ++step) {
    for (int64_t other = job - 500; other <= job + 500; ++other) {
      EXPECT_NE(SlurmDefaultPort(job, step), SlurmDefaultPort(other, 0)) << step << " " << other;
    }
    for (int64_t earlier = 0; earlier < step; ++earlier) {
      EXPECT_NE(SlurmDefaultPort(job, step), SlurmDefaultPort(job, earlier));
    }
  }
}

}  // namespace
}  // namespace weft::backends
