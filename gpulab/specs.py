"""The GPU spec table: published figures for the GPUs the lab knows, with their sources.

``load_specs()`` reads ``resources/gpus.toml``, checks every entry and returns a
:class:`SpecTable`. A figure that a GPU does not have (fp8 on a V100, NVLink on an L4) is
absent from the table and ``None``/missing here, never zero.

    >>> table = load_specs()
    >>> spec = table.match("NVIDIA H100 80GB HBM3")
    >>> spec.key, spec.memory_bandwidth_gb_s
    ('h100-sxm', 3350.0)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from gpulab.paths import resource_path

__all__ = [
    "DTYPES",
    "PEAK_KEYS",
    "GpuSpec",
    "SmLimits",
    "Source",
    "SpecError",
    "SpecTable",
    "load_specs",
    "name_tokens",
    "shipped_specs",
]

DTYPES: tuple[str, ...] = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8")
"""Data-type names used throughout the lab."""

PEAK_KEYS: tuple[str, ...] = ("fp64", "fp64_tensor", "fp32", "tf32", "fp16", "bf16", "fp8", "fp16_non_tensor",
                               "bf16_non_tensor")
"""Keys allowed in a GPU's ``peak_tflops`` table (``fp64_tensor``: FP64 on tensor cores;
``fp16_non_tensor``/``bf16_non_tensor``: 16-bit arithmetic on the CUDA cores, no tensor cores)."""

_VENDOR_WORDS = frozenset({"nvidia", "tesla", "geforce"})
# Extra words a device name may carry beyond an alias and still be the same board:
# memory sizes ("80gb"), memory kinds ("hbm3") and MIG slice names ("mig 1g 10gb").
_HARMLESS_EXTRA_TOKEN = re.compile(r"^(\d+gb|\d+g|hbm\d?e?|mig)$")


class SpecError(ValueError):
    """A spec file is unreadable or has an invalid entry; the message names file, entry, field."""


@dataclass(frozen=True)
class Source:
    """A document a figure comes from."""

    key: str
    title: str
    url: str | None = None


@dataclass(frozen=True)
class GpuSpec:
    """Published figures for one GPU model. Units are in the field names.

    ``peak_tflops`` holds dense peaks (no structured sparsity) keyed by :data:`PEAK_KEYS`;
    a key that is missing means the GPU has no such rate. ``nvlink_gb_s`` is the total
    bidirectional NVLink bandwidth per GPU, or ``None`` without NVLink.
    """

    key: str
    name: str
    aliases: tuple[str, ...]
    architecture: str
    compute_capability: tuple[int, int]
    sm_count: int
    boost_clock_mhz: float
    memory_gb: float
    memory_type: str
    memory_bandwidth_gb_s: float
    l2_cache_mb: float
    pcie_gen: int
    pcie_lanes: int
    tdp_w: float
    peak_tflops: Mapping[str, float] = field(hash=False)
    source: Source
    field_sources: Mapping[str, Source] = field(hash=False)
    form_factor: str | None = None
    nvlink_gb_s: float | None = None
    notes: tuple[str, ...] = ()
    # Resident threads one SM holds at once: the loader takes it from the file's [sm_limits]
    # table by compute capability; the default only serves specs made by hand in tests.
    max_threads_per_sm: int = 2048
    # Share of a dense peak a large cuBLAS GEMM reached in a published measurement, by dtype
    # (fp32 on CUDA cores, the rest on tensor cores); each figure names its source in field_sources.
    gemm_efficiency: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    # Share of memory_bandwidth_gb_s a streaming kernel (STREAM/BabelStream triad, or the like) reached
    # in a published measurement on this GPU, with its source in field_sources; None: none published
    # (gpulab.model.memory_share then borrows one and says so).
    memory_efficiency: float | None = None

    @property
    def memory_bandwidth_bytes_per_s(self) -> float:
        """Peak memory bandwidth in bytes per second."""
        return self.memory_bandwidth_gb_s * 1e9

    def peak_flops(self, key: str) -> float | None:
        """Dense peak for a :data:`PEAK_KEYS` key in FLOP/s, or ``None`` if unsupported."""
        tflops = self.peak_tflops.get(key)
        return None if tflops is None else tflops * 1e12

    def source_for(self, field_name: str) -> Source:
        """The document a figure comes from (``"peak_tflops.fp8"`` for a peak)."""
        return self.field_sources.get(field_name, self.source)


# ---------------------------------------------------------------------------------------
# Validation of one [gpu.<key>] table
# ---------------------------------------------------------------------------------------

_STRING_FIELDS = ("name", "architecture", "memory_type", "compute_capability", "source")
_POSITIVE_INT_FIELDS = ("sm_count", "pcie_gen", "pcie_lanes")
_POSITIVE_NUMBER_FIELDS = (
    "boost_clock_mhz",
    "memory_gb",
    "memory_bandwidth_gb_s",
    "l2_cache_mb",
    "tdp_w",
)
_REQUIRED_FIELDS = (
    *_STRING_FIELDS,
    *_POSITIVE_INT_FIELDS,
    *_POSITIVE_NUMBER_FIELDS,
    "aliases",
    "peak_tflops",
)
_OPTIONAL_FIELDS = ("form_factor", "nvlink_gb_s", "notes", "field_sources", "gemm_efficiency", "memory_efficiency")
_KNOWN_FIELDS = frozenset(_REQUIRED_FIELDS + _OPTIONAL_FIELDS)
_SOURCED_FIELDS = frozenset(
    (
        *_POSITIVE_INT_FIELDS,
        *_POSITIVE_NUMBER_FIELDS,
        *("compute_capability", "nvlink_gb_s", "name", "aliases"),
        *("architecture", "memory_type", "form_factor", "memory_efficiency"),
    )
)


class _EntryChecker:
    """Checks the fields of one ``[gpu.<key>]`` table and builds its :class:`GpuSpec`."""

    def __init__(self, file_name: str, key: str, raw: Mapping[str, Any]) -> None:
        self.file_name = file_name
        self.key = key
        self.raw = raw

    def error(self, field_name: str, problem: str) -> SpecError:
        return SpecError(f"{self.file_name}: [gpu.{self.key}]: {field_name} {problem}")

    def string(self, name: str) -> str:
        value = self.raw[name]
        if not isinstance(value, str) or not value.strip():
            raise self.error(name, f"must be a non-empty string, got {value!r}")
        return value

    def positive_int(self, name: str) -> int:
        value = self.raw[name]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.error(name, f"must be a positive integer, got {value!r}")
        return value

    def positive_number(self, name: str, value: Any | None = None) -> float:
        value = self.raw[name] if value is None else value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise self.error(name, f"must be a positive number, got {value!r}")
        return float(value)

    def string_list(self, name: str, *, allow_empty: bool) -> tuple[str, ...]:
        value = self.raw.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(name, f"must be a list of non-empty strings, got {value!r}")
        if not value and not allow_empty:
            raise self.error(name, "must list at least one name")
        return tuple(value)

    def check_fields_present(self) -> None:
        for name in _REQUIRED_FIELDS:
            if name not in self.raw:
                raise self.error(name, "is missing (required)")
        for name in self.raw:
            if name not in _KNOWN_FIELDS:
                raise self.error(name, "is not a known field")

    def compute_capability(self) -> tuple[int, int]:
        text = self.string("compute_capability")
        found = re.fullmatch(r"(\d+)\.(\d+)", text)
        if found is None:
            raise self.error("compute_capability", f"must look like '8.0', got {text!r}")
        return int(found.group(1)), int(found.group(2))

    def peak_tflops(self) -> Mapping[str, float]:
        table = self.raw["peak_tflops"]
        if not isinstance(table, dict) or not table:
            raise self.error("peak_tflops", f"must be a non-empty table, got {table!r}")
        peaks: dict[str, float] = {}
        for dtype, value in table.items():
            if dtype not in PEAK_KEYS:
                raise self.error(f"peak_tflops.{dtype}", f"is not a known dtype (known: {', '.join(PEAK_KEYS)})")
            peaks[dtype] = self.positive_number(f"peak_tflops.{dtype}", value)
        return MappingProxyType(peaks)

    def source(self, name: str, source_key: Any, sources: Mapping[str, Source]) -> Source:
        if not isinstance(source_key, str) or source_key not in sources:
            raise self.error(name, f"names an unknown source {source_key!r} (see [sources])")
        return sources[source_key]

    def gemm_efficiency(self) -> Mapping[str, float]:
        """The optional ``gemm_efficiency`` table: dtype -> share of its peak, above 0 and at most 1."""
        table = self.raw.get("gemm_efficiency", {})
        if not isinstance(table, dict):
            raise self.error("gemm_efficiency", f"must be a table, got {table!r}")
        shares: dict[str, float] = {}
        for dtype, value in table.items():
            name = f"gemm_efficiency.{dtype}"
            if dtype not in DTYPES:
                raise self.error(name, f"is not a known dtype (known: {', '.join(DTYPES)})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise self.error(name, f"must be a share of the peak above 0 and at most 1, got {value!r}")
            if name not in self.raw.get("field_sources", {}):
                raise self.error(name, "needs its own source in field_sources (a published measurement)")
            shares[dtype] = float(value)
        return MappingProxyType(shares)

    def memory_efficiency(self) -> float | None:
        """The optional ``memory_efficiency``: a share of the memory bandwidth above 0 and at most 1,
        with its own source (a published measurement) in ``field_sources``."""
        if "memory_efficiency" not in self.raw:
            return None
        value = self.raw["memory_efficiency"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise self.error("memory_efficiency",
                             f"must be a share of the bandwidth above 0 and at most 1, got {value!r}")
        if "memory_efficiency" not in self.raw.get("field_sources", {}):
            raise self.error("memory_efficiency", "needs its own source in field_sources (a published measurement)")
        return float(value)

    def field_sources(self, peaks: Mapping[str, float], sources: Mapping[str, Source]) -> Mapping[str, Source]:
        table = self.raw.get("field_sources", {})
        if not isinstance(table, dict):
            raise self.error("field_sources", f"must be a table, got {table!r}")
        resolved: dict[str, Source] = {}
        for figure, source_key in table.items():
            is_peak = figure.startswith("peak_tflops.") and figure.split(".", 1)[1] in peaks
            is_share = figure.startswith("gemm_efficiency.") and figure.split(".", 1)[1] in self.raw.get(
                "gemm_efficiency", {})
            if figure not in _SOURCED_FIELDS and not is_peak and not is_share:
                raise self.error(f"field_sources.{figure}", "does not name a figure of this GPU")
            resolved[figure] = self.source(f"field_sources.{figure}", source_key, sources)
        return MappingProxyType(resolved)

    def optional_nvlink(self) -> float | None:
        if "nvlink_gb_s" not in self.raw:
            return None
        return self.positive_number("nvlink_gb_s")

    def optional_form_factor(self) -> str | None:
        return self.string("form_factor") if "form_factor" in self.raw else None

    def threads_per_sm(self, limits: SmLimits) -> int:
        capability = self.compute_capability()
        if capability not in limits.max_threads_per_sm:
            known = ", ".join(f"{major}.{minor}" for major, minor in sorted(limits.max_threads_per_sm))
            raise self.error("compute_capability", f"{capability[0]}.{capability[1]} is not in [sm_limits] "
                             f"max_threads_per_sm (known: {known})")
        return limits.max_threads_per_sm[capability]

    def build(self, sources: Mapping[str, Source], pcie_gens: frozenset[int], limits: SmLimits) -> GpuSpec:
        self.check_fields_present()
        peaks = self.peak_tflops()
        pcie_gen = self.positive_int("pcie_gen")
        if pcie_gen not in pcie_gens:
            raise self.error("pcie_gen", f"must be one of {sorted(pcie_gens)} ([pcie]), got {pcie_gen}")
        threads = self.threads_per_sm(limits)
        return GpuSpec(
            key=self.key,
            name=self.string("name"),
            aliases=self.string_list("aliases", allow_empty=False),
            architecture=self.string("architecture"),
            compute_capability=self.compute_capability(),
            sm_count=self.positive_int("sm_count"),
            boost_clock_mhz=self.positive_number("boost_clock_mhz"),
            memory_gb=self.positive_number("memory_gb"),
            memory_type=self.string("memory_type"),
            memory_bandwidth_gb_s=self.positive_number("memory_bandwidth_gb_s"),
            l2_cache_mb=self.positive_number("l2_cache_mb"),
            pcie_gen=pcie_gen,
            pcie_lanes=self.positive_int("pcie_lanes"),
            tdp_w=self.positive_number("tdp_w"),
            peak_tflops=peaks,
            source=self.source("source", self.raw["source"], sources),
            field_sources=MappingProxyType({**self.field_sources(peaks, sources),
                                            "max_threads_per_sm": limits.source}),
            form_factor=self.optional_form_factor(),
            nvlink_gb_s=self.optional_nvlink(),
            notes=self.string_list("notes", allow_empty=True),
            gemm_efficiency=self.gemm_efficiency(),
            memory_efficiency=self.memory_efficiency(),
            max_threads_per_sm=threads,
        )


# ---------------------------------------------------------------------------------------
# Device-name matching
# ---------------------------------------------------------------------------------------


def name_tokens(device_name: str) -> tuple[str, ...]:
    """Lower-case words of a device name, without punctuation or vendor words.

    ``"NVIDIA A100-SXM4-40GB"`` gives ``("a100", "sxm4", "40gb")``.
    """
    words = re.split(r"[^0-9a-z]+", device_name.lower())
    return tuple(word for word in words if word and word not in _VENDOR_WORDS)


def _covers(device: tuple[str, ...], alias: tuple[str, ...]) -> bool:
    """True if the device name holds every alias word and only harmless extra words."""
    if not alias or not set(alias) <= set(device):
        return False
    extra = set(device) - set(alias)
    return all(_HARMLESS_EXTRA_TOKEN.match(word) for word in extra)


# ---------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------


class SpecTable:
    """All GPUs of one spec file, looked up by key or by a device name from CUDA/NVML."""

    def __init__(
        self,
        gpus: Mapping[str, GpuSpec],
        pcie_x16_gb_s_per_direction: Mapping[int, float],
        sources: Mapping[str, Source],
        pcie_source: Source,
        nvlink_gb_s_per_link: Mapping[int, float] | None = None,
        nvlink_source: Source | None = None,
    ) -> None:
        self._gpus = dict(gpus)
        self.pcie_x16_gb_s_per_direction: Mapping[int, float] = MappingProxyType(dict(pcie_x16_gb_s_per_direction))
        self.sources: Mapping[str, Source] = MappingProxyType(dict(sources))
        self.pcie_source = pcie_source
        # One NVLink link's rate per direction by NVLink generation (the file's [nvlink]; empty without it).
        self.nvlink_link_gb_s_per_direction: Mapping[int, float] = MappingProxyType(dict(nvlink_gb_s_per_link or {}))
        self.nvlink_source = nvlink_source

    def __iter__(self) -> Iterator[GpuSpec]:
        return iter(self._gpus.values())

    def __len__(self) -> int:
        return len(self._gpus)

    def __contains__(self, key: object) -> bool:
        return key in self._gpus

    def __getitem__(self, key: str) -> GpuSpec:
        return self._gpus[key]

    def keys(self) -> tuple[str, ...]:
        """The entry keys (``"h100-sxm"``, ...) in file order."""
        return tuple(self._gpus)

    def get(self, key: str) -> GpuSpec | None:
        """The entry with this key, or ``None``."""
        return self._gpus.get(key)

    def match(self, device_name: str) -> GpuSpec | None:
        """The GPU a CUDA/NVML device name refers to, or ``None`` if unknown or ambiguous.

        An exact alias wins. Otherwise names are compared word by word, ignoring case,
        punctuation and the words NVIDIA/Tesla/GeForce: a GPU matches when the device name
        holds every word of one of its aliases (or of its name or key), and any other words
        are only memory sizes, memory kinds or MIG slice names. ``A100`` never matches
        ``A10``, and ``RTX 4090 Laptop GPU`` does not match ``RTX 4090``.
        """
        device_name = device_name.strip()
        for spec in self._gpus.values():
            if device_name in spec.aliases:
                return spec
        device = name_tokens(device_name)
        best: dict[str, int] = {}
        for spec in self._gpus.values():
            for label in (*spec.aliases, spec.name, spec.key):
                alias = name_tokens(label)
                if _covers(device, alias):
                    best[spec.key] = max(best.get(spec.key, 0), len(alias))
        if not best:
            return None
        top = max(best.values())
        winners = [key for key, size in best.items() if size == top]
        return self._gpus[winners[0]] if len(winners) == 1 else None

    def pcie_gb_s_per_direction(self, gen: int, lanes: int = 16) -> float:
        """Theoretical PCIe bandwidth per direction in GB/s for a generation and lane count."""
        if gen not in self.pcie_x16_gb_s_per_direction:
            raise KeyError(f"PCIe generation {gen} is not in the spec table")
        return self.pcie_x16_gb_s_per_direction[gen] * lanes / 16

    def nvlink_gb_s_per_link(self, generation: int) -> float:
        """One NVLink link's rate per direction in GB/s for an NVLink generation."""
        if generation not in self.nvlink_link_gb_s_per_direction:
            raise KeyError(f"NVLink generation {generation} is not in the spec table")
        return self.nvlink_link_gb_s_per_direction[generation]


# ---------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise SpecError(f"{path.name}: cannot read {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path.name}: not valid TOML: {exc}") from exc


def _parse_sources(file_name: str, raw: Any) -> dict[str, Source]:
    if not isinstance(raw, dict) or not raw:
        raise SpecError(f"{file_name}: [sources]: is missing or empty")
    sources: dict[str, Source] = {}
    for key, entry in raw.items():
        title = entry.get("title") if isinstance(entry, dict) else None
        url = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(title, str) or not title.strip():
            raise SpecError(f"{file_name}: [sources.{key}]: title must be a non-empty string")
        if url is not None and not isinstance(url, str):
            raise SpecError(f"{file_name}: [sources.{key}]: url must be a string, got {url!r}")
        sources[key] = Source(key=key, title=title, url=url)
    return sources


def _sourced_table(file_name: str, section: str, raw: Any, sources: Mapping[str, Source],
                   table_key: str) -> tuple[dict[str, Any], Source, Callable[[str], SpecError]]:  # fmt: skip
    """A file-level table like ``[pcie]`` or ``[sm_limits]``: its non-empty ``table_key`` table, its
    source, and the error maker that names the section (for the caller's checks of each entry)."""

    def fail(problem: str) -> SpecError:
        return SpecError(f"{file_name}: [{section}]: {problem}")

    if not isinstance(raw, dict):
        raise fail("is missing")
    source_key = raw.get("source")
    if not isinstance(source_key, str) or source_key not in sources:
        raise fail(f"source names an unknown source {source_key!r} (see [sources])")
    table = raw.get(table_key)
    if not isinstance(table, dict) or not table:
        raise fail(f"{table_key} must be a non-empty table")
    return table, sources[source_key], fail


def _rates_by_generation(file_name: str, section: str, raw: Any, sources: Mapping[str, Source],
                         table_key: str) -> tuple[dict[int, float], Source]:  # fmt: skip
    """A link-rate table keyed by generation (``[pcie]``, ``[nvlink]``): positive GB/s and its source."""
    table, source, fail = _sourced_table(file_name, section, raw, sources, table_key)
    rates: dict[int, float] = {}
    for gen, rate in table.items():
        if not gen.isdigit():
            raise fail(f"{table_key} key must be a generation number, got {gen!r}")
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0:
            raise fail(f"{table_key}.{gen} must be a positive number, got {rate!r}")
        rates[int(gen)] = float(rate)
    return rates, source


def _parse_pcie(file_name: str, raw: Any, sources: Mapping[str, Source]) -> tuple[dict[int, float], Source]:
    return _rates_by_generation(file_name, "pcie", raw, sources, "x16_gb_s_per_direction")


def _parse_nvlink(file_name: str, raw: Any, sources: Mapping[str, Source]) -> tuple[dict[int, float], Source | None]:
    """The [nvlink] table, which a file of PCIe-only GPUs may leave out."""
    if raw is None:
        return {}, None
    return _rates_by_generation(file_name, "nvlink", raw, sources, "link_gb_s_per_direction")


@dataclass(frozen=True)
class SmLimits:
    """Per-SM limits by compute capability (the file's ``[sm_limits]`` table) and their source."""

    max_threads_per_sm: Mapping[tuple[int, int], int]
    source: Source


def _parse_sm_limits(file_name: str, raw: Any, sources: Mapping[str, Source]) -> SmLimits:
    table, source, fail = _sourced_table(file_name, "sm_limits", raw, sources, "max_threads_per_sm")
    threads: dict[tuple[int, int], int] = {}
    for capability, value in table.items():
        found = re.fullmatch(r"(\d+)\.(\d+)", capability)
        if found is None:
            raise fail(f"max_threads_per_sm key must look like '8.0', got {capability!r}")
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise fail(f"max_threads_per_sm.{capability} must be a positive integer, got {value!r}")
        threads[int(found.group(1)), int(found.group(2))] = value
    return SmLimits(MappingProxyType(threads), source)


def _check_unique_aliases(file_name: str, gpus: Mapping[str, GpuSpec]) -> None:
    owner: dict[tuple[str, ...], str] = {}
    for spec in gpus.values():
        if len(set(spec.aliases)) != len(spec.aliases):
            raise SpecError(f"{file_name}: [gpu.{spec.key}]: aliases: lists a name twice")
        for alias in spec.aliases:
            tokens = name_tokens(alias)
            if owner.get(tokens, spec.key) != spec.key:
                raise SpecError(
                    f"{file_name}: [gpu.{spec.key}]: aliases: {alias!r} duplicates an alias of [gpu.{owner[tokens]}]"
                )
            owner[tokens] = spec.key


def _parse_gpus(
    file_name: str, raw: Any, sources: Mapping[str, Source], pcie_gens: frozenset[int], limits: SmLimits
) -> dict[str, GpuSpec]:
    if not isinstance(raw, dict) or not raw:
        raise SpecError(f"{file_name}: [gpu]: no GPU entries")
    gpus: dict[str, GpuSpec] = {}
    for key, entry in raw.items():
        if not isinstance(entry, dict):
            raise SpecError(f"{file_name}: [gpu.{key}]: must be a table")
        gpus[key] = _EntryChecker(file_name, key, entry).build(sources, pcie_gens, limits)
    _check_unique_aliases(file_name, gpus)
    return gpus


def load_specs(path: str | Path | None = None) -> SpecTable:
    """Read and check a spec file (default: the packaged ``resources/gpus.toml``).

    Raises :class:`SpecError` naming the file, the entry and the field for malformed TOML,
    a missing or unknown field, a wrong type, a non-positive number, an unknown dtype key,
    an unknown source or a duplicate alias.
    """
    spec_path = Path(path) if path is not None else resource_path("gpus.toml")
    document = _read_toml(spec_path)
    file_name = spec_path.name
    sources = _parse_sources(file_name, document.get("sources"))
    pcie_rates, pcie_source = _parse_pcie(file_name, document.get("pcie"), sources)
    limits = _parse_sm_limits(file_name, document.get("sm_limits"), sources)
    nvlink_rates, nvlink_source = _parse_nvlink(file_name, document.get("nvlink"), sources)
    gpus = _parse_gpus(file_name, document.get("gpu"), sources, frozenset(pcie_rates), limits)
    return SpecTable(gpus, pcie_rates, sources, pcie_source, nvlink_rates, nvlink_source)


@cache
def shipped_specs() -> SpecTable:
    """The packaged ``resources/gpus.toml``, read and checked once: the one source of the link rates
    every model prices a copy with (reading the file takes milliseconds, a sweep prices thousands)."""
    return load_specs()
