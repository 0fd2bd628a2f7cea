"""Fuzzing: whatever bytes a file holds, read_file returns a Document or raises a
DocumentError -- and never through its last-resort wrapper, which would mean an
exception nobody anticipated."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from agentmaker.errors import DocumentError
from agentmaker.rag.readers import SUPPORTED_EXTENSIONS, read_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import CORPUS

EXTENSIONS = sorted(SUPPORTED_EXTENSIONS)
TEXT_EXTENSIONS = [".md", ".txt", ".json", ".jsonl", ".csv", ".tsv", ".html"]
CORPUS = CORPUS / "good"
# Small real files to mutate: damage in the middle of real structure finds more
# than random bytes, which fail at the first magic-number check.
SEEDS = ["annotated_pdf.pdf", "libreoffice-form.pdf", "docx-tables.docx", "codeblock.md"]

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def check(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    try:
        doc = read_file(path)
    except DocumentError as exc:
        assert exc.__cause__ is None, f"unanticipated {exc.__cause__!r}"
        assert str(exc).startswith(f"{path.name}: ")
    else:
        assert doc.content.strip()
        doc.content.encode("utf-8", "surrogatepass")


@FUZZ
@given(extension=st.sampled_from(EXTENSIONS), data=st.binary(max_size=4096))
def test_random_bytes(fuzz_dir: Path, extension: str, data: bytes) -> None:
    check(fuzz_dir / f"random{extension}", data)


@FUZZ
@given(extension=st.sampled_from(TEXT_EXTENSIONS), text=st.text(max_size=2000))
def test_random_text(fuzz_dir: Path, extension: str, text: str) -> None:
    check(fuzz_dir / f"text{extension}", text.encode("utf-8", "surrogatepass"))


@FUZZ
@given(
    extension=st.sampled_from([".json", ".jsonl", ".csv", ".md", ".html"]),
    pieces=st.lists(
        st.sampled_from(['{"a":', "[", "]", "}", '"', ",", "\n", "---", "<td>", "</tr>", "# x"]),
        max_size=200,
    ),
)
def test_structured_fragments(fuzz_dir: Path, extension: str, pieces: list[str]) -> None:
    check(fuzz_dir / f"fragments{extension}", "".join(pieces).encode())


@FUZZ
@given(version=st.sampled_from([b"1.4", b"1.7", b"2.0"]), body=st.binary(max_size=4096))
def test_pdf_header_then_garbage(fuzz_dir: Path, version: bytes, body: bytes) -> None:
    check(fuzz_dir / "garbage.pdf", b"%PDF-" + version + b"\n" + body)


@FUZZ
@given(
    extension=st.sampled_from([".docx", ".epub"]),
    members=st.dictionaries(
        st.sampled_from(
            [
                "word/document.xml",
                "[Content_Types].xml",
                "META-INF/container.xml",
                "OEBPS/content.opf",
                "mimetype",
            ]
        ),
        st.binary(max_size=512),
        max_size=5,
    ),
)
def test_zip_with_random_members(fuzz_dir: Path, extension: str, members: dict[str, bytes]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    check(fuzz_dir / f"zip{extension}", buffer.getvalue())


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.sampled_from(SEEDS),
    cut=st.floats(min_value=0.05, max_value=1.0),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=8),
)
def test_damaged_real_files(
    fuzz_dir: Path, seed: str, cut: float, flips: list[tuple[float, int]]
) -> None:
    data = bytearray((CORPUS / seed).read_bytes())
    for where, value in flips:
        data[int(where * (len(data) - 1))] = value
    check(fuzz_dir / f"damaged{Path(seed).suffix}", bytes(data[: max(1, int(len(data) * cut))]))
