// A host's link cut in the middle of collectives (issue 26 item 4), run across network
// namespaces by scripts/netns-hosts.sh, whose hook takes host 1's link down a few seconds in.
// Every rank all-reduces 1 MiB in a loop; the cut must surface as an error on every rank —
// host 1's ranks lose host 0, host 0's lose host 1 — within the context's timeout (plus slack
// for the collective in flight), never as a hang. Exit 0 when this rank saw the error in time,
// 1 otherwise (no error within 60 s, or one that came too late).
#include <weft/weft.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
  weft_context_t* ctx = nullptr;
  if (weft_context_create(nullptr, &ctx) != WEFT_OK) {
    std::fprintf(stderr, "link_cut: weft_context_create: %s\n", weft_last_error());
    return 1;
  }
  int32_t rank = 0;
  weft_context_rank(ctx, &rank);
  const char* env = std::getenv("WEFT_TIMEOUT_MS");
  const double timeout_s = (env ? std::atof(env) : 30000.0) / 1e3;
  std::vector<float> data(256 * 1024, 1.0f);
  int64_t count = static_cast<int64_t>(data.size());
  DLTensor t{data.data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &count, nullptr, 0};
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_ok = start;
  int64_t done = 0;
  int status = 1;
  for (;;) {
    const weft_status_t s =
        weft_allreduce(ctx, nullptr, 0, &t, &t, WEFT_REDUCE_MAX, nullptr, nullptr, nullptr);
    const auto now = Clock::now();
    if (s == WEFT_OK) {
      ++done;
      last_ok = now;
      if (now - start > std::chrono::seconds(60)) {
        std::printf("link_cut: rank %d: no error after 60 s (%lld all-reduces)\n", rank,
                    static_cast<long long>(done));
        break;
      }
      continue;
    }
    const double waited = std::chrono::duration<double>(now - last_ok).count();
    const bool in_time = waited <= timeout_s + 10.0;
    std::printf(
        "link_cut: rank %d: %s after %lld all-reduces, %.1f s after the last one "
        "(timeout %.1f s): %s\n  %s\n",
        rank, weft_status_string(s), static_cast<long long>(done), waited, timeout_s,
        in_time ? "ok" : "TOO LATE", weft_last_error());
    status = in_time && (s == WEFT_ERR_PEER_FAILURE || s == WEFT_ERR_TIMEOUT) ? 0 : 1;
    break;
  }
  std::fflush(stdout);
  weft_context_abort(ctx);
  weft_context_destroy(ctx);
  return status;
}
