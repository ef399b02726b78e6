#include "backends/gloo/gloo_device.hpp"

#include <unistd.h>

#include <string>
#include <string_view>

#include <gloo/transport/tcp/attr.h>
#include <gloo/transport/tcp/device.h>

#include "backends/gloo/errors.hpp"
#include "backends/gloo/gloo_guard.hpp"
#include "backends/gloo/params.hpp"

namespace weft::backends::gloo_plugin {
namespace {

// A text variable of params.hpp (text never fails to parse; unset is empty).
std::string Env(std::string_view name) {
  for (const weft_bk_param_t& p : kParams)
    if (name == p.name) return param::Read(p).value.text;
  return {};
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// The attribute and a description of where it came from, for messages.
::gloo::transport::tcp::attr ChooseAttr(const weft_bk_init_args_t& args, std::string* source) {
  ::gloo::transport::tcp::attr attr;
  if (const std::string iface = Env("WEFT_GLOO_IFACE"); !iface.empty()) {
    attr.iface = iface;
    *source = "interface " + iface + " (WEFT_GLOO_IFACE)";
  } else if (const std::string host = Env("WEFT_GLOO_HOST"); !host.empty()) {
    attr.hostname = host;
    *source = "host " + host + " (WEFT_GLOO_HOST)";
  } else if (args.local_world_size == args.world_size) {
    // Every rank is on this host: loopback needs no name resolution and no routable NIC.
    attr.hostname = "127.0.0.1";
    *source = "127.0.0.1 (all ranks on one host)";
  } else {
    attr.hostname = HostName();
    *source = "host name " + attr.hostname + " (set WEFT_GLOO_IFACE or WEFT_GLOO_HOST to override)";
  }
  return attr;
}

}  // namespace

weft_status_t CreateTcpDevice(const Host& host, const weft_bk_init_args_t& args,
                              std::shared_ptr<::gloo::transport::Device>* device) {
  std::string source;
  try {
    const auto attr = ChooseAttr(args, &source);
    *device = std::make_shared<GuardedDevice>(::gloo::transport::tcp::CreateDevice(attr));
  } catch (...) {
    const Failure f = ClassifyCurrentException();
    return host.Fail(WEFT_ERR_NOT_AVAILABLE,
                     "init: cannot create a Gloo TCP device on " + source + ": " + f.message);
  }
  host.Log(WEFT_LOG_DEBUG, "gloo: TCP device on " + source);
  return WEFT_OK;
}

}  // namespace weft::backends::gloo_plugin
