//===- ConfigOverlay.h - scoped in-process config overrides -----*- C++ -*-===//
//
// The overlay tier: configs chosen by the caller for a region of code (a
// C++ RAII scope) or a run of a tool (`--config-overlay FILE.json`), asked
// before the caches and the tuning database. A file looks like
//
//   {"configs": {
//      "ejk.flash_attention;q=1x128x4x64xf32;...": {"block_q": 8, "block_k":
//      32}, "ejk.flash_attention": {"block_q": 16, "block_k": 64}}}
//
// A key is a problem key (as `ejk-print-config-space` or the explain remark
// prints it) or an op name, which applies to every problem of that op; the
// exact key wins. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_STORE_TUNING_CONFIGOVERLAY_H
#define EJK_STORE_TUNING_CONFIGOVERLAY_H

#include "ejk/Store/Tuning/TuningDatabase.h"

#include <map>
#include <optional>
#include <string>

namespace ejk {

/// Configs by problem key or op name.
class ConfigOverlay {
public:
  void set(const std::string &key, ConfigValues config);
  bool empty() const { return configs.empty(); }

  /// The config of `problemKey`, else of its op name (the key up to the
  /// first ';').
  std::optional<ConfigValues> lookup(const std::string &problemKey) const;

  /// Parses the JSON form; fails with a message on anything else.
  static bool parse(const std::string &text, ConfigOverlay &overlay,
                    std::string &error);
  /// Reads and parses `path`; the message names the file.
  static bool readFile(const std::string &path, ConfigOverlay &overlay,
                       std::string &error);

private:
  std::map<std::string, ConfigValues> configs;
};

/// Makes `overlay` active in this process (every thread) for the scope's
/// lifetime. Scopes nest: the innermost is asked first.
class ConfigOverlayScope {
public:
  explicit ConfigOverlayScope(ConfigOverlay overlay);
  ~ConfigOverlayScope();
  ConfigOverlayScope(const ConfigOverlayScope &) = delete;
  ConfigOverlayScope &operator=(const ConfigOverlayScope &) = delete;

  /// The answer of the active scopes for `problemKey`, innermost first.
  static std::optional<ConfigValues>
  lookupActive(const std::string &problemKey);

private:
  size_t id;
};

} // namespace ejk

#endif // EJK_STORE_TUNING_CONFIGOVERLAY_H
