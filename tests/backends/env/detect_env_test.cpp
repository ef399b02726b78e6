// Each launch convention of SPEC §8 on its own, then their precedence when several are set.
#include "backends/env/launch_env.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/backends/env/env_test_util.hpp"

namespace weft::backends {
namespace {

using testing::Detect;
using testing::EnvMap;
using testing::ExpectError;
using testing::Options;

const EnvMap kTorchrun = {{"RANK", "5"},         {"WORLD_SIZE", "8"},
                          {"LOCAL_RANK", "1"},   {"LOCAL_WORLD_SIZE", "4"},
                          {"MASTER_ADDR", "n0"}, {"MASTER_PORT", "29500"}};
const EnvMap kSlurm = {{"SLURM_PROCID", "3"},      {"SLURM_NTASKS", "4"},
                       {"SLURM_LOCALID", "1"},     {"SLURM_STEP_NODELIST", "gpu[07-08]"},
                       {"SLURM_JOB_ID", "123456"}, {"SLURM_STEP_ID", "2"}};

EnvMap Merge(EnvMap a, const EnvMap& b) {
  a.insert(b.begin(), b.end());
  return a;
}

void ExpectWorld(const Result<LaunchEnv>& r, const char* source, int32_t rank, int32_t world,
                 int32_t local_rank, int32_t local_world) {
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, source);
  EXPECT_EQ(r->rank, rank);
  EXPECT_EQ(r->world_size, world);
  EXPECT_EQ(r->local_rank, local_rank);
  EXPECT_EQ(r->local_world_size, local_world);
}

void ExpectStore(const Result<LaunchEnv>& r, const std::string& host, uint16_t port) {
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->store_host, host);
  EXPECT_EQ(r->store_port, port);
}

TEST(DetectEnvTest, NothingSetIsASingleProcess) {
  const auto r = Detect({});
  ExpectWorld(r, "single", 0, 1, 0, 1);
  ExpectStore(r, "", 0);
  EXPECT_FALSE(r->hosts_store());
}

TEST(DetectEnvTest, StrayVariablesAloneDoNotMakeALaunch) {
  // An salloc shell exports SLURM_NTASKS and node lists without being a task; a lone
  // LOCAL_RANK or WEFT_STORE names no world either.
  ExpectWorld(Detect({{"SLURM_NTASKS", "4"},
                      {"SLURM_JOB_NODELIST", "n[1-4]"},
                      {"LOCAL_RANK", "2"},
                      {"MASTER_ADDR", "n1"},
                      {"WEFT_STORE", "n1:1234"}}),
              "single", 0, 1, 0, 1);
}

TEST(DetectEnvTest, EmptyValueCountsAsUnset) {
  ExpectWorld(Detect({{"WEFT_RANK", ""}, {"RANK", ""}, {"SLURM_PROCID", ""}}), "single", 0, 1, 0,
              1);
}

TEST(DetectEnvTest, ExplicitOptions) {
  LaunchOptions o = Options(2, 4);
  o.store_host = "10.0.0.7";
  o.store_port = 4000;
  const auto r = Detect({}, o);
  ExpectWorld(r, "options", 2, 4, 0, 1);
  ExpectStore(r, "10.0.0.7", 4000);
}

TEST(DetectEnvTest, ExplicitOptionsLocalRanks) {
  LaunchOptions o = Options(3, 4);
  o.local_rank = 1;
  o.local_world_size = 2;
  ExpectWorld(Detect({{"WEFT_STORE", "h:1"}}, o), "options", 3, 4, 1, 2);
}

TEST(DetectEnvTest, ExplicitOptionsTakeTheStoreFromWeftStoreThenMaster) {
  ExpectStore(
      Detect({{"WEFT_STORE", "ws:1"}, {"MASTER_ADDR", "m"}, {"MASTER_PORT", "2"}}, Options(1, 2)),
      "ws", 1);
  ExpectStore(Detect({{"MASTER_ADDR", "m"}, {"MASTER_PORT", "2"}}, Options(1, 2)), "m", 2);
}

TEST(DetectEnvTest, ExplicitStoreOptionsWinOverWeftStore) {
  LaunchOptions o = Options(0, 2);
  o.store_host = "opt";
  o.store_port = 7;
  const auto r = Detect({{"WEFT_STORE", "env:8"}}, o);
  ExpectStore(r, "opt", 7);
  EXPECT_TRUE(r->hosts_store());
}

TEST(DetectEnvTest, WorldOfOneNeedsAndKeepsNoStore) {
  ExpectStore(Detect({}, Options(0, 1)), "", 0);
  ExpectStore(Detect({{"WEFT_RANK", "0"}, {"WEFT_WORLD_SIZE", "1"}, {"WEFT_STORE", "h:1"}}), "", 0);
  ExpectStore(Detect({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "1"}}), "", 0);
}

TEST(DetectEnvTest, WeftVariables) {
  const auto r = Detect({{"WEFT_RANK", "0"},
                         {"WEFT_WORLD_SIZE", "3"},
                         {"WEFT_LOCAL_RANK", "0"},
                         {"WEFT_LOCAL_WORLD_SIZE", "3"},
                         {"WEFT_STORE", "127.0.0.1:29400"}});
  ExpectWorld(r, "weft", 0, 3, 0, 3);
  ExpectStore(r, "127.0.0.1", 29400);
  EXPECT_TRUE(r->hosts_store());
}

TEST(DetectEnvTest, WeftLocalRankWithoutLocalSizeIsBoundedByTheWorld) {
  ExpectWorld(Detect({{"WEFT_RANK", "2"},
                      {"WEFT_WORLD_SIZE", "4"},
                      {"WEFT_LOCAL_RANK", "2"},
                      {"WEFT_STORE", "[::1]:5"}}),
              "weft", 2, 4, 2, 4);
}

TEST(DetectEnvTest, Torchrun) {
  const auto r = Detect(kTorchrun);
  ExpectWorld(r, "torchrun", 5, 8, 1, 4);
  ExpectStore(r, "n0", 29500);
  EXPECT_FALSE(r->hosts_store());
}

TEST(DetectEnvTest, WeftStoreOverridesMasterAddr) {
  ExpectStore(Detect(Merge({{"WEFT_STORE", "override:1"}}, kTorchrun)), "override", 1);
}

TEST(DetectEnvTest, MasterAddrMayBeABracketedIpv6Address) {
  ExpectStore(Detect({{"RANK", "0"},
                      {"WORLD_SIZE", "2"},
                      {"MASTER_ADDR", "[fd00::1]"},
                      {"MASTER_PORT", "29500"}}),
              "fd00::1", 29500);
}

TEST(DetectEnvTest, OpenMpiWithWeftStore) {
  const auto r = Detect({{"OMPI_COMM_WORLD_RANK", "3"},
                         {"OMPI_COMM_WORLD_SIZE", "4"},
                         {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                         {"WEFT_STORE", "head:9000"}});
  ExpectWorld(r, "openmpi", 3, 4, 1, 2);
  ExpectStore(r, "head", 9000);
}

TEST(DetectEnvTest, OpenMpiWithMasterAddr) {
  ExpectStore(Detect({{"OMPI_COMM_WORLD_RANK", "1"},
                      {"OMPI_COMM_WORLD_SIZE", "2"},
                      {"MASTER_ADDR", "head"},
                      {"MASTER_PORT", "9001"}}),
              "head", 9001);
}

TEST(DetectEnvTest, OpenMpiWithoutStoreIsNotAvailable) {
  const auto r = Detect({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  ExpectError(r, Code::kNotAvailable, {});
  EXPECT_EQ(r.status().message(),
            "Open MPI launch detected (OMPI_COMM_WORLD_RANK=3) but no store address: set "
            "WEFT_STORE=host:port or MASTER_ADDR and MASTER_PORT");
}

TEST(DetectEnvTest, Pmi) {
  const auto r = Detect({{"PMI_RANK", "1"},
                         {"PMI_SIZE", "2"},
                         {"MPI_LOCALRANKID", "1"},
                         {"MPI_LOCALNRANKS", "2"},
                         {"MASTER_ADDR", "h"},
                         {"MASTER_PORT", "1"}});
  ExpectWorld(r, "pmi", 1, 2, 1, 2);
  ExpectStore(r, "h", 1);
}

TEST(DetectEnvTest, PmiWithoutStoreIsNotAvailable) {
  ExpectError(Detect({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}), Code::kNotAvailable,
              {"PMI launch detected", "PMI_RANK=0", "WEFT_STORE", "MASTER_ADDR", "MASTER_PORT"});
}

TEST(DetectEnvTest, SlurmStoreOnTheFirstStepNodeWithTheDerivedPort) {
  const auto r = Detect(Merge({{"SLURM_JOB_NODELIST", "other[1-9]"}}, kSlurm));
  ExpectWorld(r, "slurm", 3, 4, 1, 4);
  ExpectStore(r, "gpu07", SlurmDefaultPort(123456, 2));
}

TEST(DetectEnvTest, SlurmFallsBackToTheJobNodeList) {
  EnvMap vars = kSlurm;
  vars.erase("SLURM_STEP_NODELIST");
  vars["SLURM_JOB_NODELIST"] = "a3,b[1-2]";
  ExpectStore(Detect(vars), "a3", SlurmDefaultPort(123456, 2));
}

TEST(DetectEnvTest, SlurmMissingStepIdCountsAsStepZeroAndTheOldNameIsRead) {
  EnvMap vars = kSlurm;
  vars.erase("SLURM_STEP_ID");
  ExpectStore(Detect(vars), "gpu07", SlurmDefaultPort(123456, 0));
  vars["SLURM_STEPID"] = "6";
  ExpectStore(Detect(vars), "gpu07", SlurmDefaultPort(123456, 6));
}

TEST(DetectEnvTest, SlurmWeftStorePort) {
  ExpectStore(Detect(Merge({{"WEFT_STORE_PORT", "31000"}}, kSlurm)), "gpu07", 31000);
}

TEST(DetectEnvTest, SlurmWeftStoreWins) {
  ExpectStore(Detect(Merge({{"WEFT_STORE", "ext:5"}, {"WEFT_STORE_PORT", "6"}}, kSlurm)), "ext", 5);
}

TEST(DetectEnvTest, SlurmLocalWorldSizeFromTasksPerNode) {
  EnvMap vars = Merge({{"SLURM_NODEID", "1"}, {"SLURM_STEP_TASKS_PER_NODE", "3,1"}}, kSlurm);
  vars["SLURM_LOCALID"] = "0";
  ExpectWorld(Detect(vars), "slurm", 3, 4, 0, 1);
  vars.erase("SLURM_STEP_TASKS_PER_NODE");
  vars["SLURM_TASKS_PER_NODE"] = "2(x2)";
  ExpectWorld(Detect(vars), "slurm", 3, 4, 0, 2);
}

TEST(DetectEnvTest, SlurmOneTaskNeedsNoStore) {
  const auto r = Detect({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}});
  ExpectWorld(r, "slurm", 0, 1, 0, 1);
  ExpectStore(r, "", 0);
}

TEST(DetectEnvTest, OptionsWinOverEveryConvention) {
  const EnvMap all =
      Merge(Merge({{"WEFT_RANK", "1"}, {"WEFT_WORLD_SIZE", "2"}}, kTorchrun), kSlurm);
  ExpectWorld(Detect(Merge({{"WEFT_STORE", "h:1"}}, all), Options(0, 3)), "options", 0, 3, 0, 1);
}

TEST(DetectEnvTest, WeftWinsOverTorchrun) {
  ExpectWorld(Detect(Merge({{"WEFT_RANK", "1"}, {"WEFT_WORLD_SIZE", "2"}, {"WEFT_STORE", "w:1"}},
                           kTorchrun)),
              "weft", 1, 2, 0, 1);
}

TEST(DetectEnvTest, TorchrunWinsOverSlurm) {
  // torchrun started by srun: both sets are present and torchrun's ranks are the real ones.
  const auto r = Detect(Merge(kTorchrun, kSlurm));
  ExpectWorld(r, "torchrun", 5, 8, 1, 4);
  ExpectStore(r, "n0", 29500);
}

TEST(DetectEnvTest, OpenMpiWinsOverPmiAndSlurm) {
  const EnvMap mpi = {{"OMPI_COMM_WORLD_RANK", "2"},
                      {"OMPI_COMM_WORLD_SIZE", "3"},
                      {"PMI_RANK", "0"},
                      {"PMI_SIZE", "1"},
                      {"WEFT_STORE", "h:2"}};
  ExpectWorld(Detect(Merge(mpi, kSlurm)), "openmpi", 2, 3, 0, 1);
}

TEST(DetectEnvTest, PmiWinsOverSlurm) {
  // srun --mpi=pmi2 exports both; PMI is tried first and must agree.
  ExpectWorld(Detect(Merge({{"PMI_RANK", "3"}, {"PMI_SIZE", "4"}, {"WEFT_STORE", "h:2"}}, kSlurm)),
              "pmi", 3, 4, 0, 1);
}

// The first match wins; the variables of other launchers that say otherwise are named, with
// the winner, for the info line weft_context_create logs. Agreeing or unset ones are not.
TEST(DetectEnvTest, DisagreeingLaunchersAreNamedWithTheWinner) {
  const EnvMap env = {{"WEFT_RANK", "1"},
                      {"WEFT_WORLD_SIZE", "4"},
                      {"WEFT_STORE", "h:1"},
                      {"RANK", "3"},
                      {"WORLD_SIZE", "4"},
                      {"OMPI_COMM_WORLD_RANK", "0"},
                      {"OMPI_COMM_WORLD_SIZE", "8"},
                      {"PMI_RANK", "1"},
                      {"PMI_SIZE", "04"}};
  const auto r = Detect(env);
  ExpectWorld(r, "weft", 1, 4, 0, 1);
  EXPECT_EQ(r->ignored,
            "rank 1 of 4 from WEFT_RANK, WEFT_WORLD_SIZE (WEFT), the first match; ignored RANK=3 "
            "(torchrun); OMPI_COMM_WORLD_RANK=0, OMPI_COMM_WORLD_SIZE=8 (Open MPI)");
}

TEST(DetectEnvTest, AgreeingLaunchersAreNotMentioned) {
  // srun --mpi=pmi2 exports PMI_* and SLURM_* saying the same thing.
  const auto r =
      Detect(Merge({{"PMI_RANK", "3"}, {"PMI_SIZE", "4"}, {"WEFT_STORE", "h:2"}}, kSlurm));
  ExpectWorld(r, "pmi", 3, 4, 0, 1);
  EXPECT_EQ(r->ignored, "");
  EXPECT_EQ(Detect(kTorchrun)->ignored, "");
}

TEST(DetectEnvTest, OptionsOverDisagreeingVariablesAreNamed) {
  const auto r = Detect(Merge({{"WEFT_STORE", "h:1"}}, kTorchrun), Options(0, 3));
  ExpectWorld(r, "options", 0, 3, 0, 1);
  EXPECT_EQ(r->ignored,
            "rank 0 of 3 from options.rank, options.world_size, the first match; ignored RANK=5, "
            "WORLD_SIZE=8 (torchrun)");
}

TEST(DetectEnvTest, EmptyGetEnvReadsTheProcessEnvironment) {
  // Reads only; the real environment is never changed by these tests.
  const char* path = std::getenv("PATH");
  EXPECT_EQ(ProcessGetEnv()("PATH"), path);
  EXPECT_TRUE(DetectLaunchEnv(Options(0, 1)).ok());
}

}  // namespace
}  // namespace weft::backends
