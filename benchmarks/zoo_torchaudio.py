"""torchaudio's models for the whole zoo: every model class and factory, tiny, with inputs.

torchaudio's models are plain modules, each built by its constructor or by
factory functions (``wav2vec2_base``, ``hdemucs_low``, ...) that call one
general constructor (``wav2vec2_model``, ``HDemucs``) with their sizes.
Every factory is an entry of its own, named by the factory and with the
class it returns as its origin; a class no factory builds is an entry named
by the class. A factory runs with its general constructor swapped, for the
call, for one that takes the sizes of ``TINY`` over the factory's own (2
layers, widths of 64, a few heads): the factory's other settings (extractor
mode, normalisation order, activation) stay what it chose.

A model whose inference is a method other than ``forward`` that holds the
loop a user compiles (Tacotron2's and WaveRNN's autoregressive ``infer``,
Emformer's and the beam search's streaming ``infer``) is also an entry named
``Class.method``, run through ``MethodCall``, a module whose ``forward`` calls
that method. Decoding steps are bounded (Tacotron2's ``decoder_max_step``,
the beam search's ``step_max_tokens``) and every call is seeded, so the
sampling in WaveRNN and Tacotron2's always-on prenet dropout draw the same
numbers eagerly and compiled.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from typing import Any, Callable, Iterator

from zoo import Built

#: sizes each general constructor is given over a factory's (or its own defaults); keyword names as torchaudio's
_WAV2VEC2 = {
    # 320 samples per frame as the full-size extractor, with 32 channels instead of 512
    "extractor_conv_layer_config": [(32, 10, 5)] + [(32, 3, 2)] * 4 + [(32, 2, 2)] * 2,
    "encoder_embed_dim": 64,
    "encoder_pos_conv_kernel": 16,
    "encoder_pos_conv_groups": 4,
    "encoder_num_layers": 2,
    "encoder_num_heads": 4,
    "encoder_ff_interm_features": 128,
}
TINY: dict[str, dict[str, Any]] = {
    "wav2vec2_model": _WAV2VEC2,
    "wavlm_model": {**_WAV2VEC2, "encoder_num_buckets": 32, "encoder_max_distance": 100},
    "hubert_pretrain_model": {**_WAV2VEC2, "final_dim": 32},
    "emformer_rnnt_model": {
        "encoding_dim": 64,
        "time_reduction_input_dim": 64,
        "transformer_num_heads": 4,
        "transformer_ffn_dim": 128,
        "transformer_num_layers": 2,
        "symbol_embedding_dim": 64,
        "num_lstm_layers": 2,
    },
    "squim_objective_model": {"feat_dim": 32, "d_model": 64, "nhead": 4, "hidden_dim": 64, "num_blocks": 2},
    # the features the subjective head projects are the (tiny) wav2vec2 encoder's
    "squim_subjective_model": {"feat_dim": 64},
    "ConvTasNet": {"enc_num_feats": 64, "msk_num_feats": 32, "msk_num_hidden_feats": 64, "msk_num_layers": 2},
    "HDemucs": {"channels": 4},
    "Conformer": {"input_dim": 64, "num_heads": 4, "ffn_dim": 128, "num_layers": 2, "depthwise_conv_kernel_size": 3},
    "DeepSpeech": {"n_feature": 32, "n_hidden": 64, "n_class": 10},
    "Emformer": {
        "input_dim": 64,
        "num_heads": 4,
        "ffn_dim": 128,
        "num_layers": 2,
        "segment_length": 4,
        "left_context_length": 4,
        "right_context_length": 2,
        "max_memory_size": 2,
    },
    "Tacotron2": {
        "n_symbol": 20,
        "n_mels": 16,
        "symbol_embedding_dim": 32,
        "encoder_embedding_dim": 32,
        "encoder_n_convolution": 2,
        "decoder_rnn_dim": 64,
        "decoder_max_step": 12,
        "attention_rnn_dim": 64,
        "attention_hidden_dim": 16,
        "attention_location_n_filter": 8,
        "attention_location_kernel_size": 7,
        "prenet_dim": 32,
        "postnet_n_convolution": 2,
        "postnet_embedding_dim": 32,
    },
    "Wav2Letter": {"num_classes": 10},
    "WaveRNN": {
        "upsample_scales": [2, 2],
        "n_classes": 16,
        "hop_length": 4,
        "n_res_block": 2,
        "n_rnn": 32,
        "n_fc": 32,
        "n_freq": 16,
        "n_hidden": 16,
        "n_output": 16,
    },
}
#: arguments a constructor or factory requires that are not sizes
REQUIRED = {"sources": ["drums", "bass"], "num_symbols": 16, "num_sources": 2}
#: the methods other than ``forward`` that hold the loop a user compiles, per class
METHODS = {"Tacotron2": "infer", "WaveRNN": "infer", "Emformer": "infer", "RNNTBeamSearch": "infer"}
#: the beam search decodes with a tiny Emformer RNN-T, at most this many symbols a frame
BEAM_MAX_TOKENS = 4
BEAM_WIDTH = 2
#: audio samples of a waveform input
AUDIO = 4000


def entries() -> list[tuple[str, str]]:
    """``(name, origin)`` of every named factory, every class no factory returns, and every listed method."""
    import torch
    import torchaudio.models as models

    public = sorted(name for name in dir(models) if not name.startswith("_"))
    classes = {n: getattr(models, n) for n in public if isinstance(getattr(models, n), type)}
    classes = {n: c for n, c in classes.items() if issubclass(c, torch.nn.Module)}
    factories = {}
    for name in public:
        obj = getattr(models, name)
        returned = inspect.signature(obj).return_annotation if inspect.isfunction(obj) else None
        returned = getattr(returned, "__name__", returned)
        # the general constructors take every setting, with no defaults: each named factory runs through one
        if returned in classes and name not in TINY:
            factories[name] = returned
    found = [(name, cls) for name, cls in factories.items()]
    built_by_factory = set(factories.values())
    found += [(name, cls.__module__) for name, cls in classes.items() if name not in built_by_factory]
    found += [(f"{cls}.{method}", classes[cls].__module__) for cls, method in METHODS.items() if cls in classes]
    return sorted(found)


@contextlib.contextmanager
def tiny_constructors() -> Iterator[None]:
    """Every general constructor of ``TINY``, in the module that defines it, takes the tiny sizes for a while."""
    import torchaudio.models as models

    swapped: list[tuple[Any, str, Any]] = []
    for name in TINY:
        original = getattr(models, name)
        home = importlib.import_module(original.__module__)
        swapped.append((home, name, original))
        setattr(home, name, _with_sizes(original, TINY[name]))
    try:
        yield
    finally:
        for home, name, original in swapped:
            setattr(home, name, original)


def _with_sizes(constructor: Callable[..., Any], sizes: dict[str, Any]) -> Callable[..., Any]:
    def build(*args: Any, **kwargs: Any) -> Any:
        return constructor(*args, **{**kwargs, **sizes})

    return build


def construct(name: str) -> Any:
    """The tiny module a factory or class of ``torchaudio.models`` builds, in eval mode."""
    import torchaudio.models as models

    if name == "RNNTBeamSearch":
        model = construct("emformer_rnnt_base")
        return models.RNNTBeamSearch(model, blank=REQUIRED["num_symbols"] - 1, step_max_tokens=BEAM_MAX_TOKENS).eval()
    maker = getattr(models, name)
    params = inspect.signature(maker).parameters
    required = {k: v for k, v in REQUIRED.items() if k in params}
    if isinstance(maker, type):  # built directly: a swapped class would break its ``super(Class, self)``
        return maker(**required, **TINY.get(name, {})).eval()
    with tiny_constructors():
        return maker(**required).eval()


def method_call(model: Any, method: str) -> Any:
    """A module whose ``forward`` calls ``model.<method>``: what ``torch.compile`` is handed for that method."""
    import torch

    class MethodCall(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: Any) -> Any:
            return getattr(self.model, method)(*args)

    return MethodCall().eval()


def build(name: str, device: str = "cpu") -> Built:
    """The entry's module and the arguments of one call."""
    cls, _, method = name.partition(".")
    model = construct(cls).to(device)
    kind = type(model).__name__
    args = inputs(kind, model, method)
    args = tuple(a.to(device) if hasattr(a, "to") else a for a in args)
    return Built(method_call(model, method) if method else model, args=args)


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def inputs(kind: str, model: Any, method: str = "") -> tuple[Any, ...]:
    """Small inputs for a model of class ``kind`` (or for its ``method``)."""
    import torch

    def randn(*shape: int, seed: int = 2) -> Any:
        return torch.randn(shape, generator=_generator(seed))

    def lengths(*values: int) -> Any:
        return torch.tensor(values, dtype=torch.int32)

    if kind == "Wav2Vec2Model":  # no lengths: WavLM's attention takes no padding mask
        return (randn(1, AUDIO),)
    if kind == "HuBERTPretrainModel":
        wave = randn(1, AUDIO)
        with torch.no_grad():
            frames = model.wav2vec2.feature_extractor(wave, None)[0].shape[1]
        classes = model.logit_generator.label_embeddings.shape[0]
        return wave, torch.randint(0, classes, (1, frames), generator=_generator(3)), lengths(AUDIO)
    if kind in ("SquimObjective", "Wav2Letter"):
        return (randn(1, AUDIO) if kind == "SquimObjective" else randn(1, 1, AUDIO),)
    if kind == "SquimSubjective":
        return randn(1, AUDIO), randn(1, AUDIO // 2, seed=3)
    if kind == "ConvTasNet":
        return (randn(1, 1, AUDIO),)
    if kind == "HDemucs":
        return (randn(1, 2, AUDIO),)
    if kind == "Conformer":
        return randn(2, 16, 64), lengths(16, 12)
    if kind == "DeepSpeech":
        return (randn(1, 1, 16, 32),)
    if kind == "Emformer":
        right = model.right_context_length
        if method:  # one streaming segment and its right context
            return randn(1, model.segment_length + right, 64), lengths(model.segment_length + right)
        return randn(2, 16 + right, 64), lengths(16, 12)
    if kind == "Tacotron2":
        tokens = torch.randint(1, model.embedding.num_embeddings, (2, 10), generator=_generator(3))
        if method:
            return tokens[:1], lengths(10)
        mels = randn(2, model.n_mels, 12)
        return tokens, lengths(10, 8), mels, lengths(12, 10)
    if kind == "WaveRNN":
        freq = model.upsample.resnet.melresnet_model[0].in_channels
        if method:
            return (randn(1, freq, 6),)
        frames = 10
        samples = (frames - model.kernel_size + 1) * model.hop_length
        return randn(1, 1, samples), randn(1, 1, freq, frames, seed=3)
    if kind == "RNNT":
        return _rnnt_inputs(model)
    if kind == "RNNTBeamSearch":
        sources, source_lengths, *_ = _rnnt_inputs(model.model)
        if method:  # one streaming chunk: a segment and its right context, before time reduction
            transcriber = model.model.transcriber
            stride = transcriber.time_reduction.stride
            chunk = (transcriber.transformer.segment_length + transcriber.transformer.right_context_length) * stride
            return sources[:, :chunk], lengths(chunk), BEAM_WIDTH
        return sources, source_lengths, BEAM_WIDTH
    raise ValueError(f"no inputs for torchaudio model class {kind}")


def _rnnt_inputs(model: Any) -> tuple[Any, ...]:
    """Features of one utterance, its length, target symbols and their length, for an (Emformer) RNN-T."""
    import torch

    features = model.transcriber.input_linear.in_features
    frames = 64
    symbols = model.predictor.embedding.num_embeddings
    sources = torch.randn((1, frames, features), generator=_generator(2))
    targets = torch.randint(0, symbols - 1, (1, 5), generator=_generator(3), dtype=torch.int32)
    return sources, torch.tensor([frames], dtype=torch.int32), targets, torch.tensor([5], dtype=torch.int32)
