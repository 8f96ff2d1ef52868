"""Chinese for the texts the engine writes: result notes, model assumptions, series names,
progress messages and the reasons a GPU or its counters are missing.

The engine writes its sentences in English (results and reports stay English and
comparable). This table maps each sentence *template* to its Chinese, so a front end can
show any of them in Chinese without the engine knowing about languages::

    >>> translate("Copies do not overlap with each other or with kernels.", "zh")
    '拷贝之间、拷贝与核函数之间都不重叠。'

A template's ``{name}`` fields match the variable parts (sizes, series, GPU names); each part
is itself translated when the table knows it (a series name inside a crossover note). A text
no template matches is returned unchanged, so a new English sentence shows in English rather
than not at all.
"""

from __future__ import annotations

import re
from functools import cache

from gpulab.devices import REASONS_ZH

__all__ = ["TEMPLATES", "translate", "translate_all", "translation_known"]

# What a field may match, where "anything, as little as possible" would be ambiguous.
_FIELD_PATTERNS = {
    "kind": "measured|modelled|emulated|replayed",
    "unit": "N|n",
    "size": r"\d+",
    "threads": r"\d+",
    "count": r"\d+",
    "number": r"[0-9][0-9.,]*",
    "percent": r"\d+%",
    "low": r"\d+",
    "high": r"\d+",
    "key": r"\S+",
}

_DEVICE_REASONS: tuple[tuple[str, str], ...] = (
    ("CuPy is not installed, so gpulab cannot use a GPU. With an NVIDIA GPU, install gpulab with the extra "
     "that matches your driver: pip install -e '.[cuda12]' or '.[cuda13]'.", REASONS_ZH["no-cupy"]),
    ("CuPy is installed but failed to import: {detail}", REASONS_ZH["cupy-broken"]),
    ("No NVIDIA driver is installed (the CUDA driver library libcuda was not found), so the CUDA {runtime} "
     "runtime reports 'insufficient driver'. This machine has no usable NVIDIA GPU; the lab runs emulated and "
     "modelled labs instead.", REASONS_ZH["no-driver"]),
    ("The NVIDIA driver is too old: it supports CUDA {driver}, but CuPy was built for CUDA {runtime}. Update "
     "the driver, or install the CuPy build for an older CUDA (e.g. the cuda12 extra instead of cuda13).",
     REASONS_ZH["old-driver"]),
    ("The NVIDIA driver is present but reports no CUDA device.", "NVIDIA 驱动存在，但它报告没有 CUDA 设备。"),
    ("The NVIDIA driver is loaded but finds no CUDA-capable device.", REASONS_ZH["no-device"]),
    ("CUDA could not be initialised: {detail}", REASONS_ZH["error"]),
    ("{count} CUDA device(s) found.", REASONS_ZH["ok"]),
)  # fmt: skip

_MONITOR_REASONS: tuple[tuple[str, str], ...] = (
    ("nvidia-ml-py (pynvml) is not installed, so GPU counters cannot be read.",
     "没有安装 nvidia-ml-py（pynvml），无法读取 GPU 计数器。"),
    ("No NVIDIA driver: the NVML library was not found ({detail}), so there are no GPU counters.",
     "没有 NVIDIA 驱动：找不到 NVML 库（{detail}），所以没有 GPU 计数器。"),
    ("NVML could not start: {detail}", "NVML 无法启动：{detail}"),
    ("NVML could not count the GPUs: {detail}", "NVML 无法统计 GPU 数量：{detail}"),
    ("NVML works but lists no GPU.", "NVML 可以工作，但没有列出任何 GPU。"),
    ("GPU counters were switched off.", "GPU 计数器已关闭。"),
    ("psutil is not installed, so CPU utilization cannot be read.", "没有安装 psutil，无法读取 CPU 利用率。"),
)  # fmt: skip

_SERIES_NAMES: tuple[tuple[str, str], ...] = (
    ("CPU numpy (1 thread)", "CPU numpy（1 个线程）"),
    ("CPU numpy (all 1 thread)", "CPU numpy（全部 1 个线程）"),
    ("CPU numpy (all {threads} threads)", "CPU numpy（全部 {threads} 个线程）"),
    ("GPU cuBLAS (cupy.matmul)", "GPU cuBLAS（cupy.matmul）"),
    ("GPU naive kernel", "GPU 朴素核函数"),
    ("GPU tiled kernel (16×16 tiles)", "GPU 分块核函数（16×16 分块）"),
    ("CPU (numpy)", "CPU（numpy）"),
    ("GPU (CUDA kernel)", "GPU（CUDA 核函数）"),
    ("{gpu} (model)", "{gpu}（模型）"),
    ("kernel time (GPU, measured)", "核函数时间（GPU，实测）"),
    ("branch efficiency (emulated)", "分支效率（仿真）"),
    ("warp execution efficiency (emulated)", "warp 执行效率（仿真）"),
    ("instructions executed (emulated)", "执行的指令数（仿真）"),
    ("sectors per request (emulated)", "每次请求的扇区数（仿真）"),
    ("load efficiency (emulated)", "加载效率（仿真）"),
    ("sectors per request of the in[] load (emulated)", "in[] 加载每次请求的扇区数（仿真）"),
    ("shared load transactions per request (emulated)", "每次请求的共享内存读事务数（仿真）"),
    ("shared store transactions per request (emulated)", "每次请求的共享内存写事务数（仿真）"),
    ("measured", "实测"),
    ("modelled", "模型估算"),
    ("emulated", "仿真"),
    ("replayed", "回放"),
)

_MATMUL_AND_VECTOR_NOTES: tuple[tuple[str, str], ...] = (
    ("Crossover: {gpu} ({kind}) does not beat {cpu} at the sizes run.",
     "交叉点：在所跑的规模内，{gpu}（{kind}）没有超过 {cpu}。"),
    ("Crossover: {gpu} ({kind}) is faster than {cpu} from {unit}={size} up.",
     "交叉点：从 {unit}={size} 起，{gpu}（{kind}）比 {cpu}快。"),
    ("With the PCIe copies counted, {gpu} (modelled) would not beat {cpu} at any size run.",
     "如果算上 PCIe 拷贝，{gpu}（模型估算）在所跑的任何规模上都不会超过 {cpu}。"),
    ("With the PCIe copies counted, {gpu} (modelled) would beat {cpu} only from {unit}={size} up.",
     "如果算上 PCIe 拷贝，{gpu}（模型估算）要从 {unit}={size} 起才会超过 {cpu}。"),
    ("GFLOP/s counts 2·N³ floating-point operations per multiply; each point is the median of its repeats.",
     "GFLOP/s 按每次乘法 2·N³ 次浮点运算计算；每个点是多次重复的中位数。"),
    ("GPU times count the multiply only: the matrices are already on the GPU.",
     "GPU 时间只算乘法本身：矩阵已经在 GPU 上。"),
    ("GPU times include copying A and B to the GPU and C back (pinned host memory).",
     "GPU 时间包括把 A 和 B 拷到 GPU、再把 C 拷回来（锁页主机内存）。"),
    ("GPU times count the kernel only: the arrays are already on the GPU.",
     "GPU 时间只算核函数：数组已经在 GPU 上。"),
    ("GPU times include copying a and b to the GPU and c back (pinned host memory).",
     "GPU 时间包括把 a 和 b 拷到 GPU、再把 c 拷回来（锁页主机内存）。"),
    ("Bandwidth counts bytes read plus written: 3 x n x 4 bytes for float32.",
     "带宽按读加写的字节数计算：float32 为 3 × n × 4 字节。"),
    ("No measured GPU series: {reason}", "没有实测的 GPU 曲线：{reason}"),
    ("No GPU series: {reason}", "没有 GPU 曲线：{reason}"),
    ("No modelled GPU series: {reason}", "没有模型估算的 GPU 曲线：{reason}"),
    ("No CPU series for {dtype}: numpy has no half-precision BLAS, so its matmul would run a slow generic loop "
     "that says nothing about the CPU.",
     "{dtype} 没有 CPU 曲线：numpy 没有半精度 BLAS，它的矩阵乘法会走一个很慢的通用循环，说明不了 CPU 的能力。"),
    ("The naive and tiled kernels are written for fp32 only; they are left out for this dtype.",
     "朴素核函数和分块核函数只为 fp32 编写；这个数据类型下不运行它们。"),
)  # fmt: skip

_MODEL_ASSUMPTIONS: tuple[tuple[str, str], ...] = (
    ("Peak {peak} rate is {number} TFLOP/s, the dense figure from the {gpu} spec sheet.",
     "{peak} 峰值算力为 {number} TFLOP/s，取自 {gpu} 规格表中的稠密计算数据。"),
    ("Memory bandwidth is {number} GB/s from the spec sheet.", "显存带宽为 {number} GB/s，取自规格表。"),
    ("The kernel reaches {percent} of peak compute.", "核函数达到峰值算力的 {percent}。"),
    ("The kernel reaches {percent} of peak memory bandwidth.", "核函数达到峰值显存带宽的 {percent}。"),
    ("Computation and memory traffic overlap fully, so the slower one sets the kernel time.",
     "计算与访存完全重叠，核函数时间由较慢的一方决定。"),
    ("Each kernel launch costs {number} µs (launch latency is typically 3–10 µs).",
     "每次核函数启动耗时 {number} µs（启动延迟通常为 3–10 µs）。"),
    ("Each matrix is read or written in DRAM exactly once (ideal tiling).",
     "每个矩阵在显存中恰好读或写一次（理想分块）。"),
    ("Without tensor cores, {dtype} math is modelled at the fp32 CUDA-core rate.",
     "不用 Tensor Core 时，{dtype} 运算按 fp32 CUDA 核心的速率估算。"),
    ("The host link is {link} at {number} GB/s per direction in theory.",
     "主机链路为 {link}，理论上每个方向 {number} GB/s。"),
    ("Copies from pinned host memory reach {percent} of that rate.", "从锁页主机内存拷贝可达到该速率的 {percent}。"),
    ("Copies from pageable host memory reach {percent} of that rate.",
     "从可分页主机内存拷贝可达到该速率的 {percent}。"),
    ("Each copy has a fixed start-up cost of {number} µs.", "每次拷贝有 {number} µs 的固定启动开销。"),
    ("Copies do not overlap with each other or with kernels.", "拷贝之间、拷贝与核函数之间都不重叠。"),
)  # fmt: skip

_KERNEL_LAB_NOTES: tuple[tuple[str, str], ...] = (
    ("Emulated series are exact counts from the SIMT emulator for the launch shown in each point; the emulator "
     "claims no time.", "仿真曲线是 SIMT 仿真器对每个点所示启动的精确计数；仿真器不给出任何时间。"),
    ("Every emulated output matched the kernel's numpy reference.", "每个仿真输出都与核函数的 numpy 参考结果一致。"),
    ("Emulated output differs from the numpy reference for: {names}.",
     "以下变体的仿真输出与 numpy 参考结果不同：{names}。"),
    ("GPU outputs did NOT match the emulator's for: {names}. GPU kernel times are for problem size {size} (the "
     "emulated size is far too small to time).",
     "以下变体的 GPU 输出与仿真器的不一致：{names}。"
     "GPU 核函数时间对应的问题规模为 {size}（仿真用的规模太小，没法计时）。"),
    ("GPU outputs matched the emulator's for every variant. GPU kernel times are for problem size {size} (the "
     "emulated size is far too small to time).",
     "每个变体的 GPU 输出都与仿真器的一致。GPU 核函数时间对应的问题规模为 {size}（仿真用的规模太小，没法计时）。"),
    ("Even/odd and warp-aligned do the same arithmetic; only which threads take which path differs.",
     "奇偶分支和按 warp 对齐的分支做的运算完全相同，只是哪些线程走哪条路径不同。"),
    ("k-way divergence is an if/else-if chain on lane % k (the emulator's C subset has no switch; a switch "
     "diverges the same way on a GPU).",
     "k 路分支发散是按 lane % k 写的 if/else-if 链（仿真器支持的 C 子集没有 switch；在 GPU 上 switch 也会同样发散）。"),
    ("The data-dependent loop runs counts[i] rounds per lane (random, 0 to max_rounds): a warp loops as long as "
     "its slowest lane. The uniform loop is the same kernel with every lane running the average, max_rounds / 2, "
     "rounds.",
     "依赖数据的循环让每条 lane 循环 counts[i] 轮（随机，0 到 max_rounds）：一个 warp 要循环到最慢的 lane 结束。"
     "均匀循环是同一个核函数，只是每条 lane 都循环平均的 max_rounds / 2 轮。"),
    ("Coalesced float32 loads need 4 sectors per warp (128 bytes); from stride 8 on every lane needs its own "
     "sector.", "合并的 float32 加载每个 warp 需要 4 个扇区（128 字节）；跨步达到 8 起，每条 lane 都需要自己的扇区。"),
    ("The gather kernel also loads its index array (coalesced), so its kernel-wide numbers average that load with "
     "the scattered one; the in[] series counts the load of the pattern alone (every warp traced).",
     "收集核函数还要加载它的索引数组（合并访问），所以整个核函数的数字是这次加载与分散加载的平均；"
     "in[] 曲线只统计访问模式本身的那次加载（跟踪了每个 warp）。"),
    ("Transposes: n = side x side elements, one 32 x 32 thread block per tile; the tile is written by rows "
     "(conflict-free) and read by columns.",
     "转置：n = side × side 个元素，每个分块一个 32 × 32 的线程块；分块按行写入（无冲突），按列读出。"),
    ("Strided reads: thread i reads shared word (i * stride) % 1024, a gcd(stride, 32)-way conflict; the buffer is "
     "filled by consecutive threads (conflict-free stores).",
     "跨步读取：线程 i 读取共享内存第 (i * stride) % 1024 个字，造成 gcd(stride, 32) 路冲突；"
     "缓冲区由连续的线程填写（写入无冲突）。"),
    ("Each kernel writes one partial sum per block; the sums are integers, so the check against numpy is "
     "bit-exact.", "每个核函数为每个线程块写出一个部分和；这些和都是整数，所以与 numpy 的核对逐位精确。"),
)  # fmt: skip

_AXES_AND_VARIANTS: tuple[tuple[str, str], ...] = (
    ("branch efficiency", "分支效率"),
    ("warp execution efficiency", "warp 执行效率"),
    ("warp instructions executed", "执行的 warp 指令数"),
    ("32-byte sectors per warp load", "每次 warp 加载的 32 字节扇区数"),
    ("32-byte sectors per warp load of in[]", "in[] 每次 warp 加载的 32 字节扇区数"),
    ("useful bytes / fetched bytes", "有用字节 / 取回字节"),
    ("wavefronts per warp shared load", "每次 warp 共享内存读的波前数"),
    ("wavefronts per warp shared store", "每次 warp 共享内存写的波前数"),
    ("kernel time", "核函数时间"),
    ("throughput", "吞吐量"),
    ("bandwidth", "带宽"),
    ("matrix size N", "矩阵规模 N"),
    ("elements", "元素个数"),
    ("even/odd", "奇偶"),
    ("warp-aligned", "按 warp 对齐"),
    ("k-way k={size}", "k 路 k={size}"),
    ("data-dependent loop", "依赖数据的循环"),
    ("uniform loop", "均匀循环"),
    ("coalesced", "合并"),
    ("stride {size}", "跨步 {size}"),
    ("random gather", "随机收集"),
    ("misaligned +{size}", "未对齐 +{size}"),
    ("transpose 32x32 tile", "32x32 分块转置"),
    ("transpose 32x33 tile (padded)", "32x33 分块转置（填充）"),
    ("shared stride {size}", "共享内存跨步 {size}"),
    ("interleaved (tid % 2s)", "交错寻址（tid % 2s）"),
    ("sequential (tid < s)", "顺序寻址（tid < s）"),
    ("warp shuffle", "warp 洗牌"),
)

_PARAM_ERRORS: tuple[tuple[str, str], ...] = (
    ("unknown parameter {key} (known: {names})", "未知参数 {key}（已知参数：{names}）"),
    ("{key}: expected one of {names}, got {text}", "{key}：应为 {names} 之一，实际为 {text}"),
    ("{key}: expected true or false, got {text}", "{key}：应为 true 或 false，实际为 {text}"),
    ("{key}: expected a whole number, got {text}", "{key}：应为整数，实际为 {text}"),
    ("{key}: expected a number, got {text}", "{key}：应为数字，实际为 {text}"),
    ("model_gpu: no GPU {key} in the spec table (known: {names})",
     "model_gpu：规格表中没有 GPU {key}（已知：{names}）"),
    # validate_params: "{key}: must be {rule}, got {text}", the rule built from the parts below
    ("{key}: must be {rule}, got {text}", "{key}：必须是 {rule}，实际为 {text}"),
    ("{key}: every value must be {rule}, got {text}", "{key}：每个值都必须是 {rule}，实际为 {text}"),
    ("{key}: give at least one value", "{key}：至少要给出一个值"),
    ("{what} from {lowest} to {highest}", "{lowest} 到 {highest} 之间的{what}"),
    ("{what} of at least {lowest}", "不小于 {lowest} 的{what}"),
    ("{what} of at most {highest}", "不大于 {highest} 的{what}"),
    ("a whole number", "整数"),
    ("a number", "数"),
    ("a multiple of {step}", "{step} 的倍数"),
    ("a power of two", "2 的幂"),
    ("one of {names}", "{names} 之一"),
)

_PROGRESS: tuple[tuple[str, str], ...] = (
    ("done", "完成"),
    ("CPU n={size}", "CPU n={size}"),
    ("GPU n={size}", "GPU n={size}"),
    ("model n={size}", "模型 n={size}"),
    ("{series}: N={size}", "{series}：N={size}"),
    ("emulating {variant}", "正在仿真 {variant}"),
    ("timing {variant} on the GPU", "正在 GPU 上计时 {variant}"),
)

TEMPLATES: tuple[tuple[str, str], ...] = (
    *_DEVICE_REASONS, *_MONITOR_REASONS, *_SERIES_NAMES, *_MATMUL_AND_VECTOR_NOTES, *_MODEL_ASSUMPTIONS,
    *_KERNEL_LAB_NOTES, *_AXES_AND_VARIANTS, *_PARAM_ERRORS, *_PROGRESS,
)
"""(English template, Chinese template) pairs; fields are written ``{name}`` in both."""

_FIELD = re.compile(r"\{(\w+)\}")


def _regex(template: str) -> re.Pattern[str]:
    parts, fields, start = [], set(), 0
    for match in _FIELD.finditer(template):
        parts.append(re.escape(template[start : match.start()]))
        name = match.group(1)
        if name in fields:
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>{_FIELD_PATTERNS.get(name, '.+?')})")
            fields.add(name)
        start = match.end()
    parts.append(re.escape(template[start:]))
    return re.compile("".join(parts), re.DOTALL)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((_regex(en), zh) for en, zh in TEMPLATES)


_VARIANT_AXIS = re.compile(r"variant \((?P<items>\d+ = .*)\)", re.DOTALL)
_VARIANT_ITEM = re.compile(r"(\d+) = (.+)")


def _variant_axis(text: str, lang: str) -> str | None:
    """'variant (0 = even/odd, 1 = warp-aligned)' -> '变体（0 = 奇偶，1 = 按 warp 对齐）'; None if not one."""
    found = _VARIANT_AXIS.fullmatch(text)
    if found is None:
        return None
    items = []
    for item in found.group("items").split(", "):
        parts = _VARIANT_ITEM.fullmatch(item)
        if parts is None:
            return None
        items.append(f"{parts.group(1)} = {translate(parts.group(2), lang)}")
    return f"变体（{'，'.join(items)}）"


def _match(text: str) -> tuple[re.Match[str], str] | None:
    for pattern, zh in _compiled():
        found = pattern.fullmatch(text)
        if found is not None:
            return found, zh
    return None


def translate(text: str, lang: str) -> str:
    """``text`` in ``lang`` ('en' or 'zh'): unchanged in English or when no template matches."""
    if lang != "zh":
        return text
    axis = _variant_axis(text, lang)
    if axis is not None:
        return axis
    found = _match(text)
    if found is None:
        return text
    match, zh = found
    parts = {name: translate(value, lang) for name, value in match.groupdict().items()}
    return zh.format(**parts)


def translate_all(texts: tuple[str, ...] | list[str], lang: str) -> list[str]:
    """Each of ``texts`` in ``lang``."""
    return [translate(text, lang) for text in texts]


def translation_known(text: str) -> bool:
    """Whether a template matches ``text`` (so Chinese exists for it)."""
    return _match(text) is not None or _variant_axis(text, "zh") is not None
