"""Writes test/fixtures/real-runs/README.md from the fixtures' case.json files: every case with its
framework versions, the command that remakes it, its rounds and size. Run after a maker:

    python3 tools/real-runs/fixtures_readme.py

test/real-runs/fixtures-readme.test.ts fails when the README no longer matches the fixtures.
"""

import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "real-runs")
KEYS = {"trl": ["trl", "transformers", "torch", "wandb"], "verl": ["verl", "transformers", "torch", "wandb"], "openrlhf": ["openrlhf", "transformers", "torch", "wandb"]}


def cases():
    for fw in sorted(os.listdir(ROOT)):
        d = os.path.join(ROOT, fw)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            f = os.path.join(d, name, "case.json")
            if os.path.exists(f):
                yield fw, name, json.load(open(f)), os.path.join(d, name)


def size(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))


def main() -> None:
    lines = [
        "# Real runs: fixtures written by the frameworks' own code",
        "",
        "Made by `tools/real-runs/` (README there: what is real, what is stubbed, and why). Never edit a file",
        "here by hand: remake it with the case's command, then `python3 tools/real-runs/fixtures_readme.py`.",
        "`test/real-runs/conformance.test.ts` freezes and exports every case; a case's rounds may point at",
        "another case's files (a lineage). Sizes in bytes.",
        "",
        "| case | versions | command | rounds (W&B run id, history rows counted by wandb's own reader) | bytes |",
        "|---|---|---|---|---|",
    ]
    total = 0
    for fw, name, c, folder in cases():
        v = c["versions"]
        versions = ", ".join(f"{k} {v[k]}" for k in KEYS[fw] if k in v) + f", Python {v.get('python', '?')}"
        command = c["command"].split("  #")[0]
        rounds = "; ".join(
            f"{r['round']} `{r['wandbRunId']}` {r['historyRecords']}{'' if r.get('exitRecord') else ' (no exit record)'}" for r in c["rounds"]
        )
        n = size(folder)
        total += n
        lines.append(f"| `{fw}/{name}` | {versions} | `{command}` | {rounds} | {n:,} |")
    lines += ["", f"Total: {total:,} bytes.", ""]
    open(os.path.join(ROOT, "README.md"), "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
