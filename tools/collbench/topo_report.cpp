// RunTopo: every rank's place gathered, the groups that share a host / NUMA node / L3, the
// table and the JSON, and the rank order a mesh should use.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tools/collbench/topo.hpp"

namespace weft::collbench {
namespace {

struct TopoOptions {
  std::string out;
  std::vector<int64_t> mesh;
};

bool ParseTopo(int argc, char** argv, TopoOptions* o, std::string* error) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      *error = flag + " needs a value";
      return false;
    }
    if (flag == "--out") {
      o->out = argv[i + 1];
    } else if (flag == "--mesh") {
      for (const char* p = argv[i + 1]; *p;) {
        char* end = nullptr;
        const long long v = std::strtoll(p, &end, 10);
        if (end == p || v < 1) {
          *error = std::string("--mesh wants extents like 2x4, got ") + argv[i + 1];
          return false;
        }
        o->mesh.push_back(v);
        p = *end == 'x' ? end + 1 : end;
        if (*end != 'x' && *end != '\0') {
          *error = std::string("--mesh wants extents like 2x4, got ") + argv[i + 1];
          return false;
        }
      }
    } else {
      *error = "unknown option " + flag + " (collbench topo [--out FILE] [--mesh AxB])";
      return false;
    }
  }
  return true;
}

// Ranks grouped by `key`, groups in order of their first rank.
template <class Key>
std::vector<std::vector<int32_t>> Groups(const std::vector<RankPlace>& all, Key key) {
  std::vector<std::vector<int32_t>> groups;
  std::map<std::string, size_t> at;
  for (size_t r = 0; r < all.size(); ++r) {
    const std::string k = key(all[r]);
    auto [it, fresh] = at.emplace(k, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(static_cast<int32_t>(r));
  }
  return groups;
}

std::string List(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "[" + s + "]";
}

std::string Lists(const std::vector<std::vector<int32_t>>& g) {
  std::string s;
  for (const auto& v : g) s += (s.empty() ? "" : ",") + List(v);
  return "[" + s + "]";
}

// What a group of ranks shares at best: "core", "L3", "NUMA node", "host" or "nothing".
std::string Shared(const std::vector<RankPlace>& all, const std::vector<int32_t>& g) {
  auto same = [&](auto field) {
    for (int32_t r : g)
      if (field(all[static_cast<size_t>(r)]) != field(all[static_cast<size_t>(g[0])])) return false;
    return true;
  };
  if (!same([](const RankPlace& p) { return HostKey(p); })) return "nothing (across hosts)";
  if (same([](const RankPlace& p) { return p.core; })) return "a core";
  if (same([](const RankPlace& p) { return p.l3; }) && all[static_cast<size_t>(g[0])].l3 >= 0)
    return "an L3";
  if (same([](const RankPlace& p) { return p.numa; })) return "a NUMA node";
  return "a host";
}

// Ranks ordered closest first: host, NUMA node, L3, core, PU.
std::vector<int32_t> CloseOrder(const std::vector<RankPlace>& all) {
  std::map<std::string, int32_t> host_index;
  for (const RankPlace& p : all)
    host_index.emplace(HostKey(p), static_cast<int32_t>(host_index.size()));
  std::vector<int32_t> order(all.size());
  for (size_t r = 0; r < all.size(); ++r) order[r] = static_cast<int32_t>(r);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const RankPlace &x = all[static_cast<size_t>(a)], &y = all[static_cast<size_t>(b)];
    return std::make_tuple(host_index[HostKey(x)], x.numa, x.l3, x.core, x.pu) <
           std::make_tuple(host_index[HostKey(y)], y.numa, y.l3, y.core, y.pu);
  });
  return order;
}

// The innermost mesh dim's groups under `order` (consecutive runs of its extent).
std::vector<std::vector<int32_t>> Inner(const std::vector<int32_t>& order, int64_t extent) {
  std::vector<std::vector<int32_t>> g;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i % static_cast<size_t>(extent) == 0) g.emplace_back();
    g.back().push_back(order[i]);
  }
  return g;
}

void Print(const std::vector<RankPlace>& all, const TopoOptions& o) {
  std::printf("# collbench topo: %zu ranks\n", all.size());
  std::printf("# %4s %-24s %10s %7s %4s %3s %4s %4s %5s  %s\n", "rank", "host", "netns", "package",
              "numa", "l3", "core", "pu", "bound", "nics | gpus");
  for (size_t r = 0; r < all.size(); ++r) {
    const RankPlace& p = all[r];
    std::printf("  %4zu %-24s %10llu %7d %4d %3d %4d %4d %5s  %s | %s\n", r, p.host,
                static_cast<unsigned long long>(p.netns), p.package, p.numa, p.l3, p.core, p.pu,
                p.bound ? "yes" : "no", p.nics[0] ? p.nics : "-", p.gpus[0] ? p.gpus : "-");
  }
  const auto hosts = Groups(all, [](const RankPlace& p) { return HostKey(p); });
  const auto numa =
      Groups(all, [](const RankPlace& p) { return HostKey(p) + "#" + std::to_string(p.numa); });
  const auto l3 =
      Groups(all, [](const RankPlace& p) { return HostKey(p) + "#" + std::to_string(p.l3); });
  std::printf("# share a host: %s\n# share a NUMA node: %s\n# share an L3: %s\n",
              Lists(hosts).c_str(), Lists(numa).c_str(), Lists(l3).c_str());
  if (o.mesh.empty()) return;
  std::vector<int32_t> identity(all.size());
  for (size_t r = 0; r < all.size(); ++r) identity[r] = static_cast<int32_t>(r);
  const std::vector<int32_t> order = CloseOrder(all);
  const int64_t inner = o.mesh.back();
  std::string extents;
  for (int64_t e : o.mesh) extents += (extents.empty() ? "" : "x") + std::to_string(e);
  for (const auto& [name, ord] :
       {std::pair{"ranks in order", identity}, std::pair{"proposed order", order}}) {
    std::printf("# mesh %s, %s %s: innermost groups", extents.c_str(), name, List(ord).c_str());
    for (const auto& g : Inner(ord, inner))
      std::printf(" %s (%s)", List(g).c_str(), Shared(all, g).c_str());
    std::printf("\n");
  }
}

bool WriteTopoJson(const std::string& path, const std::vector<RankPlace>& all,
                   const TopoOptions& o) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "{\n  \"weft_topology\": 1,\n  \"ranks\": [\n");
  for (size_t r = 0; r < all.size(); ++r) {
    const RankPlace& p = all[r];
    std::fprintf(f,
                 "    {\"rank\": %zu, \"host\": \"%s\", \"netns\": %llu, \"package\": %d, "
                 "\"numa\": %d, \"l3\": %d, \"core\": %d, \"pu\": %d, \"bound\": %s, "
                 "\"nics\": \"%s\", \"gpus\": \"%s\"}%s\n",
                 r, p.host, static_cast<unsigned long long>(p.netns), p.package, p.numa, p.l3,
                 p.core, p.pu, p.bound ? "true" : "false", p.nics, p.gpus,
                 r + 1 < all.size() ? "," : "");
  }
  const auto hosts = Groups(all, [](const RankPlace& p) { return HostKey(p); });
  const auto numa =
      Groups(all, [](const RankPlace& p) { return HostKey(p) + "#" + std::to_string(p.numa); });
  const auto l3 =
      Groups(all, [](const RankPlace& p) { return HostKey(p) + "#" + std::to_string(p.l3); });
  std::fprintf(f, "  ],\n  \"hosts\": %s,\n  \"numa_nodes\": %s,\n  \"l3\": %s",
               Lists(hosts).c_str(), Lists(numa).c_str(), Lists(l3).c_str());
  if (!o.mesh.empty()) {
    std::string m;
    for (int64_t e : o.mesh) m += (m.empty() ? "" : ",") + std::to_string(e);
    std::fprintf(f, ",\n  \"mesh\": [%s],\n  \"proposed_order\": %s", m.c_str(),
                 List(CloseOrder(all)).c_str());
  }
  std::fprintf(f, "\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace

std::string HostKey(const RankPlace& p) {
  return std::string(p.host) + "/netns:" + std::to_string(p.netns);
}

bool GatherPlaces(weft_context_t* ctx, int32_t nranks, std::vector<RankPlace>* all,
                  std::string* error) {
  RankPlace mine;
  if (!DiscoverPlace(&mine, error)) return false;  // the same build on every rank: all fail
  all->assign(static_cast<size_t>(nranks), RankPlace{});
  int64_t n = sizeof(RankPlace), total = n * nranks;
  DLTensor send{&mine, {kDLCPU, 0}, 1, {kDLUInt, 8, 1}, &n, nullptr, 0};
  DLTensor recv{all->data(), {kDLCPU, 0}, 1, {kDLUInt, 8, 1}, &total, nullptr, 0};
  if (weft_allgather(ctx, nullptr, 0, &send, &recv, nullptr, nullptr, nullptr) != WEFT_OK) {
    *error = std::string("weft_allgather: ") + weft_last_error();
    return false;
  }
  return true;
}

int RunTopo(weft_context_t* ctx, int32_t rank, int32_t nranks, int argc, char** argv) {
  TopoOptions o;
  std::string error;
  if (!ParseTopo(argc, argv, &o, &error)) {
    std::fprintf(stderr, "collbench topo: %s\n", error.c_str());
    return 2;
  }
  int64_t product = 1;
  for (int64_t e : o.mesh) product *= e;
  if (!o.mesh.empty() && product != nranks) {
    std::fprintf(stderr, "collbench topo: --mesh has %lld ranks, the job %d\n",
                 static_cast<long long>(product), nranks);
    return 2;
  }
  std::vector<RankPlace> all;
  if (!GatherPlaces(ctx, nranks, &all, &error)) {
    std::fprintf(stderr, "collbench topo: rank %d: %s\n", rank, error.c_str());
    return 1;
  }
  if (rank != 0) return 0;
  Print(all, o);
  if (!o.out.empty() && !WriteTopoJson(o.out, all, o)) {
    std::fprintf(stderr, "collbench topo: cannot write %s\n", o.out.c_str());
    return 1;
  }
  return 0;
}

}  // namespace weft::collbench
