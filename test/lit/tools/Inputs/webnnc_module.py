"""Lays out a copy of webnnc whose compile module is missing, broken or not
webnnc's, for webnnc-start.test:

  webnnc_module.py TOOLS_DIR DEST missing|garbage|foreign

copies TOOLS_DIR/webnnc to DEST/bin/webnnc and, at the module's path
relative to it (the one the build tree uses, found beside TOOLS_DIR), puts
nothing, a text file, or a shared library without the module's entry points.
Prints the module path that webnnc will name."""
import glob
import os
import shutil
import sys

tools_dir, dest, mode = sys.argv[1:4]
build_root = os.path.dirname(os.path.abspath(tools_dir))
# lib/webnnc/ or e.g. lib64/webnnc/, lib/x86_64-linux-gnu/webnnc/ (GNUInstallDirs).
found = sorted(set(glob.glob(os.path.join(build_root, "*", "webnnc", "webnnc-compile.so")) +
                   glob.glob(os.path.join(build_root, "*", "*", "webnnc", "webnnc-compile.so"))))
if len(found) != 1:
    sys.exit(f"expected one webnnc-compile.so under {build_root}, found {found}")
rel = os.path.relpath(found[0], os.path.abspath(tools_dir))
os.makedirs(os.path.join(dest, "bin"), exist_ok=True)
shutil.copy2(os.path.join(tools_dir, "webnnc"), os.path.join(dest, "bin", "webnnc"))
module = os.path.normpath(os.path.join(dest, "bin", rel))
os.makedirs(os.path.dirname(module), exist_ok=True)
if mode == "garbage":
    with open(module, "w") as f:
        f.write("not a shared library\n")
elif mode == "foreign":
    # A real shared object that loads without MLIR but lacks the entry points.
    shutil.copy2(os.path.join(build_root, "lib", "libwebnn.so"), module)
elif mode != "missing":
    sys.exit(f"unknown mode {mode}")
print(module)
