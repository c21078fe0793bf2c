"""The whole-zoo benchmark's own logic: tiny configs, resume, shards, the stratified sample, the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
sys.path.insert(0, BENCH)

import model_run  # noqa: E402
import zoo_build  # noqa: E402
import zoo_discover  # noqa: E402
import zoo_gbfix  # noqa: E402
import zoo_report  # noqa: E402


def test_tiny_config_shrinks_sizes_and_keeps_per_layer_lists_consistent() -> None:
    transformers = pytest.importorskip("transformers")
    config = zoo_build.transformers_config(transformers.Qwen2Config)
    assert config.num_hidden_layers == 2
    assert config.hidden_size == 64
    assert config.intermediate_size == 128
    assert len(config.layer_types) == 2
    assert config.num_attention_heads % config.num_key_value_heads == 0


def test_tiny_config_recurses_into_sub_configs_and_keeps_token_ids_in_the_vocabulary() -> None:
    transformers = pytest.importorskip("transformers")
    config = zoo_build.transformers_config(transformers.LlavaConfig)
    assert config.vision_config.hidden_size == 64
    assert config.text_config.num_hidden_layers == 2
    assert config.text_config.vocab_size > config.image_token_id


def test_grouped_convolution_with_a_group_per_channel_follows_the_hidden_size() -> None:
    pytest.importorskip("transformers")  # tiny_overrides reads transformers' config base class
    values = {"hidden_size": 512, "upsample_groups": 512, "other_groups": 2}
    config = type("Config", (), {"to_dict": lambda self: dict(values)})()
    overrides = zoo_build.tiny_overrides(config)
    assert overrides["hidden_size"] == 64
    assert overrides["upsample_groups"] == 64
    assert "other_groups" not in overrides


def test_rotary_sections_a_model_defaults_are_set_to_fit_the_tiny_head() -> None:
    transformers = pytest.importorskip("transformers")
    for name in ("Qwen2VLConfig", "Glm4vConfig"):  # neither names sections: the model falls back to full-size ones
        text = zoo_build.transformers_config(getattr(transformers, name)).text_config
        head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
        partial = text.rope_parameters.get("partial_rotary_factor") or getattr(text, "partial_rotary_factor", 1.0)
        assert sum(text.rope_parameters["mrope_section"]) == int(head_dim * partial) // 2


@pytest.mark.parametrize("name", ["OlmoeConfig", "Qwen3MoeConfig", "DeepseekV3Config", "DeepseekV32Config"])
def test_tiny_moe_config_routes_each_token_to_fewer_experts_than_it_builds(name: str) -> None:
    transformers = pytest.importorskip("transformers")
    config = zoo_build.transformers_config(getattr(transformers, name))
    experts = next(getattr(config, f) for f in zoo_build._EXPERT_FIELDS if isinstance(getattr(config, f, None), int))
    assert 1 <= config.num_experts_per_tok <= experts
    if getattr(config, "n_group", None) is not None:  # group-limited routing: the groups hold the experts
        assert config.topk_group <= config.n_group <= experts
    if getattr(config, "index_topk", None) is not None:  # a sparse-attention indexer keeps fewer tokens than fed
        assert config.index_topk < zoo_build.SEQ


def test_models_with_an_experts_kernel_setting_run_the_loop_over_experts() -> None:
    transformers = pytest.importorskip("transformers")
    assert zoo_build.experts_loop(transformers.MixtralForCausalLM)
    assert not zoo_build.experts_loop(transformers.LlamaForCausalLM)
    built = zoo_build.build(zoo_build.Entry("transformers", "OlmoeForCausalLM"))
    assert zoo_build.settings(built)["experts_implementation"] == "eager"
    dense = zoo_build.build(zoo_build.Entry("transformers", "LlamaModel"))
    assert "experts_implementation" not in zoo_build.settings(dense)


def test_rows_of_an_older_builder_are_redone_only_for_the_models_it_changed(tmp_path) -> None:
    pytest.importorskip("transformers")
    path = str(tmp_path / "d.jsonl")
    _rows(
        path,
        [
            {"library": "transformers", "model": "MixtralForCausalLM", "skipped": 0},
            {"library": "transformers", "model": "LlamaForCausalLM", "skipped": 0},
            {"library": "transformers", "model": "OlmoeForCausalLM", "skipped": 5, "builder": zoo_build.BUILDER},
        ],
    )

    def stale(key: str, builder: int) -> bool:
        return zoo_build.changed_since(zoo_build.Entry(*key.split(":")), builder)

    assert zoo_discover.done_keys(path) == {
        "transformers:MixtralForCausalLM", "transformers:LlamaForCausalLM", "transformers:OlmoeForCausalLM"
    }  # fmt: skip
    kept = {"transformers:LlamaForCausalLM", "transformers:OlmoeForCausalLM"}
    assert zoo_discover.done_keys(path, stale=stale) == kept
    # no experts setting, but its default top-k (12) is now cut to the experts built
    assert stale("transformers:LongcatFlashForCausalLM", 1)


def _rows(path: str, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def test_resume_skips_done_models_and_retries_errors_only_when_asked(tmp_path) -> None:
    path = str(tmp_path / "d.jsonl")
    _rows(
        path,
        [
            {"library": "transformers", "model": "A", "skipped": 0},
            {"library": "transformers", "model": "B", "build_error": "ValueError: x"},
            {"library": "timm", "model": "c", "process_error": "timed out"},
            {"library": "timm", "model": "c", "skipped": 1},
        ],
    )
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"library": "timm", "mod')  # a line cut off by a kill
    assert zoo_discover.done_keys(path) == {"transformers:A", "transformers:B", "timm:c"}
    assert zoo_discover.done_keys(path, retry_errors=True) == {"transformers:A", "timm:c"}


def test_shards_partition_the_entries() -> None:
    entries = [zoo_build.Entry("transformers", f"M{i}") for i in range(10)]
    shards = [zoo_discover.shard_of(entries, f"{k}/3") for k in (1, 2, 3)]
    assert sorted(e.name for shard in shards for e in shard) == sorted(e.name for e in entries)
    assert [len(s) for s in shards] == [4, 3, 3]


def test_sample_draws_from_every_stratum_before_repeating_one() -> None:
    rows = [
        {"library": "transformers", "model": f"T{i}", "skip_causes": ["f [whole]: graph break in loop @ a.py:1"]}
        for i in range(8)
    ]
    rows += [{"library": "diffusers", "model": "D", "skip_causes": ["f [whole]: Data-dependent branching @ b.py:2"]}]
    rows += [{"library": "timm", "model": "t", "skip_causes": ["f [partial]: Unsupported context manager @ c.py:3"]}]
    chosen = zoo_gbfix.sample(rows, 3, seed=0)
    assert {r["library"] for r in chosen} == {"transformers", "diffusers", "timm"}
    assert [r["model"] for r in zoo_gbfix.sample(rows, 5, seed=1)] == [
        r["model"] for r in zoo_gbfix.sample(rows, 5, seed=1)
    ]
    assert len(zoo_gbfix.sample(rows, 50, seed=0)) == len(rows)


def _measured(**after: object) -> dict:
    row = {
        "library": "transformers",
        "model": "M",
        "skipped_before": 3,
        "ops_before": 100,
        "coverage_before": 0.5,
        "skipped_frames_before": ["forward (transformers/m.py:10)", "loop (transformers/m.py:40)"],
        "skip_causes_before": ["forward [whole]: graph break in loop @ transformers/m.py:12"],
    }
    row.update(
        {
            "skipped_after_static": 2,
            "skipped_helpers_static": 1,
            "ops_after_static": 120,
            "coverage_after_static": 0.75,
            "skipped_frames_after_static": ["_gbfix_loop_1 (transformers/m.py:60)", "loop (transformers/m.py:45)"],
            "skip_causes_after_static": [],
            "equal_static": True,
            "crash_static": None,
        }
    )
    row.update(after)
    return row


def test_aggregate_counts_gains_and_leaves_crashed_models_out_of_the_sums() -> None:
    rows = [_measured(), _measured(model="N", crash_static="RuntimeError: boom", ops_after_static=None)]
    figures = zoo_report.aggregate(rows, "static")
    assert figures["models"] == 1
    assert (figures["ops_before"], figures["ops_after"]) == (100, 120)
    assert (figures["skipped_before"], figures["skipped_after"], figures["helpers"]) == (3, 2, 1)
    assert figures["gained_coverage"] == 1
    assert figures["crashes"] == 1
    assert zoo_report.problems(rows, ["static"]) == ["- crash, static: transformers:N: `RuntimeError: boom`"]


def test_inline_frames_gone_only_when_no_such_frame_stays_skipped() -> None:
    findings = [
        {
            "path": "transformers/m.py",
            "message": "graph break inside a loop makes Dynamo skip `forward` and its 4 inline tensor ops",
        },
        {
            "path": "transformers/m.py",
            "message": "graph break inside a loop makes Dynamo skip `loop` and its 2 inline tensor ops",
        },
    ]
    assert zoo_report.inline_gone([_measured()], findings, "static") == (1, 0)
    gone = _measured(skipped_frames_after_static=["_gbfix_loop_1 (transformers/m.py:60)"])
    assert zoo_report.inline_gone([gone], findings, "static") == (1, 1)


def test_a_skip_cause_costs_nothing_only_when_its_frame_holds_no_tensor_op() -> None:
    pytest.importorskip("transformers")
    row = {
        "skipped_frames_before": [
            "<dictcomp> (transformers/utils/output_capturing.py:332)",
            "forward (transformers/models/aria/modeling_aria.py:642)",
        ]
    }
    # the comprehension that reads the capture flags: a frame of plain Python
    assert zoo_report.costs_nothing(row, "<dictcomp>", "transformers/utils/output_capturing.py:332")
    # the decoder's forward writes tensor ops: skipping it loses them
    assert not zoo_report.costs_nothing(row, "forward", "transformers/models/aria/modeling_aria.py:680")
    # a frame named in another file than the break cannot be told apart from its callee: not claimed
    assert not zoo_report.costs_nothing(row, "forward", "transformers/utils/output_capturing.py:340")


def test_rewritten_hunks_start_after_the_context_lines() -> None:
    patch = "--- a/transformers/m.py\n+++ b/transformers/m.py\n@@ -7,6 +7,9 @@ def f():\n x\n"
    assert zoo_report.rewritten_frames(patch) == [("transformers/m.py", 10)]


@pytest.mark.torch_run
def test_discovery_records_a_model_in_a_forked_process(tmp_path) -> None:
    pytest.importorskip("transformers")
    out = tmp_path / "d.jsonl"
    command = [sys.executable, os.path.join(BENCH, "zoo_discover.py"), "run", "--libraries", "transformers"]
    command += ["--models", "transformers:LlamaModel", "--out", str(out), "--work", str(tmp_path / "work")]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["built"] is True
    assert row["frames_total"] >= 1 and row["ops"] > 0
    assert row["compiled_vs_eager"] is None
    assert row["versions"]["torch"].startswith("2.")


def test_merged_rows_carry_recompiles_and_failures_of_each_side() -> None:
    before = {"library": "transformers", "model": "M", "skipped": 1, "recompiles": 0, "recompile_limit_hits": []}
    after = {"recompiles": 9, "recompiled_frames": {"_gbfix_step_2 (m.py:3)": 9}}
    after |= {"recompile_limit_hits": ["_gbfix_step_2 (m.py:3)"], "uninitialized_cells": ["f (m.py:1)"]}
    (line,) = zoo_gbfix.merged([before], {"static": {"transformers:M": after}})
    assert (line["recompiles_before"], line["recompile_limit_hits_before"]) == (0, [])
    assert line["uninitialized_cells_before"] is None  # a row measured before the field existed
    assert line["recompiles_after_static"] == 9
    assert line["recompiled_frames_after_static"] == {"_gbfix_step_2 (m.py:3)": 9}
    assert line["recompile_limit_hits_after_static"] == ["_gbfix_step_2 (m.py:3)"]
    assert line["uninitialized_cells_after_static"] == ["f (m.py:1)"]
    assert line["reconstruction_failures_after_static"] is None


def test_nms_keeps_the_best_box_of_each_overlapping_group() -> None:
    torch = pytest.importorskip("torch")
    boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 10, 10], [2, 0, 12, 10]]).float()
    scores = torch.tensor([0.9, 0.8, 0.7, 0.95, 0.1])
    # 3 outranks its duplicate 0; 1 overlaps 3 by 81/119 and 4 overlaps 3 by 80/120: under 0.7, over 0.5
    assert zoo_build._nms(boxes, scores, 0.5).tolist() == [3, 2]
    assert zoo_build._nms(boxes, scores, 0.7).tolist() == [3, 1, 2, 4]
    assert zoo_build._nms(boxes[:0], scores[:0], 0.5).tolist() == []


def test_nms_leaves_no_kept_pair_over_the_threshold_and_no_box_removed_without_one() -> None:
    torch = pytest.importorskip("torch")
    corner = torch.rand((60, 2), generator=torch.Generator().manual_seed(0)) * 40
    boxes = torch.cat([corner, corner + 5 + torch.rand((60, 2), generator=torch.Generator().manual_seed(1)) * 20], 1)
    scores = torch.rand(60, generator=torch.Generator().manual_seed(2))

    def iou(a: int, b: int) -> float:
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[a].tolist(), boxes[b].tolist()
        inter = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
        return inter / ((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter)

    kept = zoo_build._nms(boxes, scores, 0.3).tolist()
    assert 1 < len(kept) < 60
    assert scores[kept].tolist() == sorted(scores[kept].tolist(), reverse=True)
    assert all(iou(a, b) <= 0.3 for a in kept for b in kept if a != b)
    for removed in set(range(60)) - set(kept):
        assert any(iou(removed, k) > 0.3 and scores[k] > scores[removed] for k in kept)


def test_torchvision_entries_hold_every_task_builder_and_the_smallest_model_of_each_classification_module() -> None:
    models = pytest.importorskip("torchvision.models")
    entries = zoo_build.torchvision_entries()
    names = {entry.name for entry in entries}
    for task in zoo_build.TORCHVISION_TASKS:
        assert set(models.list_models(module=getattr(models, task))) <= names
    classification = [entry for entry in entries if entry.origin.split(".")[0] not in zoo_build.TORCHVISION_TASKS]
    assert len({entry.origin for entry in classification}) == len(classification) > 10
    assert {"resnet18", "efficientnet_b0", "vit_b_16"} <= names and "resnet50" not in names


def test_torchvision_box_operators_run_where_its_extension_did_not_load() -> None:
    torch = pytest.importorskip("torch")
    ops = pytest.importorskip("torchvision.ops")
    zoo_build.torchvision_operators()
    boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]]).float()
    scores = torch.tensor([0.9, 0.8, 0.7])
    assert ops.nms(boxes, scores, 0.5).tolist() == [0, 2]
    assert ops.batched_nms(boxes, scores, torch.tensor([0, 1, 0]), 0.5).tolist() == [0, 1, 2]
    features = torch.arange(64.0).reshape(1, 1, 8, 8)
    pooled = ops.roi_align(features, [torch.tensor([[0.0, 0.0, 4.0, 4.0]])], output_size=2, aligned=True)
    assert pooled.shape == (1, 1, 2, 2) and pooled[0, 0, 0, 0] < pooled[0, 0, 1, 1]


def test_compiled_output_equal_to_the_unmodified_compiled_one_is_not_a_difference(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    eager, compiled = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0000002])
    kept = str(tmp_path / "m.compiled.pt")
    assert zoo_discover.compiled_difference([("out", eager)], compiled, kept) is not None  # none kept: a difference
    torch.save([("out", compiled)], kept)
    assert zoo_discover.compiled_difference([("out", eager)], compiled, kept) is None
    assert zoo_discover.compiled_difference([("out", eager)], eager, kept) is None
    assert zoo_discover.compiled_difference([("out", eager)], torch.tensor([1.0, 3.0]), kept) is not None


def test_recorded_command_leaves_out_local_directories() -> None:
    argv = ["--work", "/scratch/zoo", "--sample", "40", "--results", "/x/results", "--seed", "1"]
    assert zoo_gbfix.command_of(argv) == "python benchmarks/zoo_gbfix.py --sample 40 --seed 1"


def test_committed_zoo_results_hold_every_required_field() -> None:
    required = {"library", "model", "skipped_before", "ops_before", "coverage_before"}
    for mode in zoo_gbfix.MODES:
        required |= {f"skipped_after_{mode}", f"ops_after_{mode}", f"coverage_after_{mode}", f"equal_{mode}"}
        required |= {f"crash_{mode}"}
    with open(os.path.join(BENCH, "results", "zoo.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    assert rows
    for row in rows:
        assert required <= set(row), f"{row['model']}: {sorted(required - set(row))}"
        for mode in zoo_gbfix.MODES:
            assert row[f"crash_{mode}"] is None or isinstance(row[f"crash_{mode}"], str)
            assert isinstance(row[f"equal_{mode}"], bool) or row[f"crash_{mode}"] is not None


def test_rotary_axes_that_split_the_head_shrink_with_it() -> None:
    diffusers = pytest.importorskip("diffusers")
    overrides = zoo_build.diffusers_overrides(diffusers.FluxTransformer2DModel)
    axes = overrides["axes_dims_rope"]
    assert sum(axes) == overrides["attention_head_dim"]
    assert len(axes) == 3 and all(d > 0 and d % 2 == 0 for d in axes)


def test_required_diffusers_inputs_are_filled_from_their_names() -> None:
    torch = pytest.importorskip("torch")
    packed = torch.zeros((1, 64, 16))
    config = {"axes_dims_rope": (2, 6, 8), "pooled_projection_dim": 24}
    assert zoo_build._by_name("img_shapes", config, packed, 32) == [[(1, 8, 8)]]
    assert tuple(zoo_build._by_name("img_ids", config, packed, 32).shape) == (64, 3)
    assert tuple(zoo_build._by_name("pooled_projections", config, packed, 32).shape) == (1, 24)
    assert zoo_build._by_name("encoder_attention_mask", config, packed, 32).dtype == torch.long
    assert zoo_build._by_name("frobnicate", config, packed, 32) is None


@pytest.mark.torch_run
def test_a_diffusers_model_runs_on_the_first_layout_it_accepts() -> None:
    pytest.importorskip("diffusers")
    built = zoo_build.build(zoo_build.Entry("diffusers", "FluxTransformer2DModel"))
    # FLUX takes packed latents: a token sequence with its positions, not an image
    assert built.kwargs["hidden_states"].dim() == 3
    assert built.kwargs["img_ids"].shape[0] == built.kwargs["hidden_states"].shape[1]
    built.fn(**built.kwargs)


def _diff(path: str, line: str) -> str:
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x\n+{line}\n"


def test_a_model_whose_files_both_modes_rewrite_alike_is_measured_once() -> None:
    static = _diff("pkg/a.py", "y") + _diff("pkg/b.py", "y")
    trace = _diff("pkg/a.py", "y") + _diff("pkg/b.py", "z") + _diff("pkg/c.py", "y")
    assert list(zoo_gbfix.per_file(trace)) == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    assert zoo_gbfix.per_file(trace)["pkg/b.py"] == _diff("pkg/b.py", "z")
    rows = [
        {"library": "pkg", "model": "OnlyA", "files": ["pkg/a.py", "pkg/d.py"]},
        {"library": "pkg", "model": "UsesB", "files": ["pkg/a.py", "pkg/b.py"]},
        {"library": "pkg", "model": "UsesC", "files": ["pkg/c.py"]},
        {"library": "pkg", "model": "NotMeasured", "files": ["pkg/d.py"]},
    ]
    measured = {f"pkg:{name}": {"model": name, "skipped": 1} for name in ("OnlyA", "UsesB", "UsesC")}
    same = zoo_gbfix.same_rewrite(rows, zoo_gbfix.per_file(trace), (zoo_gbfix.per_file(static), measured))
    assert same == {"pkg:OnlyA": measured["pkg:OnlyA"]}
    assert zoo_gbfix.same_rewrite(rows, zoo_gbfix.per_file(trace), None) == {}


def test_a_resume_function_of_a_helper_counts_as_a_helper() -> None:
    assert model_run.is_helper("_gbfix_loop_1")
    assert model_run.is_helper("torch_dynamo_resume_in__gbfix_loop_1_at_248")
    assert not model_run.is_helper("torch_dynamo_resume_in_forward_at_349")
    assert not model_run.is_helper("forward")


def _torchaudio_models() -> object:
    """``torchaudio.models``, or the test is skipped (the library is optional; CI has none)."""
    return pytest.importorskip("torchaudio.models")


def test_torchaudio_entries_name_every_model_class_and_the_decoding_methods() -> None:
    torch = pytest.importorskip("torch")
    models = _torchaudio_models()
    entries = zoo_build.torchaudio_entries()
    names = {entry.name for entry in entries}
    covered = {entry.name.split(".")[0] for entry in entries} | {entry.origin for entry in entries}
    exported = [getattr(models, n) for n in dir(models) if isinstance(getattr(models, n), type)]
    classes = {cls.__name__ for cls in exported if issubclass(cls, torch.nn.Module)}
    assert len(classes) > 10 and classes <= covered
    # a factory is an entry of its own, with the class it returns as its origin; the general ones are not
    assert {"wav2vec2_base", "wavlm_large", "hdemucs_low", "emformer_rnnt_base"} <= names
    assert next(e for e in entries if e.name == "wavlm_base").origin == "Wav2Vec2Model"
    assert "wav2vec2_model" not in names
    assert {"Tacotron2.infer", "WaveRNN.infer", "Emformer.infer", "RNNTBeamSearch.infer"} <= names


def test_torchaudio_factories_build_tiny_and_keep_their_own_settings() -> None:
    models = _torchaudio_models()
    from zoo_torchaudio import construct

    base, lv60k = construct("wav2vec2_base"), construct("wav2vec2_large_lv60k")
    for model in (base, lv60k):
        assert len(model.encoder.transformer.layers) == 2
        assert model.encoder.transformer.layers[0].attention.embed_dim == 64
    # the factories normalise their feature extractors differently; the tiny sizes leave that as each chose
    assert type(base.feature_extractor.conv_layers[0].layer_norm).__name__ == "GroupNorm"
    assert type(lv60k.feature_extractor.conv_layers[0].layer_norm).__name__ == "LayerNorm"
    assert base.encoder.transformer.layer_norm_first != lv60k.encoder.transformer.layer_norm_first
    # the general constructor is the library's own again once the factory returned
    assert models.wav2vec2.model.wav2vec2_model is models.wav2vec2_model


@pytest.mark.parametrize(
    "name",
    ["Conformer", "DeepSpeech", "Emformer", "Emformer.infer", "RNNTBeamSearch", "RNNTBeamSearch.infer",
     "Tacotron2", "Tacotron2.infer", "Wav2Letter", "WaveRNN", "WaveRNN.infer", "conv_tasnet_base",
     "emformer_rnnt_base", "hdemucs_low", "hubert_pretrain_base", "squim_objective_base", "squim_subjective_base",
     "wav2vec2_base", "wavlm_base"],
)  # fmt: skip
def test_each_torchaudio_builder_builds_and_runs_eagerly_and_repeats_its_output(name: str) -> None:
    torch = pytest.importorskip("torch")
    _torchaudio_models()
    import model_run

    built = zoo_build.build(zoo_build.Entry("torchaudio", name))
    call = model_run.call_of(built.fn, built, 0)
    first, second = model_run.flatten_output(call()), model_run.flatten_output(call())
    assert any(isinstance(value, torch.Tensor) and value.numel() for _, value in first)
    # seeded calls draw the same samples (WaveRNN) and the same prenet dropout (Tacotron2): outputs compare exactly
    assert model_run.compare_outputs(first, second, exact=True) is None
    assert sum(p.numel() for p in built.fn.parameters()) < 30_000_000


def test_every_torchaudio_entry_builds() -> None:
    _torchaudio_models()
    entries = zoo_build.torchaudio_entries()
    failed = []
    for entry in entries:
        try:
            zoo_build.build(entry)
        except Exception as exc:  # noqa: BLE001 - each failure is named in the assertion
            failed.append(f"{entry.name}: {exc}")
    assert len(entries) > 25 and not failed


@pytest.mark.torch_run
def test_discovery_of_a_torchaudio_decoding_method_records_its_skip_and_the_library_version(tmp_path) -> None:
    _torchaudio_models()
    out = tmp_path / "d.jsonl"
    command = [sys.executable, os.path.join(BENCH, "zoo_discover.py"), "run", "--out", str(out)]
    command += ["--models", "torchaudio:Tacotron2.infer", "--work", str(tmp_path / "work")]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    # the decoder loop breaks (its LSTM cell and the stop test): the frame that runs it is skipped
    assert row["skipped"] >= 1 and any("tacotron2.py" in cause for cause in row["skip_causes"])
    assert row["compiled_vs_eager"] is None
    assert row["files"] == ["torchaudio/models/tacotron2.py"]
    assert (tmp_path / "work" / "refs" / "torchaudio--Tacotron2.infer.pt").exists()
    assert row["versions"]["torchaudio"] != "not installed"


def test_models_of_a_library_not_installed_are_left_out_of_the_measurement(capsys) -> None:
    rows = [{"library": "json", "model": "a"}, {"library": "no_such_model_library", "model": "b"}]
    assert zoo_gbfix.installed(rows) == [{"library": "json", "model": "a"}]
    assert "no_such_model_library not installed" in capsys.readouterr().err
