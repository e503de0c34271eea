"""Runs WPT's l2Pool2d case "options.roundingType=ceil" with the option under
the spec's current name, outputShapeRounding, through webnnc and webnn-run, and
checks the ceil-sized output and its values against WPT's expected data.

usage: pool_rounding.py SRC_ROOT TOOLS_DIR WORKDIR
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

src, tools, work = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
sys.path.insert(0, str(src / "test/conformance"))
import run_wpt  # noqa: E402
import wpt_to_dsl  # noqa: E402

name = "l2Pool2d float32 4D tensor options.roundingType=ceil"
cases = json.loads((src / "test/conformance/wpt/l2Pool2d.json").read_text())["tests"]
case = next(c for c in cases if c["name"] == name)
options = case["graph"]["operators"][0]["arguments"][1]["options"]
options["outputShapeRounding"] = options.pop("roundingType")

work.mkdir(parents=True, exist_ok=True)
feeds, expected = wpt_to_dsl.convert(case, work)
print((work / "graph.webnn").read_text())
subprocess.run([str(tools / "webnnc"), "compile", str(work / "graph.webnn"), "-o",
                str(work / "graph.wnn")], check=True)
cmd = [str(tools / "webnn-run"), str(work / "graph.wnn"), "--output-dir", str(work / "out")]
for feed, path in feeds.items():
    cmd += ["--input", f"{feed}={path}"]
subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
for out, (_, want) in expected.items():
    got = np.load(work / "out" / f"{out}.npy")
    print(f"{out} shape {list(got.shape)} expected {list(want.shape)}")
    problem = run_wpt.compare(got, want, ["l2Pool2d"])
    print(f"{out}: {problem or 'matches WPT'}")
