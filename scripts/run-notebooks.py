"""Headless notebook runner for the workspace's TypeScript (tslab) notebooks.

Why our own runner: tslab reports a failing cell only through the execute reply's status
("error", or "abort" for cells sent right after) and writes the message to stderr; it sends no
`error` output. nbclient (and nbmake/nbval on top of it) only raises on status == "error" with an
error output, so a broken tslab notebook would pass. Here every reply whose status is not "ok" fails
the run, naming the notebook, the cell and the kernel's stderr.

Usage: run-notebooks.py [--out DIR] [--kernel NAME] [--timeout S] [--jobs N] [--times FILE] [--announce-fd FD] NOTEBOOK...
Exit status 0 when every cell of every notebook replied ok, 1 otherwise.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time

# jsonschema (imported by nbformat) compiles the ~40 grammars of the optional rfc3987_syntax package at
# import, ~0.9 s of CPU, only to check the "iri" string format; notebook schemas use no string format.
sys.modules.setdefault("rfc3987_syntax", None)

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionError  # noqa: E402

KERNEL = "slime-diagnostics-ts"


class CellFailed(Exception):
    def __init__(self, cell_index: int, status: str):
        super().__init__(f"cell {cell_index} replied {status}")
        self.cell_index = cell_index
        self.status = status


class StrictClient(NotebookClient):
    """NotebookClient that fails on any reply status other than ok (tslab sends no error output)."""

    async def _check_raise_for_error(self, cell, cell_index, exec_reply):  # noqa: D401
        if exec_reply is None:
            return None
        status = exec_reply["content"].get("status")
        if status != "ok":
            raise CellFailed(cell_index, str(status))
        return None


def clean(nb):
    """Source notebooks stay free of outputs; executed copies carry only what this run produced."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    return nb


def stderr_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stderr")


def excerpt(source: str, lines: int = 6) -> str:
    src = source.splitlines()
    more = "\n    ..." if len(src) > lines else ""
    return "\n".join("    " + s for s in src[:lines]) + more


def shared_mode() -> int:
    """The mode a new file gets under the umask (mkstemp's 0600 would keep the shared copies private)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(nb, path: str) -> None:
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".ipynb", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        nbformat.write(nb, f)
    os.chmod(tmp, shared_mode())
    os.replace(tmp, path)


class Report:
    """What one notebook's run prints, kept together so parallel runs print each notebook whole."""

    def __init__(self):
        self.out: list[str] = []
        self.err: list[str] = []

    def flush(self) -> None:
        sys.stdout.write("".join(self.out))
        sys.stderr.write("".join(self.err))
        sys.stdout.flush()
        sys.stderr.flush()


class Announcer:
    """Names each executed copy on a file descriptor as it is written (--announce-fd), so that the next
    step (the static-figure pass) starts on it while the others run. When that step stops reading,
    the notebooks go on (the step's own failure is what the main command reports), said once."""

    def __init__(self, fd: int | None):
        self.fd = fd
        self.stopped = False

    def name(self, path: str, warn) -> None:
        if self.fd is None or self.stopped:
            return
        try:
            os.write(self.fd, (path + "\n").encode())
        except BrokenPipeError:
            self.stopped = True
            warn("the step after the notebooks stopped reading (its own message follows); the notebooks go on")


async def run_one(path: str, out_dir: str | None, kernel: str, timeout: int, root: str, tty: bool, report: Report, announcer: Announcer | None = None) -> bool:
    nb = clean(nbformat.read(path, as_version=4))
    name = os.path.basename(path)
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
    started = time.monotonic()
    say = lambda line: report.out.append(line + "\n")  # noqa: E731
    warn = lambda line: report.err.append(line + "\n")  # noqa: E731

    def on_start(cell, cell_index):
        if cell.cell_type == "code" and cell.source.strip():
            k = code_cells.index(cell_index) + 1
            msg = f"  {name}: cell {cell_index} ({k}/{len(code_cells)} code cells)"
            if tty:
                sys.stdout.write("\r\033[K" + msg)
                sys.stdout.flush()

    client = StrictClient(
        nb,
        kernel_name=kernel,
        timeout=timeout,
        # tslab kernels start slowly on a loaded 2-core machine (nbclient's default is 60 s).
        startup_timeout=300,
        record_timing=False,
        resources={"metadata": {"path": root}},
        on_cell_start=on_start,
    )
    try:
        await client.async_execute()
    except CellFailed as e:
        cell = nb.cells[e.cell_index]
        if tty:
            sys.stdout.write("\r\033[K")
        warn(f"FAILED {path}: cell {e.cell_index} (execution reply status: {e.status})")
        warn("  source:\n" + excerpt(cell.source))
        err = stderr_of(cell).strip()
        if err:
            warn("  kernel stderr:\n" + "\n".join("    " + l for l in err.splitlines()[:40]))
        elif e.status == "abort":
            warn("  (aborted: the kernel refused the cell after an earlier error)")
        return False
    except (CellExecutionError, TimeoutError, RuntimeError) as e:  # timeouts, dead kernel
        if tty:
            sys.stdout.write("\r\033[K")
        warn(f"FAILED {path}: {type(e).__name__}: {e}")
        return False
    if tty:
        sys.stdout.write("\r\033[K")
    took = time.monotonic() - started
    if out_dir:
        nb.metadata["kernelspec"] = {"name": kernel, "display_name": "TypeScript (slime diagnostics workspace)", "language": "typescript"}
        write_atomic(nb, os.path.join(out_dir, name))
        if announcer is not None:
            announcer.name(os.path.join(out_dir, name), warn)
    say(f"ok {path}: {len(code_cells)} code cells in {took:.1f}s" + (f" -> {os.path.join(out_dir, name)}" if out_dir else ""))
    return True


async def run_all(args, root: str) -> list[str]:
    """Run the notebooks, `args.jobs` at a time in this one process (each has its own kernel); the
    failed ones are returned. Reports print whole, in the order given. One at a time, the first
    failure stops the run unless --keep-going; side by side, every notebook runs."""
    jobs = max(1, min(args.jobs, len(args.notebooks)))
    tty = sys.stdout.isatty() and jobs == 1
    gate = asyncio.Semaphore(jobs)
    took: dict[str, float] = {}
    stop = asyncio.Event()
    announcer = Announcer(args.announce_fd)

    async def one(path: str):
        async with gate:
            report = Report()
            if stop.is_set():
                return path, None, report
            started = time.monotonic()
            ok = await run_one(path, args.out, args.kernel, args.timeout, root, tty, report, announcer)
            if ok:
                took[os.path.basename(path)] = round(time.monotonic() - started, 2)
            if not ok and jobs == 1 and not args.keep_going:
                stop.set()
            return path, ok, report

    # Longest first (the times of the last run, --times): two at a time, a long notebook started last
    # would run alone at the end. Unknown ones first; reports still print in the order given.
    known = read_times(args.times)
    starts = sorted(args.notebooks, key=lambda p: -known.get(os.path.basename(p), float("inf")))
    tasks = {p: asyncio.ensure_future(one(p)) for p in starts}
    failed = []
    for task in [tasks[p] for p in args.notebooks]:
        path, ok, report = await task
        report.flush()
        if ok is False:
            failed.append(path)
    if args.times and took:
        write_times(args.times, {**known, **took})
    return failed


def read_times(path: str | None) -> dict[str, float]:
    """Seconds per notebook (file name) of earlier runs; {} when there are none."""
    try:
        with open(path or "", encoding="utf-8") as f:
            data = json.load(f)
        return {k: float(v) for k, v in data.items()} if isinstance(data, dict) else {}
    except (OSError, ValueError, TypeError):
        return {}


def write_times(path: str, times: dict[str, float]) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(times.items())), f, indent=1)
    os.replace(tmp, path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--out", help="folder for the executed copies (omitted: nothing written)")
    ap.add_argument("--kernel", default=KERNEL)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    ap.add_argument("--keep-going", action="store_true", help="run later notebooks after a failure")
    ap.add_argument("--jobs", type=int, default=1, help="notebooks run at once, each with its own kernel (they must be independent)")
    ap.add_argument("--announce-fd", type=int, help="file descriptor to write each executed copy's path to, a line as it is written")
    ap.add_argument("--times", help="JSON file of seconds per notebook: read to start the longest first, updated after the run")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    failed = asyncio.run(run_all(args, root))
    if failed:
        print(f"{len(failed)} notebook(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
