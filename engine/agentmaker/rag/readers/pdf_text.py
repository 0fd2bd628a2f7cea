"""Text of one PDF page: extraction engines and normalisation.

Measured on the shared corpus (13 PDFs, 233 pages; see the readers' report):
PDFium (pypdfium2) is 12x faster than pypdf overall (0.5 s vs 6.5 s; 0.3 s vs
3.2 s on the 117-page GeoTopo), joins hyphenated line breaks, expands ligatures,
keeps Korean words apart with spaces instead of TABs and decodes GeoTopo's minus
signs that pypdf turns into NUL bytes. pypdf is better at right-to-left text:
PDFium returns the Arabic of habibi-rotated.pdf reversed and partly as
presentation-form garbage. So PDFium extracts every page and pypdf re-extracts
only pages whose PDFium text contains right-to-left script, or no text at all.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Any

# pdfium marks a hyphen it removed at a line break with U+0002 (get_text_bounded)
# or U+FFFE (get_text_range); the word halves are already joined.
_SOFT_HYPHEN_MARKS = str.maketrans("", "", "\x02\ufffe")
_MARK = re.compile("[\x02\ufffe]")
_MARKED_BREAK = re.compile(r"(\w+)[\x02\ufffe](\w+)")
_WORD = re.compile(r"\w+(?:-\w+)?")
_HORIZONTAL_SPACE = re.compile(r"[^\S\n]+")
_MANY_NEWLINES = re.compile(r"\n{3,}")
# Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, ... and their presentation forms.
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def has_rtl(text: str) -> bool:
    """True when the text contains right-to-left script."""
    return _RTL.search(text) is not None


class Dehyphenator:
    """Decide, per hyphenated line break PDFium marked, whether to keep the hyphen.

    PDFium joins "ef-/ficient" into "ef\x02ficient" but cannot tell a syllable break
    from a real hyphen at a line end ("dual-/encoder"). The document itself is the
    dictionary: a form seen elsewhere in it wins ("dual-encoder" vs "efficient");
    unseen pairs are joined unless the second half starts with a capital or a digit
    ("Lucene-BM25", "Schwarz-Weiß"). On multi-column.pdf this keeps 13 of 229
    breaks as hyphens, all of them real compounds.
    """

    def __init__(self, raw_pages: Iterable[str]) -> None:
        candidates: set[str] = set()
        texts = []
        for text in raw_pages:
            for left, right in _MARKED_BREAK.findall(text):
                candidates.add(f"{left}{right}".lower())
                candidates.add(f"{left}-{right}".lower())
            texts.append(text)
        self.counts: Counter[str] = Counter()
        if candidates:
            for text in texts:
                # Marked breaks count as two words, so they do not vote for themselves.
                for word in _WORD.findall(_MARK.sub(" ", text)):
                    lowered = word.lower()
                    if lowered in candidates:
                        self.counts[lowered] += 1
                    elif "-" in lowered:
                        for part in lowered.split("-"):
                            if part in candidates:
                                self.counts[part] += 1

    def _resolve(self, match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        joined = self.counts[f"{left}{right}".lower()]
        hyphenated = self.counts[f"{left}-{right}".lower()]
        if hyphenated and hyphenated >= joined:
            return f"{left}-{right}"
        if joined or not (right[0].isupper() or right[0].isdigit()):
            return f"{left}{right}"
        return f"{left}-{right}"

    def __call__(self, text: str) -> str:
        """Resolve the marked line-break hyphens of one page's raw PDFium text."""
        if "\x02" not in text and "\ufffe" not in text:
            return text
        return _MARKED_BREAK.sub(self._resolve, text)


def normalize_page_text(text: str) -> str:
    """Clean one page's text for indexing.

    NFKC turns ligatures (ﬁ → fi) and compatibility forms into plain letters so a
    search for "file" finds "ﬁle"; control and private-use characters (glyph pieces
    of big brackets, NULs from broken font maps) are dropped; runs of spaces and TABs
    inside a line become one space (pypdf puts TABs between Korean words); up to one
    blank line is kept between paragraphs.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_SOFT_HYPHEN_MARKS)
    text = unicodedata.normalize("NFKC", text)
    text = "".join(
        ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Co", "Cs")
    )
    lines = [_HORIZONTAL_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    return _MANY_NEWLINES.sub("\n\n", "\n".join(lines)).strip()


def pdfium_page_text(document: Any, index: int) -> str:
    """Raw text of page ``index`` (0-based) with PDFium; the caller handles errors."""
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_range())
        finally:
            textpage.close()
    finally:
        page.close()


def pypdf_page_text(reader: Any, index: int) -> str:
    """Raw text of page ``index`` (0-based) with pypdf; the caller handles errors."""
    return str(reader.pages[index].extract_text() or "")
