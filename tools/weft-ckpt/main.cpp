// weft-ckpt: inspect, verify, consolidate and split Weft checkpoints (docs/checkpoint.md).
//   weft-ckpt inspect DIR [--boxes]
//   weft-ckpt verify DIR
//   weft-ckpt consolidate DIR OUT.safetensors
//   weft-ckpt split IN.safetensors DIR --mesh 2x2 --placements S0,S1
// Exit status: 0 success, 1 a failed check or operation (message on stderr), 2 usage.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tools/weft-ckpt/commands.hpp"

namespace {

namespace ck = weft::tools::ckpt;

int Usage() {
  std::fprintf(stderr,
               "usage: weft-ckpt inspect DIR [--boxes]\n"
               "       weft-ckpt verify DIR\n"
               "       weft-ckpt consolidate DIR OUT.safetensors\n"
               "       weft-ckpt split IN.safetensors DIR --mesh AxB... --placements P,P...\n"
               "         (P: R or S<dim>; one per mesh dim)\n");
  return 2;
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

int SplitCommand(int argc, char** argv) {
  if (argc != 8) return Usage();
  std::vector<int64_t> mesh;
  std::vector<std::string> placements;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--mesh") == 0) {
      for (const std::string& e : SplitOn(argv[i + 1], 'x')) {
        char* end = nullptr;
        const long long v = std::strtoll(e.c_str(), &end, 10);
        if (e.empty() || *end != '\0' || v < 1) return Usage();
        mesh.push_back(v);
      }
    } else if (std::strcmp(argv[i], "--placements") == 0) {
      placements = SplitOn(argv[i + 1], ',');
    } else {
      return Usage();
    }
  }
  if (mesh.empty() || placements.size() != mesh.size()) return Usage();
  return ck::Split(argv[2], argv[3], mesh, placements);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string cmd = argv[1];
  if (cmd == "inspect" && (argc == 3 || (argc == 4 && std::strcmp(argv[3], "--boxes") == 0)))
    return ck::Inspect(argv[2], argc == 4);
  if (cmd == "verify" && argc == 3) return ck::Verify(argv[2]);
  if (cmd == "consolidate" && argc == 4) return ck::Consolidate(argv[2], argv[3]);
  if (cmd == "split") return SplitCommand(argc, argv);
  return Usage();
}
