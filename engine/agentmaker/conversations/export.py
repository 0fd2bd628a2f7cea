"""A conversation as a Markdown or HTML file: questions, answers, numbered sources.

Every answer keeps its ``[n]`` markers; under it, its sources are listed with the same
numbers (file, page or heading path, and whether the passage changed since). In HTML
all text from documents and models is escaped, and ``[n]`` links to its source entry.
"""

from __future__ import annotations

import html
import re
import time

from agentmaker.conversations.records import Conversation, Turn, TurnSource

_STATUS = {
    "changed": "this passage has changed since",
    "removed": "document removed",
}
_CITATION = re.compile(r"\[(\d+)\]")


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _source_line(src: TurnSource) -> str:
    parts = [src.name]
    location = src.location
    if location.startswith(src.name + " > "):  # the heading path repeats the title
        location = location[len(src.name) + 3 :]
    if location and location != src.name:
        parts.append(location)
    line = " — ".join(parts)
    if src.source and src.source != src.name:
        line += f" ({src.source})"
    if src.status in _STATUS:
        line += f" [{_STATUS[src.status]}]"
    return line


def _md_escape(text: str) -> str:
    # Keep Markdown from reading a question as a heading or list item.
    return re.sub(r"^([#>*+\-]|\d+\.)", r"\\\1", text, flags=re.MULTILINE)


def _md_turn(turn: Turn) -> str:
    out = [f"## {_md_escape(' '.join(turn.question.split()))}", ""]
    if turn.condensed:
        out += [f"*Searched: {turn.query}*", ""]
    label = "extractive answer (no model)" if turn.extractive else (turn.model or "model")
    out += [turn.answer.strip() or "*(no answer)*", "", f"*{label}*", ""]
    if turn.sources:
        out.append("Sources:")
        out.append("")
        out += [f"{src.n}. {_source_line(src)}" for src in turn.sources]
        out.append("")
    return "\n".join(out)


def to_markdown(conversation: Conversation) -> str:
    """The conversation as Markdown."""
    head = [
        f"# {conversation.title or 'Conversation'}",
        "",
        f"*Started {_when(conversation.created_at)}, last question "
        f"{_when(conversation.updated_at)}*",
        "",
    ]
    return "\n".join(head + [_md_turn(t) for t in conversation.turns]).rstrip() + "\n"


def _html_answer(turn: Turn) -> str:
    known = {src.n for src in turn.sources}

    def link(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n not in known:
            return match.group(0)
        return f'<a href="#t{turn.position}-s{n}">[{n}]</a>'

    paragraphs = [p for p in re.split(r"\n\s*\n", turn.answer.strip()) if p.strip()]
    return "\n".join(
        "<p>" + _CITATION.sub(link, html.escape(p)).replace("\n", "<br>") + "</p>"
        for p in paragraphs
    )


def _html_turn(turn: Turn) -> str:
    out = [f'<section id="t{turn.position}">', f"<h2>{html.escape(turn.question)}</h2>"]
    if turn.condensed:
        out.append(f'<p class="searched">Searched: {html.escape(turn.query)}</p>')
    out.append(_html_answer(turn) or "<p><em>(no answer)</em></p>")
    label = "extractive answer (no model)" if turn.extractive else (turn.model or "model")
    out.append(f'<p class="by">{html.escape(label)}</p>')
    if turn.sources:
        out.append("<h3>Sources</h3>\n<ol>")
        for src in turn.sources:
            out.append(
                f'<li value="{src.n}" id="t{turn.position}-s{src.n}">'
                f"{html.escape(_source_line(src))}</li>"
            )
        out.append("</ol>")
    out.append("</section>")
    return "\n".join(out)


_STYLE = (
    "body{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.5}"
    ".searched,.by{color:#666;font-size:90%}h2{font-size:120%;margin-top:2em}"
)


def to_html(conversation: Conversation) -> str:
    """The conversation as a standalone HTML page (all text escaped)."""
    title = html.escape(conversation.title or "Conversation")
    body = "\n".join(_html_turn(t) for t in conversation.turns)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title><style>{_STYLE}</style></head>\n<body>\n"
        f'<h1>{title}</h1>\n<p class="by">Started {_when(conversation.created_at)}</p>\n'
        f"{body}\n</body></html>\n"
    )
