#!/usr/bin/env python3
"""Installs the build into a temporary prefix and uses it as an app would.

  1. `cmake --install BUILD --prefix TMP`: the headers, libwebnn (shared with
     SONAME libwebnn.so.<major>, exporting only webnn_* and webnn::*, and
     static), the CLIs, the CMake package and webnn.pc are where
     docs/EMBEDDING.md says; every installed tool answers --version.
  2. The installed webnnc compiles examples/mlp.
  3. examples/embed-c and examples/embed-cpp build against TMP with
     find_package(webnn) (embed-cpp also static, compiling mlp at build time
     with webnn_compile_model()), and embed-c with the
     documented `cc main.c $(pkg-config --cflags --libs webnn)` line and
     its static form (libwebnn.a and webnn.pc's Libs.private); each
     runs the artifact and matches examples/mlp/expected.npy (the tolerances
     of examples/run.sh), and reports bad input with the runtime's message.
  4. The installed Python package: `python3 -c "import webnn; ..."` with
     PYTHONPATH at the prefix's site folder compiles examples/mlp in process
     (its installed compiler module), runs it and matches expected.npy, and
     reports a bad input with the runtime's message; its modules find
     libwebnn and libwebnn-compiler through an $ORIGIN-relative RUNPATH.
  3b. examples/embed-compile builds against webnn::compiler and
     webnn::runtime, compiles examples/mlp in memory, runs it and matches
     expected.npy; libwebnn-compiler.so exports no webnn:: name outside
     webnn::compiler; a bad model exits 1 with webnnc's message.
  5. The source tree configures as a subproject with WEBNN_BUILD_TESTS=OFF,
     and no CMakeLists.txt or .cmake file names /usr/bin/python* or the
     source or build folder's absolute path.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np


def run(cmd, env=None, shell=False, expect_rc=0):
    p = subprocess.run(cmd, env=env, shell=shell, capture_output=True, text=True)
    if expect_rc is not None and p.returncode != expect_rc:
        shown = cmd if shell else " ".join(cmd)
        sys.exit(f"FAIL: `{shown}` exited {p.returncode} (expected {expect_rc})\n{p.stdout}\n{p.stderr}")
    return p


def check(cond, message):
    if not cond:
        sys.exit("FAIL: " + message)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--version", required=True, help="the project's version")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--generator", default=None)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--pkg-config", default="pkg-config")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="webnn-install-")
    try:
        test(args, tmp)
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


def test(args, tmp):
    src = os.path.abspath(args.source_dir)
    prefix = os.path.join(tmp, "prefix")
    run([args.cmake, "--install", args.build_dir, "--prefix", prefix])

    # 1. The layout.
    major = args.version.split(".")[0]
    libs = glob.glob(os.path.join(prefix, "lib*", "**", "libwebnn.so." + args.version), recursive=True)
    check(len(libs) == 1, f"expected one libwebnn.so.{args.version} under {prefix}, found {libs}")
    libdir = os.path.dirname(libs[0])
    for name in ["libwebnn.so", "libwebnn.so." + major, "libwebnn.a", "pkgconfig/webnn.pc",
                 "cmake/webnn/webnnConfig.cmake", "cmake/webnn/webnnConfigVersion.cmake"]:
        check(os.path.exists(os.path.join(libdir, name)), f"{name} not installed in {libdir}")
    for name in ["webnn_c.h", "runtime.h", "status.h", "types.h", "npy.h", "version.h"]:
        check(os.path.exists(os.path.join(prefix, "include", "webnn", name)), f"include/webnn/{name} not installed")
    dynamic = run(["readelf", "-d", libs[0]]).stdout
    check(f"[libwebnn.so.{major}]" in dynamic, f"SONAME is not libwebnn.so.{major}:\n{dynamic}")
    symbols = run(["nm", "-D", "--defined-only", "-C", libs[0]]).stdout.splitlines()
    names = [line.split(" ", 2)[2] for line in symbols if line.count(" ") >= 2]
    stray = [n for n in names if not (n.startswith("webnn_") or n.startswith("webnn::"))]
    check(names and not stray, f"libwebnn.so exports more than the API: {stray[:10]}")
    for needed in ["webnn_session_run", "webnn_model_load_memory", "webnn_version", "webnn_set_log_callback",
                   "webnn_session_create_with_options"]:
        check(needed in names, f"libwebnn.so does not export {needed}")
    print(f"libwebnn.so: {len(names)} exported symbols, {os.path.getsize(libs[0])} bytes")

    tools = ["webnn-run"] + [t for t in ["webnnc", "webnn-opt"]
                             if os.path.exists(os.path.join(prefix, "bin", t))]
    for tool in tools:
        out = run([os.path.join(prefix, "bin", tool), "--version"]).stdout
        check(out.splitlines()[0] == f"{tool} {args.version}", f"{tool} --version printed {out!r}")
    # Subcommands answer it too.
    for tool, sub in [("webnnc", "compile"), ("webnnc", "inspect"), ("webnnc", "estimate"),
                      ("webnn-run", "generate"), ("webnn-run", "calibrate"), ("webnn-run", "limits")]:
        out = run([os.path.join(prefix, "bin", tool), sub, "--version"]).stdout
        check(out.strip() == f"{tool} {args.version}", f"{tool} {sub} --version printed {out!r}")
    check("webnnc" in tools, "webnnc not installed (a compiler build installs it)")

    # 2. The example artifact, compiled by the installed compiler.
    mlp = os.path.join(src, "examples", "mlp")
    wnn = os.path.join(tmp, "mlp.wnn")
    run([os.path.join(prefix, "bin", "webnnc"), "compile", os.path.join(mlp, "mlp.webnn"), "-o", wnn])
    x = np.load(os.path.join(mlp, "input.npy"))
    expected = np.load(os.path.join(mlp, "expected.npy"))
    x_bin = os.path.join(tmp, "x.bin")
    x.tofile(x_bin)

    def check_output(y, how):
        check(y.shape == expected.shape and y.dtype == expected.dtype,
              f"{how}: output {y.dtype} {y.shape}, expected {expected.dtype} {expected.shape}")
        check(np.allclose(y, expected, rtol=1e-5, atol=1e-7),
              f"{how}: max |diff| {np.max(np.abs(y - expected))}")
        print(f"{how}: matches expected.npy (max |diff| {np.max(np.abs(y - expected)):.2e})")

    # 3. find_package(webnn).
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    generator = ["-G", args.generator] if args.generator else []
    built = {}
    for example, variant, extra in [("embed-c", "shared", []), ("embed-cpp", "shared", []),
                                    ("embed-cpp", "static", ["-DEMBED_STATIC=ON",
                                                             "-DEMBED_MODEL=" + os.path.join(mlp, "mlp.webnn")])]:
        bdir = os.path.join(tmp, f"build-{example}-{variant}")
        run([args.cmake, "-S", os.path.join(src, "examples", example), "-B", bdir, *generator,
             f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_C_COMPILER={args.cc}", f"-DCMAKE_CXX_COMPILER={args.cxx}",
             "-DCMAKE_BUILD_TYPE=Release", *extra], env=env)
        run([args.cmake, "--build", bdir], env=env)
        exe = os.path.join(bdir, example)
        needed = run(["readelf", "-d", exe]).stdout
        check(("libwebnn.so" in needed) == (variant == "shared"),
              f"{example} ({variant}) dynamic section:\n{needed}")
        built[(example, variant)] = exe

    y_bin = os.path.join(tmp, "y.bin")
    run([built[("embed-c", "shared")], wnn, x_bin, y_bin], env=env)
    check_output(np.fromfile(y_bin, dtype=expected.dtype).reshape(expected.shape), "embed-c (find_package)")
    # The static build also compiled mlp.webnn with webnn_compile_model().
    built_model = os.path.join(tmp, "build-embed-cpp-static", "model.wnn")
    check(os.path.exists(built_model), "webnn_compile_model() wrote no model.wnn")
    for variant, model in [("shared", wnn), ("static", built_model)]:
        y_npy = os.path.join(tmp, f"y-{variant}.npy")
        run([built[("embed-cpp", variant)], model, os.path.join(mlp, "input.npy"), y_npy], env=env)
        check_output(np.load(y_npy), f"embed-cpp ({variant}, find_package, {os.path.basename(model)})")

    # The compiler library: compile in memory, run from memory.
    compiler_libs = glob.glob(os.path.join(libdir, "libwebnn-compiler.so." + args.version))
    check(len(compiler_libs) == 1, f"libwebnn-compiler.so.{args.version} not installed in {libdir}")
    check(os.path.exists(os.path.join(prefix, "include", "webnn", "compiler.h")), "include/webnn/compiler.h not installed")
    exported = run(["nm", "-D", "--defined-only", "-C", compiler_libs[0]]).stdout.splitlines()
    webnn_names = [l.split(" ", 2)[2] for l in exported if l.count(" ") >= 2 and l.split(" ", 2)[2].startswith("webnn::")]
    stray = [n for n in webnn_names if not n.startswith("webnn::compiler::")]
    check(webnn_names and not stray, f"libwebnn-compiler.so exports runtime names: {stray[:5]}")
    bdir = os.path.join(tmp, "build-embed-compile")
    run([args.cmake, "-S", os.path.join(src, "examples", "embed-compile"), "-B", bdir, *generator,
         f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_CXX_COMPILER={args.cxx}", "-DCMAKE_BUILD_TYPE=Release"], env=env)
    run([args.cmake, "--build", bdir], env=env)
    y_npy = os.path.join(tmp, "y-embed-compile.npy")
    p = run([os.path.join(bdir, "embed-compile"), os.path.join(mlp, "mlp.webnn"), os.path.join(mlp, "input.npy"),
             y_npy], env=env)
    import json
    result = json.loads(p.stdout)
    check(result["status"] == "ok" and result["rewrites"] and result["output"]["bytes"] > 0,
          f"embed-compile's compile result: {result}")
    check_output(np.load(y_npy), "embed-compile (webnn::compiler, in memory)")
    bad = os.path.join(tmp, "bad.webnn")
    with open(bad, "w") as f:
        f.write("webnn_graph broken\n")
    p = run([os.path.join(bdir, "embed-compile"), bad, os.path.join(mlp, "input.npy"), y_npy], env=env, expect_rc=1)
    check(bad in p.stderr and "error" in p.stderr, f"embed-compile, bad model: {p.stderr!r}")

    # The same C program through pkg-config, as docs/EMBEDDING.md writes it.
    pc_env = dict(env, PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"))
    exe = os.path.join(tmp, "embed-c-pkg-config")
    line = (f"{args.cc} {os.path.join(src, 'examples', 'embed-c', 'main.c')} "
            f"$({args.pkg_config} --cflags --libs webnn) -o {exe}")
    run(line, env=pc_env, shell=True)
    version = run([args.pkg_config, "--modversion", "webnn"], env=pc_env).stdout.strip()
    check(version == args.version, f"pkg-config --modversion webnn: {version}")
    run_env = dict(env, LD_LIBRARY_PATH=libdir)
    run([exe, wnn, x_bin, y_bin], env=run_env)
    check_output(np.fromfile(y_bin, dtype=expected.dtype).reshape(expected.shape), "embed-c (pkg-config)")
    # Static, with the line docs/EMBEDDING.md gives (libwebnn.a plus webnn.pc's Libs.private).
    static_exe = os.path.join(tmp, "embed-c-pkg-config-static")
    with open(os.path.join(libdir, "pkgconfig", "webnn.pc")) as f:
        private = next((l.split(":", 1)[1].strip() for l in f if l.startswith("Libs.private:")), "")
    check(private == "-ldnnl -lnettle -fopenmp -lpthread -lstdc++ -lm",
          f"webnn.pc's Libs.private is {private!r}, not the libraries docs/EMBEDDING.md names")
    run(f"{args.cc} {os.path.join(src, 'examples', 'embed-c', 'main.c')} $({args.pkg_config} --cflags webnn) "
        f"\"$({args.pkg_config} --variable=libdir webnn)/libwebnn.a\" {private} -o {static_exe}", env=pc_env, shell=True)
    check("libwebnn.so" not in run(["readelf", "-d", static_exe]).stdout, "the static embed-c links libwebnn.so")
    run([static_exe, wnn, x_bin, y_bin], env=env)
    check_output(np.fromfile(y_bin, dtype=expected.dtype).reshape(expected.shape), "embed-c (pkg-config, libwebnn.a)")

    # Errors reach the app as the runtime's messages.
    missing = os.path.join(tmp, "missing.wnn")
    p = run([exe, missing, x_bin, y_bin], env=run_env, expect_rc=1)
    check(p.stderr.startswith("embed-c: load: ") and missing in p.stderr, f"missing model: {p.stderr!r}")
    truncated = os.path.join(tmp, "truncated.wnn")
    with open(wnn, "rb") as f, open(truncated, "wb") as g:
        g.write(f.read()[:100])
    p = run([exe, truncated, x_bin, y_bin], env=run_env, expect_rc=1)
    check(p.stderr.startswith("embed-c: load: ") and len(p.stderr.strip()) > len("embed-c: load: "),
          f"truncated model: {p.stderr!r}")
    short = os.path.join(tmp, "short.bin")
    x[:, :-1].tofile(short)
    p = run([exe, wnn, short, y_bin], env=run_env, expect_rc=1)
    check("input 'x' takes 256" in p.stderr, f"short input: {p.stderr!r}")
    wrong_type = os.path.join(tmp, "x-int32.npy")
    np.save(wrong_type, x.astype(np.int32))
    p = run([built[("embed-cpp", "shared")], wnn, wrong_type, os.path.join(tmp, "y.npy")], env=env, expect_rc=1)
    check(p.stderr.startswith("embed-cpp: input: ") and "int32" in p.stderr, f"int32 input: {p.stderr!r}")
    wrong_shape = os.path.join(tmp, "x-shape.npy")
    np.save(wrong_shape, x.reshape(2, 32))
    p = run([built[("embed-cpp", "shared")], wnn, wrong_shape, os.path.join(tmp, "y.npy")], env=env, expect_rc=1)
    check(p.stderr.startswith("embed-cpp: run: ") and "got [2,32]" in p.stderr, f"[2, 32] input: {p.stderr!r}")
    print("errors: missing/truncated model, short, int32 and [2, 32] inputs each reported")

    # 4. The Python package, from the installed tree only.
    packages = glob.glob(os.path.join(prefix, "lib*", "**", "webnn", "__init__.py"), recursive=True)
    check(len(packages) == 1, f"expected one installed Python package webnn under {prefix}, found {packages}")
    site = os.path.dirname(os.path.dirname(packages[0]))
    modules = glob.glob(os.path.join(site, "webnn", "_runtime*.so"))
    check(len(modules) == 1, f"no webnn/_runtime*.so beside {packages[0]}")
    runpath = run(["readelf", "-d", modules[0]]).stdout
    check("$ORIGIN" in runpath and os.path.abspath(args.build_dir) not in runpath,
          f"webnn/_runtime's RUNPATH is not relative to the install:\n{runpath}")
    # webnn.compile below runs the installed compiler module in process.
    compilers = glob.glob(os.path.join(site, "webnn", "_compiler*.so"))
    check(len(compilers) == 1, f"no webnn/_compiler*.so beside {packages[0]} (a compiler build installs it)")
    dynamic = run(["readelf", "-d", compilers[0]]).stdout
    check(f"[libwebnn-compiler.so.{major}]" in dynamic and "$ORIGIN" in dynamic
          and os.path.abspath(args.build_dir) not in dynamic,
          f"webnn/_compiler does not load the installed libwebnn-compiler.so through $ORIGIN:\n{dynamic}")
    script = (
        "import sys, numpy as np, webnn\n"
        "wnn, x, expected, out = sys.argv[1:5]\n"
        "r = webnn.compile(sys.argv[5], wnn)\n"
        "assert r['status'] == 'ok' and r['output']['bytes'] > 0, r\n"
        "y = webnn.load(wnn).session(threads=2).run({'x': np.load(x)})['probs']\n"
        "np.save(out, y)\n"
        "try:\n"
        "    webnn.load(wnn).session().run({'x': np.load(x).reshape(2, 32)})\n"
        "    sys.exit('no error for a [2, 32] input')\n"
        "except webnn.Error as e:\n"
        "    print(e.code, e)\n"
        "print(webnn.__file__, webnn.webnnc_path(), webnn.version())\n")
    py_env = dict(env, PYTHONPATH=site)
    py_env.pop("WEBNNC", None)
    y_npy = os.path.join(tmp, "y-python.npy")
    p = run([sys.executable, "-c", script, os.path.join(tmp, "mlp-python.wnn"), os.path.join(mlp, "input.npy"),
             os.path.join(mlp, "expected.npy"), y_npy, os.path.join(mlp, "mlp.webnn")], env=py_env)
    lines = p.stdout.splitlines()
    check(lines[0] == "invalid_argument input 'x': expected float32 [1,64], got float32 [2,32]",
          f"python: bad input reported as {lines[0]!r}")
    check(lines[1] == f"{packages[0]} {os.path.join(prefix, 'bin', 'webnnc')} {args.version}",
          f"python: package, webnnc or version not the installed ones: {lines[1]!r}")
    check_output(np.load(y_npy), "python3 -c 'import webnn' (installed)")

    # 5. As a subproject, without tests: configures (PROJECT_* paths, no
    # GoogleTest), webnn::runtime resolves, and the schema generates into the
    # subproject's build folder. Building the whole runtime again is left out
    # (minutes); the build-runtime preset builds the same files.
    parent = os.path.join(tmp, "parent")
    os.makedirs(parent)
    with open(os.path.join(parent, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.20)\nproject(parent C CXX)\n"
                "set(WEBNN_BUILD_TESTS OFF CACHE BOOL \"\")\nset(WEBNN_BUILD_COMPILER OFF CACHE BOOL \"\")\n"
                f"add_subdirectory({src} webnn)\n"
                f"add_executable(app {os.path.join(src, 'examples', 'embed-c', 'main.c')})\n"
                "target_link_libraries(app PRIVATE webnn::runtime)\n")
    pbuild = os.path.join(tmp, "build-parent")
    run([args.cmake, "-S", parent, "-B", pbuild, *generator, f"-DCMAKE_C_COMPILER={args.cc}",
         f"-DCMAKE_CXX_COMPILER={args.cxx}"], env=env)
    with open(os.path.join(pbuild, "CMakeCache.txt")) as f:
        cache = f.read()
    check("GTest" not in cache, "WEBNN_BUILD_TESTS=OFF still looked for GoogleTest")
    check(not os.path.exists(os.path.join(pbuild, "webnn", "test")), "WEBNN_BUILD_TESTS=OFF still added test/")
    run([args.cmake, "--build", pbuild, "--target", "webnn_schema_gen"], env=env)
    for generated in ["schema/webnn_artifact_generated.h", "include/webnn/version.h"]:
        check(os.path.exists(os.path.join(pbuild, "webnn", generated)), f"subproject: no webnn/{generated}")
    print("subproject: configures without tests, generates into its own build folder")

    # No build file names one machine's interpreter or folders (find_package(Python3)
    # and paths relative to the source tree instead).
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d != "node_modules"]
        for name in files:
            if name == "CMakeLists.txt" or name.endswith(".cmake"):
                with open(os.path.join(root, name), errors="replace") as f:
                    text = f.read()
                for bad in ("/usr/bin/python", src + "/", os.path.abspath(args.build_dir) + "/"):
                    check(bad not in text, f"{os.path.join(root, name)} names the absolute path {bad!r}")


if __name__ == "__main__":
    main()
