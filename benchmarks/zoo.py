"""The model zoo of the real-model benchmark: real library models, tiny configs, random weights.

Every model is built from its library's config class (no weights are
downloaded), in eval mode, under a fixed seed, with small fixed inputs. The
builders import the library when called, so whichever copy of the package is
first on ``sys.path`` (installed or rewritten by gbfix) is the one that runs.

Two sizes: ``tiny`` (hidden 64, sequence 16: Python overhead and graph
structure dominate; the default) and ``medium`` (hidden 256, sequence 128:
compute dominates; for timings with inductor).

The families cover the shapes that break in practice: decoders looping over
layers, mixture-of-experts layers with a Python loop over experts (selected
with ``experts_implementation="eager"``; transformers otherwise picks a
batched kernel where it can), vision-language models whose vision towers
loop over images or windows, audio codecs with conv stacks padded from the
input length, encoders, a diffusion sampling loop, and controls that compile
cleanly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class Built:
    """A built model: what to compile (``fn``) and the arguments of one call."""

    fn: Callable[..., Any]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ModelSpec:
    """One zoo entry: a name, its family and how to build it at a size on a device."""

    name: str
    family: str
    build: Callable[[str, str], Built]
    packages: tuple[str, ...] = ("transformers",)
    note: str = ""
    #: part of the default run; the others compile like a default one of their family (see ``note``)
    #: and stay available with ``--models``
    default: bool = True
    #: what the build compiles that is not a module's ``forward``, as a user names it to gbfix
    #: (``--compiled NAME``): static mode cannot know what a script outside the package compiles
    compiled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Size:
    """The dimensions shared by the builders."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    seq: int
    image: int
    audio: int


SIZES = {
    "tiny": Size(hidden=64, layers=2, heads=4, kv_heads=2, intermediate=128, vocab=256, seq=16, image=32, audio=2400),
    "medium": Size(
        hidden=256, layers=4, heads=4, kv_heads=2, intermediate=512, vocab=1024, seq=128, image=64, audio=16000
    ),
}


# -- helpers ------------------------------------------------------------------------------


def _transformers_model(class_name: str, config: Any, device: str) -> Any:
    """Instantiate ``transformers.<class_name>`` from ``config``: random weights, eval, on ``device``."""
    import transformers

    model = getattr(transformers, class_name)(config)
    return model.eval().to(device)


def _config(class_name: str, **kwargs: Any) -> Any:
    import transformers

    return getattr(transformers, class_name)(**kwargs)


def _ids(size: Size, device: str, batch: int = 1, seq: int | None = None) -> Any:
    import torch

    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(3, size.vocab - 8, (batch, seq or size.seq), generator=generator)
    return ids.to(device)


def _randn(shape: tuple[int, ...], device: str) -> Any:
    import torch

    generator = torch.Generator().manual_seed(2)
    return torch.randn(shape, generator=generator).to(device)


def _decoder_kwargs(size: Size) -> dict[str, Any]:
    """The Llama-style config fields most decoders share."""
    return dict(
        vocab_size=size.vocab,
        hidden_size=size.hidden,
        intermediate_size=size.intermediate,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        num_key_value_heads=size.kv_heads,
        max_position_embeddings=max(2 * size.seq, 128),
        use_cache=False,
    )


def _causal_lm(
    class_name: str, config_name: str, call: Optional[dict[str, Any]] = None, **extra: Any
) -> Callable[[str, str], Built]:
    """A builder for a decoder-only causal LM called on token ids (no cache, so outputs are tensors);
    ``call``: more arguments of the call, ``extra``: of the config."""

    def build(size_name: str, device: str) -> Built:
        size = SIZES[size_name]
        config = _config(config_name, **{**_decoder_kwargs(size), **extra})
        model = _transformers_model(class_name, config, device)
        return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False, **(call or {})})

    return build


def _moe_lm(class_name: str, config_name: str, **extra: Any) -> Callable[[str, str], Built]:
    """A mixture-of-experts causal LM with the Python loop over experts (``experts_implementation="eager"``)."""

    def build(size_name: str, device: str) -> Built:
        size = SIZES[size_name]
        config = _config(config_name, **{**_decoder_kwargs(size), **extra})
        config._experts_implementation = "eager"
        model = _transformers_model(class_name, config, device)
        return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})

    return build


# -- decoders ---------------------------------------------------------------------------------

build_llama = _causal_lm("LlamaForCausalLM", "LlamaConfig")
# The attention weights asked for on the default SDPA attention: transformers warns in every
# layer on every call (``logger.warning_once``) and captures the weights with forward hooks.
build_llama_attentions = _causal_lm("LlamaForCausalLM", "LlamaConfig", call={"output_attentions": True})
build_qwen2 = _causal_lm("Qwen2ForCausalLM", "Qwen2Config")
build_mistral = _causal_lm("MistralForCausalLM", "MistralConfig", sliding_window=8)
build_gemma2 = _causal_lm("Gemma2ForCausalLM", "Gemma2Config", head_dim=16, sliding_window=8)
build_phi3 = _causal_lm("Phi3ForCausalLM", "Phi3Config", pad_token_id=0)
build_qwen3 = _causal_lm("Qwen3ForCausalLM", "Qwen3Config", head_dim=16)


def build_gpt2(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "GPT2Config",
        vocab_size=size.vocab,
        n_embd=size.hidden,
        n_layer=size.layers,
        n_head=size.heads,
        n_positions=max(2 * size.seq, 128),
        use_cache=False,
    )
    model = _transformers_model("GPT2LMHeadModel", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


def build_gpt_neox(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config("GPTNeoXConfig", **{**_decoder_kwargs(size), "num_key_value_heads": None})
    model = _transformers_model("GPTNeoXForCausalLM", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


def build_llama_generate(size_name: str, device: str) -> Built:
    """``generate()`` compiled whole: greedy decoding, a Python loop of model calls with a cache."""
    size = SIZES[size_name]
    config = _config("LlamaConfig", **{**_decoder_kwargs(size), "use_cache": True})
    model = _transformers_model("LlamaForCausalLM", config, device)
    return Built(
        model.generate,
        kwargs={"input_ids": _ids(size, device), "max_new_tokens": 4, "do_sample": False, "pad_token_id": 0},
    )


def build_t5(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "T5Config",
        vocab_size=size.vocab,
        d_model=size.hidden,
        d_kv=size.hidden // size.heads,
        d_ff=size.intermediate,
        num_layers=size.layers,
        num_heads=size.heads,
        use_cache=False,
    )
    model = _transformers_model("T5Model", config, device)
    return Built(
        model, kwargs={"input_ids": _ids(size, device), "decoder_input_ids": _ids(size, device), "use_cache": False}
    )


def build_bart(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "BartConfig",
        vocab_size=size.vocab,
        d_model=size.hidden,
        encoder_layers=size.layers,
        decoder_layers=size.layers,
        encoder_attention_heads=size.heads,
        decoder_attention_heads=size.heads,
        encoder_ffn_dim=size.intermediate,
        decoder_ffn_dim=size.intermediate,
        max_position_embeddings=max(2 * size.seq, 128),
        use_cache=False,
    )
    model = _transformers_model("BartModel", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


def build_falcon(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "FalconConfig",
        vocab_size=size.vocab,
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        use_cache=False,
    )
    model = _transformers_model("FalconForCausalLM", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


def build_bloom(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "BloomConfig",
        vocab_size=size.vocab,
        hidden_size=size.hidden,
        n_layer=size.layers,
        n_head=size.heads,
        use_cache=False,
    )
    model = _transformers_model("BloomForCausalLM", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


def build_opt(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "OPTConfig",
        vocab_size=size.vocab,
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        ffn_dim=size.intermediate,
        word_embed_proj_dim=size.hidden,
        max_position_embeddings=max(2 * size.seq, 128),
        use_cache=False,
    )
    model = _transformers_model("OPTForCausalLM", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


def build_mamba(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "MambaConfig",
        vocab_size=size.vocab,
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        state_size=8,
        use_cache=False,
    )
    model = _transformers_model("MambaForCausalLM", config, device)
    return Built(model, kwargs={"input_ids": _ids(size, device), "use_cache": False})


# -- mixture of experts -----------------------------------------------------------------------

build_mixtral = _moe_lm("MixtralForCausalLM", "MixtralConfig", num_local_experts=4, num_experts_per_tok=2)
build_qwen2_moe = _moe_lm(
    "Qwen2MoeForCausalLM",
    "Qwen2MoeConfig",
    num_experts=4,
    num_experts_per_tok=2,
    moe_intermediate_size=64,
    shared_expert_intermediate_size=64,
)
build_olmoe = _moe_lm("OlmoeForCausalLM", "OlmoeConfig", num_experts=4, num_experts_per_tok=2)
build_qwen3_moe = _moe_lm(
    "Qwen3MoeForCausalLM", "Qwen3MoeConfig", num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64, head_dim=16
)


build_jamba = _moe_lm(
    "JambaForCausalLM",
    "JambaConfig",
    num_experts=4,
    num_experts_per_tok=2,
    attn_layer_period=2,
    attn_layer_offset=1,
    expert_layer_period=2,
    expert_layer_offset=1,
    mamba_d_state=8,
)
build_granitemoe = _moe_lm("GraniteMoeForCausalLM", "GraniteMoeConfig", num_local_experts=4, num_experts_per_tok=2)
build_phimoe = _moe_lm("PhimoeForCausalLM", "PhimoeConfig", num_local_experts=4, num_experts_per_tok=2)


# -- encoders ------------------------------------------------------------------------------------


def _bert_like(class_name: str, config_name: str) -> Callable[[str, str], Built]:
    def build(size_name: str, device: str) -> Built:
        size = SIZES[size_name]
        config = _config(
            config_name,
            vocab_size=size.vocab,
            hidden_size=size.hidden,
            num_hidden_layers=size.layers,
            num_attention_heads=size.heads,
            intermediate_size=size.intermediate,
            max_position_embeddings=max(2 * size.seq, 128),
        )
        model = _transformers_model(class_name, config, device)
        ids = _ids(size, device, batch=2)
        return Built(model, kwargs={"input_ids": ids, "attention_mask": _padding_mask(ids)})

    return build


def _padding_mask(ids: Any) -> Any:
    """All ones except the last quarter of the second row: a padded batch."""
    import torch

    mask = torch.ones_like(ids)
    if ids.shape[0] > 1:
        mask[1, -max(1, ids.shape[1] // 4) :] = 0
    return mask


build_bert = _bert_like("BertModel", "BertConfig")
build_roberta = _bert_like("RobertaModel", "RobertaConfig")


def _vision_encoder(class_name: str, config_name: str, **extra: Any) -> Callable[[str, str], Built]:
    def build(size_name: str, device: str) -> Built:
        size = SIZES[size_name]
        config = _config(config_name, **_vit_kwargs(size, extra))
        model = _transformers_model(class_name, config, device)
        return Built(model, kwargs={"pixel_values": _randn((2, 3, size.image, size.image), device)})

    return build


def _vit_kwargs(size: Size, extra: dict[str, Any]) -> dict[str, Any]:
    return dict(
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        intermediate_size=size.intermediate,
        image_size=size.image,
        patch_size=8,
        **extra,
    )


build_vit = _vision_encoder("ViTModel", "ViTConfig")


def build_swin(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "SwinConfig",
        image_size=size.image,
        patch_size=4,
        embed_dim=size.hidden // 2,
        depths=[2, 2],
        num_heads=[2, 4],
        window_size=4,
    )
    model = _transformers_model("SwinModel", config, device)
    return Built(model, kwargs={"pixel_values": _randn((2, 3, size.image, size.image), device)})


def build_convnext(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "ConvNextConfig",
        hidden_sizes=[size.hidden // 2, size.hidden],
        depths=[2, 2],
        num_stages=2,
        image_size=size.image,
    )
    model = _transformers_model("ConvNextModel", config, device)
    return Built(model, kwargs={"pixel_values": _randn((2, 3, size.image, size.image), device)})


# -- vision-language -------------------------------------------------------------------------------

_IMAGE_TOKEN, _VIDEO_TOKEN, _VISION_START, _VISION_END = 250, 251, 252, 253


def _vision_tower(size: Size) -> dict[str, Any]:
    """A ViT-style vision config (SigLIP, CLIP, Idefics) at ``size``, 8x8 patches."""
    return {
        "hidden_size": size.hidden,
        "intermediate_size": size.intermediate,
        "num_hidden_layers": size.layers,
        "num_attention_heads": size.heads,
        "image_size": size.image,
        "patch_size": 8,
    }


def _qwen_vl_inputs(size: Size, device: str, grid: tuple[int, int, int], merge: int) -> dict[str, Any]:
    """Token ids with one image's placeholder tokens, its flattened patches and its grid."""
    import torch

    t, h, w = grid
    patches = t * h * w
    image_tokens = patches // (merge * merge)
    text = _ids(size, device)[0].tolist()
    ids = [text[0], _VISION_START] + [_IMAGE_TOKEN] * image_tokens + [_VISION_END] + text[1:]
    return {
        "input_ids": torch.tensor([ids], device=device),
        "mm_token_type_ids": torch.tensor([[int(i == _IMAGE_TOKEN) for i in ids]], device=device),
        "pixel_values": _randn((patches, 3 * 2 * 14 * 14), device),
        "image_grid_thw": torch.tensor([grid], device=device),
        "use_cache": False,
    }


def _qwen_vl_text(size: Size) -> dict[str, Any]:
    head_dim = size.hidden // size.heads
    half = head_dim // 2
    section = [half - 2 * (half // 3), half // 3, half // 3]
    return {
        **_decoder_kwargs(size),
        "rope_parameters": {"rope_type": "default", "mrope_section": section, "rope_theta": 10000.0},
    }


def build_qwen2_vl(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "Qwen2VLConfig",
        text_config=_qwen_vl_text(size),
        vision_config={
            "depth": size.layers,
            "embed_dim": size.hidden // 2,
            "hidden_size": size.hidden,
            "num_heads": 2,
            "mlp_ratio": 2,
        },
        image_token_id=_IMAGE_TOKEN,
        video_token_id=_VIDEO_TOKEN,
        vision_start_token_id=_VISION_START,
        vision_end_token_id=_VISION_END,
    )
    model = _transformers_model("Qwen2VLForConditionalGeneration", config, device)
    grid = (1, 8, 8) if size_name == "tiny" else (1, 16, 16)
    return Built(model, kwargs=_qwen_vl_inputs(size, device, grid, merge=2))


def build_qwen2_5_vl(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "Qwen2_5_VLConfig",
        text_config=_qwen_vl_text(size),
        vision_config={
            "depth": size.layers,
            "hidden_size": size.hidden // 2,
            "out_hidden_size": size.hidden,
            "intermediate_size": size.intermediate // 2,
            "num_heads": 2,
            "window_size": 56,
            "fullatt_block_indexes": [size.layers - 1],
        },
        image_token_id=_IMAGE_TOKEN,
        video_token_id=_VIDEO_TOKEN,
        vision_start_token_id=_VISION_START,
        vision_end_token_id=_VISION_END,
    )
    model = _transformers_model("Qwen2_5_VLForConditionalGeneration", config, device)
    grid = (1, 8, 8) if size_name == "tiny" else (1, 16, 16)
    return Built(model, kwargs=_qwen_vl_inputs(size, device, grid, merge=2))


def build_llava(size_name: str, device: str) -> Built:
    import torch

    size = SIZES[size_name]
    vision = {"model_type": "clip_vision_model", **_vision_tower(size)}
    config = _config(
        "LlavaConfig",
        vision_config=vision,
        text_config={"model_type": "llama", **_decoder_kwargs(size)},
        image_token_index=_IMAGE_TOKEN,
        image_seq_length=(size.image // 8) ** 2,
    )
    model = _transformers_model("LlavaForConditionalGeneration", config, device)
    text = _ids(size, device)[0].tolist()
    ids = [text[0]] + [_IMAGE_TOKEN] * config.image_seq_length + text[1:]
    return Built(
        model,
        kwargs={
            "input_ids": torch.tensor([ids], device=device),
            "pixel_values": _randn((1, 3, size.image, size.image), device),
            "use_cache": False,
        },
    )


def _idefics_like(class_name: str, config_name: str) -> Callable[[str, str], Built]:
    """Idefics3 / SmolVLM: two images per sample, pixel-shuffled into the text's image tokens."""

    def build(size_name: str, device: str) -> Built:
        import torch

        size = SIZES[size_name]
        config = _config(
            config_name,
            vision_config=_vision_tower(size),
            text_config={"model_type": "llama", **_decoder_kwargs(size)},
            image_token_id=_IMAGE_TOKEN,
            scale_factor=2,
        )
        model = _transformers_model(class_name, config, device)
        per_image, images = (size.image // 8) ** 2 // 4, 2
        text = _ids(size, device)[0].tolist()
        ids = [text[0]] + [_IMAGE_TOKEN] * (per_image * images) + text[1:]
        return Built(
            model,
            kwargs={
                "input_ids": torch.tensor([ids], device=device),
                "pixel_values": _randn((1, images, 3, size.image, size.image), device),
                "use_cache": False,
            },
        )

    return build


build_idefics3 = _idefics_like("Idefics3ForConditionalGeneration", "Idefics3Config")
build_smolvlm = _idefics_like("SmolVLMForConditionalGeneration", "SmolVLMConfig")


def build_gemma3(size_name: str, device: str) -> Built:
    import torch

    size = SIZES[size_name]
    text = {**_decoder_kwargs(size), "head_dim": 16, "sliding_window": 8}
    tokens = 4
    config = _config(
        "Gemma3Config",
        vision_config=_vision_tower(size),
        text_config=text,
        image_token_index=_IMAGE_TOKEN,
        mm_tokens_per_image=tokens,
        boi_token_index=_VISION_START,
        eoi_token_index=_VISION_END,
    )
    model = _transformers_model("Gemma3ForConditionalGeneration", config, device)
    text_ids = _ids(size, device)[0].tolist()
    ids = [text_ids[0], _VISION_START] + [_IMAGE_TOKEN] * tokens + [_VISION_END] + text_ids[1:]
    ids_t = torch.tensor([ids], device=device)
    return Built(
        model,
        kwargs={
            "input_ids": ids_t,
            "pixel_values": _randn((1, 3, size.image, size.image), device),
            "token_type_ids": (ids_t == _IMAGE_TOKEN).long(),
            "use_cache": False,
        },
    )


# -- audio -------------------------------------------------------------------------------------------


def build_encodec(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "EncodecConfig",
        num_filters=8,
        hidden_size=size.hidden // 2,
        num_residual_layers=1,
        upsampling_ratios=[4, 4],
        codebook_size=64,
        num_lstm_layers=1,
        target_bandwidths=[6.0],
        sampling_rate=8000,
    )
    model = _transformers_model("EncodecModel", config, device)
    return Built(model, kwargs={"input_values": _randn((1, 1, size.audio), device)})


def build_dac(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "DacConfig",
        encoder_hidden_size=8,
        downsampling_ratios=[2, 4],
        decoder_hidden_size=size.hidden,
        upsampling_ratios=[4, 2],
        hidden_size=size.hidden // 2,
        n_codebooks=2,
        codebook_size=64,
        codebook_dim=4,
    )
    model = _transformers_model("DacModel", config, device)
    return Built(model, kwargs={"input_values": _randn((1, 1, size.audio), device)})


def build_mimi(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "MimiConfig",
        hidden_size=size.hidden,
        num_filters=8,
        upsampling_ratios=[4, 4, 2],
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        num_key_value_heads=size.heads,
        intermediate_size=size.intermediate,
        codebook_size=64,
        codebook_dim=16,
        vector_quantization_hidden_dimension=16,
        num_quantizers=4,
        num_semantic_quantizers=1,
        upsample_groups=size.hidden,
        sliding_window=16,
        use_cache=False,
        sampling_rate=800,
    )
    model = _transformers_model("MimiModel", config, device)
    return Built(model, kwargs={"input_values": _randn((1, 1, size.audio), device), "use_cache": False})


def build_whisper(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    frames = 2 * size.seq * 2
    config = _config(
        "WhisperConfig",
        vocab_size=size.vocab,
        d_model=size.hidden,
        encoder_layers=size.layers,
        decoder_layers=size.layers,
        encoder_attention_heads=size.heads,
        decoder_attention_heads=size.heads,
        encoder_ffn_dim=size.intermediate,
        decoder_ffn_dim=size.intermediate,
        num_mel_bins=16,
        max_source_positions=frames // 2,
        max_target_positions=max(2 * size.seq, 64),
        pad_token_id=0,
        decoder_start_token_id=1,
        use_cache=False,
    )
    model = _transformers_model("WhisperModel", config, device)
    return Built(
        model,
        kwargs={
            "input_features": _randn((1, 16, frames), device),
            "decoder_input_ids": _ids(size, device),
            "use_cache": False,
        },
    )


def build_wav2vec2(size_name: str, device: str) -> Built:
    size = SIZES[size_name]
    config = _config(
        "Wav2Vec2Config",
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        intermediate_size=size.intermediate,
        conv_dim=(16, 16),
        conv_stride=(5, 4),
        conv_kernel=(10, 4),
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=4,
    )
    model = _transformers_model("Wav2Vec2Model", config, device)
    return Built(model, kwargs={"input_values": _randn((1, size.audio), device)})


# -- diffusion ----------------------------------------------------------------------------------------


def build_ddpm(size_name: str, device: str) -> Built:
    """diffusers' DDPM pipeline: a Python loop of denoising steps around a small UNet."""
    import diffusers

    size = SIZES[size_name]
    channels = (16, 32) if size_name == "tiny" else (64, 128)
    unet = diffusers.UNet2DModel(
        sample_size=size.image // 2,
        in_channels=3,
        out_channels=3,
        block_out_channels=channels,
        layers_per_block=1,
        norm_num_groups=8,
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"),
    )
    pipe = diffusers.DDPMPipeline(unet=unet.eval().to(device), scheduler=diffusers.DDPMScheduler())
    pipe.set_progress_bar_config(disable=True)
    steps = 4 if size_name == "tiny" else 8
    return Built(
        pipe.__call__, kwargs={"batch_size": 1, "num_inference_steps": steps, "output_type": "np", "return_dict": False}
    )


# -- the zoo ---------------------------------------------------------------------------------------------

_DECODERS = (
    ModelSpec("llama", "decoder", build_llama, note="control: one graph"),
    ModelSpec("gpt2", "decoder", build_gpt2, note="control: one graph"),
    ModelSpec(
        "llama_generate",
        "decoder",
        build_llama_generate,
        note="generate(): greedy decoding loop around the model",
        compiled=("GenerationMixin.generate",),
    ),
    ModelSpec(
        "llama_attentions", "decoder", build_llama_attentions, note="output_attentions=True: a warning in every layer"
    ),
    ModelSpec("qwen2", "decoder", build_qwen2, note="one graph", default=False),
    ModelSpec("mistral", "decoder", build_mistral, note="one graph", default=False),
    ModelSpec("gemma2", "decoder", build_gemma2, note="one graph", default=False),
    ModelSpec("phi3", "decoder", build_phi3, note="one graph", default=False),
    ModelSpec("qwen3", "decoder", build_qwen3, note="one graph", default=False),
    ModelSpec("gpt_neox", "decoder", build_gpt_neox, note="one graph", default=False),
    ModelSpec("falcon", "decoder", build_falcon, note="one graph", default=False),
    ModelSpec("bloom", "decoder", build_bloom, note="one graph", default=False),
    ModelSpec("opt", "decoder", build_opt, note="one graph", default=False),
    ModelSpec("mamba", "decoder", build_mamba, note="one graph", default=False),
    ModelSpec("t5", "decoder", build_t5, note="one graph", default=False),
    ModelSpec("bart", "decoder", build_bart, note="one graph", default=False),
)
_MOE = (
    ModelSpec("mixtral", "moe", build_mixtral, note="per-expert loop over nonzero() hits"),
    ModelSpec("qwen2_moe", "moe", build_qwen2_moe, note="per-expert loop plus a shared expert"),
    ModelSpec("olmoe", "moe", build_olmoe, note="per-expert loop"),
    ModelSpec("qwen3_moe", "moe", build_qwen3_moe, note="per-expert loop", default=False),
    ModelSpec("granitemoe", "moe", build_granitemoe, note="per-expert loop", default=False),
    ModelSpec("phimoe", "moe", build_phimoe, note="per-expert loop", default=False),
    ModelSpec("jamba", "moe", build_jamba, note="per-expert loop", default=False),
)
_VLM = (
    ModelSpec("qwen2_vl", "vlm", build_qwen2_vl, note="vision tower: per-image loops over grid_thw"),
    ModelSpec("qwen2_5_vl", "vlm", build_qwen2_5_vl, note="vision tower: window index, per-image loops"),
    ModelSpec("llava", "vlm", build_llava, note="CLIP tower, hidden-state capture hooks"),
    ModelSpec("idefics3", "vlm", build_idefics3, note="two images, real-image selection"),
    ModelSpec("smolvlm", "vlm", build_smolvlm, note="two images, real-image selection"),
    ModelSpec("gemma3", "vlm", build_gemma3, note="SigLIP tower, image-token scatter"),
)
_AUDIO = (
    ModelSpec("encodec", "audio", build_encodec, note="conv stack padded from input length, RVQ"),
    ModelSpec("mimi", "audio", build_mimi, note="conv stack with padding cache, transformer, RVQ"),
    ModelSpec("dac", "audio", build_dac, note="control: conv codec, one graph"),
    ModelSpec("whisper", "audio", build_whisper, note="control: encoder-decoder, one graph"),
    ModelSpec("wav2vec2", "audio", build_wav2vec2, note="one graph", default=False),
)
_ENCODERS = (
    ModelSpec("bert", "encoder", build_bert, note="control: padded batch, one graph"),
    ModelSpec("vit", "encoder", build_vit, note="control: one graph"),
    ModelSpec("roberta", "encoder", build_roberta, note="one graph", default=False),
    ModelSpec("swin", "encoder", build_swin, note="one graph", default=False),
    ModelSpec("convnext", "encoder", build_convnext, note="one graph", default=False),
)
_DIFFUSION = (
    ModelSpec(
        "ddpm",
        "diffusion",
        build_ddpm,
        packages=("diffusers",),
        note="diffusers DDPMPipeline: denoising loop around a small UNet",
    ),
)

ZOO: tuple[ModelSpec, ...] = _DECODERS + _MOE + _VLM + _AUDIO + _ENCODERS + _DIFFUSION


def default_names() -> list[str]:
    """The models of the default run."""
    return [spec.name for spec in ZOO if spec.default]


def names() -> list[str]:
    return [spec.name for spec in ZOO]


def get(name: str) -> ModelSpec:
    """The zoo entry called ``name`` (KeyError names the known ones)."""
    for spec in ZOO:
        if spec.name == name:
            return spec
    raise KeyError(f"unknown model {name!r}; known: {', '.join(names())}")
