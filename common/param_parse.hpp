// The one parser of WEFT_* environment variables (docs/parameters.md). Header-only, so that
// backend plugins, which may include only weft/backend_plugin.h and header-only common/
// pieces, read their variables exactly as the host checks them. A variable is declared once,
// as a weft_bk_param_t (the plugin ABI's descriptor; the Declare* helpers below); the host's
// registry (common/params.hpp) and the plugin loader build on this file.
//
// Grammar: an empty value counts as unset (job scripts "clear" variables with `export VAR=`).
// Integers are decimal with an optional '-' (no '+', spaces or other suffixes); sizes take one
// optional K, M or G (any case, powers of 1024); booleans are 0/1, true/false or yes/no (any
// case); enums one of their declared words (any case). Anything else is an error naming the
// variable, its text and what it must be; never a silent default.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/tuning_file.hpp"
#include "weft/backend_plugin.h"

namespace weft::param {

inline constexpr int64_t kKiB = int64_t{1} << 10;
inline constexpr int64_t kMiB = int64_t{1} << 20;
inline constexpr int64_t kGiB = int64_t{1} << 30;
inline constexpr int64_t kTiB = int64_t{1} << 40;

// Short names for the descriptor's audience and flags.
inline constexpr int32_t kUser = WEFT_BK_PARAM_USER;
inline constexpr int32_t kTuning = WEFT_BK_PARAM_TUNING;
inline constexpr int32_t kDebug = WEFT_BK_PARAM_DEBUG;
inline constexpr int32_t kLaunch = WEFT_BK_PARAM_LAUNCH;
inline constexpr uint32_t kLocal = 0;  // may differ between ranks
inline constexpr uint32_t kMustMatch = WEFT_BK_PARAM_MUST_MATCH;
inline constexpr uint32_t kSecret = WEFT_BK_PARAM_SECRET;

// Declarations: one call per variable. default_value nullptr: no default (the reader decides
// what unset means, and doc says it).
constexpr weft_bk_param_t Declare(int32_t type, const char* name, const char* default_value,
                                  int64_t min, int64_t max, int32_t audience, uint32_t flags,
                                  const char* doc, const char* choices = nullptr) {
  return weft_bk_param_t{
      sizeof(weft_bk_param_t), type, name, default_value, min, max, choices, doc, audience, flags};
}
constexpr weft_bk_param_t DeclareInt(const char* name, const char* def, int64_t min, int64_t max,
                                     int32_t audience, uint32_t flags, const char* doc) {
  return Declare(WEFT_BK_PARAM_INT, name, def, min, max, audience, flags, doc);
}
constexpr weft_bk_param_t DeclareBool(const char* name, const char* def, int32_t audience,
                                      uint32_t flags, const char* doc) {
  return Declare(WEFT_BK_PARAM_BOOL, name, def, 0, 1, audience, flags, doc);
}
constexpr weft_bk_param_t DeclareBytes(const char* name, const char* def, int64_t min, int64_t max,
                                       int32_t audience, uint32_t flags, const char* doc) {
  return Declare(WEFT_BK_PARAM_BYTES, name, def, min, max, audience, flags, doc);
}
// Milliseconds in [min, max], or -1 for no deadline (the one way to say "forever").
constexpr weft_bk_param_t DeclareDeadlineMs(const char* name, const char* def, int64_t min,
                                            int64_t max, int32_t audience, uint32_t flags,
                                            const char* doc) {
  return Declare(WEFT_BK_PARAM_MS, name, def, min, max, audience, flags | WEFT_BK_PARAM_FOREVER,
                 doc);
}
constexpr weft_bk_param_t DeclareString(const char* name, const char* def, int32_t audience,
                                        uint32_t flags, const char* doc) {
  return Declare(WEFT_BK_PARAM_STRING, name, def, 0, 0, audience, flags, doc);
}
constexpr weft_bk_param_t DeclareEnum(const char* name, const char* def, const char* choices,
                                      int32_t audience, uint32_t flags, const char* doc) {
  return Declare(WEFT_BK_PARAM_ENUM, name, def, 0, 0, audience, flags, doc, choices);
}

// A parsed value. Canonical text: decimal for INT, BYTES and MS (sizes in bytes), "0"/"1"
// for BOOL, the declared word for ENUM, the text itself for STRING; empty when unset. The
// must-match check compares it, so "1M" and "1048576" agree.
struct Value {
  bool set = false;    // false: unset and no default
  int64_t number = 0;  // INT, BYTES, MS (-1: no deadline), BOOL (0/1), ENUM (index of the word)
  std::string text;
};

struct Parsed {
  Value value;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

enum class IntError { kNone, kSyntax, kRange };

// A decimal integer: an optional '-', then digits only.
inline IntError ParseInteger(std::string_view s, int64_t* out) {
  const char* end = s.data() + s.size();
  const auto [stop, ec] = std::from_chars(s.data(), end, *out);
  if (ec == std::errc::result_out_of_range && stop == end) return IntError::kRange;
  if (ec != std::errc() || stop != end) return IntError::kSyntax;
  return IntError::kNone;
}

namespace detail {

inline char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline bool EqualNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (Lower(a[i]) != Lower(b[i])) return false;
  return true;
}

// A size: digits and one optional K, M or G.
inline bool ParseSize(std::string_view s, int64_t* out) {
  int shift = 0;
  if (!s.empty()) {
    const char c = Lower(s.back());
    shift = c == 'k' ? 10 : c == 'm' ? 20 : c == 'g' ? 30 : 0;
    if (shift != 0) s.remove_suffix(1);
  }
  if (s.empty() || s.front() == '-') return false;
  if (ParseInteger(s, out) != IntError::kNone) return false;
  if (*out > (INT64_MAX >> shift)) return false;
  *out <<= shift;
  return true;
}

// "8M" for 8 MiB, "1000" for what no suffix divides: bounds read as a user writes them.
inline std::string ShowSize(int64_t v) {
  const char* suffix[] = {"", "K", "M", "G", "T"};
  int i = 0;
  while (i < 4 && v != 0 && v % 1024 == 0) {
    v /= 1024;
    ++i;
  }
  return std::to_string(v) + suffix[i];
}

// Calls f(word, index) for each '|'-separated word of choices until f returns true.
template <typename F>
bool ForEachChoice(const char* choices, F&& f) {
  std::string_view rest = choices ? choices : "";
  for (int64_t i = 0;; ++i) {
    const size_t bar = rest.find('|');
    if (f(rest.substr(0, bar), i)) return true;
    if (bar == std::string_view::npos) return false;
    rest.remove_prefix(bar + 1);
  }
}

inline std::string Bounds(const weft_bk_param_t& p, bool sizes) {
  const auto show = [&](int64_t v) { return sizes ? ShowSize(v) : std::to_string(v); };
  return "[" + show(p.min) + ", " + show(p.max) + "]";
}

inline bool ParseNumber(const weft_bk_param_t& p, std::string_view s, Value* v) {
  switch (p.type) {
    case WEFT_BK_PARAM_INT:
      if (ParseInteger(s, &v->number) != IntError::kNone) return false;
      break;
    case WEFT_BK_PARAM_BYTES:
      if (!ParseSize(s, &v->number)) return false;
      break;
    case WEFT_BK_PARAM_MS:
      if (ParseInteger(s, &v->number) != IntError::kNone) return false;
      if (v->number == -1 && (p.flags & WEFT_BK_PARAM_FOREVER)) {
        v->text = "-1";
        return true;
      }
      break;
    default:
      return false;
  }
  if (v->number < p.min || v->number > p.max) return false;
  v->text = std::to_string(v->number);
  return true;
}

inline bool ParseWord(const weft_bk_param_t& p, std::string_view s, Value* v) {
  if (p.type == WEFT_BK_PARAM_STRING) {
    v->text = std::string(s);
    return true;
  }
  if (p.type == WEFT_BK_PARAM_BOOL) {
    const bool yes = s == "1" || EqualNoCase(s, "true") || EqualNoCase(s, "yes");
    const bool no = s == "0" || EqualNoCase(s, "false") || EqualNoCase(s, "no");
    v->number = yes ? 1 : 0;
    v->text = yes ? "1" : "0";
    return yes || no;
  }
  return ForEachChoice(p.choices, [&](std::string_view word, int64_t i) {
    if (word.empty() || !EqualNoCase(word, s)) return false;
    v->number = i;
    v->text = std::string(word);
    return true;
  });
}

}  // namespace detail

// What a value of p must be, for messages: "an integer in [0, 8]".
inline std::string Expectation(const weft_bk_param_t& p) {
  switch (p.type) {
    case WEFT_BK_PARAM_INT:
      return "an integer in " + detail::Bounds(p, false);
    case WEFT_BK_PARAM_BOOL:
      return "0 or 1 (or true/false, yes/no)";
    case WEFT_BK_PARAM_BYTES:
      return "a number of bytes in " + detail::Bounds(p, true) +
             ", optionally with a K, M or G suffix (x1024)";
    case WEFT_BK_PARAM_MS:
      return "a whole number of milliseconds in " + detail::Bounds(p, false) +
             ((p.flags & WEFT_BK_PARAM_FOREVER) ? ", or -1 for no deadline" : "");
    case WEFT_BK_PARAM_ENUM: {
      std::string words;
      detail::ForEachChoice(p.choices, [&](std::string_view w, int64_t i) {
        words += (i ? ", " : "") + std::string(w);
        return false;
      });
      return "one of " + words;
    }
    default:
      return "any text";
  }
}

// Parses `text` as a value of p; empty text is unset: the default, or no value.
inline Parsed Parse(const weft_bk_param_t& p, std::string_view text) {
  Parsed out;
  const bool is_default = text.empty();
  if (is_default) {
    if (p.default_value == nullptr) return out;
    text = p.default_value;
  }
  const bool numeric =
      p.type == WEFT_BK_PARAM_INT || p.type == WEFT_BK_PARAM_BYTES || p.type == WEFT_BK_PARAM_MS;
  const bool ok =
      numeric ? detail::ParseNumber(p, text, &out.value) : detail::ParseWord(p, text, &out.value);
  if (ok) {
    out.value.set = true;
    return out;
  }
  out.value = Value{};
  out.error = std::string(p.name) + (is_default ? "'s default" : "") + " is '" + std::string(text) +
              "' but must be " + Expectation(p);
  return out;
}

// The variable's text in the environment; for a tuning variable the environment has not set,
// the tuning file's (WEFT_TUNING_FILE, common/tuning_file.hpp), so that what collbench tune
// measured applies to libweft and the plugins alike while a variable set by hand still wins;
// nullptr when neither sets it.
inline const char* RawValue(const weft_bk_param_t& p) {
  const char* v = std::getenv(p.name);
  if (v != nullptr && *v != '\0') return v;
  return p.audience == WEFT_BK_PARAM_TUNING ? tuning::ParamText(p.name) : nullptr;
}

// Reads p from the environment now. Not safe against a concurrent setenv, like getenv.
inline Parsed Read(const weft_bk_param_t& p) {
  const char* raw = RawValue(p);
  return Parse(p, raw ? raw : "");
}

// Why a descriptor is malformed (a bug of whoever declared it); empty when it is sound.
inline std::string CheckDescriptor(const weft_bk_param_t& p) {
  if (p.name == nullptr) return "has no name";
  const std::string_view name = p.name;
  if (name.size() < 6 || name.substr(0, 5) != "WEFT_") return "is not named WEFT_*";
  for (const char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return "has a name with a character other than A-Z, 0-9 and _";
  if (p.type < WEFT_BK_PARAM_INT || p.type > WEFT_BK_PARAM_ENUM) return "has an unknown type";
  if (p.audience < WEFT_BK_PARAM_USER || p.audience > WEFT_BK_PARAM_LAUNCH)
    return "has an unknown audience";
  if (p.flags & ~(WEFT_BK_PARAM_MUST_MATCH | WEFT_BK_PARAM_FOREVER | WEFT_BK_PARAM_SECRET))
    return "has unknown flags";
  if ((p.flags & WEFT_BK_PARAM_SECRET) && (p.flags & WEFT_BK_PARAM_MUST_MATCH))
    return "is secret and must-match: a secret is never compared";
  if ((p.flags & WEFT_BK_PARAM_FOREVER) && p.type != WEFT_BK_PARAM_MS)
    return "says -1 means forever but is not a duration";
  if (p.doc == nullptr || *p.doc == '\0') return "has no doc line";
  if (p.min > p.max) return "has min > max";
  if (p.type == WEFT_BK_PARAM_ENUM &&
      detail::ForEachChoice(p.choices, [](std::string_view w, int64_t) { return w.empty(); }))
    return "has an empty choice (choices are '|'-separated words)";
  if (p.default_value != nullptr) {
    if (*p.default_value == '\0') return "has an empty default (NULL means none)";
    const Parsed d = Parse(p, "");  // unset: the default
    if (!d.ok()) return "has a bad default: " + d.error;
  }
  return {};
}

}  // namespace weft::param
