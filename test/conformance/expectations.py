"""Expected-failures lists shared by the conformance runners.

A list has one line per case that is known to fail, `CASE_ID  # reason`;
blank lines and lines starting with `#` are comments. A run fails on a case
that fails without being listed, and on a listed case that passes, so the
list stays true.
"""
from pathlib import Path


def load(path):
    """{case id: reason} from an expected-failures list."""
    out = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        case_id, _, reason = line.partition("  # ")
        out[case_id.strip()] = reason.strip()
    return out


def within_budget(listed, base, percent, what):
    """False (after printing why) when `listed` expected failures exceed
    `percent`% of `base` cases: a list may excuse only that many."""
    limit = base * percent / 100.0
    if listed > limit:
        print(f"FAIL {what}: {listed} listed, more than {percent:g}% of {base} ({limit:.1f})")
        return False
    print(f"{what}: {listed} listed, within {percent:g}% of {base} ({limit:.1f})")
    return True


def report(results, expected, list_path, write_path=None, keep_listed_reasons=True):
    """Prints the unexpected failures and passes of `results` ({case id: None
    or problem}) against `expected`, optionally writes every failing case in
    list format to `write_path` (with the listed reason where one exists when
    `keep_listed_reasons`, else the problem seen now), and returns
    (unexpected failures as {case id: problem}, unexpected passes)."""
    unexpected_fail = {c: p for c, p in results.items() if p and c not in expected}
    unexpected_pass = sorted(c for c, p in results.items() if p is None and c in expected)
    for c, p in sorted(unexpected_fail.items()):
        print(f"FAIL {c}: {p}")
    for c in unexpected_pass:
        print(f"UNEXPECTED PASS {c} (remove it from {list_path})")
    if write_path:
        with open(write_path, "w") as out:
            for c, p in sorted(results.items()):
                if p:
                    reason = expected.get(c, p) if keep_listed_reasons else p
                    out.write(f"{c}  # {reason}\n")
    return unexpected_fail, unexpected_pass
