// weftrun: the single-node launcher (SPEC §8). `weftrun --help` describes it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "tools/weftrun/exit_status.hpp"
#include "tools/weftrun/launcher.hpp"
#include "tools/weftrun/options.hpp"
#include "tools/weftrun/output_relay.hpp"
#include "tools/weftrun/print_params.hpp"

namespace {

// A closed stdout or stderr would let a pipe take descriptor 1 or 2, which the child's
// dup2() onto itself would then leave close-on-exec; /dev/null in its place keeps the
// numbering sane.
void EnsureStandardFds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) ::open("/dev/null", O_RDWR);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace weft::tools;
  EnsureStandardFds();
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  const weft::Result<Options> opts = ParseOptions(args);
  if (!opts.ok()) {
    WriteAll(2, "weftrun: " + opts.status().message() + "\nTry 'weftrun --help'.\n");
    return kExitUsage;
  }
  if (opts->help) {
    WriteAll(1, UsageText());
    return 0;
  }
  if (opts->print_params) return PrintParams(opts->backend);
  return RunJob(*opts);
}
