#!/usr/bin/python3
"""`webnnc inspect --dot / --html` models and checks (test/lit/tools/inspect-render.test).

usage: inspect_render.py make DIR
       inspect_render.py check ARTIFACT PLAN DOT SVG HTML
make writes DIR/if.onnx: an If on a graph input whose branches read an outer
initializer and an outer intermediate. check compares what the renderers
wrote with the artifact's own plan (`webnnc inspect --plan`) and insists the
rendered SVG and the HTML page are well-formed XML, the page self-contained.
Where the dot shows placements (an artifact that records them), each node's
backend and each copy per run must be the plan's, every copy a node on the
edges it serves, in the dot, the SVG and the page; elsewhere none is shown.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save


def make(d):
    os.makedirs(d, exist_ok=True)
    f = TensorProto.FLOAT
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    then = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t0"], name="then_add"),
                              helper.make_node("Add", ["t0", "x2"], ["t_out"], name="then_add2")],
                             "then", [], [helper.make_tensor_value_info("t_out", f, [2, 3])])
    els = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["e0"], name="else_mul"),
                             helper.make_node("Sub", ["e0", "w"], ["e_out"], name="else_sub")],
                            "else", [], [helper.make_tensor_value_info("e_out", f, [2, 3])])
    nodes = [helper.make_node("Add", ["x", "x"], ["x2"], name="double"),
             helper.make_node("If", ["cond"], ["y"], name="choose", then_branch=then, else_branch=els)]
    g = helper.make_graph(nodes, "branchy", [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                                             helper.make_tensor_value_info("x", f, [2, 3])],
                          [helper.make_tensor_value_info("y", f, [2, 3])], [w])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), os.path.join(d, "if.onnx"))


def expect(cond, message):
    if not cond:
        sys.exit("FAIL: " + message)


def check(artifact, plan_file, dot_file, svg_file, html_file):
    with open(plan_file) as f:
        plan_text = f.read()
    # `  offset 8192 bytes 3072 live [0, 1] 'name' float32 [1,16,16,3]`, then
    # ` over 'x'` where the tensor was planned over a dying input.
    plan = sorted((int(m[0]), m[1]) for m in re.findall(
        r"^ +offset (\d+) bytes \d+ live .* '.*' \S+ (\[[^\]]*\])(?: over '[^']*')?$", plan_text, re.M))
    expect(plan, f"no arena plan in {plan_file}")
    nodes = int(re.search(r'graph +"[^"]*": (\d+) nodes', plan_text)[1])

    with open(dot_file) as f:
        dot = f.read()
    # Each arena tensor's first appearance (edges repeat a tensor per reader).
    placed = sorted(set((int(off), shape) for shape, off in
                        re.findall(r"\\n\S+ (\[[^\]]*\])\\narena @(\d+)", dot)))
    expect(placed == sorted(set(plan)), f"arena offsets in the dot {placed} differ from the plan {sorted(set(plan))}")
    main_nodes = re.findall(r"^  n(\d+) \[label=\"#\d+ ", dot, re.M)
    expect(len(main_nodes) == nodes, f"{len(main_nodes)} main-graph nodes in the dot, the artifact has {nodes}")

    svg = ET.parse(svg_file).getroot()
    titles = {t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")}
    expect({f"n{i}" for i in range(nodes)} <= titles, f"dot -Tsvg lost nodes: {sorted(titles)}")

    with open(html_file) as f:
        html = f.read()
    root = ET.fromstring(html)  # well-formed (XHTML-compatible markup)
    for bad in ["<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import", "http://", "https://"]:
        expect(bad not in html, f"the HTML page is not self-contained: it has {bad!r}")
    rows = root.findall(".//tr[@id]")
    main_rows = [r for r in rows if re.fullmatch(r"n\d+", r.get("id"))]
    expect(len(main_rows) == nodes, f"{len(main_rows)} main-graph rows in the HTML, the artifact has {nodes}")
    fused_dot = len(re.findall(r"\\nfused: ", dot))
    fused_html = len([r for r in rows if r.get("class") == "fused"])
    expect(fused_dot == fused_html, f"fused nodes: {fused_dot} in the dot, {fused_html} in the HTML")
    arena_rows = len(root.findall(".//div[@class='arena']"))
    expect(arena_rows == len(plan), f"{arena_rows} arena rows in the HTML, {len(plan)} tensors in the plan")
    drawn = {t.text.split(" ")[0] for t in root.iter("text") if t.text and t.text.startswith("#")}
    expect(drawn == {f"#{i}" for i in range(nodes)}, f"the page's drawing has nodes {sorted(drawn)}, not 0..{nodes - 1}")
    subgraph_rows = [r for r in rows if r.get("id").startswith("s")]
    print(f"{os.path.basename(artifact)}: {nodes} nodes, {len(subgraph_rows)} subgraph nodes, {fused_dot} fused, "
          f"{len(plan)} arena tensors: dot, svg and html agree with the plan")
    check_placement(plan_text, nodes, dot, titles, root, main_rows)


def check_placement(plan_text, nodes, dot, svg_titles, html, main_rows):
    shown = re.findall(r'^  n(\d+) \[label="[^"]*\\non ([^" ]+)', dot, re.M)
    copies = re.findall(r'^  x(\d+) \[shape=cds, [^\n]*label="copy (before|after) #(\d+): (\S+) (\S+) -> (\S+), ', dot, re.M)
    copy_rows = html.findall(".//tr[@class='copy']")
    if "\\nplacement: " not in dot:
        expect(not shown and not copies and not copy_rows, "placements drawn for an artifact that records none")
        return
    # `  #0    vulkan   relu  ...` and `  before #0  x  cpu -> vulkan  24 B`.
    section = plan_text[plan_text.index("\nplacement\n"):]
    backends = {int(i): b for i, b in re.findall(r"^  #(\d+) +(\S+) ", section, re.M)}
    expect(len(backends) == nodes, f"the plan places {len(backends)} nodes, the artifact has {nodes}")
    expect({int(i): b for i, b in shown} == backends, f"backends in the dot {shown} differ from the plan {backends}")
    transfers = re.findall(r"^  (before|after) +#(\d+)  (\S+)  (\S+) -> (\S+)  ", section, re.M)
    drawn = [(w, n, t, f, to) for _, w, n, t, f, to in sorted(copies, key=lambda c: int(c[0]))]
    expect(drawn == transfers, f"copies in the dot {drawn} differ from the plan's {transfers}")
    for k, when, node, *_ in copies:
        # A copy before a node feeds it; a copy after one is fed by it.
        edge = f"  x{k} -> n{node} " if when == "before" else f"  n{node} -> x{k} "
        expect(edge in dot, f"copy x{k} ({when} #{node}) is not on its node's edge: no `{edge.strip()}`")
        expect(f"x{k}" in svg_titles, f"dot -Tsvg lost copy x{k}")
    expect(len(copy_rows) == len(transfers), f"{len(copy_rows)} copy rows in the HTML, {len(transfers)} in the plan")
    cells = {int(r.get("id")[1:]): "".join(r.findall("td")[3].itertext()).split(" ")[0] for r in main_rows}
    expect(cells == backends, f"backends in the HTML {cells} differ from the plan {backends}")
    on = sorted(set(backends.values()))
    print(f"placement: {', '.join(f'{b} {list(backends.values()).count(b)}' for b in on)}, "
          f"{len(transfers)} copies per run: dot, svg and html agree with the plan")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(*sys.argv[2:7])
