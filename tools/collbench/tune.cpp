// RunTune: places, link classes, ping-pong fits, local speeds, crossovers, the tuning file.
#include "tools/collbench/tune.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/tuning_file.hpp"
#include "tools/collbench/topo.hpp"
#include "tools/collbench/tune_crossover.hpp"
#include "tools/collbench/tune_fit.hpp"

namespace weft::collbench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kTag = 26002;

struct TuneOptions {
  std::string out = "weft-tuning.json";
  int64_t max_bytes = 4 << 20;
  double budget_s = 0.1;
  bool crossovers = true;
};

// "4M", "512K", "65536": bytes in [1K, 1G]; false when it is not.
bool ParseMax(const std::string& v, int64_t* out) {
  char* end = nullptr;
  int64_t n = std::strtoll(v.c_str(), &end, 10);
  if (*end == 'K' || *end == 'k') {
    n <<= 10;
    ++end;
  } else if (*end == 'M' || *end == 'm') {
    n <<= 20;
    ++end;
  }
  *out = n;
  return end != v.c_str() && *end == '\0' && n >= 1024 && n <= (int64_t{1} << 30);
}

// One flag's value into *o; false with *error.
bool ParseFlag(const std::string& flag, const std::string& v, TuneOptions* o, std::string* error) {
  if (flag == "--out") {
    o->out = v;
    return true;
  }
  if (flag == "--max") {
    if (ParseMax(v, &o->max_bytes)) return true;
    *error = "--max wants bytes in [1K, 1G] (e.g. 4M), got " + v;
    return false;
  }
  if (flag == "--budget") {
    char* end = nullptr;
    o->budget_s = std::strtod(v.c_str(), &end);
    if (*end == '\0' && o->budget_s > 0 && o->budget_s <= 10) return true;
    *error = "--budget wants seconds in (0, 10], got " + v;
    return false;
  }
  if (flag == "--crossovers") {
    o->crossovers = v == "1";
    if (v == "0" || v == "1") return true;
    *error = "--crossovers wants 0 or 1, got " + v;
    return false;
  }
  *error = "unknown option " + flag +
           " (collbench tune [--out FILE] [--max BYTES] [--budget S] [--crossovers 0|1])";
  return false;
}

bool ParseTune(int argc, char** argv, TuneOptions* o, std::string* error) {
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      *error = std::string(argv[i]) + " needs a value";
      return false;
    }
    if (!ParseFlag(argv[i], argv[i + 1], o, error)) return false;
  }
  return true;
}

DLTensor Bytes(void* p, int64_t* n) {
  return DLTensor{p, {kDLCPU, 0}, 1, {kDLUInt, 8, 1}, n, nullptr, 0};
}

bool Check(weft_status_t s, const char* what, std::string* error) {
  if (s == WEFT_OK) return true;
  *error = std::string(what) + ": " + weft_last_error();
  return false;
}

// Places as numbers equal exactly where ranks share a host, NUMA node or L3.
std::vector<tuning::Place> Places(const std::vector<RankPlace>& all) {
  std::map<std::string, int32_t> host, numa, l3;
  std::vector<tuning::Place> out;
  for (const RankPlace& p : all) {
    const std::string h = HostKey(p);
    tuning::Place t;
    t.host = host.emplace(h, static_cast<int32_t>(host.size())).first->second;
    if (p.numa >= 0)
      t.numa = numa.emplace(h + "#" + std::to_string(p.numa), static_cast<int32_t>(numa.size()))
                   .first->second;
    if (p.l3 >= 0)
      t.l3 =
          l3.emplace(h + "#" + std::to_string(p.l3), static_cast<int32_t>(l3.size())).first->second;
    out.push_back(t);
  }
  return out;
}

struct Link {
  tuning::LinkClass cls{};
  int32_t a = -1, b = -1;
  std::vector<Point> points;  // half round trips
  AlphaBeta fit;
  double stream_beta = 0;  // seconds per byte of a stream of the largest messages
};

// One pair per link class the job has: the first (a, b) in rank order.
std::vector<Link> Pairs(const std::vector<tuning::Place>& places) {
  std::vector<Link> links;
  for (int c = 0; c < tuning::kLinkClasses; ++c) {
    const auto cls = static_cast<tuning::LinkClass>(c);
    for (size_t a = 0; a < places.size() && (links.empty() || links.back().cls != cls); ++a)
      for (size_t b = a + 1; b < places.size(); ++b)
        if (tuning::ClassOf(places[a], places[b]) == cls) {
          links.push_back(Link{cls, static_cast<int32_t>(a), static_cast<int32_t>(b), {}, {}, 0});
          break;
        }
  }
  return links;
}

std::vector<int64_t> Sizes(int64_t max_bytes) {
  std::vector<int64_t> s;
  for (int64_t n = 8; n <= max_bytes; n *= 4) s.push_back(n);
  if (s.back() != max_bytes) s.push_back(max_bytes);
  return s;
}

// One pair's side of the measurement: rank a leads (chooses counts, times), rank b follows.
class Pair {
 public:
  Pair(weft_context_t* ctx, int32_t me, const Link& link, int64_t max_bytes, std::string* error)
      : ctx_(ctx),
        lead_(me == link.a),
        peer_(lead_ ? link.b : link.a),
        buf_(static_cast<size_t>(max_bytes), 1),
        error_(error) {}

  // One round trip of `bytes`: a sends and receives, b receives and sends.
  bool RoundTrip(int64_t bytes) {
    return lead_ ? Send(buf_.data(), bytes, kTag) && Recv(buf_.data(), bytes, kTag)
                 : Recv(buf_.data(), bytes, kTag) && Send(buf_.data(), bytes, kTag);
  }
  // a tells b a count.
  bool Agree(int64_t* value) {
    return lead_ ? Send(value, sizeof(*value), kTag + 1) : Recv(value, sizeof(*value), kTag + 1);
  }
  // `count` messages of `bytes` from a to b, then one 8-byte round trip.
  bool Stream(int64_t bytes, int64_t count) {
    for (int64_t k = 0; k < count; ++k)
      if (!(lead_ ? Send(buf_.data(), bytes, kTag) : Recv(buf_.data(), bytes, kTag))) return false;
    return RoundTrip(8);
  }
  bool lead() const { return lead_; }

 private:
  bool Send(void* p, int64_t bytes, int64_t tag) {
    DLTensor t = Bytes(p, &bytes);
    return Check(weft_send(ctx_, nullptr, 0, &t, peer_, tag, nullptr, nullptr, nullptr), "send",
                 error_);
  }
  bool Recv(void* p, int64_t bytes, int64_t tag) {
    DLTensor t = Bytes(p, &bytes);
    return Check(weft_recv(ctx_, nullptr, 0, &t, peer_, tag, nullptr, nullptr, nullptr), "recv",
                 error_);
  }

  weft_context_t* ctx_;
  bool lead_;
  int32_t peer_;
  std::vector<uint8_t> buf_;
  std::string* error_;
};

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// The median half round trip of `bytes`, over a count a chooses to fill the budget.
bool HalfRoundTrip(Pair& pair, int64_t bytes, double budget_s, double* seconds) {
  const auto w0 = Clock::now();
  if (!pair.RoundTrip(bytes) || !pair.RoundTrip(bytes)) return false;
  int64_t iters = 0;
  if (pair.lead())
    iters = std::clamp<int64_t>(static_cast<int64_t>(budget_s / std::max(Seconds(w0) / 2, 1e-7)), 5,
                                2000);
  if (!pair.Agree(&iters)) return false;
  std::vector<double> t(static_cast<size_t>(iters));
  for (auto& x : t) {
    const auto t0 = Clock::now();
    if (!pair.RoundTrip(bytes)) return false;
    x = Seconds(t0) / 2;
  }
  std::nth_element(t.begin(), t.begin() + iters / 2, t.end());
  *seconds = t[static_cast<size_t>(iters / 2)];
  return true;
}

// a and b only: half round trips at every size, then a stream of the largest size from a to
// b, enough of them to fill the budget, acknowledged once.
bool PingPong(weft_context_t* ctx, int32_t me, Link* link, const TuneOptions& o,
              std::string* error) {
  Pair pair(ctx, me, *link, o.max_bytes, error);
  for (int64_t bytes : Sizes(o.max_bytes)) {
    double seconds = 0;
    if (!HalfRoundTrip(pair, bytes, o.budget_s, &seconds)) return false;
    link->points.push_back(Point{static_cast<double>(bytes), seconds});
  }
  const double each = link->points.back().seconds;
  int64_t count =
      std::clamp<int64_t>(static_cast<int64_t>(o.budget_s / std::max(each, 1e-7)), 4, 64);
  if (!pair.Agree(&count)) return false;
  const auto t0 = Clock::now();
  if (!pair.Stream(o.max_bytes, count)) return false;
  // Less the ack's round trip, which the stream does not pay per message.
  link->stream_beta = std::max(Seconds(t0) - 2 * link->points.front().seconds, 1e-12) /
                      static_cast<double>(count * o.max_bytes);
  return true;
}

// Every rank gets a's figures (a broadcast of a fixed array).
bool ShareLink(weft_context_t* ctx, Link* link, size_t sizes, std::string* error) {
  std::vector<double> v(2 * sizes + 1, 0);
  for (size_t i = 0; i < link->points.size() && i < sizes; ++i) {
    v[2 * i] = link->points[i].bytes;
    v[2 * i + 1] = link->points[i].seconds;
  }
  v.back() = link->stream_beta;
  int64_t n = static_cast<int64_t>(v.size() * sizeof(double));
  DLTensor t = Bytes(v.data(), &n);
  if (!Check(weft_broadcast(ctx, nullptr, 0, &t, link->a, nullptr, nullptr, nullptr), "broadcast",
             error))
    return false;
  link->points.clear();
  for (size_t i = 0; i < sizes; ++i) link->points.push_back(Point{v[2 * i], v[2 * i + 1]});
  link->stream_beta = v.back();
  link->fit = FitLink(link->points);
  return true;
}

// Rank 0's memcpy and float32 add speeds over 64 MiB (best of five), seconds per byte.
void LocalSpeeds(double* copy_beta, double* reduce_beta) {
  const size_t n = size_t{16} << 20;  // floats
  std::vector<float> a(n, 1.0f), b(n, 2.0f);
  double best_copy = 1e9, best_add = 1e9;
  for (int k = 0; k < 5; ++k) {
    auto t0 = Clock::now();
    std::memcpy(b.data(), a.data(), n * sizeof(float));
    best_copy = std::min(best_copy, std::chrono::duration<double>(Clock::now() - t0).count());
    t0 = Clock::now();
    for (size_t i = 0; i < n; ++i) a[i] += b[i];
    best_add = std::min(best_add, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (a[n / 2] < 0) std::puts("");  // keeps the adds
  *copy_beta = best_copy / static_cast<double>(n * sizeof(float));
  *reduce_beta = best_add / static_cast<double>(n * sizeof(float));
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

nlohmann::json Json(const std::vector<RankPlace>& all, const std::vector<tuning::Place>& places,
                    const std::vector<Link>& links, double copy_beta, double reduce_beta,
                    const std::vector<CrossoverResult>& cross, const std::string& backend) {
  using nlohmann::json;
  json doc = {{"weft_tuning", tuning::kVersion},
              {"created_by", "collbench tune"},
              {"backend", backend},
              {"world_size", all.size()}};
  json ranks = json::array();
  for (size_t r = 0; r < all.size(); ++r)
    ranks.push_back({{"rank", r},
                     {"host", places[r].host},
                     {"numa", places[r].numa},
                     {"l3", places[r].l3},
                     {"host_name", all[r].host}});
  doc["ranks"] = ranks;
  json jl = json::object();
  for (const Link& l : links) {
    if (!l.fit.ok) continue;
    json pts = json::array();
    for (const Point& p : l.points) pts.push_back({p.bytes, p.seconds});
    jl[tuning::LinkClassName(l.cls)] = {{"alpha_s", l.fit.alpha},
                                        {"beta_s_per_byte", l.fit.beta},
                                        {"alpha_err_s", l.fit.alpha_err},
                                        {"beta_err_s_per_byte", l.fit.beta_err},
                                        {"fit_rel_rms", l.fit.rel_rms},
                                        {"stream_beta_s_per_byte", l.stream_beta},
                                        {"pair", {l.a, l.b}},
                                        {"half_round_trips", pts}};
  }
  doc["links"] = jl;
  doc["local"] = {{"copy_beta_s_per_byte", copy_beta}, {"reduce_beta_s_per_byte", reduce_beta}};
  json params = json::object(), table = json::array();
  for (const CrossoverResult& c : cross) {
    if (!c.value.empty()) params[c.variable] = c.value;
    json rows = json::array();
    for (size_t i = 0; i < c.a.size() && i < c.b.size(); ++i)
      rows.push_back({c.a[i].bytes, c.a[i].seconds, c.b[i].seconds});
    table.push_back({{"variable", c.variable},
                     {"first", c.first},
                     {"second", c.second},
                     {"value", c.value},
                     {"why", c.why},
                     {"bytes_first_second_s", rows}});
  }
  doc["params"] = params;
  doc["crossovers"] = table;
  return doc;
}

void PrintLinks(const std::vector<Link>& links) {
  std::printf("# %-10s %5s %5s %12s %10s %14s %10s %14s %8s\n", "class", "a", "b", "alpha us",
              "+- us", "beta GB/s", "+- %", "stream GB/s", "rel rms");
  for (const Link& l : links) {
    if (!l.fit.ok) {
      std::printf("  %-10s %5d %5d   (no fit)\n", tuning::LinkClassName(l.cls), l.a, l.b);
      continue;
    }
    const double beta_pct = l.fit.beta > 0 ? 100 * l.fit.beta_err / l.fit.beta : 0;
    std::printf("  %-10s %5d %5d %12.3f %10.3f %14.4f %10.1f %14.4f %8.3f\n",
                tuning::LinkClassName(l.cls), l.a, l.b, l.fit.alpha * 1e6, l.fit.alpha_err * 1e6,
                l.fit.beta > 0 ? 1e-9 / l.fit.beta : 0.0, beta_pct, 1e-9 / l.stream_beta,
                l.fit.rel_rms);
    std::printf("    half round trip:");
    for (const Point& p : l.points)
      std::printf(" %s B %s us;", Num(p.bytes).c_str(), Num(p.seconds * 1e6).c_str());
    std::printf("\n");
  }
}

void PrintCrossovers(const std::vector<CrossoverResult>& cross) {
  for (const CrossoverResult& c : cross) {
    std::printf("# %s: %s below, %s from the threshold: %s\n", c.variable.c_str(), c.first.c_str(),
                c.second.c_str(), c.why.c_str());
    for (size_t i = 0; i < c.a.size() && i < c.b.size(); ++i)
      std::printf("    %10s B  %10.1f us  %10.1f us\n", Num(c.a[i].bytes).c_str(),
                  c.a[i].seconds * 1e6, c.b[i].seconds * 1e6);
  }
}

std::string BackendOf(weft_context_t* ctx) {
  char name[64] = {};
  size_t needed = 0;
  return weft_context_backend_name(ctx, name, sizeof(name), &needed) == WEFT_OK ? name : "?";
}

// Everything tune measures (every rank has all but the local speeds, which are rank 0's).
struct Measured {
  std::vector<RankPlace> all;
  std::vector<tuning::Place> places;
  std::vector<Link> links;
  double copy_beta = 0, reduce_beta = 0;
  std::vector<CrossoverResult> cross;
  std::string backend;
};

bool Measure(weft_context_t* ctx, int32_t rank, int32_t nranks, const TuneOptions& o, Measured* m,
             std::string* error) {
  if (!GatherPlaces(ctx, nranks, &m->all, error)) return false;
  m->places = Places(m->all);
  m->links = Pairs(m->places);
  const size_t sizes = Sizes(o.max_bytes).size();
  for (Link& l : m->links) {
    if ((rank == l.a || rank == l.b) && !PingPong(ctx, rank, &l, o, error)) return false;
    if (!ShareLink(ctx, &l, sizes, error)) return false;
  }
  if (rank == 0) LocalSpeeds(&m->copy_beta, &m->reduce_beta);
  if (!Check(weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr), "barrier", error))
    return false;
  m->backend = BackendOf(ctx);
  if (!o.crossovers || m->backend != "ucx" || nranks < 2) return true;
  CrossoverOptions co;
  co.max_bytes = o.max_bytes;
  co.budget_s = o.budget_s / 2;
  co.one_host = true;
  for (const tuning::Place& p : m->places) co.one_host = co.one_host && p.host == m->places[0].host;
  if (RunCrossovers(rank, nranks, co, &m->cross, error)) return true;
  *error = "crossovers: " + *error;
  return false;
}

// Rank 0: the table, then the file, after reading it back as the runtime will.
int Report(const TuneOptions& o, int32_t nranks, const Measured& m) {
  std::printf("# collbench tune: %d ranks, backend %s, ping-pong 8 B .. %lld B\n", nranks,
              m.backend.c_str(), static_cast<long long>(o.max_bytes));
  PrintLinks(m.links);
  std::printf("# local (rank 0): copy %.3f GB/s, float32 add %.3f GB/s\n", 1e-9 / m.copy_beta,
              1e-9 / m.reduce_beta);
  PrintCrossovers(m.cross);
  const std::string text =
      Json(m.all, m.places, m.links, m.copy_beta, m.reduce_beta, m.cross, m.backend).dump(2) + "\n";
  auto check = tuning::Parse(text, o.out);
  if (!check.ok()) {
    std::fprintf(stderr, "collbench tune: the file does not read back: %s\n",
                 check.status().message().c_str());
    return 1;
  }
  std::ofstream f(o.out);
  f << text;
  f.close();
  if (!f) {
    std::fprintf(stderr, "collbench tune: cannot write %s\n", o.out.c_str());
    return 1;
  }
  std::printf("# wrote %s (WEFT_TUNING_FILE=%s)\n", o.out.c_str(), o.out.c_str());
  return 0;
}

}  // namespace

int RunTune(weft_context_t* ctx, int32_t rank, int32_t nranks, int argc, char** argv) {
  TuneOptions o;
  std::string error;
  if (!ParseTune(argc, argv, &o, &error)) {
    std::fprintf(stderr, "collbench tune: %s\n", error.c_str());
    return 2;
  }
  Measured m;
  if (!Measure(ctx, rank, nranks, o, &m, &error)) {
    std::fprintf(stderr, "collbench tune: rank %d: %s\n", rank, error.c_str());
    return 1;
  }
  return rank == 0 ? Report(o, nranks, m) : 0;
}

}  // namespace weft::collbench
