"""Every model class of transformers, diffusers, timm, torchvision and torchaudio, built: tiny, random, with inputs.

``zoo.py`` holds twenty models built by hand; this module builds any model
class of a library from its config class alone, so the whole-zoo benchmark
(``zoo_discover.py``) can run all of them. A class is named by an
``Entry`` (library, class name, and for timm the model name); ``build``
turns it into a ``zoo.Built`` or raises with the reason.

The tiny config starts from the config class's defaults and shrinks the
fields that size a model (layers to 2, hidden sizes to 64, heads to 4, feed-
forward sizes to 128), recursing into sub-configs (``text_config``,
``vision_config``, ...). The vocabulary is kept small but above every token
id the config names, so special tokens stay valid. Inputs come from the
forward's parameters and the config: token ids, pixel values, audio, latents
and timesteps. torchvision's builders take their size settings as keywords
(classes, detection image sizes) and their smallest input from the weights'
metadata; detection models get a list of two images of different sizes,
optical flow two frames. torchaudio's models are listed and built by
``zoo_torchaudio.py``: every factory and class, from a table of tiny sizes,
and the inference methods that hold a decoding loop as entries of their own.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Optional

import zoo_torchaudio
from zoo import Built

LIBRARIES = ("transformers", "diffusers", "timm", "torchvision", "torchaudio")

#: the version of the generic builder a discovery row was made by (``builder`` in the row); raised when a
#: change alters what some models run, with ``changed_since`` naming the models it alters
BUILDER = 3

#: config fields set to these values when the default is larger (names as the libraries spell them)
LAYERS = 2
HIDDEN = 64
HEADS = 4
FFN = 128
VOCAB = 512
SEQ = 16
IMAGE = 32
AUDIO = 4000

#: the medium size ``zoo_cuda.py`` times (compute dominates, as in ``zoo.py``'s medium size)
MEDIUM = {"HIDDEN": 256, "FFN": 512, "SEQ": 128, "IMAGE": 64, "AUDIO": 16000}


def set_size(name: str) -> None:
    """Build at ``tiny`` (the default) or ``medium`` from now on in this process."""
    values = MEDIUM if name == "medium" else {"HIDDEN": 64, "FFN": 128, "SEQ": 16, "IMAGE": 32, "AUDIO": 4000}
    globals().update(values)


_LAYER_FIELDS = {
    "num_hidden_layers", "num_layers", "n_layer", "n_layers", "encoder_layers", "decoder_layers",
    "num_decoder_layers", "num_encoder_layers", "depth", "num_blocks", "encoder_num_layers",
    "decoder_num_layers", "num_single_layers", "text_num_layers", "vision_num_layers",
}  # fmt: skip
_HIDDEN_FIELDS = {
    "hidden_size", "d_model", "n_embd", "embed_dim", "dim", "hidden_dim", "embedding_size",
    "word_embed_proj_dim", "projection_dim", "encoder_hidden_size", "decoder_hidden_size",
    "text_hidden_size", "vision_hidden_size", "cross_attention_dim", "joint_attention_dim",
    "pooled_projection_dim", "caption_projection_dim", "hidden_channels", "d_embed",
}  # fmt: skip
_FFN_FIELDS = {
    "intermediate_size", "ffn_dim", "d_ff", "encoder_ffn_dim", "decoder_ffn_dim", "n_inner",
    "moe_intermediate_size", "shared_expert_intermediate_size", "decoder_intermediate_size",
    "encoder_intermediate_size", "mlp_dim", "filter_size",
}  # fmt: skip
_HEAD_FIELDS = {
    "num_attention_heads", "n_head", "n_heads", "encoder_attention_heads", "decoder_attention_heads",
    "num_heads", "decoder_num_attention_heads", "encoder_num_attention_heads",
}  # fmt: skip
_EXPERT_FIELDS = {"num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"}
#: experts each token is routed to: at most the (shrunk) expert count, or ``topk`` asks for more than there are
_TOPK_FIELDS = {"num_experts_per_tok", "moe_topk", "top_k_experts", "moe_k", "moe_top_k"}
#: expert groups of group-limited routing (DeepSeek-V3): one group holding every expert
_GROUP_FIELDS = {"n_group", "topk_group"}
#: tokens a sparse-attention indexer keeps: fewer than the sequence has
_TOKEN_TOPK_FIELDS = {"index_topk"}
_HEAD_DIM_FIELDS = {"head_dim", "attention_head_dim", "d_kv", "qk_nope_head_dim", "v_head_dim", "qk_rope_head_dim"}
#: fields only neural audio codecs have: they take audio as (batch, channels, samples)
CODEC_FIELDS = {"codebook_size", "num_quantizers", "n_codebooks", "codebook_dim", "n_q"}
_LIST_FIELDS = {"hidden_sizes", "depths", "embed_dims", "block_out_channels"}


@dataclass(frozen=True)
class Entry:
    """One model of a library: ``name`` is the class (transformers, diffusers) or the model (timm, torchvision)."""

    library: str
    name: str
    #: the config class (transformers), the family (timm) or the builder's module (torchvision) it came from
    origin: str = ""

    @property
    def key(self) -> str:
        return f"{self.library}:{self.name}"


# -- enumeration --------------------------------------------------------------------------------


def enumerate_entries(libraries: tuple[str, ...] = LIBRARIES) -> list[Entry]:
    """Every model class of each library, in a stable order."""
    found: list[Entry] = []
    for library in libraries:
        found += ENUMERATORS[library]()
    return found


def transformers_entries() -> list[Entry]:
    """Per model type: the base model, every causal-LM and conditional-generation head, else its first head.

    The classes come from the auto mappings (the registry transformers itself
    resolves ``AutoModel*`` from), so each has a config class.
    """
    from transformers.models.auto import configuration_auto, modeling_auto

    mappings = [getattr(modeling_auto, n) for n in sorted(dir(modeling_auto)) if n.endswith("_MAPPING_NAMES")]
    mappings = [m for m in mappings if m is not configuration_auto.CONFIG_MAPPING_NAMES]
    base = modeling_auto.MODEL_MAPPING_NAMES
    entries: list[Entry] = []
    seen: set[str] = set()
    for model_type, config_name in sorted(configuration_auto.CONFIG_MAPPING_NAMES.items()):
        heads = []
        for mapping in mappings:
            value = mapping.get(model_type)
            for name in value if isinstance(value, (tuple, list)) else [value]:
                if name and name not in heads:
                    heads.append(name)
        chosen = [base[model_type]] if model_type in base and isinstance(base[model_type], str) else []
        chosen += [h for h in heads if h.endswith(("ForCausalLM", "ForConditionalGeneration")) and h not in chosen]
        if not chosen and heads:
            chosen = [heads[0]]
        entries += [Entry("transformers", name, config_name) for name in chosen if name not in seen]
        seen.update(chosen)
    return entries


def diffusers_entries() -> list[Entry]:
    """Every ``ModelMixin`` subclass diffusers exports at the top level."""
    import diffusers

    entries = []
    for name in sorted(getattr(diffusers, "_import_structure", {}).get("models", [])) or sorted(dir(diffusers)):
        try:
            obj = getattr(diffusers, name)
        except Exception:  # noqa: BLE001 - an export that fails to import is still a class to record
            entries.append(Entry("diffusers", name, "import failed"))
            continue
        if isinstance(obj, type) and issubclass(obj, diffusers.ModelMixin) and obj is not diffusers.ModelMixin:
            entries.append(Entry("diffusers", name, obj.__module__))
    return entries


def timm_entries() -> list[Entry]:
    """One model per timm architecture module: the one whose name says it is smallest."""
    import timm

    entries = []
    for family in sorted(timm.list_modules()):
        names = timm.list_models(module=family)
        if names:
            entries.append(Entry("timm", min(names, key=_smallness), family))
    return entries


def _smallness(name: str) -> tuple[int, int, str]:
    words = ("test", "atto", "femto", "pico", "nano", "tiny", "mini", "xxs", "xs", "small", "s", "b0", "18")
    rank = next((i for i, word in enumerate(words) if word in name.split("_") or f"_{word}" in name), len(words))
    return rank, len(name), name


# -- tiny configs -------------------------------------------------------------------------------


def tiny_overrides(config: Any, outer_ids: tuple[int, ...] = ()) -> dict[str, Any]:
    """The fields of ``config`` (a transformers config) to shrink, as constructor keywords.

    ``outer_ids``: token ids the enclosing config names (an image token the text model embeds).
    """
    from transformers import PreTrainedConfig

    values = config.to_dict() if hasattr(config, "to_dict") else dict(vars(config))
    overrides: dict[str, Any] = {}
    for name, value in values.items():
        try:
            current = getattr(config, name, value)
        except Exception:  # noqa: BLE001 - a per-layer attribute refuses a global read
            current = value
        if isinstance(current, PreTrainedConfig):
            overrides[name] = {**_plain(current), **tiny_overrides(current, (*outer_ids, *token_ids(values)))}
            continue
        shrunk = _shrink(name, current, values)
        if shrunk is not None and shrunk != current:
            overrides[name] = shrunk
    overrides.update(_vocab(values, outer_ids))
    overrides.update(_per_layer(values, overrides))
    overrides.update(_rope_sections(values, overrides, _names_sections(config)))
    for name, value in values.items():  # grouped convolutions with one group per channel keep that shape
        hidden = values.get("hidden_size")
        if name.endswith("groups") and isinstance(value, int) and value == hidden and value > 1:
            overrides[name] = overrides.get("hidden_size", value)
    return overrides


def _per_layer(values: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Lists with one item per layer (``layer_types``, ``mlp_only_layers``) cut to the new layer count."""
    counts = {values[name]: overrides[name] for name in _LAYER_FIELDS if name in overrides and name in values}
    cut = {}
    for name, value in values.items():
        if isinstance(value, (list, tuple)) and len(value) in counts and name not in _LIST_FIELDS:
            cut[name] = type(value)(value[: counts[len(value)]])
    return cut


def _names_sections(config: Any) -> bool:
    """Whether the config's module speaks of multimodal rotary sections (its model may default them)."""
    return _module_says(config if isinstance(config, type) else type(config), "mrope_section")


def _rope_sections(values: dict[str, Any], overrides: dict[str, Any], defaulted: bool = False) -> dict[str, Any]:
    """Multimodal rotary sections (``mrope_section``) rescaled to sum to half the new rotary size.

    ``defaulted``: the model falls back to full-size sections (temporal, height,
    width in the ratio 2:3:3) when the config names none, so they are set.
    """
    rope = values.get("rope_parameters") or values.get("rope_scaling")
    if isinstance(rope, dict) and defaulted and "mrope_section" not in rope:
        rope = {**rope, "mrope_section": [2, 3, 3]}
    if not isinstance(rope, dict) or not isinstance(rope.get("mrope_section"), list):
        return {}
    hidden = overrides.get("hidden_size", values.get("hidden_size"))
    heads = overrides.get("num_attention_heads", values.get("num_attention_heads"))
    head_dim = overrides.get("head_dim") or values.get("head_dim")
    if not head_dim and isinstance(hidden, int) and isinstance(heads, int) and heads:
        head_dim = hidden // heads
    if not isinstance(head_dim, int):
        return {}
    head_dim = min(head_dim, hidden // heads) if "head_dim" not in overrides and isinstance(hidden, int) else head_dim
    sections = rope["mrope_section"]
    partial = rope.get("partial_rotary_factor") or values.get("partial_rotary_factor") or 1.0
    half, total = int(head_dim * partial) // 2, sum(sections)
    scaled = [max(1, section * half // total) for section in sections]
    scaled[0] += half - sum(scaled)
    name = "rope_parameters" if "rope_parameters" in values else "rope_scaling"
    return {name: {**rope, "mrope_section": scaled}}


def _plain(config: Any) -> dict[str, Any]:
    data = config.to_dict()
    data.pop("transformers_version", None)
    return data


def _shrink(name: str, value: Any, values: dict[str, Any]) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, list, tuple)):
        return None
    if isinstance(value, int):
        if name in _LAYER_FIELDS:
            return min(value, LAYERS)
        if name in _HIDDEN_FIELDS:
            return min(value, HIDDEN)
        if name in _FFN_FIELDS:
            return min(value, FFN)
        if name in _HEAD_FIELDS:
            return min(value, HEADS)
        if name == "num_key_value_heads":
            heads = values.get("num_attention_heads") or HEADS
            return min(value, HEADS) if value >= heads else min(value, HEADS // 2)
        if name in _EXPERT_FIELDS:
            return min(value, 4)
        if name in _TOPK_FIELDS:
            return min(value, 2)
        if name in _GROUP_FIELDS:
            return min(value, 1)
        if name in _TOKEN_TOPK_FIELDS:
            return min(value, SEQ // 2)
        if name in _HEAD_DIM_FIELDS:
            return min(value, 16)
        if name == "image_size":
            return min(value, 64)
        return None
    if name in _LIST_FIELDS and value and all(isinstance(v, int) for v in value):
        if name == "depths":
            return type(value)(min(v, 1) for v in value)
        return type(value)(min(v, 16 * 2**i) for i, v in enumerate(value))
    return None


def token_ids(values: dict[str, Any]) -> list[int]:
    """Every token id a config's fields name."""
    ids = [v for k, v in values.items() if k.endswith(("token_id", "token_index")) and isinstance(v, int)]
    for k, v in values.items():
        if k.endswith("token_ids") and isinstance(v, (list, tuple)):
            ids += [i for i in v if isinstance(i, int)]
    return ids


def _vocab(values: dict[str, Any], outer_ids: tuple[int, ...]) -> dict[str, Any]:
    """A small vocabulary that still holds every token id the config (or the one around it) names."""
    if not isinstance(values.get("vocab_size"), int):
        return {}
    ids = [*token_ids(values), *outer_ids]
    # an image token may sit just past the text vocabulary (llava): the ids must fit the embedding anyway
    return {"vocab_size": max([min(values["vocab_size"], VOCAB), *(i + 1 for i in ids)])}


def transformers_config(config_class: Any) -> Any:
    """A tiny instance of ``config_class``."""
    default = config_class()
    overrides = tiny_overrides(default)
    try:
        return config_class(**overrides)
    except Exception:  # noqa: BLE001 - some constructors reject sub-config dicts: set the fields instead
        config = config_class()
        for name, value in overrides.items():
            if not isinstance(value, dict):
                setattr(config, name, value)
        return config


# -- building -------------------------------------------------------------------------------------


def build(entry: Entry, device: str = "cpu") -> Built:
    """The model of ``entry`` with random weights in eval mode, and the arguments of one call."""
    return BUILDERS[entry.library](entry, device)


def experts_loop(cls: Any) -> bool:
    """Whether a transformers model class routes tokens through experts whose kernel is a setting.

    Such a module decorates its experts with ``@use_experts_implementation``:
    ``experts_implementation="eager"`` runs the reference Python loop over the
    experts hit, the default (``grouped_mm``) one batched kernel.
    """
    return _module_says(cls, "@use_experts_implementation")


def _module_says(cls: Any, text: str) -> bool:
    """Whether the source of the module that defines ``cls`` holds ``text``."""
    module = sys.modules.get(getattr(cls, "__module__", ""))
    try:
        return module is not None and text in inspect.getsource(module)
    except (OSError, TypeError):
        return False


def changed_since(entry: Entry, builder: int) -> bool:
    """Whether the builder changed what ``entry`` runs since version ``builder``: its row is stale."""
    if builder >= BUILDER:
        return False
    # version 3: a diffusers model runs on the first input layout it accepts
    if entry.library == "diffusers":
        return True
    if builder >= 2 or entry.library != "transformers":
        return False
    import transformers

    # version 2: experts run as the Python loop, a token's experts are at most the experts built, and
    # rotary sections a model defaults to full size are set to the tiny head
    cls = getattr(transformers, entry.name, None)
    if cls is None:
        return False
    return experts_loop(cls) or _names_sections(cls.config_class) or _routing_shrunk(cls.config_class)


def _routing_shrunk(config_class: Any) -> bool:
    """Whether version 2's routing fields (top-k, expert groups, indexer top-k) shrink this config's defaults."""
    fields = _TOPK_FIELDS | _GROUP_FIELDS | _TOKEN_TOPK_FIELDS
    try:
        overrides = tiny_overrides(config_class())
    except Exception:  # noqa: BLE001 - a config that cannot be made was not built either
        return False
    subs = [value for value in overrides.values() if isinstance(value, dict)]
    return any(name in fields for found in (overrides, *subs) for name in found)


def build_transformers(entry: Entry, device: str) -> Built:
    import transformers

    cls = getattr(transformers, entry.name)
    config = transformers_config(cls.config_class)
    if experts_loop(cls):
        # the loop over experts is the reference implementation (every transformers 4 release ran it, and
        # training with experts that grouped_mm cannot dispatch falls back to it): the code torch.compile meets
        config._experts_implementation = "eager"
    for attribute in ("use_cache",):
        if hasattr(config, attribute):
            setattr(config, attribute, False)
    model = cls(config).eval().to(device)
    kwargs = transformers_inputs(model, config, device)
    with_images = image_inputs(model, config, kwargs)
    if with_images:
        try:
            with _no_grad():
                model(**with_images)
            kwargs = with_images
        except Exception:  # noqa: BLE001 - images placed the generic way do not fit this model: text only
            pass
    return Built(model, kwargs=kwargs)


def settings(built: Built) -> dict[str, Any]:
    """The kernel settings a built transformers model runs with (recorded in its discovery row)."""
    config = getattr(built.fn, "config", None)
    if config is None or not hasattr(config, "_attn_implementation"):
        return {}
    found = {"attn_implementation": config._attn_implementation}
    if experts_loop(type(built.fn)):  # a dense model resolves the setting too, to a kernel it never calls
        found["experts_implementation"] = config._experts_implementation
    if "use_cache" in built.kwargs:
        found["use_cache"] = built.kwargs["use_cache"]
    return found


def _no_grad() -> Any:
    import torch

    return torch.no_grad()


def image_inputs(model: Any, config: Any, kwargs: dict[str, Any]) -> Optional[dict[str, Any]]:
    """Token ids with as many image tokens as the model's vision tower makes features, and the pixels.

    A vision-language model replaces its image tokens by the image features,
    so their counts must match; the count is taken from the model's own
    ``get_image_features`` on the pixels. Qwen-style towers take flattened
    patches and a grid (``image_grid_thw``). None when the model has no image
    token or the features cannot be made this way.
    """
    import torch

    params = inspect.signature(model.forward).parameters
    token = getattr(config, "image_token_id", None)
    token = token if isinstance(token, int) else getattr(config, "image_token_index", None)
    if not isinstance(token, int) or "pixel_values" not in params or "input_ids" not in kwargs:
        return None
    if not hasattr(model, "get_image_features"):
        return None
    vision = _sub(config, "vision_config")
    channels = getattr(vision, "num_channels", None) or getattr(vision, "in_channels", None) or 3
    size = getattr(vision, "image_size", None) or IMAGE
    size = size[0] if isinstance(size, (list, tuple)) else size
    extra: dict[str, Any] = {}
    pixels = torch.randn((1, channels, size, size), generator=_generator(2))
    if "image_grid_thw" in params:
        patch = getattr(vision, "patch_size", 14)
        temporal = getattr(vision, "temporal_patch_size", 1) or 1
        merge = getattr(vision, "spatial_merge_size", 1) or 1
        grid = 2 * merge
        pixels = torch.randn((grid * grid, channels * temporal * patch * patch), generator=_generator(2))
        extra["image_grid_thw"] = torch.tensor([[1, grid, grid]])
    try:
        with torch.no_grad():
            features = model.get_image_features(pixel_values=pixels, **extra)
    except Exception:  # noqa: BLE001
        return None
    count = _feature_count(features)
    if not count:
        return None
    ids = kwargs["input_ids"]
    ids = ids.masked_fill(ids == token, 3)
    image = torch.full((1, count), token, dtype=ids.dtype)
    ids = torch.cat([ids[:, :2], image, ids[:, 2:]], dim=1)
    if "mm_token_type_ids" in params:  # multimodal rotary positions: 1 marks an image token
        extra["mm_token_type_ids"] = (ids == token).long()
    return {**kwargs, "input_ids": ids, "pixel_values": pixels, **extra}


def _feature_count(features: Any) -> int:
    """Image feature vectors in ``get_image_features``'s result (a tensor, a list of them, or an output object)."""
    import torch

    if hasattr(features, "pooler_output") and features.pooler_output is not None:
        features = features.pooler_output
    elif hasattr(features, "last_hidden_state") and not isinstance(features, torch.Tensor):
        features = features.last_hidden_state
    if isinstance(features, torch.Tensor):
        return int(features.shape[:-1].numel())
    if isinstance(features, (list, tuple)):
        return sum(_feature_count(f) for f in features)
    return 0


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _sub(config: Any, *names: str) -> Any:
    """The first sub-config of those names, else the config itself."""
    for name in names:
        sub = getattr(config, name, None)
        if sub is not None and not isinstance(sub, (int, float, str, bool, list, dict)):
            return sub
    return config


def transformers_inputs(model: Any, config: Any, device: str) -> dict[str, Any]:
    """Arguments of one forward call, from the forward's parameter names and the config."""
    import torch

    params = inspect.signature(model.forward).parameters
    text = _sub(config, "text_config", "decoder", "language_config")
    vision = _sub(config, "vision_config", "image_config", "backbone_config", "encoder")
    vocab = getattr(text, "vocab_size", None) or getattr(config, "vocab_size", None) or VOCAB
    kwargs: dict[str, Any] = {}
    main = getattr(model, "main_input_name", "input_ids")
    if "input_ids" in params and (main == "input_ids" or "pixel_values" not in params):
        low, high = min(3, vocab - 1), max(4, min(vocab, VOCAB) - 8)
        kwargs["input_ids"] = torch.randint(low, high, (1, SEQ), generator=_generator(1))
    # a dual encoder (CLIP-like) takes both; a model that places images at image tokens gets text only
    dual = vision is not config and not any("image_token" in name for name in vars(config))
    if main == "pixel_values" or ("pixel_values" in params and ("input_ids" not in kwargs or dual)):
        channels = getattr(vision, "num_channels", 3)
        size = getattr(vision, "image_size", IMAGE)
        size = size[0] if isinstance(size, (list, tuple)) else size
        kwargs["pixel_values"] = torch.randn((1, channels, size, size), generator=_generator(2))
    if main in ("input_values", "input_features") or (
        not kwargs and any(p in params for p in ("input_values", "input_features"))
    ):
        kwargs.update(_audio(model, config, main if main in params else next(p for p in params if "input_" in p)))
    if "decoder_input_ids" in params and getattr(config, "is_encoder_decoder", False):
        dec_vocab = getattr(_sub(config, "decoder"), "vocab_size", None) or vocab
        high = max(4, min(dec_vocab, VOCAB) - 8)
        kwargs["decoder_input_ids"] = torch.randint(min(3, high - 1), high, (1, SEQ // 2), generator=_generator(3))
    if "past_values" in params:  # time-series models
        kwargs.update(_time_series(config, params))
    if "use_cache" in params:
        kwargs["use_cache"] = False
    if "return_dict" in params:
        kwargs["return_dict"] = True
    return {k: v.to(device) if hasattr(v, "to") else v for k, v in kwargs.items()}


def _audio(model: Any, config: Any, name: str) -> dict[str, Any]:
    import torch

    if name == "input_features":
        bins = getattr(config, "num_mel_bins", None) or getattr(config, "feature_size", None) or 80
        frames = 2 * getattr(config, "max_source_positions", 0) or 100
        return {name: torch.randn((1, bins, frames), generator=_generator(4))}
    channels = getattr(config, "audio_channels", None)
    if channels is None and any(name in CODEC_FIELDS for name in vars(config)):
        channels = 1  # codecs take (batch, channels, samples)
    shape = (1, channels, AUDIO) if channels else (1, AUDIO)
    return {name: torch.randn(shape, generator=_generator(4))}


def _time_series(config: Any, params: Any) -> dict[str, Any]:
    import torch

    context = getattr(config, "context_length", None) or 32
    lags = max(getattr(config, "lags_sequence", None) or [0])
    length = context + lags
    channels = getattr(config, "input_size", None) or getattr(config, "num_input_channels", None) or 1
    shape = (1, length) if channels == 1 and "num_input_channels" not in vars(config) else (1, length, channels)
    kwargs = {"past_values": torch.randn(shape, generator=_generator(5))}
    if "past_time_features" in params:
        features = getattr(config, "num_time_features", 0)
        kwargs["past_time_features"] = torch.randn((1, length, features), generator=_generator(6))
        kwargs["past_observed_mask"] = torch.ones(shape)
    return kwargs


def build_timm(entry: Entry, device: str) -> Built:
    import timm
    import torch

    model = timm.create_model(entry.name, pretrained=False, num_classes=10).eval().to(device)
    cfg = getattr(model, "pretrained_cfg", {}) or {}
    channels, height, width = cfg.get("input_size", (3, 224, 224))
    fixed = cfg.get("fixed_input_size", False)
    side = (height, width) if fixed else (min(height, 64), min(width, 64))
    pixels = torch.randn((1, channels, *side), generator=_generator(2)).to(device)
    return Built(model, args=(pixels,))


def build_diffusers(entry: Entry, device: str) -> Built:
    """The model, and the first generic input layout it runs on (the first tried, when none runs)."""
    import diffusers
    import torch

    cls = getattr(diffusers, entry.name)
    model = cls(**diffusers_overrides(cls)).eval().to(device)
    candidates = diffusers_inputs(model, device)
    for kwargs in candidates:
        try:
            with torch.no_grad():
                model(**kwargs)
        except Exception:  # noqa: BLE001, S112 - the next layout is tried; the discovery records the first's error
            continue
        return Built(model, kwargs=kwargs)
    return Built(model, kwargs=candidates[0])


def diffusers_overrides(cls: Any) -> dict[str, Any]:
    """Constructor keywords that shrink a diffusers model: its ``__init__`` defaults, made small."""
    params = inspect.signature(cls.__init__).parameters
    overrides: dict[str, Any] = {}
    for name, param in params.items():
        value = param.default
        if value is inspect.Parameter.empty:
            continue
        if name == "block_out_channels" and isinstance(value, (list, tuple)) and value:
            overrides[name] = tuple(32 for _ in value)
        elif name == "norm_num_groups" and isinstance(value, int):
            overrides[name] = 8
        elif name in ("layers_per_block",) and isinstance(value, int):
            overrides[name] = 1
        elif name == "sample_size" and isinstance(value, int):
            overrides[name] = min(value, 16)
        else:
            shrunk = _shrink(name, value, {})
            if shrunk is not None and shrunk != value:
                overrides[name] = shrunk
    if "attention_head_dim" in overrides and "num_attention_heads" in params:
        heads = overrides.get("num_attention_heads", params["num_attention_heads"].default)
        if isinstance(heads, int):
            overrides["num_attention_heads"] = min(heads, 2)
    head, full = overrides.get("attention_head_dim"), params.get("attention_head_dim")
    for name, param in params.items():
        axes = param.default
        # rotary axes that split the head dimension (FLUX's ``axes_dims_rope``) shrink with it
        if "axes_dim" in name and isinstance(axes, (list, tuple)) and isinstance(head, int) and full is not None:
            if all(isinstance(d, int) for d in axes) and sum(axes) == full.default:
                shares = [max(2, round(d * head / sum(axes) / 2) * 2) for d in axes[:-1]]
                overrides[name] = (*shares, head - sum(shares))
    return overrides


def diffusers_inputs(model: Any, device: str) -> list[dict[str, Any]]:
    """Input layouts to try, in turn: the main input (``sample``/``hidden_states``) as image latents,
    video latents, a packed token sequence and a 1-D signal, from the config's channels and size; a
    timestep and text states; every other required parameter filled by what its name says."""
    import torch

    config = model.config
    params = inspect.signature(model.forward).parameters
    channels = config.get("in_channels", None) or config.get("latent_channels", None) or 4
    size = config.get("sample_size", None) or 16
    size = size[0] if isinstance(size, (list, tuple)) else size
    size = min(size, 16)
    width = config.get("cross_attention_dim", None) or config.get("joint_attention_dim", None) or HIDDEN
    width = width[0] if isinstance(width, (list, tuple)) else width
    first = next(iter(params))
    layouts = [(1, channels, size, size), (1, channels, 2, size, size), (1, (size // 2) ** 2, channels)]
    layouts.append((1, channels, size * size))
    candidates = []
    for layout in layouts:
        main = torch.randn(layout, generator=_generator(2))
        kwargs: dict[str, Any] = {first: main}
        if "timestep" in params:
            kwargs["timestep"] = torch.tensor([10])
        if "encoder_hidden_states" in params:
            kwargs["encoder_hidden_states"] = torch.randn((1, 8, width), generator=_generator(3))
        for name, param in params.items():
            optional = param.default is not inspect.Parameter.empty
            if name in kwargs or optional and not (param.default is None and name in _NEEDED_WHEN_NONE):
                continue
            if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            value = _by_name(name, config, main, width)
            if value is not None:
                kwargs[name] = value
        if "return_dict" in params:
            kwargs["return_dict"] = False
        candidates.append({k: v.to(device) if hasattr(v, "to") else v for k, v in kwargs.items()})
    return candidates


#: optional forward parameters (default None) that the models taking them still need: positions, pooled text
_NEEDED_WHEN_NONE = {"img_ids", "txt_ids", "pooled_projections", "img_shapes"}


def _by_name(name: str, config: Any, main: Any, width: int) -> Any:
    """A small value for a required forward parameter of a diffusers model, from what its name says
    (None when the name says nothing: the call then fails and the error is recorded)."""
    import torch

    text = 8
    if name.endswith("mask"):
        return torch.ones((1, text), dtype=torch.long)
    if "ratio" in name:
        return torch.tensor([0.5])
    if "timestep" in name or name.endswith("_time") or name == "guidance":
        return torch.tensor([10.0])
    if name.startswith("pooled") or name.endswith("pooled") or "global" in name:
        dim = config.get("pooled_projection_dim", None) or width
        return torch.randn((1, dim), generator=_generator(4))
    if name in ("img_ids", "txt_ids"):
        # one position per token and rotary axis
        axes = len(config.get("axes_dims_rope", None) or (0, 0, 0))
        return torch.zeros((main.shape[1] if name == "img_ids" and main.dim() == 3 else text, axes))
    if name == "img_shapes":
        # the latent grid after 2x2 patching; a packed sequence is already that grid's tokens
        side = int(main.shape[1] ** 0.5) if main.dim() == 3 else main.shape[-1] // 2
        return [[(1, side, side)]]
    if name.endswith("_cond") or name.endswith("latents"):
        return torch.randn(main.shape, generator=_generator(5))
    return None


# -- torchvision ----------------------------------------------------------------------------------

#: torchvision's model packages whose every builder is run (classification is one per module); its
#: ``quantization`` builders are the classification models again, with quantisation stubs
TORCHVISION_TASKS = ("detection", "segmentation", "video", "optical_flow")
#: the builders' keywords that shrink a model; a builder that takes no such keyword gets the model without
TORCHVISION_CLASSES = {"detection": 3, "segmentation": 3, "video": 10, "": 10}
#: image sizes and detections kept per image: the detection keywords of each builder family (R-CNN names
#: its count ``box_detections_per_img``), each dropped where the builder takes no such keyword
DETECTION_SIZE = {"min_size": 64, "max_size": 96, "box_detections_per_img": 10, "detections_per_img": 10}


def torchvision_entries() -> list[Entry]:
    """Every builder of torchvision's task packages; per classification module, the one with fewest parameters.

    ``origin`` is the builder's module below ``torchvision.models``
    (``detection.faster_rcnn``, ``resnet``).
    """
    import torchvision.models as models

    entries = []
    for task in TORCHVISION_TASKS:
        module = importlib.import_module(f"torchvision.models.{task}")
        entries += [Entry("torchvision", name, _torchvision_origin(name)) for name in models.list_models(module=module)]
    families: dict[str, list[str]] = defaultdict(list)
    for name in models.list_models(module=models):
        families[_torchvision_origin(name)].append(name)
    for family, names in sorted(families.items()):
        entries.append(Entry("torchvision", min(names, key=_parameter_count), family))
    return entries


def _parameter_count(name: str) -> tuple[int, str]:
    return _torchvision_meta(name).get("num_params", 0), name


def _torchvision_origin(name: str) -> str:
    import torchvision.models as models

    return models.get_model_builder(name).__module__.removeprefix("torchvision.models.")


def _torchvision_meta(name: str) -> dict[str, Any]:
    """The metadata of a builder's first weights (parameter count, smallest input), or none."""
    import torchvision.models as models

    try:
        return dict(next(iter(models.get_model_weights(name))).meta)
    except (StopIteration, ValueError):
        return {}


def build_torchvision(entry: Entry, device: str) -> Built:
    """The builder's model without weights, shrunk where the builder takes a size keyword, and inputs for its task."""
    import torch
    import torchvision.models as models

    torchvision_operators()
    builder = models.get_model_builder(entry.name)
    task = entry.origin.split(".")[0] if entry.origin.split(".")[0] in TORCHVISION_TASKS else ""
    params = inspect.signature(builder).parameters
    settings: dict[str, Any] = {"weights": None, "progress": False}
    if "weights_backbone" in params:
        settings["weights_backbone"] = None
    if task in TORCHVISION_CLASSES:
        settings["num_classes"] = TORCHVISION_CLASSES[task]
    if task == "detection":
        settings.update(DETECTION_SIZE)
    model = _build_without_refused(builder, settings).eval().to(device)
    meta = _torchvision_meta(entry.name)
    side = max(IMAGE * 2, *meta.get("min_size", (1, 1)))
    pixels = functools.partial(torch.rand, generator=_generator(2), device=device)
    if task == "detection":  # a batch of two images of different sizes: the transform resizes and pads them
        return Built(model, args=([pixels((3, IMAGE * 2, IMAGE * 5 // 2)), pixels((3, IMAGE * 5 // 2, IMAGE * 2))],))
    if task == "video":
        frames = max(4, meta.get("min_temporal_size", 1))
        return Built(model, args=(pixels((1, 3, frames, side, side)),))
    if task == "optical_flow":
        return Built(model, args=(pixels((1, 3, side, side)), pixels((1, 3, side, side))), kwargs=_flow_updates(model))
    return Built(model, args=(pixels((1, 3, side, side)),))


def _build_without_refused(builder: Any, settings: dict[str, Any]) -> Any:
    """``builder(**settings)``, leaving out the detection keywords it refuses one by one (SSD fixes its size)."""
    while True:
        try:
            return builder(**settings)
        except TypeError as exc:
            refused = [name for name in DETECTION_SIZE if name in settings and f"'{name}'" in str(exc)]
            if not refused:
                raise
            del settings[refused[0]]


def _flow_updates(model: Any) -> dict[str, Any]:
    """As many refinement steps of an optical-flow model as a tiny model has layers."""
    return {"num_flow_updates": LAYERS} if "num_flow_updates" in inspect.signature(model.forward).parameters else {}


@functools.cache
def torchvision_operators() -> Optional[Any]:
    """torchvision's ``nms`` and ``roi_align`` operators, defined here where its C++ extension did not load.

    The torchvision wheel on PyPI is a CUDA build whose extension needs
    CUDA torch libraries; beside a CPU torch it does not load, and every
    detection model fails in ``nms``. The operators are defined with
    torchvision's schemas and its own fake (meta) kernels, so Dynamo meets
    the same opaque operators with data-dependent output sizes as with the
    extension; their CPU kernels are Python (``roi_align`` is torchvision's
    pure-Python reference). Returns the library that holds them (kept alive by
    the cache), or None when the extension loaded.
    """
    import torch
    from torchvision import extension

    roi_align = importlib.import_module("torchvision.ops.roi_align")
    if extension._has_ops():
        return None
    library = torch.library.Library("torchvision", "DEF")
    for box_op in ("nms", "qnms"):  # the fake kernels torchvision registers by name need both defined
        library.define(f"{box_op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    library.define(
        "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
        "int sampling_ratio, bool aligned) -> Tensor"
    )
    metas = importlib.import_module("torchvision._meta_registrations")
    library.impl("nms", torch._dynamo.disable(_nms), "CPU")
    library.impl("roi_align", torch._dynamo.disable(roi_align._roi_align), "CPU")
    library.impl("roi_align", metas.meta_roi_align, "Meta")
    # ``_has_ops`` is read through the extension module, except by ``roi_align``, which imported it by name
    extension._has_ops = roi_align._has_ops = lambda: True  # type: ignore[attr-defined]
    return library


def _nms(boxes: Any, scores: Any, iou_threshold: float) -> Any:
    """Indices of the boxes kept by greedy non-maximum suppression, by decreasing score."""
    import torch

    order = scores.argsort(descending=True)
    ranked = boxes[order]
    area = (ranked[:, 2] - ranked[:, 0]) * (ranked[:, 3] - ranked[:, 1])
    corners = torch.minimum(ranked[:, None, 2:], ranked[None, :, 2:]) - torch.maximum(
        ranked[:, None, :2], ranked[None, :, :2]
    )
    inter = corners.clamp(min=0).prod(-1)
    overlaps = (inter / (area[:, None] + area[None, :] - inter) > iou_threshold).tolist()
    removed = [False] * len(overlaps)
    keep = []
    for rank, row in enumerate(overlaps):
        if not removed[rank]:
            keep.append(rank)
            removed = [gone or hit for gone, hit in zip(removed, row, strict=True)]
    return order[torch.tensor(keep, dtype=torch.long)]


def torchaudio_entries() -> list[Entry]:
    """Every named factory of ``torchaudio.models``, each class no factory builds, and each decoding method."""
    return [Entry("torchaudio", name, origin) for name, origin in zoo_torchaudio.entries()]


def build_torchaudio(entry: Entry, device: str) -> Built:
    return zoo_torchaudio.build(entry.name, device)


ENUMERATORS = {
    "transformers": transformers_entries,
    "diffusers": diffusers_entries,
    "timm": timm_entries,
    "torchvision": torchvision_entries,
    "torchaudio": torchaudio_entries,
}
BUILDERS = {
    "transformers": build_transformers,
    "diffusers": build_diffusers,
    "timm": build_timm,
    "torchvision": build_torchvision,
    "torchaudio": build_torchaudio,
}


def find(key: str, entries: Optional[list[Entry]] = None) -> Entry:
    """The entry of ``library:name``."""
    library, _, name = key.partition(":")
    for entry in entries or enumerate_entries((library,)):
        if entry.name == name:
            return entry
    return Entry(library, name)
