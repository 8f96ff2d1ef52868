"""The GPU spec table: the shipped file, validation of bad files, and device-name matching."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpulab.cluster import topology
from gpulab.model import pcie_gb_s_per_direction
from gpulab.specs import PEAK_KEYS, GpuSpec, SpecError, SpecTable, load_specs, name_tokens

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REQUIRED_GPUS = (
    "a100-sxm4-40gb",
    "a100-sxm4-80gb",
    "h100-sxm",
    "h100-pcie",
    "h200-sxm",
    "l4",
    "t4",
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "v100-sxm2-16gb",
)


@pytest.fixture(scope="module")
def shipped() -> SpecTable:
    return load_specs()


# --- the shipped table --------------------------------------------------------------------


def test_shipped_table_holds_every_gpu_the_labs_need(shipped: SpecTable) -> None:
    assert set(REQUIRED_GPUS) <= set(shipped.keys())


def test_iterating_the_table_yields_one_spec_per_key(shipped: SpecTable) -> None:
    specs = list(shipped)
    assert [spec.key for spec in specs] == list(shipped.keys())
    assert len(shipped) == len(specs) and all(isinstance(s, GpuSpec) for s in specs)


def test_get_returns_none_for_an_unknown_key(shipped: SpecTable) -> None:
    assert shipped.get("h100-sxm") is shipped["h100-sxm"]
    assert shipped.get("no-such-gpu") is None


@pytest.mark.parametrize("key", REQUIRED_GPUS)
def test_every_figure_of_a_shipped_gpu_names_a_titled_source(shipped: SpecTable, key: str) -> None:
    spec = shipped[key]
    figures = [
        "sm_count",
        "boost_clock_mhz",
        "memory_gb",
        "memory_bandwidth_gb_s",
        "l2_cache_mb",
        "compute_capability",
        "pcie_gen",
        "tdp_w",
        *(f"peak_tflops.{dtype}" for dtype in spec.peak_tflops),
    ]
    for figure in figures:
        source = spec.source_for(figure)
        assert source.key in shipped.sources
        assert source.title.strip()
    assert spec.source.url, "the main document of each GPU has an address"


def test_every_shipped_gpu_has_an_fp32_peak_and_only_known_dtype_keys(shipped: SpecTable) -> None:
    for spec in shipped:
        assert "fp32" in spec.peak_tflops
        assert set(spec.peak_tflops) <= set(PEAK_KEYS)


@pytest.mark.parametrize(
    ("key", "missing"),
    [
        ("v100-sxm2-16gb", "fp8"),
        ("v100-sxm2-16gb", "bf16"),
        ("t4", "fp8"),
        ("t4", "tf32"),
        ("rtx-3090", "fp8"),
        ("a100-sxm4-40gb", "fp8"),
    ],
)
def test_rates_a_gpu_lacks_are_absent_rather_than_zero(shipped: SpecTable, key: str, missing: str) -> None:
    assert missing not in shipped[key].peak_tflops
    assert shipped[key].peak_flops(missing) is None


@pytest.mark.parametrize("key", ["l4", "t4", "rtx-4090", "rtx-5090"])
def test_gpus_without_nvlink_have_no_nvlink_figure(shipped: SpecTable, key: str) -> None:
    assert shipped[key].nvlink_gb_s is None


def test_hopper_sxm_parts_quote_900_gb_s_nvlink(shipped: SpecTable) -> None:
    assert shipped["h100-sxm"].nvlink_gb_s == 900
    assert shipped["h200-sxm"].nvlink_gb_s == 900


def test_fp32_peak_agrees_with_sm_count_times_clock(shipped: SpecTable) -> None:
    # FP32 lanes per SM: 64 on Volta, Turing and GA100; 128 on GA102 and later.
    for spec in shipped:
        lanes = 64 if spec.compute_capability in {(7, 0), (7, 5), (8, 0)} else 128
        derived_tflops = spec.sm_count * lanes * 2 * spec.boost_clock_mhz * 1e6 / 1e12
        assert derived_tflops == pytest.approx(spec.peak_tflops["fp32"], rel=0.02), spec.key


def test_tensor_peaks_are_dense_so_fp16_tensor_is_below_the_sparse_datasheet_figure(
    shipped: SpecTable,
) -> None:
    # H100 SXM datasheet: FP16 tensor 1,979 TFLOP/s *with sparsity*; dense is half.
    assert shipped["h100-sxm"].peak_tflops["fp16"] == pytest.approx(1979 / 2)
    assert shipped["a100-sxm4-40gb"].peak_tflops["fp16"] == 312


def test_h200_differs_from_h100_sxm_only_in_memory(shipped: SpecTable) -> None:
    h100, h200 = shipped["h100-sxm"], shipped["h200-sxm"]
    assert dict(h200.peak_tflops) == dict(h100.peak_tflops)
    assert h200.memory_bandwidth_gb_s > h100.memory_bandwidth_gb_s
    assert h200.memory_gb > h100.memory_gb


# Maximum resident threads per SM by compute capability, as the CUDA C++ Programming Guide's
# technical-specifications table gives them (NVIDIA's CCCL arch_traits.cuh carries the same).
PROGRAMMING_GUIDE_THREADS_PER_SM = {(7, 0): 2048, (7, 5): 1024, (8, 0): 2048, (8, 6): 1536, (8, 9): 1536,
                                    (9, 0): 2048, (12, 0): 1536}  # fmt: skip


def test_every_shipped_gpu_holds_the_threads_per_sm_its_compute_capability_allows(shipped: SpecTable) -> None:
    for spec in shipped:
        assert spec.max_threads_per_sm == PROGRAMMING_GUIDE_THREADS_PER_SM[spec.compute_capability], spec.key
        assert "Programming Guide" in spec.source_for("max_threads_per_sm").title
    assert shipped["t4"].max_threads_per_sm == 1024  # Turing holds half of what Volta and Ampere hold
    assert {shipped[key].max_threads_per_sm for key in ("rtx-3090", "l4", "rtx-4090", "rtx-5090")} == {1536}


def test_a_gpu_takes_its_threads_per_sm_from_the_sm_limits_table(tmp_path: Path) -> None:
    text = VALID.replace('{ "8.0" = 2048 }', '{ "8.0" = 1536 }')
    assert load_specs(write_specs(tmp_path, text))["toy"].max_threads_per_sm == 1536


# Per-lane signalling rate (GT/s) and line code of each PCIe generation (PCI Express Base Specifications):
# the shipped x16 rates must follow from them.
PCIE_GT_PER_S = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}
PCIE_LINE_CODE = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130}


def test_shipped_pcie_rates_agree_with_each_generations_signalling_rate_and_line_code(shipped: SpecTable) -> None:
    assert set(shipped.pcie_x16_gb_s_per_direction) == set(PCIE_GT_PER_S)
    for gen, rate in shipped.pcie_x16_gb_s_per_direction.items():
        assert rate == pytest.approx(PCIE_GT_PER_S[gen] * PCIE_LINE_CODE[gen] / 8 * 16, rel=0.002)
    assert shipped.pcie_gb_s_per_direction(4, lanes=8) == pytest.approx(shipped.pcie_gb_s_per_direction(4) / 2)


def test_the_copy_model_and_the_topology_price_every_link_at_the_spec_tables_rate(shipped: SpecTable) -> None:
    for gen in shipped.pcie_x16_gb_s_per_direction:
        for lanes in (8, 16):
            rate = shipped.pcie_gb_s_per_direction(gen, lanes)
            assert pcie_gb_s_per_direction(gen, lanes) == rate == topology.pcie_gb_s(gen, lanes)
    assert shipped.nvlink_link_gb_s_per_direction  # the shipped file has NVLink
    for gen, rate in shipped.nvlink_link_gb_s_per_direction.items():
        assert topology.nvlink_gb_s_per_link(gen) == rate == shipped.nvlink_gb_s_per_link(gen)
    assert topology.nvlink_gb_s_per_link(99) is None and topology.pcie_gb_s(99, 16) is None


def test_a_file_without_nvlink_has_no_nvlink_rates_and_a_bad_nvlink_rate_is_refused(tmp_path: Path) -> None:
    assert load_specs(write_specs(tmp_path, VALID)).nvlink_link_gb_s_per_direction == {}
    nvlink = '[nvlink]\nsource = "toy-sheet"\nlink_gb_s_per_direction = { "4" = 25.0 }\n'
    assert load_specs(write_specs(tmp_path, VALID + nvlink)).nvlink_gb_s_per_link(4) == 25.0
    with pytest.raises(SpecError, match=r"\[nvlink\]: link_gb_s_per_direction.4 must be a positive number"):
        load_specs(write_specs(tmp_path, VALID + nvlink.replace("25.0", "0")))


# --- matching CUDA/NVML device names --------------------------------------------------------


@pytest.mark.parametrize(
    ("device_name", "key"),
    [
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA H200", "h200-sxm"),
        ("NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"),
        ("NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"),
        ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),
        ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
        ("Tesla T4", "t4"),
        ("NVIDIA L4", "l4"),
        ("NVIDIA GeForce RTX 3090", "rtx-3090"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("NVIDIA GeForce RTX 5090", "rtx-5090"),
        ("nvidia geforce rtx 4090", "rtx-4090"),
        ("  NVIDIA L4  ", "l4"),
        ("A100-SXM4-40GB", "a100-sxm4-40gb"),
        ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "a100-sxm4-40gb"),
        ("NVIDIA H100 80GB HBM3 MIG 3g.40gb", "h100-sxm"),
        ("RTX 4090", "rtx-4090"),
        ("h100 sxm", "h100-sxm"),
    ],
)
def test_real_device_names_match_their_spec(shipped: SpecTable, device_name: str, key: str) -> None:
    spec = shipped.match(device_name)
    assert spec is not None and spec.key == key


@pytest.mark.parametrize(
    "device_name",
    [
        "NVIDIA A10",  # must not be taken for an A100
        "NVIDIA A100-PCIE-40GB",  # a different board than the SXM4 entries
        "NVIDIA A100 80GB PCIe",
        "NVIDIA GeForce RTX 4090 Laptop GPU",  # a different chip despite the name
        "NVIDIA GeForce RTX 4090 D",
        "NVIDIA H200 NVL",
        "NVIDIA H100 NVL",
        "NVIDIA L40S",
        "NVIDIA L40",
        "H100",  # ambiguous: SXM or PCIe
        "AMD Instinct MI300X",
        "",
    ],
)
def test_unknown_or_ambiguous_device_names_match_nothing(shipped: SpecTable, device_name: str) -> None:
    assert shipped.match(device_name) is None


def test_name_tokens_drop_vendor_words_case_and_punctuation() -> None:
    assert name_tokens("NVIDIA A100-SXM4-40GB") == ("a100", "sxm4", "40gb")
    assert name_tokens("Tesla V100-SXM2-16GB") == ("v100", "sxm2", "16gb")
    assert name_tokens("NVIDIA GeForce RTX 4090") == ("rtx", "4090")


# --- validation of bad files ----------------------------------------------------------------

VALID = """
[pcie]
source = "toy-sheet"
x16_gb_s_per_direction = { "4" = 31.5 }

[sm_limits]
source = "toy-sheet"
max_threads_per_sm = { "8.0" = 2048 }

[gpu.toy]
name = "Toy GPU"
aliases = ["NVIDIA Toy 8GB"]
architecture = "Toyland"
compute_capability = "8.0"
sm_count = 10
boost_clock_mhz = 1000
memory_gb = 8
memory_type = "HBM2"
memory_bandwidth_gb_s = 1000
l2_cache_mb = 4
pcie_gen = 4
pcie_lanes = 16
tdp_w = 100
source = "toy-sheet"
[gpu.toy.peak_tflops]
fp32 = 10.0
[gpu.toy.field_sources]
sm_count = "toy-sheet"

[sources.toy-sheet]
title = "Toy GPU datasheet"
url = "https://example.invalid/toy"
"""

SECOND_GPU = """
[gpu.other]
name = "Other GPU"
aliases = ["NVIDIA TOY-8GB"]
architecture = "Toyland"
compute_capability = "8.0"
sm_count = 10
boost_clock_mhz = 1000
memory_gb = 8
memory_type = "HBM2"
memory_bandwidth_gb_s = 1000
l2_cache_mb = 4
pcie_gen = 4
pcie_lanes = 16
tdp_w = 100
source = "toy-sheet"
[gpu.other.peak_tflops]
fp32 = 10.0
"""


def write_specs(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gpus.toml"
    path.write_text(text, encoding="utf-8")
    return path


def edited(old: str, new: str) -> str:
    assert old in VALID, old
    return VALID.replace(old, new, 1)


def test_the_valid_template_loads(tmp_path: Path) -> None:
    table = load_specs(write_specs(tmp_path, VALID))
    assert table.keys() == ("toy",)
    assert table["toy"].source_for("sm_count").title == "Toy GPU datasheet"
    assert table["toy"].compute_capability == (8, 0)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "memory_bandwidth_gb_s = 1000",
            "memory_bandwidth_gb_s = -3",
            "gpus.toml: [gpu.toy]: memory_bandwidth_gb_s must be a positive number, got -3",
        ),
        ("sm_count = 10\n", "", "gpus.toml: [gpu.toy]: sm_count is missing"),
        ("sm_count = 10", 'sm_count = "ten"', "[gpu.toy]: sm_count must be a positive integer"),
        ("sm_count = 10", "sm_count = 10.5", "[gpu.toy]: sm_count must be a positive integer"),
        ("tdp_w = 100", "tdp_w = true", "[gpu.toy]: tdp_w must be a positive number"),
        ("tdp_w = 100", "tdp_w = 0", "[gpu.toy]: tdp_w must be a positive number, got 0"),
        ('name = "Toy GPU"', "name = 3", "[gpu.toy]: name must be a non-empty string"),
        ("fp32 = 10.0", "fp32 = 10.0\nfp4 = 20.0", "[gpu.toy]: peak_tflops.fp4 is not a known"),
        ("fp32 = 10.0", "fp32 = -1.0", "[gpu.toy]: peak_tflops.fp32 must be a positive number"),
        ('aliases = ["NVIDIA Toy 8GB"]', "aliases = []", "[gpu.toy]: aliases must list at least"),
        ('aliases = ["NVIDIA Toy 8GB"]', 'aliases = "x"', "[gpu.toy]: aliases must be a list"),
        ("tdp_w = 100", "tdp_w = 100\ntdp_watts = 1", "[gpu.toy]: tdp_watts is not a known field"),
        ('compute_capability = "8.0"', 'compute_capability = "8"', "compute_capability must"),
        ("pcie_gen = 4", "pcie_gen = 6", "[gpu.toy]: pcie_gen must be one of [4]"),
        (
            'source = "toy-sheet"\n[gpu.toy.peak',
            'source = "nowhere"\n[gpu.toy.peak',
            "[gpu.toy]: source names an unknown source 'nowhere'",
        ),
        (
            'sm_count = "toy-sheet"',
            'warp_size = "toy-sheet"',
            "[gpu.toy]: field_sources.warp_size does not name a figure",
        ),
        (
            'sm_count = "toy-sheet"',
            '"peak_tflops.fp8" = "toy-sheet"',
            "[gpu.toy]: field_sources.peak_tflops.fp8 does not name a figure",
        ),
        ('title = "Toy GPU datasheet"', "", "gpus.toml: [sources.toy-sheet]: title must be"),
        ('"4" = 31.5', '"4" = -1', "gpus.toml: [pcie]: x16_gb_s_per_direction.4 must be"),
        ('compute_capability = "8.0"', 'compute_capability = "8.6"',
         "[gpu.toy]: compute_capability 8.6 is not in [sm_limits] max_threads_per_sm (known: 8.0)"),
        ('{ "8.0" = 2048 }', '{ "8.0" = 0 }', "gpus.toml: [sm_limits]: max_threads_per_sm.8.0 must be a positive"),
        ('{ "8.0" = 2048 }', '{ "eight" = 2048 }', "[sm_limits]: max_threads_per_sm key must look like '8.0'"),
        ('source = "toy-sheet"\nmax_threads', 'source = "nowhere"\nmax_threads',
         "[sm_limits]: source names an unknown source 'nowhere'"),
    ],
)
def test_a_bad_entry_raises_a_spec_error_naming_file_entry_and_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    with pytest.raises(SpecError) as caught:
        load_specs(write_specs(tmp_path, edited(old, new)))
    assert expected in str(caught.value)


def test_a_duplicate_alias_names_both_entries(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_specs(write_specs(tmp_path, VALID + SECOND_GPU))
    message = str(caught.value)
    assert message.startswith("gpus.toml: [gpu.other]: aliases:")
    assert "[gpu.toy]" in message


def test_an_alias_listed_twice_in_one_entry_is_rejected(tmp_path: Path) -> None:
    text = edited('aliases = ["NVIDIA Toy 8GB"]', 'aliases = ["NVIDIA Toy 8GB", "NVIDIA Toy 8GB"]')
    with pytest.raises(SpecError, match=r"\[gpu.toy\]: aliases: lists a name twice"):
        load_specs(write_specs(tmp_path, text))


def test_malformed_toml_raises_a_spec_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"^gpus.toml: not valid TOML"):
        load_specs(write_specs(tmp_path, VALID + "\nname = = broken\n"))


def test_a_missing_file_raises_a_spec_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"^gpus.toml: cannot read"):
        load_specs(tmp_path / "gpus.toml")


def test_spec_error_is_a_value_error() -> None:
    assert issubclass(SpecError, ValueError)


def test_the_shipped_file_is_plain_toml_with_sources_for_every_gpu() -> None:
    path = Path(__file__).resolve().parents[2] / "resources" / "gpus.toml"
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, entry in document["gpu"].items():
        assert entry["source"] in document["sources"], key


# --- CUDA-core 16-bit rates and achievable GEMM shares (issue 21) ------------------------------

WITH_SHARE = VALID.replace(
    "[gpu.toy.field_sources]\n",
    '[gpu.toy.gemm_efficiency]\nfp32 = 0.9\n[gpu.toy.field_sources]\n"gemm_efficiency.fp32" = "toy-sheet"\n',
)


def test_a_gemm_share_loads_with_its_own_source(tmp_path: Path) -> None:
    toy = load_specs(write_specs(tmp_path, WITH_SHARE))["toy"]
    assert dict(toy.gemm_efficiency) == {"fp32": 0.9}
    assert toy.source_for("gemm_efficiency.fp32").title == "Toy GPU datasheet"
    assert dict(load_specs(write_specs(tmp_path, VALID))["toy"].gemm_efficiency) == {}  # optional


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('"gemm_efficiency.fp32" = "toy-sheet"\n', "", "gemm_efficiency.fp32 needs its own source in field_sources"),
        ("fp32 = 0.9", "fp32 = 1.3", "gemm_efficiency.fp32 must be a share of the peak above 0 and at most 1"),
        ("fp32 = 0.9", "fp32 = 0", "gemm_efficiency.fp32 must be a share of the peak above 0"),
        ("fp32 = 0.9", "fp32 = 0.9\nfp4 = 0.9", "gemm_efficiency.fp4 is not a known dtype"),
    ],
)
def test_a_bad_gemm_share_raises_a_spec_error_naming_it(tmp_path: Path, old: str, new: str, expected: str) -> None:
    assert old in WITH_SHARE, old
    with pytest.raises(SpecError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        load_specs(write_specs(tmp_path, WITH_SHARE.replace(old, new, 1)))


def test_every_shipped_gemm_share_is_a_published_measurement_below_the_peak(shipped: SpecTable) -> None:
    measured = [spec for spec in shipped if spec.gemm_efficiency]
    assert {spec.key for spec in measured} >= {"h100-sxm", "a100-sxm4-80gb", "v100-sxm2-16gb"}
    for spec in measured:
        for dtype, share in spec.gemm_efficiency.items():
            assert 0.5 < share <= 1, (spec.key, dtype)
            assert spec.source_for(f"gemm_efficiency.{dtype}") is not spec.source, (spec.key, dtype)
    # The published large-GEMM measurements: 70-80% of the tensor-core peaks on H100, not 100%.
    assert 0.70 <= shipped["h100-sxm"].gemm_efficiency["fp8"] < shipped["h100-sxm"].gemm_efficiency["bf16"] < 0.81


def test_cuda_core_16_bit_rates_follow_each_architectures_published_ratio_to_fp32(shipped: SpecTable) -> None:
    ratio = {key: shipped[key].peak_tflops["fp16_non_tensor"] / shipped[key].peak_tflops["fp32"]
             for key in ("v100-sxm2-16gb", "t4", "a100-sxm4-80gb", "h100-sxm", "h100-pcie", "h200-sxm")}  # fmt: skip
    assert ratio["a100-sxm4-80gb"] == pytest.approx(4)  # A100: FP16 non-tensor 78 against FP32 19.5
    assert shipped["a100-sxm4-80gb"].peak_tflops["bf16_non_tensor"] == 39.0  # and BF16 only twice
    for key in ("v100-sxm2-16gb", "t4", "h100-sxm", "h100-pcie", "h200-sxm"):
        assert ratio[key] == pytest.approx(2, rel=0.01), key
    assert "fp16_non_tensor" not in shipped["l4"].peak_tflops  # none published: the model says so


def test_the_rtx_a6000_of_the_sgemm_worklog_is_in_the_table(shipped: SpecTable) -> None:
    a6000 = shipped["rtx-a6000"]
    assert (a6000.peak_tflops["fp32"], a6000.memory_bandwidth_gb_s, a6000.sm_count) == (38.7, 768, 84)
    assert shipped.match("NVIDIA RTX A6000") is a6000
    assert "fp8" not in a6000.peak_tflops  # GA102 has no FP8 tensor cores


# ------------------------------------------------------------- achievable memory bandwidth

def test_a_memory_share_loads_with_its_own_source(tmp_path: Path) -> None:
    text = VALID.replace("tdp_w = 100\n", "tdp_w = 100\nmemory_efficiency = 0.85\n", 1).replace(
        "[gpu.toy.field_sources]\n", '[gpu.toy.field_sources]\nmemory_efficiency = "toy-sheet"\n')
    toy = load_specs(write_specs(tmp_path, text))["toy"]
    assert toy.memory_efficiency == 0.85
    assert toy.source_for("memory_efficiency").title == "Toy GPU datasheet"
    assert load_specs(write_specs(tmp_path, VALID))["toy"].memory_efficiency is None  # optional


@pytest.mark.parametrize(
    ("share", "source", "expected"),
    [
        ("0.85", "", "memory_efficiency needs its own source in field_sources"),
        ("1.2", 'memory_efficiency = "toy-sheet"\n', "memory_efficiency must be a share of the bandwidth above 0"),
        ("0", 'memory_efficiency = "toy-sheet"\n', "memory_efficiency must be a share of the bandwidth above 0"),
        ('"most"', 'memory_efficiency = "toy-sheet"\n', "memory_efficiency must be a share of the bandwidth"),
        ("0.85", 'memory_efficiency = "nowhere"\n', "field_sources.memory_efficiency names an unknown source"),
    ],
)
def test_a_bad_memory_share_raises_a_spec_error_naming_it(tmp_path: Path, share: str, source: str,
                                                         expected: str) -> None:  # fmt: skip
    text = VALID.replace("tdp_w = 100\n", f"tdp_w = 100\nmemory_efficiency = {share}\n", 1).replace(
        "[gpu.toy.field_sources]\n", f"[gpu.toy.field_sources]\n{source}")
    with pytest.raises(SpecError, match=expected):
        load_specs(write_specs(tmp_path, text))


def test_every_shipped_memory_share_is_a_published_measurement_below_the_spec_sheet(shipped: SpecTable) -> None:
    measured = [spec for spec in shipped if spec.memory_efficiency is not None]
    assert {spec.key for spec in measured} >= {"h100-sxm", "a100-sxm4-80gb", "a100-sxm4-40gb", "v100-sxm2-16gb"}
    for spec in measured:
        assert 0.6 < (spec.memory_efficiency or 0) < 1, spec.key  # no streaming kernel reaches the spec sheet
        assert spec.source_for("memory_efficiency") is not spec.source, spec.key
        assert any(note.startswith("memory_efficiency:") for note in spec.notes), spec.key  # says what was measured


def test_a_shipped_gpu_without_a_memory_share_says_which_one_it_borrows(shipped: SpecTable) -> None:
    for spec in shipped:
        if spec.memory_efficiency is None:
            assert any(f"lowest share published for {spec.memory_type}" in note for note in spec.notes), spec.key
