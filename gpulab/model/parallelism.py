"""A 3D-parallelism planner for training a transformer: DP × TP × PP, memory per GPU, bubble, step time.

For a model (parameters, layers, hidden size, heads, sequence, global batch) on N GPUs of one
type, every layout ``DP · TP · PP = N`` (TP and PP powers of two, TP within a node) is priced:

- memory per GPU, mixed-precision Adam (Rajbhandari et al. 2020, "ZeRO"): 2 bytes of fp16/bf16
  weights, 2 of gradients and 12 of optimizer state (fp32 master weights, momentum, variance) per
  parameter the GPU holds (``P / (TP·PP)``); ZeRO stage 1 divides the optimizer state by DP,
  stage 2 also the gradients, stage 3 also the weights. Activations (Korthikanti et al. 2022):
  ``34·s·b·h / TP`` bytes per layer and micro-batch kept for the backward pass (selective
  recomputation with sequence parallelism) or ``2·s·b·h / TP`` (full recomputation: the layer's
  input only, the rest recomputed); the first pipeline stage holds ``min(PP, m)`` micro-batches in
  flight (1F1B schedule);
- the pipeline bubble (Narayanan et al. 2021, Megatron-LM): ``(p-1) / (v·m + p-1)`` of the step
  idle, m micro-batches, v interleaved stages per GPU (v = 1: the plain ``(p-1)/(m+p-1)``);
- communication per step: TP AllReduces of each layer's activations (4 per layer and micro-batch,
  6 with full recomputation) inside the node, PP sends between stages, and the DP gradient
  AllReduce (1.5 times the bytes with ZeRO stage 3), priced by :mod:`gpulab.model.cluster`;
- step time: ``6·P·tokens`` FLOP (× 4/3 with full recomputation) at an assumed share of the GPU's
  dense BF16 peak, stretched by the bubble, plus the communication nobody hides.

Scaling efficiency is the share of the step spent on the model's own FLOP at that rate. Every
assumption is a note (:func:`planner_assumptions`). Impossible layouts are not errors here: each
plan carries its problems (TP not dividing the heads, PP beyond the layers, a batch that does
not split), so a table can show them flagged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpulab.catalogue import Message, Note, has, msg
from gpulab.model.cluster import Fabric, allreduce_seconds
from gpulab.specs import GpuSpec

__all__ = [
    "ADAM_BYTES",
    "MATMUL_SHARE",
    "MODELS",
    "USABLE_MEMORY_SHARE",
    "Layout",
    "Memory",
    "ModelShape",
    "Plan",
    "Training",
    "activation_bytes",
    "best_plan",
    "bubble_fraction",
    "evaluate",
    "layout_problems",
    "layouts",
    "plan_all",
    "planner_assumptions",
    "zero_memory_bytes",
]

ADAM_BYTES = {"weights": 2, "gradients": 2, "optimizer": 12}
"""Bytes per parameter of mixed-precision Adam (ZeRO paper §3.1: 2Ψ + 2Ψ + KΨ with K = 12)."""

MATMUL_SHARE = 0.6
"""Assumed share of the dense BF16 peak the layers' matrix work reaches (kernels, not the whole step)."""

USABLE_MEMORY_SHARE = 0.9
"""Assumed share of the GPU's memory a plan may fill (the rest: CUDA context, buffers, fragmentation)."""

ACTIVATION_BYTES_SELECTIVE = 34
ACTIVATION_BYTES_FULL = 2
BF16_BYTES = 2
MAX_TP = 8  # tensor parallelism stays inside a node of 8: its AllReduces are on the critical path


@dataclass(frozen=True)
class ModelShape:
    """A transformer to train: its size and one step's batch (``global_batch`` sequences of ``sequence`` tokens)."""

    key: str
    parameters: float
    layers: int
    hidden: int
    heads: int
    sequence: int
    global_batch: int

    @property
    def tokens_per_step(self) -> int:
        return self.sequence * self.global_batch


MODELS = {
    # Llama 3 405B (Meta, "The Llama 3 Herd of Models", 2024, Table 3: 126 layers, model dimension
    # 16,384, 128 attention heads; 8,192-token sequences and batches of up to 16M tokens = 2,048 sequences).
    "llama3-405b": ModelShape("llama3-405b", 405e9, 126, 16384, 128, 8192, 2048),
    # A small GPT-style model (the 1.3B size of GPT-3's table): 24 layers, h 2048, 16 heads, 1M-token batches.
    "gpt-1.3b": ModelShape("gpt-1.3b", 1.3e9, 24, 2048, 16, 2048, 512),
}


@dataclass(frozen=True)
class Training:
    """How the model is trained: ZeRO stage (0-3), recomputation ("full" or "selective"), micro-batch
    size in sequences, interleaved stages per GPU."""

    zero_stage: int = 1
    recompute: str = "full"
    micro_batch: int = 1
    interleave: int = 1


@dataclass(frozen=True)
class Layout:
    dp: int
    tp: int
    pp: int

    @property
    def gpus(self) -> int:
        return self.dp * self.tp * self.pp


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU by kind."""

    weights: float
    gradients: float
    optimizer: float
    activations: float = 0.0

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations


@dataclass(frozen=True)
class Plan:
    """One layout priced: memory, whether it fits, the bubble, the step's parts in seconds, efficiency."""

    layout: Layout
    memory: Memory
    fits: bool
    problems: tuple[Message, ...]
    microbatches: int
    bubble: float
    compute_s: float
    tp_comm_s: float
    pp_comm_s: float
    dp_comm_s: float
    step_s: float
    efficiency: float
    mfu: float

    @property
    def usable(self) -> bool:
        """A plan that can run: no problem with its layout and its memory fits."""
        return self.fits and not self.problems


def zero_memory_bytes(parameters_per_gpu: float, dp: int, stage: int) -> Memory:
    """Weights, gradients and optimizer state per GPU (16 bytes a parameter), ZeRO ``stage`` 0-3
    dividing the optimizer state (1), also the gradients (2), also the weights (3) by ``dp``."""
    if stage not in (0, 1, 2, 3) or dp < 1:
        raise ValueError(f"ZeRO stage must be 0 to 3 and DP at least 1, got stage {stage}, DP {dp}")
    psi = parameters_per_gpu
    shard = [1, 1, 1]  # weights, gradients, optimizer: 1 = whole, dp = split over the DP ranks
    for index in range(stage):
        shard[2 - index] = dp
    kinds = ("weights", "gradients", "optimizer")
    weights, gradients, optimizer = (ADAM_BYTES[kind] * psi / split for kind, split in zip(kinds, shard, strict=True))
    return Memory(weights, gradients, optimizer)


def bubble_fraction(pp: int, microbatches: int, interleave: int = 1) -> float:
    """Share of a pipelined step spent idle: ``(p-1) / (v·m + p-1)``."""
    if pp < 1 or microbatches < 1 or interleave < 1:
        raise ValueError(f"PP, micro-batches and interleave must be at least 1, got {pp}, {microbatches}, {interleave}")
    return (pp - 1) / (interleave * microbatches + pp - 1)


def layers_per_stage(shape: ModelShape, pp: int) -> int:
    """The most layers one stage holds (stages may be uneven: 126 layers on 16 stages gives 8)."""
    return math.ceil(shape.layers / pp)


def activation_bytes(shape: ModelShape, layout: Layout, training: Training, microbatches: int) -> float:
    """Activations kept on the first pipeline stage (the fullest): ``min(PP, m)`` micro-batches in flight,
    each with its layers' saved tensors, plus one layer's working set when recomputing."""
    per_token_layer = shape.hidden * training.micro_batch * shape.sequence / layout.tp
    kept = ACTIVATION_BYTES_FULL if training.recompute == "full" else ACTIVATION_BYTES_SELECTIVE
    in_flight = min(layout.pp, microbatches)
    working = ACTIVATION_BYTES_SELECTIVE * per_token_layer if training.recompute == "full" else 0.0
    return in_flight * layers_per_stage(shape, layout.pp) * kept * per_token_layer + working


def layout_problems(shape: ModelShape, layout: Layout, gpus: int, micro_batch: int = 1) -> tuple[Message, ...]:
    """Why a layout cannot run this model on ``gpus`` GPUs (none when it can)."""
    problems = []
    if layout.gpus != gpus:
        problems.append(msg("cluster-scaling.problem.product", dp=layout.dp, tp=layout.tp, pp=layout.pp,
                            product=layout.gpus, gpus=gpus))  # fmt: skip
    if shape.heads % layout.tp:
        problems.append(msg("cluster-scaling.problem.heads", tp=layout.tp, heads=shape.heads))
    if layout.pp > shape.layers:
        problems.append(msg("cluster-scaling.problem.layers", pp=layout.pp, layers=shape.layers))
    if shape.global_batch % (layout.dp * micro_batch):
        problems.append(msg("cluster-scaling.problem.batch", batch=shape.global_batch, dp=layout.dp,
                            micro=micro_batch))  # fmt: skip
    return tuple(problems)


def layouts(gpus: int, dp: int = 0, tp: int = 0, pp: int = 0) -> list[Layout]:
    """Every ``DP · TP · PP = gpus`` with TP in 1, 2, 4, 8 and PP a power of two up to 64; a non-zero ``dp``,
    ``tp`` or ``pp`` keeps only the layouts with that value (all three given: just that layout)."""
    if dp and tp and pp:
        return [Layout(dp, tp, pp)]
    found = []
    for tp_choice in (tp,) if tp else tuple(2**i for i in range(4)):
        for pp_choice in (pp,) if pp else tuple(2**i for i in range(7)):
            width = tp_choice * pp_choice
            if width <= gpus and gpus % width == 0 and (not dp or gpus // width == dp):
                found.append(Layout(gpus // width, tp_choice, pp_choice))
    return found


def _peak_flops(spec: GpuSpec) -> float:
    for key in ("bf16", "fp16", "fp32"):
        flops = spec.peak_flops(key)
        if flops:
            return flops
    raise ValueError(f"{spec.name} has no BF16, FP16 or FP32 peak in the spec table")


def _group_allreduce_s(n: int, message_bytes: float, stride: int, fabric: Fabric) -> float:
    """AllReduce among ``n`` GPUs spaced ``stride`` apart: ring inside a node when they all sit in one,
    else hierarchical with as many of them per node as fit."""
    if n < 2:
        return 0.0
    per_node = max(1, min(n, fabric.node_gpus // max(stride, 1)))
    if per_node >= n:
        return allreduce_seconds("ring", n, message_bytes, fabric)
    grouped = Fabric(fabric.intra, fabric.inter, per_node, fabric.intra_name)
    return allreduce_seconds("hierarchical", n, message_bytes, grouped)


def evaluate(shape: ModelShape, layout: Layout, spec: GpuSpec, fabric: Fabric, training: Training,
             gpus: int | None = None) -> Plan:  # fmt: skip
    """Price one layout; a layout with problems still gets its memory (where it can be computed)."""
    gpus = gpus or layout.gpus
    problems = layout_problems(shape, layout, gpus, training.micro_batch)
    microbatches = max(1, shape.global_batch // (layout.dp * training.micro_batch))
    params_per_gpu = shape.parameters / (layout.tp * layout.pp)
    memory = zero_memory_bytes(params_per_gpu, layout.dp, training.zero_stage)
    memory = Memory(memory.weights, memory.gradients, memory.optimizer,
                    activation_bytes(shape, layout, training, microbatches))  # fmt: skip
    fits = memory.total <= spec.memory_gb * 1e9 * USABLE_MEMORY_SHARE
    achieved = _peak_flops(spec) * MATMUL_SHARE
    model_flops = 6 * shape.parameters * shape.tokens_per_step
    recompute = 4 / 3 if training.recompute == "full" else 1.0
    uneven = layers_per_stage(shape, layout.pp) * layout.pp / shape.layers
    compute_s = model_flops * recompute * uneven / (layout.gpus * achieved)
    tp_bytes = BF16_BYTES * shape.sequence * training.micro_batch * shape.hidden
    per_layer = 6 if training.recompute == "full" else 4
    tp_each = _group_allreduce_s(layout.tp, tp_bytes, 1, fabric)
    tp_comm_s = per_layer * layers_per_stage(shape, layout.pp) * microbatches * tp_each
    bubble = bubble_fraction(layout.pp, microbatches, training.interleave)
    pipeline_s = (compute_s + tp_comm_s) / (1 - bubble)
    pp_comm_s = _pipeline_sends_s(layout, microbatches, tp_bytes / layout.tp, fabric)
    grad_bytes = BF16_BYTES * params_per_gpu * (1.5 if training.zero_stage == 3 else 1.0)
    dp_comm_s = _group_allreduce_s(layout.dp, grad_bytes, layout.tp * layout.pp, fabric)
    step_s = pipeline_s + pp_comm_s + dp_comm_s
    ideal_s = model_flops / (layout.gpus * achieved)
    return Plan(layout, memory, fits, problems, microbatches, bubble, compute_s, tp_comm_s, pp_comm_s, dp_comm_s,
                step_s, ideal_s / step_s, model_flops / (step_s * layout.gpus * _peak_flops(spec)))  # fmt: skip


def _pipeline_sends_s(layout: Layout, microbatches: int, message_bytes: float, fabric: Fabric) -> float:
    """Activations forward and gradients back between stages: ``2·(m + p - 1)`` sends on the critical path."""
    if layout.pp < 2:
        return 0.0
    link = fabric.intra if layout.tp * layout.pp <= fabric.node_gpus else fabric.inter
    return 2 * (microbatches + layout.pp - 1) * (link.alpha_s + message_bytes * link.beta_s_per_byte)


def plan_all(shape: ModelShape, gpus: int, spec: GpuSpec, fabric: Fabric, training: Training,
             dp: int = 0, tp: int = 0, pp: int = 0) -> list[Plan]:  # fmt: skip
    """Every layout of :func:`layouts`, priced, in order of TP then PP."""
    return [evaluate(shape, layout, spec, fabric, training, gpus) for layout in layouts(gpus, dp, tp, pp)]


def best_plan(plans: Iterable[Plan]) -> Plan | None:
    """The usable plan with the shortest step, or None when none fits."""
    usable = [plan for plan in plans if plan.usable]
    return min(usable, key=lambda plan: plan.step_s) if usable else None


def scaling(shape: ModelShape, gpu_counts: Sequence[int], spec: GpuSpec, fabric: Fabric,
            training: Training) -> list[tuple[int, Plan | None]]:  # fmt: skip
    """The best plan at each GPU count (None where no layout fits)."""
    return [(n, best_plan(plan_all(shape, n, spec, fabric, training))) for n in gpu_counts]


def _recompute_words(recompute: str) -> Message | str:
    """The recomputation as the lab's form names it ("full recomputation"), else its value (the
    model does not see the lab's Params, so it names the form's key itself)."""
    key = f"experiment.cluster-scaling.param.recompute.choice.{recompute}"
    return msg(key) if has(key) else recompute


def planner_assumptions(shape: ModelShape, spec: GpuSpec, training: Training) -> tuple[Note, ...]:
    """The planner's assumptions, as notes."""
    return (
        Note(msg("cluster-scaling.assumption.zero")),
        Note(msg("cluster-scaling.assumption.activations", recompute=_recompute_words(training.recompute))),
        Note(msg("cluster-scaling.assumption.bubble", interleave=training.interleave)),
        Note(msg("cluster-scaling.assumption.compute", share=f"{MATMUL_SHARE:.0%}", gpu=spec.name,
                 memory=f"{USABLE_MEMORY_SHARE:.0%}")),
        Note(msg("cluster-scaling.assumption.comm")),
    )
