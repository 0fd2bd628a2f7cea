"""Large spreadsheets: time and peak memory of the sheet readers, streaming vs not.

A workbook of ``--rows`` rows x ``--cols`` columns (numbers and short text) is written
with openpyxl's write-only mode, and an OpenDocument spreadsheet of the same size by
hand. Each reading runs in a fresh child process, which reports its own peak resident
memory (``ru_maxrss``) and CPU seconds:

- ``read_file`` on the .xlsx (openpyxl read-only, as the app reads);
- openpyxl's default (non-streaming) ``load_workbook`` of the same file, for contrast;
- ``read_file`` on the .ods (defusedxml ``iterparse``, rows dropped as read).

    PYTHONPATH=engine .venv/bin/python benchmarks/office_sheets.py [--rows 50000] [--cols 10]

Writes ``benchmarks/out/office_sheets.md``. Wall times depend on what else runs on the
machine; the report gives the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"

_CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if kind == "app":
    from agentmaker.rag.readers import read_file
    doc = read_file(path)
    rows = doc.metadata["records"]
else:
    import openpyxl
    wb = openpyxl.load_workbook(path, data_only=True)
    rows = sum(ws.max_row for ws in wb.worksheets) - 1
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": rows, "seconds": time.perf_counter() - start,
                  "cpu": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}))
"""


def write_xlsx(path: Path, rows: int, cols: int) -> None:
    import openpyxl

    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Data")
    sheet.append([f"col{c}" for c in range(cols)])
    for r in range(rows):
        sheet.append([r if c % 2 == 0 else f"item {r}-{c}" for c in range(cols)])
    workbook.save(path)


def write_ods(path: Path, rows: int, cols: int) -> None:
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
    )

    def cell(value: object) -> str:
        kind = "float" if isinstance(value, int) else "string"
        extra = f' office:value="{value}"' if kind == "float" else ""
        return (
            f'<table:table-cell office:value-type="{kind}"{extra}>'
            f"<text:p>{value}</text:p></table:table-cell>"
        )

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "mimetype",
            "application/vnd.oasis.opendocument.spreadsheet",
            compress_type=zipfile.ZIP_STORED,
        )
        with archive.open("content.xml", "w") as out:
            out.write(f"<office:document-content {ns}><office:body><office:spreadsheet>".encode())
            out.write(b'<table:table table:name="Data"><table:table-row>')
            out.write("".join(cell(f"col{c}") for c in range(cols)).encode())
            out.write(b"</table:table-row>")
            for r in range(rows):
                values = [r if c % 2 == 0 else f"item {r}-{c}" for c in range(cols)]
                row = "".join(cell(v) for v in values)
                out.write(f"<table:table-row>{row}</table:table-row>".encode())
            out.write(
                b"</table:table></office:spreadsheet></office:body></office:document-content>"
            )


def measure(kind: str, path: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(HERE.parent / "engine"))
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--cols", type=int, default=10)
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    started = time.perf_counter()
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        xlsx, ods = Path(folder) / "big.xlsx", Path(folder) / "big.ods"
        write_xlsx(xlsx, args.rows, args.cols)
        write_ods(ods, args.rows, args.cols)
        for label, kind, path in (
            ("read_file .xlsx (openpyxl read-only)", "app", xlsx),
            ("openpyxl load_workbook .xlsx (not streaming)", "full", xlsx),
            ("read_file .ods (iterparse)", "app", ods),
        ):
            result = measure(kind, path)
            size = path.stat().st_size / 1024**2
            lines.append(
                f"| {label} | {size:.1f} | {int(result['rows']):,} | {result['seconds']:.1f} | "
                f"{result['cpu']:.1f} | {result['peak_mib']:.0f} |"
            )
    OUT.mkdir(exist_ok=True)
    report = [
        "#### Large spreadsheets",
        "",
        f"Produced by `PYTHONPATH=engine .venv/bin/python benchmarks/office_sheets.py "
        f"--rows {args.rows} --cols {args.cols}` in {time.perf_counter() - started:.0f} s; "
        f"load average at start {load_start:.1f}, at end {os.getloadavg()[0]:.1f}.",
        "",
        "| reading | file MiB | rows | wall s | CPU s | peak RSS MiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        *lines,
        "",
    ]
    (OUT / "office_sheets.md").write_text("\n".join(report), encoding="utf-8")
    print("\n".join(report))


if __name__ == "__main__":
    main()
