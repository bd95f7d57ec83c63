"""nbconvert pages of executed notebooks, each converted as soon as its path arrives on stdin.

Used by scripts/html-report.ts: one `jupyter nbconvert` application, set up once with the options
given here (the same as on nbconvert's command line), converts every notebook named on stdin (one
path per line) and answers "done PATH" or "failed PATH: REASON" on stdout for each; it ends when
stdin closes. The main command names each notebook as its figures are drawn, so the pages are
written while the last notebooks still run; the pages are the ones `jupyter nbconvert` writes.

Usage: report-pages.py NBCONVERT_OPTION...
"""
from __future__ import annotations

import sys

# jsonschema (imported by nbformat) compiles the ~40 grammars of the optional rfc3987_syntax package at
# import, ~0.9 s of CPU, only to check the "iri" string format; notebook schemas use no string format.
sys.modules.setdefault("rfc3987_syntax", None)

from nbconvert.exporters.base import get_exporter  # noqa: E402
from nbconvert.nbconvertapp import NbConvertApp  # noqa: E402


def main(argv: list[str]) -> int:
    app = NbConvertApp()
    app.initialize(argv)
    # What NbConvertApp.convert_notebooks does before its loop over the notebooks.
    app.exporter = get_exporter(app.export_format)(config=app.config)
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        try:
            app.convert_single_notebook(path)
        except Exception as e:  # noqa: BLE001 (reported to the caller, which fails the report)
            print(f"failed {path}: {type(e).__name__}: {e}".replace("\n", " "), flush=True)
            continue
        print(f"done {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
