# -*- Python -*-
# lit configuration for ejk: finds the built tools and Debian's FileCheck.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EJK"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "unit", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ejk_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%ejk_src_root", config.ejk_src_root))
config.substitutions.append(("%ejk_obj_root", config.ejk_obj_root))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.ejk_tools_dir, config.llvm_tools_dir]
tools = ["ejk-opt", "ejk-run", "ejkc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.ejk_tools_dir, append_path=True)

# The tools' artifact cache: a fresh one for every lit run, never the user's.
ejk_cache_dir = os.path.join(config.test_exec_root, "ejk-cache")
shutil.rmtree(ejk_cache_dir, ignore_errors=True)
config.environment["EJK_CACHE_DIR"] = ejk_cache_dir

# Optional features, so tests that need them are skipped loudly.
if shutil.which("spirv-val"):
    config.available_features.add("spirv-tools")
