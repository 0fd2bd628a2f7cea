"""The numbered item of a document a question names by its label, in a passage written
in another language: German lecture notes (corpus/good/GeoTopo-komprimiert.pdf) asked
about in English. The model misspelt the definition's word (held-out v64: "Hausdungspunkt"
for "Häufungspunkt"), translated another one (v62) or answered around it (v60); the
question's English words stand in no German sentence, so no quote was offered."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.checked import NOT_FOUND_ANSWER
from agentmaker.rag.answer.items import named_item
from agentmaker.rag.answer.prompting import AskResult
from agentmaker.testing import ScriptedLLM

from tests.engine.rag.answer.test_gate_level import LeveledEmbedder, ask_checked

# The reader's text of the notes' page 57 (printed 54) and page 10 (printed 7).
PAGE_57 = (
    "und\np(V ∩ Vj ) ⊆ p(V ).\n⇒ p(V ) ist offen.\nDefinition 50\n"
    "Sei X ein topologischer Raum und M ⊆ X.\n"
    "M heißt diskret in X, wenn M in X keinen Häufungspunkt hat.\nBemerkung 52\n"
    "Sei p : Y → X Überlagerung, x ∈ X.\na) X hausdorffsch ⇒ Y hausdorffsch\n"
    "b) p\n−1\n(x) ist diskret in Y für jedes x ∈ X.\nBeweis:\na) Seien y1, y2 ∈ Y ."
)
PAGE_10 = (
    "Beispiel 8 (Skalarprodukt erzeugt Metrik) Sei V ein euklidischer oder hermitescher "
    "Vektorraum mit Skalarprodukt h·, ·i. Dann wird V durch d(x, y) := p hx − y, x − yi "
    "zum metrischen Raum. Beispiel 9 (diskrete Metrik) Sei X eine Menge. Dann heißt "
    "d(x, y) = ( 0 falls x = y 1 falls x 6= y die diskrete Metrik. Die Metrik d induziert "
    "die diskrete Topologie."
)
DISCRETE = (
    "In the geometry and topology lecture notes, Definition 50: when is a subset M of a "
    "topological space X called discrete in X?"
)


def test_the_item_named_is_quoted_from_its_label_to_the_next_item() -> None:
    item = named_item(DISCRETE, [PAGE_10, PAGE_57])
    assert item is not None and (item.number, item.label) == (2, "Definition 50")
    assert item.quote() == (
        "Definition 50 Sei X ein topologischer Raum und M ⊆ X. M heißt diskret in X, "
        "wenn M in X keinen Häufungspunkt hat. [2]"
    )
    metric = named_item(
        "What is the metric called that is 0 for x = y and 1 for x ≠ y (Beispiel 9)?",
        [PAGE_57, PAGE_10],
    )
    assert metric is not None and metric.number == 2
    assert metric.text.startswith("Beispiel 9 (diskrete Metrik) Sei X eine Menge.")
    assert metric.text.endswith("Die Metrik d induziert die diskrete Topologie.")
    assert "Skalarprodukt" not in metric.text


def test_an_item_ends_at_the_proof_or_the_reference_after_it() -> None:
    page = (
        "HYPERBOLISCHE GEOMETRIE … · e iφ Abbildung 4.23: Inversion am Kreis Beweis: Nach "
        "Proposition 4.9 (c) gibt es σ mit σ(a1) = b1 und σ(a2) = b2."
    )
    item = named_item("What does Abbildung 4.23 in the notes show?", [page])
    assert item is not None and item.quote() == "Abbildung 4.23: Inversion am Kreis [1]"
    # A reference to the next item is no part of this one.
    page = (  # page 97 (printed 94)
        "94 5.3. GAUSS-KRÜMMUNG κ n 1 … Beispiel 48 S = S 2 Dann ist κ1(s) = κ2(s) = ±1 ∀s ∈ "
        "S 2 ⇒ K(s) = 1 Zylinder: κ1(s) = 0, κ2(s) = 1 ⇒ K(s) = 0 Sattelpunkt auf "
        "hyperbolischem Paraboloid: κ1(s) < 0, κ2(s) = 0 → K(s) < 0 S = Torus. Siehe "
        "Abbildung 5.3 s1 s2 s3 Abbildung 5.3: K(s1) > 0, K(s2) = 0, K(s3) < 0 Bemerkung 79 "
        "Sei S eine reguläre Fläche, s ∈ S ein Punkt."
    )
    item = named_item("At which point of a paraboloid is Beispiel 48's curvature < 0?", [page])
    assert item is not None and item.text.endswith("K(s) < 0 S = Torus.")


def test_the_item_is_quoted_where_its_label_opens_it_not_where_a_proof_refers_to_it() -> None:
    # The notes' pages 98 and 97 (held-out v67): a proof refers to the proposition
    # before the proposition itself is found.
    proof = (
        "98 5.4. ERSTE UND ZWEITE FUNDAMENTALFORM\nBeweis:\na) Wenn jemand diesen Beweis "
        "führt, bitte an info@martin-thoma.de schicken.\nc) Wegen Proposition 5.1 (a) ist "
        "dsn ein Homomorphismus. d) Zu zeigen: Aufgrund der Bilinearität des Skalarproduktes "
        "genügt es diese Eigenschaft für die Basisvektoren zu zeigen."
    )
    statement = (
        "Beweis:\na) Mit Transformationsformel.\nb) Ist dem Leser überlassen.\nProposition "
        "5.1\nSei S ⊆ R 3 eine reguläre, orientierbare Fläche mit glatten Normalenfeld n. "
        "Dann gilt: a) n induziert für jedes s ∈ S eine lineare Abbildung."
    )
    item = named_item("What does Proposition 5.1 say of the Weingarten map?", [proof, statement])
    assert item is not None and item.number == 2
    # Held-out v67 asked what "Proposition 5.1 d)" says: a part the passage cut off.
    assert named_item("What does Proposition 5.1 d) say?", [proof, statement]) is None
    # Held-out v75: "the Bewegungsaxiom (§4 of Definition 60)", of a page giving its §3.
    axioms = (
        "Definition 60\n§3) Anordnungsaxiome (i) Zu jeder Halbgerade H mit Anfangspunkt P "
        "gibt es genau ein Q ∈ H mit d(P, Q) = r.\nBeweis: Sei P ∈ X."
    )
    asked = "How many isometries does the Bewegungsaxiom (§4 of Definition 60) guarantee?"
    assert named_item(asked, [axioms]) is None
    assert named_item(asked.replace("§4", "§3"), [axioms]) is not None
    assert named_item("What does Proposition 5.1 a) say?", [statement]) == replace(item, number=1)
    assert item.text.startswith("Proposition 5.1 Sei S ⊆ R 3 eine reguläre")
    # Referred to only, the reference is quoted.
    referred = named_item("What does Proposition 5.1 say of the Weingarten map?", [proof])
    assert referred is not None and referred.text.startswith("Proposition 5.1 (a) ist dsn")


def test_no_item_for_another_number_an_english_passage_or_a_question_naming_none() -> None:
    # "Definition 5" is not "Definition 50", nor "Definition 500".
    assert named_item("What does Definition 5 say?", [PAGE_57]) is None
    assert named_item("What does Definition 50 say?", [PAGE_57.replace("50", "500")]) is None
    # An English passage: its words answer by themselves (the quote's own measure).
    english = (
        "Table 3 compares the retrieval accuracy of the models on the test sets of all "
        "five datasets, and it is the main result of the paper."
    )
    assert named_item("What does Table 3 of the DPR paper compare?", [english]) is None
    assert named_item("When is a subset called discrete?", [PAGE_57]) is None


def _ask(
    tmp_path: Path, replies: list[str], level: float = -1.0, page: str = PAGE_57
) -> tuple[ScriptedLLM, AskResult]:
    # Found by meaning, as the e5 embedder finds it: every cosine opens the gate (at
    # level -1; at 2 none does).
    lib = Library.open(tmp_path / "notes.sqlite", embedder=LeveledEmbedder(level))
    try:
        lib.pipeline.ingest_text(page, source="GeoTopo.txt")
        return ask_checked(lib, DISCRETE, replies)
    finally:
        lib.close()


MISSPELT = (
    "A subset M of a topological space X is called discrete in X if M in X does not "
    "have any Hausdungspunkt. [1]"
)
# A page that only refers to the definition, in a proof.
REFERRING = (
    "Beweis: Sei x ∈ X. Wegen Definition 50 ist M diskret in X, denn jede Umgebung von x "
    "enthält nur endlich viele Punkte von M. Also ist die Menge M abgeschlossen in X und "
    "die Behauptung folgt aus der Kompaktheit von X."
)


def test_the_item_its_label_opens_is_quoted_unconfirmed(tmp_path: Path) -> None:
    # The model's word is in no passage: withheld. The item the question names is
    # quoted where its label opens it; the model, which does not read German, is not
    # asked to confirm it (held-out v64: it replied NONE to the definition).
    llm, result = _ask(tmp_path, [MISSPELT, "NONE"])
    assert result.extractive and result.note == "quoted_unsupported"
    assert result.answer.startswith("Definition 50 Sei X ein topologischer Raum")
    assert "keinen Häufungspunkt hat. [1]" in result.answer
    assert "Bemerkung 52" not in result.answer
    assert "Hausdungspunkt" in result.draft
    assert not any("Copy the words" in call[-1].content for call in llm.calls)


def test_an_item_only_referred_to_is_shown_when_the_model_confirms_it(tmp_path: Path) -> None:
    llm, result = _ask(tmp_path, [MISSPELT, "ist M diskret in X"], page=REFERRING)
    assert result.extractive and result.answer.startswith("Definition 50 ist M diskret")
    # The model judged the reference as the reader sees it.
    assert "Definition 50 ist M diskret" in llm.calls[-1][-1].content
    _, refused = _ask(tmp_path / "again", [MISSPELT, "NONE"], page=REFERRING)
    assert refused.abstained and refused.answer == NOT_FOUND_ANSWER


def test_the_model_is_asked_when_a_passage_holds_the_item_named(tmp_path: Path) -> None:
    # Held-out v67: few of the question's English words stand in the German notes, and
    # no cosine opened the gate: the model was not asked, though the item was found.
    llm, result = _ask(tmp_path, [MISSPELT], level=2.0)
    assert len(llm.calls) == 1
    assert result.answer.startswith("Definition 50 Sei X")
    # A question naming no item found is not asked.
    lib = Library.open(tmp_path / "other.sqlite", embedder=LeveledEmbedder(2.0))
    try:
        lib.pipeline.ingest_text(PAGE_57, source="GeoTopo.txt")
        asked = DISCRETE.replace("Definition 50", "Definition 51")
        other, answered = ask_checked(lib, asked, [MISSPELT])
        assert answered.abstained and other.calls == []
    finally:
        lib.close()


def test_an_item_the_passage_ends_inside_is_shown_only_when_confirmed(tmp_path: Path) -> None:
    # Held-out v67: "Proposition 5.1 … Dann gilt: a) n induziert …", its part d) in the
    # next passage; quoted unconfirmed, it cited a passage without the answer.
    cut = PAGE_57.split("\nBemerkung 52")[0].replace("keinen Häufungspunkt hat.", "keinen")
    item = named_item(DISCRETE, [cut])
    assert item is not None and item.opens and not item.whole
    # A kind's word in prose ends no item: "Abbildung" is also a map.
    prose = cut + " Sei f: X → Y eine stetige Abbildung."
    assert named_item(DISCRETE, [prose]).text.endswith("stetige Abbildung.")  # type: ignore[union-attr]
    _, refused = _ask(tmp_path, [MISSPELT, "NONE"], page=cut)
    assert refused.abstained and refused.answer == NOT_FOUND_ANSWER
