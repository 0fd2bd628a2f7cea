"""What a Word document holds outside its body: headers, footers, footnotes, comments.

Each is marked in the text so a reader of a chunk (and the model) knows what it is:
``[Header] …`` and ``[Footer] …`` once at the start of the document (a footer repeats
on every page, so its text belongs to no section), ``[Footnote 3] …`` and
``[Comment by Ana] …`` right after the paragraph that refers to them, so they keep
that paragraph's heading path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agentmaker.rag.readers.docx_xml import P as _P
from agentmaker.rag.readers.docx_xml import W as _W
from agentmaker.rag.readers.docx_xml import paragraph_text

_FOOTNOTES_RELTYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"
_ENDNOTES_RELTYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/endnotes"


def _part_paragraphs(element: Any) -> Iterator[str]:
    for p in element.iter(_P):
        text = paragraph_text(p)
        if text:
            yield text


def header_footer_blocks(document: Any, warnings: list[str]) -> list[str]:
    """``[Header] …`` / ``[Footer] …`` blocks, each distinct text once."""
    blocks: list[str] = []
    seen: set[str] = set()
    try:
        for section in document.sections:
            for kind, label in (
                ("header", "Header"),
                ("first_page_header", "Header"),
                ("even_page_header", "Header"),
                ("footer", "Footer"),
                ("first_page_footer", "Footer"),
                ("even_page_footer", "Footer"),
            ):
                part = getattr(section, kind)
                if part.is_linked_to_previous:
                    continue
                text = " ".join(_part_paragraphs(part._element))
                if text and (label, text) not in seen:
                    seen.add((label, text))  # type: ignore[arg-type]
                    blocks.append(f"[{label}] {text}")
    except Exception as exc:  # a broken header part costs the header, not the body
        warnings.append(f"The headers and footers could not be read ({exc}).")
    return blocks


class NoteIndex:
    """Footnote, endnote and comment texts by id, to place after their paragraph."""

    def __init__(self, document: Any, warnings: list[str]) -> None:
        self.footnotes = self._notes(document, _FOOTNOTES_RELTYPE, "footnote", warnings)
        self.endnotes = self._notes(document, _ENDNOTES_RELTYPE, "endnote", warnings)
        self.comments: dict[str, tuple[str, str]] = {}
        try:
            for comment in document.comments:
                text = " ".join(_part_paragraphs(comment._element))
                if text:
                    self.comments[str(comment.comment_id)] = (comment.author or "", text)
        except Exception as exc:
            warnings.append(f"The comments could not be read ({exc}).")
        self.counts = {"footnotes": 0, "endnotes": 0, "comments": 0}

    @staticmethod
    def _notes(document: Any, reltype: str, tag: str, warnings: list[str]) -> dict[str, str]:
        notes: dict[str, str] = {}
        try:
            part = next(
                (rel.target_part for rel in document.part.rels.values() if rel.reltype == reltype),
                None,
            )
            if part is None:
                return notes
            from docx.oxml import parse_xml

            root = parse_xml(part.blob)
            for note in root.iter(f"{_W}{tag}"):
                if note.get(f"{_W}type") in ("separator", "continuationSeparator"):
                    continue
                text = " ".join(_part_paragraphs(note))
                if text:
                    notes[note.get(f"{_W}id") or ""] = text
        except Exception as exc:
            warnings.append(f"The {tag}s could not be read ({exc}).")
        return notes

    def after(self, p: Any) -> list[str]:
        """Marked note blocks for the references inside paragraph ``p``, in order."""
        if not (self.footnotes or self.endnotes or self.comments):
            return []
        blocks: list[str] = []
        for element in p.iter(
            f"{_W}footnoteReference", f"{_W}endnoteReference", f"{_W}commentReference"
        ):
            note_id = element.get(f"{_W}id") or ""
            tag = element.tag[len(_W) :]
            if tag == "footnoteReference" and note_id in self.footnotes:
                blocks.append(f"[Footnote {note_id}] {self.footnotes[note_id]}")
                self.counts["footnotes"] += 1
            elif tag == "endnoteReference" and note_id in self.endnotes:
                blocks.append(f"[Endnote {note_id}] {self.endnotes[note_id]}")
                self.counts["endnotes"] += 1
            elif tag == "commentReference" and note_id in self.comments:
                author, text = self.comments[note_id]
                by = f" by {author}" if author else ""
                blocks.append(f"[Comment{by}] {text}")
                self.counts["comments"] += 1
        return blocks
