// Checkpoint bandwidth against plain sequential file I/O of the same bytes, in the same run
// (issue 27 item 7). Run under weftrun, e.g. 4 ranks:
//   weftrun -n 4 build/release/bench/checkpoint/ckpt_bench DIR [total_mib] [tensors]
// Each rank holds 1/world of `tensors` float32 tensors of total_mib MiB in all ([S0] over the
// world). Reference: every rank writes its bytes to a file of its own (write + fsync), then
// reads them back (pread). Weft: a blocking save, then loads with resharding into a shifted
// ragged S0 split (large runs) and into S1 (a column slab of every box: many short runs).
// Before every read, pages are dropped from the cache (fsync + POSIX_FADV_DONTNEED), so reads
// come from the disk in both. Times are from a barrier to a barrier (the slowest rank); each
// figure is the median of 3 alternating repetitions.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace {

using Clock = std::chrono::steady_clock;
weft_context_t* g_ctx = nullptr;
int32_t g_rank = 0, g_world = 1;

void Check(weft_status_t s, const char* what) {
  if (s == WEFT_OK) return;
  std::fprintf(stderr, "rank %d: %s: %s\n", g_rank, what, weft_last_error());
  std::exit(1);
}

double Timed(const std::function<void()>& fn) {
  Check(weft_barrier(g_ctx, nullptr, 0, nullptr, nullptr, nullptr), "barrier");
  const auto t0 = Clock::now();
  fn();
  Check(weft_barrier(g_ctx, nullptr, 0, nullptr, nullptr, nullptr), "barrier");
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void DropCache(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

void DropDir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d))
    if (e->d_name[0] != '.') DropCache(dir + "/" + e->d_name);
  closedir(d);
}

struct Tensors {
  int64_t rows, cols = 1024;
  std::vector<std::unique_ptr<weft_layout_t, weft_status_t (*)(weft_layout_t*)>> layouts;
  std::vector<std::vector<float>> blocks;
  std::vector<std::string> names;
};

// n tensors of [rows, cols] in `placement` on mesh (split: explicit sizes of dim 0 or empty).
Tensors Make(weft_mesh_t* mesh, int n, int64_t rows, weft_placement_t placement,
             const std::vector<int64_t>& split) {
  Tensors t;
  t.rows = rows;
  for (int i = 0; i < n; ++i) {
    const int64_t shape[2] = {rows, t.cols};
    weft_layout_t* l = nullptr;
    const int64_t* sizes[2] = {split.empty() ? nullptr : split.data(), nullptr};
    const int64_t counts[2] = {static_cast<int64_t>(split.size()), 0};
    Check(weft_layout_create_ragged(mesh, 2, shape, DLDataType{kDLFloat, 32, 1}, &placement,
                                    split.empty() ? nullptr : sizes,
                                    split.empty() ? nullptr : counts, &l),
          "layout");
    t.layouts.emplace_back(l, weft_layout_destroy);
    int64_t local[2], off[2];
    Check(weft_layout_local_shape(l, g_rank, local, off), "local shape");
    t.blocks.emplace_back(static_cast<size_t>(local[0] * local[1]), 1.0f + i);
    t.names.push_back("layer." + std::to_string(i) + ".weight");
  }
  return t;
}

double Run(Tensors& t, const std::string& path, bool save) {
  std::vector<const char*> names;
  std::vector<const weft_layout_t*> ls;
  std::vector<DLTensor> ts(t.blocks.size());
  std::vector<std::vector<int64_t>> shapes(t.blocks.size());
  for (size_t i = 0; i < t.blocks.size(); ++i) {
    names.push_back(t.names[i].c_str());
    ls.push_back(t.layouts[i].get());
    shapes[i].resize(2);
    int64_t off[2];
    weft_layout_local_shape(t.layouts[i].get(), g_rank, shapes[i].data(), off);
    ts[i] = DLTensor{t.blocks[i].data(), {kDLCPU, 0}, 2, {kDLFloat, 32, 1},
                     shapes[i].data(),   nullptr,     0};
  }
  std::vector<const DLTensor*> in;
  std::vector<DLTensor*> out;
  for (DLTensor& x : ts) {
    in.push_back(&x);
    out.push_back(&x);
  }
  const auto n = static_cast<int32_t>(ts.size());
  if (save) {
    weft_checkpoint_save_options_t o = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
    o.overwrite = 1;
    return Timed([&] {
      Check(weft_checkpoint_save(g_ctx, path.c_str(), n, names.data(), ls.data(), in.data(), &o,
                                 nullptr),
            "save");
    });
  }
  DropDir(path);
  return Timed([&] {
    Check(
        weft_checkpoint_load(g_ctx, path.c_str(), n, names.data(), ls.data(), out.data(), nullptr),
        "load");
  });
}

// The reference: this rank's bytes written to / read from one file of its own.
std::pair<double, double> Plain(const std::string& dir, const Tensors& t) {
  const std::string path = dir + "/plain-" + std::to_string(g_rank);
  const double w = Timed([&] {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (const auto& b : t.blocks)
      if (write(fd, b.data(), b.size() * 4) != static_cast<ssize_t>(b.size() * 4)) std::exit(3);
    fsync(fd);
    close(fd);
  });
  DropCache(path);
  std::vector<float> buf(t.blocks.empty() ? 0 : t.blocks[0].size());
  const double r = Timed([&] {
    const int fd = open(path.c_str(), O_RDONLY);
    off_t at = 0;
    for (size_t i = 0; i < t.blocks.size(); ++i) {
      const auto bytes = static_cast<ssize_t>(buf.size() * 4);
      if (pread(fd, buf.data(), bytes, at) != bytes) std::exit(4);
      at += bytes;
    }
    close(fd);
  });
  unlink(path.c_str());
  return {w, r};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ckpt_bench DIR [total_mib=1024] [tensors=64]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int64_t total_mib = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int n = argc > 3 ? std::atoi(argv[3]) : 64;
  Check(weft_context_create(nullptr, &g_ctx), "context");
  weft_context_rank(g_ctx, &g_rank);
  weft_context_world_size(g_ctx, &g_world);
  const int64_t world[1] = {g_world};
  weft_mesh_t* mesh = nullptr;
  Check(weft_mesh_create(g_ctx, 1, world, nullptr, &mesh), "mesh");
  const int64_t rows = total_mib * 1024 * 1024 / 4 / 1024 / n;
  Tensors saved = Make(mesh, n, rows, WEFT_PLACEMENT_SHARD(0), {});
  // A ragged split shifted by a quarter piece: every rank reads parts of two boxes.
  std::vector<int64_t> shifted(static_cast<size_t>(g_world), rows / g_world);
  shifted[0] -= rows / g_world / 4;
  shifted.back() += rows / g_world / 4 + rows % g_world;
  Tensors ragged = Make(mesh, n, rows, WEFT_PLACEMENT_SHARD(0), shifted);
  Tensors cols = Make(mesh, n, rows, WEFT_PLACEMENT_SHARD(1), {});
  // The disk of a shared machine drifts: the measurements alternate, and each figure is the
  // median of `kReps`.
  constexpr int kReps = 3;
  std::vector<double> pw, pr, sv, lr, lc;
  const std::string ck = dir + "/bench-ckpt";
  for (int rep = 0; rep < kReps; ++rep) {
    const auto [w, r] = Plain(dir, saved);
    pw.push_back(w);
    pr.push_back(r);
    sv.push_back(Run(saved, ck, true));
    lr.push_back(Run(ragged, ck, false));
    lc.push_back(Run(cols, ck, false));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double plain_w = median(pw), plain_r = median(pr), save = median(sv),
               load_ragged = median(lr), load_cols = median(lc);
  if (g_rank == 0) {
    const double gib = static_cast<double>(total_mib) / 1024;
    std::printf("ckpt_bench: %d ranks, %d tensors, %.2f GiB\n", g_world, n, gib);
    std::printf("  plain write+fsync  %6.2f GiB/s\n", gib / plain_w);
    std::printf("  weft save          %6.2f GiB/s  ratio %.2f\n", gib / save, plain_w / save);
    std::printf("  plain read         %6.2f GiB/s\n", gib / plain_r);
    std::printf("  load S0->S0 ragged %6.2f GiB/s  ratio %.2f\n", gib / load_ragged,
                plain_r / load_ragged);
    std::printf("  load S0->S1        %6.2f GiB/s  ratio %.2f\n", gib / load_cols,
                plain_r / load_cols);
  }
  weft_mesh_destroy(mesh);
  Check(weft_context_destroy(g_ctx), "destroy");
  return 0;
}
