#include "forked_ranks.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "file_store.hpp"

namespace weft::test::ucx {
namespace {

// In the child: everything up to the body, the body, teardown. Returns the child's message.
std::string RunChild(const std::string& dir, int32_t rank, int32_t n,
                     const std::function<std::string(Rank&)>& body) {
  FileStoreHost host(dir);
  void* lib = dlopen(WEFT_UCX_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return std::string("dlopen: ") + dlerror();
  auto entry = reinterpret_cast<weft_backend_plugin_entry_fn>(dlsym(lib, "weft_backend_plugin_v1"));
  if (entry == nullptr) return "no weft_backend_plugin_v1";
  Rank r;
  r.plugin = entry();
  r.rank = rank;
  r.size = n;
  const weft_bk_init_args_t args{sizeof(args), rank, n, rank, n, 0, 20000};
  if (r.plugin->init(host.api(), &args, &r.state) != WEFT_OK)
    return "init: " + FileStoreHost::LastError();
  std::vector<int32_t> world(n);
  for (int32_t i = 0; i < n; ++i) world[i] = i;
  if (r.plugin->comm_create(r.state, world.data(), n, rank, "world/", 20000, &r.comm) != WEFT_OK)
    return "comm_create: " + FileStoreHost::LastError();
  std::string msg = body(r);
  r.plugin->comm_destroy(r.comm);
  r.plugin->finalize(r.state);
  return msg;
}

}  // namespace

weft_bk_op_t Rank::Op(int64_t timeout_ms) const {
  return weft_bk_op_t{sizeof(weft_bk_op_t), 0, DLDevice{kDLCPU, 0}, nullptr, timeout_ms, 0};
}

std::vector<std::string> RunRanks(int n, const std::function<std::string(Rank&)>& body,
                                  int timeout_s, const std::function<void(int32_t)>& before_init) {
  // Under AddressSanitizer UCX must not hook malloc/mmap (SPEC §10).
  setenv("UCX_MEM_MALLOC_HOOKS", "no", 0);
  setenv("UCX_MEM_MMAP_HOOK_MODE", "none", 0);
  // A message a pipe can take goes through one (backends/ucx/transport/pipes.hpp), whichever way
  // has cost less on this machine lately, so that tests of pipes test them (UcxPipes.Measured* sets
  // its own value).
  setenv("WEFT_UCX_PIPE_ADAPT", "0", 0);
  char tmpl[] = "/tmp/weft-ucx-test-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int32_t r = 0; r < n; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (before_init) before_init(r);
      const std::string msg = RunChild(dir, r, n, body);
      if (!msg.empty()) {
        std::ofstream(dir + "/result-" + std::to_string(r)) << msg;
        std::fflush(nullptr);
        _exit(1);
      }
      std::fflush(nullptr);
      _exit(0);
    }
    pids.push_back(pid);
  }
  // Reap in whatever order the ranks end: a killed rank must not stay a zombie, since UCX's
  // shared-memory keepalive sees a zombie's /proc entry as a live peer.
  std::vector<std::string> out(n);
  std::vector<int> status(n, 0);
  std::vector<bool> reaped(n, false);
  int left = n;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (left > 0 && std::chrono::steady_clock::now() < until) {
    int st = 0;
    const pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    for (int32_t r = 0; r < n; ++r) {
      if (pids[r] != pid) continue;
      status[r] = st;
      reaped[r] = true;
      --left;
    }
  }
  for (int32_t r = 0; r < n; ++r) {
    if (!reaped[r]) {
      kill(pids[r], SIGKILL);
      waitpid(pids[r], &status[r], 0);
      out[r] = "timed out";
      continue;
    }
    const int st = status[r];
    if (WIFSIGNALED(st)) {
      out[r] = "killed by signal " + std::to_string(WTERMSIG(st));
    } else if (WEXITSTATUS(st) != 0) {
      std::ifstream in(dir + "/result-" + std::to_string(r));
      std::ostringstream s;
      s << in.rdbuf();
      out[r] = s.str().empty() ? "exit status " + std::to_string(WEXITSTATUS(st)) : s.str();
    }
  }
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace weft::test::ucx
