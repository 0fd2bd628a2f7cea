"""Why PDF text comes from PDFium with pypdf as a per-page fallback (see pdf_text.py).

The facts asserted here are the measurement behind that choice; if a library
upgrade changes one of them, revisit the choice. Run with ``-s`` to print the
timing table:

    .venv/bin/pytest tests/engine/test_readers_pdf_engines.py -s -q
"""

from __future__ import annotations

import logging
import time
import unicodedata
from pathlib import Path

import pypdf
import pypdfium2
import pytest

pytestmark = pytest.mark.slow


def pypdf_pages(path: Path) -> list[str]:
    reader = pypdf.PdfReader(path)
    return [page.extract_text() or "" for page in reader.pages]


def pdfium_pages(path: Path) -> list[str]:
    document = pypdfium2.PdfDocument(str(path))
    try:
        pages = []
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return pages
    finally:
        document.close()


@pytest.fixture(scope="module")
def extracted(good_dir: Path) -> dict[str, dict[str, tuple[float, list[str]]]]:
    """{file: {engine: (seconds, page texts)}} for every good PDF."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    results: dict[str, dict[str, tuple[float, list[str]]]] = {}
    for path in sorted(good_dir.glob("*.pdf")):
        results[path.name] = {}
        for engine, extract in (("pypdf", pypdf_pages), ("pdfium", pdfium_pages)):
            start = time.perf_counter()
            pages = extract(path)
            results[path.name][engine] = (time.perf_counter() - start, pages)
    return results


def test_print_measurement(extracted: dict[str, dict[str, tuple[float, list[str]]]]) -> None:
    header = ("file", "pages", "pypdf s", "pdfium s", "pypdf ch", "pdfium ch")
    print("\n{:36} {:>5} {:>8} {:>8} {:>9} {:>9}".format(*header))
    totals = [0.0, 0.0]
    for name, engines in extracted.items():
        (t1, p1), (t2, p2) = engines["pypdf"], engines["pdfium"]
        totals[0] += t1
        totals[1] += t2
        c1 = sum(len(unicodedata.normalize("NFKC", p)) for p in p1)
        c2 = sum(len(unicodedata.normalize("NFKC", p)) for p in p2)
        print(f"{name[:36]:36} {len(p1):5d} {t1:8.2f} {t2:8.2f} {c1:9d} {c2:9d}")
    print(f"{'TOTAL':36} {'':5} {totals[0]:8.2f} {totals[1]:8.2f}")
    assert totals[1] < totals[0]


def test_pdfium_is_right_where_pypdf_is_not(
    extracted: dict[str, dict[str, tuple[float, list[str]]]],
) -> None:
    geotopo = extracted["GeoTopo-komprimiert.pdf"]
    # pypdf turns GeoTopo's minus signs into NUL bytes; PDFium decodes them.
    assert "\x00" in "".join(geotopo["pypdf"][1])
    assert "−" in "".join(geotopo["pdfium"][1])
    # pypdf separates Korean words with TABs; PDFium with spaces.
    korean = extracted["korean-text-with-tables.pdf"]
    assert "적립\t혜택은" in korean["pypdf"][1][0]
    assert "적립 혜택은" in korean["pdfium"][1][0]
    # PDFium joins hyphenated line breaks (marking them) and expands ligatures.
    paper = extracted["multi-column.pdf"]
    assert "ef\ufffeficient" in "".join(paper["pdfium"][1])
    assert "ef-\nﬁcient" in "".join(paper["pypdf"][1])


def test_pypdf_is_right_where_pdfium_is_not(
    extracted: dict[str, dict[str, tuple[float, list[str]]]],
) -> None:
    habibi = extracted["habibi-rotated.pdf"]
    assert all(p.strip() == "حَبيبي habibi حَبيبي" for p in habibi["pypdf"][1])
    assert not any(p.strip() == "حَبيبي habibi حَبيبي" for p in habibi["pdfium"][1])
