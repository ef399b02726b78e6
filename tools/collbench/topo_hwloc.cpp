// DiscoverPlace with hwloc: the PU this process last ran on (its binding when it has one),
// and that PU's ancestors.
#include <hwloc.h>
#include <unistd.h>

#include <sys/stat.h>
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/collbench/topo.hpp"

namespace weft::collbench {
namespace {

int32_t AncestorIndex(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t pu) {
  const hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, pu);
  return a ? static_cast<int32_t>(a->logical_index) : -1;
}

// The NUMA node whose cpuset holds the PU (NUMA nodes hang off the tree as memory children in
// hwloc 2, so they are not ancestors).
int32_t NumaOf(hwloc_topology_t t, hwloc_obj_t pu) {
  const int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    const hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node && hwloc_bitmap_isincluded(pu->cpuset, node->cpuset))
      return static_cast<int32_t>(node->logical_index);
  }
  return -1;
}

void Append(char* list, size_t cap, const char* name) {
  const size_t used = std::strlen(list);
  std::snprintf(list + used, cap - used, "%s%s", used ? "," : "", name);
}

void OsDevices(hwloc_topology_t t, RankPlace* p) {
  for (hwloc_obj_t d = hwloc_get_next_osdev(t, nullptr); d; d = hwloc_get_next_osdev(t, d)) {
    const auto type = d->attr->osdev.type;
    if (type == HWLOC_OBJ_OSDEV_NETWORK || type == HWLOC_OBJ_OSDEV_OPENFABRICS)
      Append(p->nics, sizeof(p->nics), d->name);
    else if (type == HWLOC_OBJ_OSDEV_GPU || type == HWLOC_OBJ_OSDEV_COPROC)
      Append(p->gpus, sizeof(p->gpus), d->name);
  }
}

}  // namespace

bool DiscoverPlace(RankPlace* p, std::string* error) {
  gethostname(p->host, sizeof(p->host) - 1);
  struct stat st;
  if (stat("/proc/self/ns/net", &st) == 0) p->netns = static_cast<uint64_t>(st.st_ino);
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) {
    *error = "hwloc_topology_init failed";
    return false;
  }
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(t) != 0) {
    hwloc_topology_destroy(t);
    *error = "hwloc_topology_load failed";
    return false;
  }
  hwloc_bitmap_t bound = hwloc_bitmap_alloc(), last = hwloc_bitmap_alloc();
  const bool have_bound = hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_PROCESS) == 0;
  hwloc_get_last_cpu_location(t, last, HWLOC_CPUBIND_THREAD);
  hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t, last, HWLOC_OBJ_PU, 0);
  if (pu == nullptr) pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 0);
  if (pu != nullptr) {
    p->pu = static_cast<int32_t>(pu->logical_index);
    p->core = AncestorIndex(t, HWLOC_OBJ_CORE, pu);
    p->l3 = AncestorIndex(t, HWLOC_OBJ_L3CACHE, pu);
    p->package = AncestorIndex(t, HWLOC_OBJ_PACKAGE, pu);
    p->numa = NumaOf(t, pu);
    p->bound = have_bound && hwloc_bitmap_isincluded(bound, pu->cpuset) ? 1 : 0;
  }
  OsDevices(t, p);
  hwloc_bitmap_free(bound);
  hwloc_bitmap_free(last);
  hwloc_topology_destroy(t);
  return true;
}

}  // namespace weft::collbench
