# lit configuration for webnnc's FileCheck tests (test/lit/**).
# Tools resolve through PATH: the build's bin/ (webnn-opt, webnnc,
# webnn-run) first, then LLVM's (FileCheck, not, split-file).
import os

import lit.formats

config.name = "webnnc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
obj_root = getattr(config, "webnn_obj_root", None)
if obj_root is None:
    lit_config.fatal("run lit on the build tree (<build>/test/lit), not the sources")
config.test_exec_root = os.path.join(obj_root, "test", "lit")

tools_dir = config.webnn_tools_dir
llvm_tools_dir = config.llvm_tools_dir or "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join(
    [tools_dir, llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

# Tests that need a tool another part of the build provides say
# `REQUIRES: webnnc` (or webnn-run) and are skipped when it is not built.
for tool in ["webnn-opt", "webnnc", "webnn-run"]:
    if os.path.exists(os.path.join(tools_dir, tool)):
        config.available_features.add(tool)

# `REQUIRES: vulkan`: the runtime links the Vulkan backend (the tests then
# run on whatever Vulkan device the machine has; lavapipe in CI).
if getattr(config, "webnn_vulkan_backend", "").upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("vulkan")
    config.environment["LP_NUM_THREADS"] = "2"
    config.environment.setdefault("XDG_RUNTIME_DIR", os.path.join(obj_root, "test", "lit", "xdg"))
    os.makedirs(config.environment["XDG_RUNTIME_DIR"], exist_ok=True)

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%webnn_src_root", config.webnn_src_root))
config.substitutions.append(("%webnn_tools", tools_dir))
