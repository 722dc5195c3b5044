"""The models users export, as benchmark cases: torchrec's jagged embeddings, a prefix-sum
split written as model code writes it, tiny Hugging Face transformers built from configs,
and timm's resnet18. Each family builds a :class:`Case` at a size; the package it needs is
named, so a run without it is skipped with that reason.

Install what they need (``pip install -e '.[models]'``, then the torchrec lines of
``docs/torch.md``): torchrec 1.9.2 runs with fbgemm-gpu-cpu 1.9.0, which loads with torch
2.14 only (with 2.13: an undefined symbol); transformers and timm run with 2.13 to 2.15.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Case:
    """One program: ``module(*args)`` exported (``how="export"``, with ``dynamic_shapes``)
    or compiled (``how="compile"``); ``inputs``: other arguments, each with whether the
    program must accept it (the exported program run on it)."""

    name: str
    how: str
    module: object
    args: tuple
    dynamic_shapes: object = None
    inputs: list[tuple[tuple, bool]] = field(default_factory=list)


@dataclass(frozen=True)
class Family:
    """A model family: its sizes (what the size means), the packages it needs, its builder."""

    sizes: tuple[int, ...]
    unit: str
    needs: tuple[str, ...]
    build: Callable[[int], Case]


def missing(family: Family) -> str | None:
    """Why a family cannot run here (a package not installed or not loading), or None."""
    for name in family.needs:
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed (pip install -e '.[models]'; docs/torch.md)"
    if "torchrec" in family.needs:
        try:
            import fbgemm_gpu  # noqa: F401 - loads its operators into torch
        except Exception as e:  # noqa: BLE001 - the reason is what is reported
            return f"fbgemm_gpu does not load with this torch ({type(e).__name__}: {str(e)[:80]}); torchrec 1.9 needs torch 2.14"
    return None


# ---------------------------------------------------------------- torchrec


def _kjt(features: int, batch: int = 8, seed: int = 0, short_by: int = 0):
    """A KeyedJaggedTensor of ``features`` keys, ``batch`` bags each of 0..4 ids; ``short_by``:
    that many values fewer than the lengths say (an input the program must reject)."""
    import torch
    from torchrec.sparse.jagged_tensor import KeyedJaggedTensor

    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(0, 5, (features * batch,), generator=g)
    values = torch.randint(0, 10, (int(lengths.sum()) - short_by,), generator=g)
    return KeyedJaggedTensor.from_lengths_sync(keys=[f"f{i}" for i in range(features)], values=values, lengths=lengths)


def _kjt_case(name: str, module, features: int) -> Case:
    import torch

    kjt = _kjt(features)
    shapes = torch.export.ShapesCollection()  # the values' length dynamic, as torchrec's mark_dynamic_kjt does
    shapes[kjt._values] = {0: torch.export.Dim.AUTO}
    inputs = [((_kjt(features, seed=1),), True), ((_kjt(features, seed=2, short_by=1),), False)]
    return Case(name, "export", module, (kjt,), shapes.dynamic_shapes(module, (kjt,)), inputs)


def ebc(features: int) -> Case:
    """torchrec's EmbeddingBagCollection of ``features`` one-feature tables, pooled."""
    import torch
    from torchrec.modules.embedding_configs import EmbeddingBagConfig
    from torchrec.modules.embedding_modules import EmbeddingBagCollection

    tables = [EmbeddingBagConfig(name=f"t{i}", embedding_dim=4, num_embeddings=10, feature_names=[f"f{i}"])
              for i in range(features)]

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ebc = EmbeddingBagCollection(tables=tables, device=torch.device("cpu"))

        def forward(self, kjt):
            return self.ebc(kjt).values()

    return _kjt_case(f"ebc{features}", Model(), features)


def ec(features: int) -> Case:
    """torchrec's EmbeddingCollection (sequence embeddings: one JaggedTensor per feature)."""
    import torch
    from torchrec.modules.embedding_configs import EmbeddingConfig
    from torchrec.modules.embedding_modules import EmbeddingCollection

    tables = [EmbeddingConfig(name=f"t{i}", embedding_dim=4, num_embeddings=10, feature_names=[f"f{i}"])
              for i in range(features)]

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ec = EmbeddingCollection(tables=tables, device=torch.device("cpu"))

        def forward(self, kjt):
            out = self.ec(kjt)
            return [out[f"f{i}"].values().sum(0) for i in range(features)]

    return _kjt_case(f"ec{features}", Model(), features)


def kjt_ops(features: int) -> Case:
    """A module that calls the KeyedJaggedTensor's own ``to_dict``, ``split`` and ``permute``."""
    import torch

    class Model(torch.nn.Module):
        def forward(self, kjt):
            per_key = kjt.to_dict()
            halves = kjt.split([features // 2, features - features // 2])
            permuted = kjt.permute(list(reversed(range(features))))
            return [per_key[f"f{i}"].values().sum() for i in range(features)] + \
                [h.values().sum() for h in halves] + [permuted.values().sum()]

    return _kjt_case(f"kjt_ops{features}", Model(), features)


# ---------------------------------------------------------------- a split written as model code


def prefix_split(lengths: int) -> Case:
    """``ls = lengths.tolist()``, each checked ``>= 0``, their sum ``== values.size(0)``, then
    ``start = start + l`` and ``values.narrow(0, start, l)`` reduced, per piece, stacked."""
    import torch

    class Model(torch.nn.Module):
        def forward(self, values, lens):
            ls = lens.tolist()
            for n in ls:
                torch._check(n >= 0)
            torch._check(sum(ls) == values.size(0))
            start, out = 0, []
            for n in ls:
                out.append(values.narrow(0, start, n).sum(0))
                start = start + n
            return torch.stack(out)

    def example(seed: int, off: int = 0):
        lens = torch.tensor([(3 * i + seed) % 5 for i in range(lengths)])
        return torch.randn(int(lens.sum()) + off, 4), lens

    shapes = ({0: torch.export.Dim.AUTO}, None)
    inputs = [(example(1), True), (example(2, off=1), False)]
    return Case(f"prefix_split{lengths}", "export", Model(), example(0), shapes, inputs)


# ---------------------------------------------------------------- dense models


def _transformer(kind: str, layers: int):
    import transformers as tr

    small = dict(vocab_size=128)
    if kind == "gpt2":
        return tr.GPT2LMHeadModel(tr.GPT2Config(n_layer=layers, n_head=2, n_embd=64, n_positions=256, **small))
    if kind == "llama":
        return tr.LlamaForCausalLM(tr.LlamaConfig(num_hidden_layers=layers, num_attention_heads=2,
                                                  num_key_value_heads=2, hidden_size=64, intermediate_size=128,
                                                  max_position_embeddings=256, **small))
    return tr.BertModel(tr.BertConfig(num_hidden_layers=layers, num_attention_heads=2, hidden_size=64,
                                      intermediate_size=128, max_position_embeddings=256, **small))


def transformer(kind: str, how: str = "export") -> Callable[[int], Case]:
    """A tiny Hugging Face ``kind`` of ``layers`` layers built from a config (no weights
    downloaded), the sequence length dynamic (2..255)."""

    def build(layers: int) -> Case:
        import torch

        torch.manual_seed(0)
        model = _transformer(kind, layers).eval()

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = model

            def forward(self, ids):
                return self.m(input_ids=ids)[0]

        ids = lambda n: torch.randint(0, 128, (2, n))  # noqa: E731
        seq = torch.export.Dim("seq", min=2, max=255)
        return Case(f"{kind}{layers}-{how}", how, Model(), (ids(16),), ({1: seq},), [((ids(37),), True), ((ids(300),), False)])

    return build


def resnet18(batch: int) -> Case:
    """timm's resnet18 with dynamic batch and resolution (``Dim.AUTO``)."""
    import timm
    import torch

    torch.manual_seed(0)
    model = timm.create_model("resnet18", pretrained=False, num_classes=10).eval()
    auto = torch.export.Dim.AUTO
    x = lambda b, c, h, w: torch.randn(b, c, h, w)  # noqa: E731
    return Case(f"resnet18-b{batch}", "export", model, (x(batch, 3, 64, 64),), ({0: auto, 2: auto, 3: auto},),
                [((x(3, 3, 96, 80),), True), ((x(2, 4, 64, 64),), False)])


FAMILIES: dict[str, Family] = {
    "ebc": Family((8, 16, 32, 64, 128, 256), "features", ("torchrec",), ebc),
    "ec": Family((8, 32, 128, 256), "features", ("torchrec",), ec),
    "kjt_ops": Family((8, 32, 128, 256), "features", ("torchrec",), kjt_ops),
    "prefix_split": Family((64, 128, 256, 512), "lengths", (), prefix_split),
    "gpt2": Family((2,), "layers", ("transformers",), transformer("gpt2")),
    "llama": Family((2,), "layers", ("transformers",), transformer("llama")),
    "bert": Family((2,), "layers", ("transformers",), transformer("bert")),
    "gpt2_inductor": Family((2,), "layers", ("transformers",), transformer("gpt2", "compile")),
    "resnet18": Family((2,), "batch", ("timm",), resnet18),
}
