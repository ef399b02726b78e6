// Every way a launch environment can be wrong fails with kInvalidArgument (or kNotAvailable
// where SPEC §8 says so) and a message that names the variable and quotes its value.
#include <gtest/gtest.h>

#include "backends/env/launch_env.hpp"
#include "tests/backends/env/env_test_util.hpp"

namespace weft::backends {
namespace {

using testing::Detect;
using testing::EnvMap;
using testing::ExpectError;
using testing::Options;

constexpr Code kInvalid = Code::kInvalidArgument;

EnvMap Weft(const std::string& rank, const std::string& world) {
  return {{"WEFT_RANK", rank}, {"WEFT_WORLD_SIZE", world}, {"WEFT_STORE", "h:1"}};
}

TEST(DetectEnvValidationTest, NonNumericValues) {
  ExpectError(Detect(Weft("abc", "2")), kInvalid, {"WEFT_RANK='abc'", "not a decimal integer"});
  ExpectError(Detect(Weft("1", "2x")), kInvalid, {"WEFT_WORLD_SIZE='2x'"});
  ExpectError(Detect(Weft(" 1", "2")), kInvalid, {"WEFT_RANK=' 1'"});
  ExpectError(Detect(Weft("+1", "2")), kInvalid, {"WEFT_RANK='+1'"});
  ExpectError(Detect({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "zero"}}), kInvalid,
              {"LOCAL_RANK='zero'"});
}

TEST(DetectEnvValidationTest, NegativeValues) {
  ExpectError(Detect({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}), kInvalid, {"RANK=-1 is negative"});
  ExpectError(Detect({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "-4"}}), kInvalid,
              {"OMPI_COMM_WORLD_SIZE=-4 is negative"});
  ExpectError(Detect({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "-1"}}),
              kInvalid, {"SLURM_LOCALID=-1"});
}

TEST(DetectEnvValidationTest, RankMustBeBelowWorldSize) {
  ExpectError(Detect(Weft("4", "4")), kInvalid,
              {"WEFT_RANK=4 must be less than WEFT_WORLD_SIZE=4"});
  ExpectError(Detect({{"PMI_RANK", "9"}, {"PMI_SIZE", "2"}}), kInvalid,
              {"PMI_RANK=9", "PMI_SIZE=2"});
}

TEST(DetectEnvValidationTest, WorldSizeZero) {
  ExpectError(Detect({{"RANK", "0"}, {"WORLD_SIZE", "0"}}), kInvalid,
              {"WORLD_SIZE=0 must be at least 1"});
}

TEST(DetectEnvValidationTest, ValuesBeyondInt32) {
  ExpectError(Detect(Weft("0", "3000000000")), kInvalid, {"WEFT_WORLD_SIZE=3000000000", "large"});
  ExpectError(Detect(Weft("0", "99999999999999999999")), kInvalid,
              {"WEFT_WORLD_SIZE=99999999999999999999", "out of range"});
}

TEST(DetectEnvValidationTest, LocalRanksMustBeConsistent) {
  EnvMap vars = Weft("1", "4");
  vars["WEFT_LOCAL_RANK"] = "2";
  vars["WEFT_LOCAL_WORLD_SIZE"] = "2";
  ExpectError(Detect(vars), kInvalid,
              {"WEFT_LOCAL_RANK=2 must be less than WEFT_LOCAL_WORLD_SIZE=2"});
  vars["WEFT_LOCAL_WORLD_SIZE"] = "8";
  ExpectError(Detect(vars), kInvalid, {"WEFT_LOCAL_WORLD_SIZE=8 exceeds WEFT_WORLD_SIZE=4"});
  vars["WEFT_LOCAL_WORLD_SIZE"] = "0";
  ExpectError(Detect(vars), kInvalid, {"WEFT_LOCAL_WORLD_SIZE=0"});
  vars.erase("WEFT_LOCAL_WORLD_SIZE");
  vars["WEFT_LOCAL_RANK"] = "4";
  ExpectError(Detect(vars), kInvalid, {"WEFT_LOCAL_RANK=4 must be less than WEFT_WORLD_SIZE=4"});
}

TEST(DetectEnvValidationTest, PartialSets) {
  ExpectError(Detect({{"WEFT_RANK", "1"}}), kInvalid,
              {"WEFT_RANK=1 is set but WEFT_WORLD_SIZE is not"});
  ExpectError(Detect({{"WEFT_WORLD_SIZE", "2"}}), kInvalid,
              {"WEFT_WORLD_SIZE=2 is set but WEFT_RANK is not"});
  ExpectError(Detect({{"RANK", "1"}}), kInvalid, {"RANK=1", "WORLD_SIZE", "torchrun"});
  ExpectError(Detect({{"OMPI_COMM_WORLD_SIZE", "4"}}), kInvalid,
              {"OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK"});
  ExpectError(Detect({{"PMI_RANK", "0"}}), kInvalid, {"PMI_RANK=0", "PMI_SIZE"});
  ExpectError(Detect({{"SLURM_PROCID", "0"}}), kInvalid, {"SLURM_PROCID=0", "SLURM_NTASKS"});
}

TEST(DetectEnvValidationTest, AWrongConventionIsAnErrorNotAFallThrough) {
  // Falling through to torchrun here would start a world whose ranks disagree.
  ExpectError(Detect({{"WEFT_RANK", "x"},
                      {"WEFT_WORLD_SIZE", "2"},
                      {"RANK", "0"},
                      {"WORLD_SIZE", "2"},
                      {"MASTER_ADDR", "h"},
                      {"MASTER_PORT", "1"}}),
              kInvalid, {"WEFT_RANK='x'"});
}

TEST(DetectEnvValidationTest, WorldWithoutStoreAddress) {
  ExpectError(Detect({{"WEFT_RANK", "0"}, {"WEFT_WORLD_SIZE", "2"}}), kInvalid,
              {"WEFT launch detected (WEFT_RANK=0)", "no store address", "WEFT_STORE"});
  ExpectError(Detect({{"RANK", "1"}, {"WORLD_SIZE", "2"}}), kInvalid,
              {"torchrun launch detected (RANK=1)", "MASTER_ADDR and MASTER_PORT"});
  ExpectError(Detect({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "7"}}),
              kInvalid, {"Slurm launch detected (SLURM_PROCID=1)", "WEFT_STORE", "srun"});
}

TEST(DetectEnvValidationTest, MalformedWeftStore) {
  EnvMap vars = Weft("0", "2");
  for (const char* bad : {"host", "host:", ":1", "::1:29500", "host:70000", "host:0", "a b:1"}) {
    vars["WEFT_STORE"] = bad;
    ExpectError(Detect(vars), kInvalid, {"WEFT_STORE", std::string("'") + bad + "'"});
  }
}

TEST(DetectEnvValidationTest, MalformedWeftStoreIsAnErrorEvenWhereMasterAddrWouldDo) {
  ExpectError(Detect({{"OMPI_COMM_WORLD_RANK", "0"},
                      {"OMPI_COMM_WORLD_SIZE", "2"},
                      {"WEFT_STORE", "nope"},
                      {"MASTER_ADDR", "h"},
                      {"MASTER_PORT", "1"}}),
              kInvalid, {"WEFT_STORE", "'nope'"});
}

TEST(DetectEnvValidationTest, MasterAddrAndPortComeTogether) {
  const EnvMap base = {{"RANK", "0"}, {"WORLD_SIZE", "2"}};
  EnvMap vars = base;
  vars["MASTER_ADDR"] = "h";
  ExpectError(Detect(vars), kInvalid, {"MASTER_ADDR=h is set but MASTER_PORT is not"});
  vars = base;
  vars["MASTER_PORT"] = "1";
  ExpectError(Detect(vars), kInvalid, {"MASTER_PORT=1 is set but MASTER_ADDR is not"});
}

TEST(DetectEnvValidationTest, PortsOutOfRange) {
  EnvMap vars = {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}};
  for (const char* bad : {"0", "65536", "-1", "99999999999999999999"}) {
    vars["MASTER_PORT"] = bad;
    ExpectError(Detect(vars), kInvalid, {std::string("MASTER_PORT=") + bad});
  }
  vars["MASTER_PORT"] = "http";
  ExpectError(Detect(vars), kInvalid, {"MASTER_PORT='http'"});
  ExpectError(Detect({{"SLURM_PROCID", "0"},
                      {"SLURM_NTASKS", "2"},
                      {"SLURM_JOB_NODELIST", "n1"},
                      {"WEFT_STORE_PORT", "65536"}}),
              kInvalid, {"WEFT_STORE_PORT=65536", "1-65535"});
}

TEST(DetectEnvValidationTest, MalformedMasterAddr) {
  ExpectError(
      Detect(
          {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "tcp://h"}, {"MASTER_PORT", "1"}}),
      kInvalid, {"MASTER_ADDR='tcp://h'"});
}

TEST(DetectEnvValidationTest, SlurmVariables) {
  const EnvMap base = {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "42"}};
  EnvMap vars = base;
  vars["SLURM_STEP_NODELIST"] = "n[1-";
  ExpectError(Detect(vars), kInvalid, {"SLURM_STEP_NODELIST", "'n[1-'"});
  vars["SLURM_STEP_NODELIST"] = "n[1-2]";
  vars["SLURM_JOB_ID"] = "job42";
  ExpectError(Detect(vars), kInvalid, {"SLURM_JOB_ID='job42'"});
  vars.erase("SLURM_JOB_ID");
  ExpectError(Detect(vars), kInvalid, {"SLURM_JOB_ID is unset", "WEFT_STORE_PORT"});
  vars = base;
  vars["SLURM_JOB_NODELIST"] = "n1";
  vars["SLURM_STEP_ID"] = "-3";
  ExpectError(Detect(vars), kInvalid, {"SLURM_STEP_ID=-3"});
  vars.erase("SLURM_STEP_ID");
  vars["SLURM_NODEID"] = "0";
  vars["SLURM_STEP_TASKS_PER_NODE"] = "2(x";
  ExpectError(Detect(vars), kInvalid, {"SLURM_STEP_TASKS_PER_NODE", "'2(x'"});
  vars["SLURM_STEP_TASKS_PER_NODE"] = "1";
  vars["SLURM_NODEID"] = "1";
  ExpectError(Detect(vars), kInvalid, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_NODEID=1"});
}

TEST(DetectEnvValidationTest, PartialOptions) {
  LaunchOptions o;
  o.rank = 1;
  ExpectError(Detect({}, o), kInvalid, {"options.rank=1 is set but options.world_size is not"});
  o = LaunchOptions();
  o.world_size = 2;
  ExpectError(Detect({}, o), kInvalid, {"options.world_size=2 is set but options.rank is not"});
  o = Options(0, 2);
  o.store_host = "h";
  ExpectError(Detect({}, o), kInvalid, {"options.store_host='h'", "options.store_port"});
  o = Options(0, 2);
  o.store_port = 5;
  ExpectError(Detect({}, o), kInvalid, {"options.store_port=5", "options.store_host"});
}

TEST(DetectEnvValidationTest, BadOptionValues) {
  ExpectError(Detect({}, Options(-5, 2)), kInvalid, {"options.rank=-5", "-1 means unset"});
  ExpectError(Detect({}, Options(0, 0)), kInvalid, {"options.world_size=0"});
  ExpectError(Detect({}, Options(2, 2)), kInvalid,
              {"options.rank=2 must be less than options.world_size=2"});
  LaunchOptions o = Options(0, 2);
  o.store_host = "h";
  o.store_port = 70000;
  ExpectError(Detect({}, o), kInvalid, {"options.store_port=70000", "1-65535"});
  o.store_port = 1;
  o.store_host = "h h";
  ExpectError(Detect({}, o), kInvalid, {"options.store_host='h h'"});
  o = Options(0, 2);
  o.local_rank = 2;
  o.local_world_size = 2;
  ExpectError(Detect({{"WEFT_STORE", "h:1"}}, o), kInvalid, {"options.local_rank=2"});
}

TEST(DetectEnvValidationTest, OptionsWithoutAnyStoreAddress) {
  ExpectError(Detect({}, Options(1, 2)), kInvalid,
              {"options.rank=1", "options.world_size=2", "no store address", "store_host",
               "WEFT_STORE", "MASTER_ADDR"});
}

}  // namespace
}  // namespace weft::backends
