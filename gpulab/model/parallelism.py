"""A 3D-parallelism planner for training a transformer: DP × TP × PP, memory per GPU, bubble, step time.

For a model (parameters, layers, hidden size, heads, sequence, global batch) on N GPUs of one
type, every layout ``DP · TP · PP = N`` (TP and PP powers of two, TP within a node) is priced:

- memory per GPU, mixed-precision Adam (Rajbhandari et al. 2020, "ZeRO"): 2 bytes of bf16
  weights, 2 of gradients and 12 of optimizer state (fp32 master weights, momentum, variance) per
  parameter the GPU holds (``P / (TP·PP)``); ZeRO stage 1 divides the optimizer state by DP,
  stage 2 also the gradients, stage 3 also the weights. Activations: the tensors each layer keeps
  for its backward pass (:func:`activation_bytes_per_token`, counted as Korthikanti et al. 2022
  count them, sequence parallel: divided by TP), on the first pipeline stage, which holds
  ``min(PP, m)`` micro-batches in flight (1F1B); with full recomputation only each layer's input;
- the pipeline bubble (Narayanan et al. 2021, Megatron-LM): ``(p-1) / (v·m + p-1)`` of the step
  idle, m micro-batches, v interleaved stages per GPU (the Llama 3 paper writes the same as a
  ratio to the busy time, ``(PP-1)/(V·M)``);
- communication per step: TP AllReduces of each layer's activations (4 per layer and micro-batch,
  6 with full recomputation) inside the node on the fastest algorithm there (NVLS on H100), PP
  sends between stages, and the DP gradient AllReduce (1.5 times the bytes with ZeRO stage 3),
  priced by :mod:`gpulab.model.cluster`. With ``overlap`` the DP and PP transfers run under the
  compute (DDP/FSDP bucketing, asynchronous sends) and only what outlasts it is exposed; TP is
  always exposed (it sits between a layer's matrix products);
- step time: the model's FLOPs (``6·P`` a token plus ``12·L·h·s`` for attention, the count behind
  the MFU Meta reports, Chowdhery et al. 2022 App. B; × 4/3 with full recomputation) at
  :data:`COMPUTE_SHARE` of the GPU's dense BF16 peak, stretched by the bubble, plus the exposed
  communication.

Scaling efficiency is measured against an explicit baseline: the step the same GPUs would take
doing only the model's FLOPs at :data:`COMPUTE_SHARE` of peak (no bubble, no exposed
communication, no recomputation) divided by the modelled step. Every assumption is a note
(:func:`planner_assumptions`). Impossible layouts are not errors here: each plan carries its
problems (TP not dividing the heads, PP beyond the layers, a batch that does not split), so a
table can show them flagged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpulab.catalogue import Message, Note, has, msg
from gpulab.model.cluster import Fabric, fastest_intra_allreduce_seconds, hierarchical_allreduce_seconds, with_node_size
from gpulab.specs import GpuSpec

__all__ = [
    "ADAM_BYTES",
    "COMPUTE_SHARE",
    "MODELS",
    "PUBLISHED_LAYOUTS",
    "PUBLISHED_TFLOPS",
    "USABLE_MEMORY_SHARE",
    "Layout",
    "Memory",
    "ModelShape",
    "Plan",
    "Training",
    "activation_bytes",
    "activation_bytes_per_token",
    "best_plan",
    "bubble_fraction",
    "departure",
    "evaluate",
    "layout_problems",
    "layouts",
    "plan_all",
    "planner_assumptions",
    "zero_memory_bytes",
]

ADAM_BYTES = {"weights": 2, "gradients": 2, "optimizer": 12}
"""Bytes per parameter of mixed-precision Adam (ZeRO paper §3.1: 2Ψ + 2Ψ + KΨ with K = 12)."""

COMPUTE_SHARE = 0.47
"""Share of the dense BF16 peak a large dense transformer's kernels sustain over a training step.
Megatron-LM trains GPT models of 2B to 462B parameters on up to 6,144 H100 with every DP, TP and PP
transfer overlapped with computation and reports "up to 47% Model FLOP Utilization (MFU) on H100
clusters", 47-48% for the largest models, measured end to end (NVIDIA/Megatron-LM README, "Training
Speed and Scalability"). Its own bubble is inside that figure, so using it as the kernels' rate
leaves the model slightly pessimistic. One large GEMM alone reaches more (80% on H100, the spec
table's gemm_efficiency): a step also runs attention, normalisation and element-wise kernels."""

USABLE_MEMORY_SHARE = 0.9
"""Assumed share of the GPU's memory a plan may fill (the rest: CUDA context, buffers, fragmentation)."""

FULL_RECOMPUTE_KEPT_BYTES = 2  # a layer's bf16 input, per token and hidden unit
BF16_BYTES = 2
MAX_TP = 8  # tensor parallelism stays inside a node of 8: its AllReduces are on the critical path
RECOMPUTE_CHOICES = ("full", "selective")


@dataclass(frozen=True)
class ModelShape:
    """A transformer to train: its size, its layer's shape and one step's batch (``global_batch``
    sequences of ``sequence`` tokens). ``kv_heads`` < ``heads``: grouped-query attention; ``gated``:
    a SwiGLU-style MLP of three ``hidden × ffn`` matrices; ``dropout``: the layer keeps dropout masks."""

    key: str
    parameters: float
    layers: int
    hidden: int
    heads: int
    sequence: int
    global_batch: int
    kv_heads: int = 0  # 0: as many as heads
    ffn: int = 0  # 0: 4 × hidden
    gated: bool = False
    dropout: bool = True

    @property
    def tokens_per_step(self) -> int:
        return self.sequence * self.global_batch

    @property
    def flops_per_token(self) -> float:
        """Training FLOPs a token: ``6·P`` for the matrices plus ``12·L·h·s`` for attention (PaLM's
        count, Chowdhery et al. 2022 App. B, which Meta's MFU follows)."""
        return 6 * self.parameters + 12 * self.layers * self.hidden * self.sequence

    @property
    def flops_per_step(self) -> float:
        return self.flops_per_token * self.tokens_per_step


MODELS = {
    # Llama 3 405B (Meta, "The Llama 3 Herd of Models", 2024, Table 3: 126 layers, model dimension
    # 16,384, FFN dimension 53,248, 128 attention heads, 8 key/value heads, SwiGLU; §3.3.2, Table 4:
    # 8,192-token sequences and 16M-token batches = 2,048 sequences).
    "llama3-405b": ModelShape("llama3-405b", 405e9, 126, 16384, 128, 8192, 2048, kv_heads=8, ffn=53248,
                              gated=True, dropout=False),
    # A small GPT-style model (the 1.3B size of GPT-3's table): 24 layers, h 2048, 16 heads, 1M-token batches.
    "gpt-1.3b": ModelShape("gpt-1.3b", 1.3e9, 24, 2048, 16, 2048, 512),
}

PUBLISHED_LAYOUTS = {("llama3-405b", 8192): (64, 8, 16), ("llama3-405b", 16384): (128, 8, 16)}
"""(DP, TP, PP) Meta trained Llama 3 405B with at 8,192-token sequences (arXiv:2407.21783, Table 4)."""

PUBLISHED_TFLOPS = {("llama3-405b", "h100-sxm", 8192): 430.0, ("llama3-405b", "h100-sxm", 16384): 400.0}
"""TFLOPS a GPU Meta measured at those layouts on H100 SXM (Table 4: 43% and 41% BF16 MFU)."""


@dataclass(frozen=True)
class Training:
    """How the model is trained: ZeRO stage (0-3), recomputation ("selective" keeps what Korthikanti
    et al.'s selective recomputation keeps, which is what training without checkpointing keeps when
    attention runs as a fused kernel; "full" keeps only each layer's input), micro-batch size in
    sequences, interleaved stages per GPU, and whether DP and PP transfers overlap the compute."""

    zero_stage: int = 1
    recompute: str = "selective"
    micro_batch: int = 1
    interleave: int = 1
    overlap: bool = True


@dataclass(frozen=True)
class Layout:
    dp: int
    tp: int
    pp: int

    @property
    def gpus(self) -> int:
        return self.dp * self.tp * self.pp

    def words(self) -> str:
        return f"TP {self.tp} × PP {self.pp} × DP {self.dp}"


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
    """One layout priced: memory, whether it fits, the bubble, the step's parts in seconds, efficiency.
    ``*_comm_s`` are whole transfers; ``pp_exposed_s`` and ``dp_exposed_s`` the parts the compute
    does not hide."""

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
    pp_exposed_s: float = 0.0
    dp_exposed_s: float = 0.0
    interleave: int = 1

    @property
    def usable(self) -> bool:
        """A plan that can run: no problem with its layout and its memory fits."""
        return self.fits and not self.problems

    @property
    def bubble_s(self) -> float:
        """Seconds of the step the pipeline stands idle."""
        return (self.compute_s + self.tp_comm_s) * self.bubble / (1 - self.bubble) if self.bubble < 1 else math.inf


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


def first_stage_layers(shape: ModelShape, pp: int) -> int:
    """Layers on the first pipeline stage when the embedding and the output head each take a layer's
    place, as Llama 3 balanced its pipeline ("we reduce one Transformer layer each from the first and
    the last stages", §3.3.2): ``ceil((L+2)/p) - 1`` (7 for 126 layers on 16 stages)."""
    return shape.layers if pp == 1 else max(1, math.ceil((shape.layers + 2) / pp) - 1)


def stage_imbalance(shape: ModelShape, pp: int) -> float:
    """How much longer the busiest stage runs than an even split: its slots (layers, the embedding,
    the output head) times the stages over all slots."""
    if pp == 1:
        return 1.0
    slots = shape.layers + 2
    return math.ceil(slots / pp) * pp / slots


def interleave_used(shape: ModelShape, pp: int, interleave: int) -> int:
    """The interleaved stages a GPU can hold: no more than its layers."""
    return max(1, min(interleave, layers_per_stage(shape, pp)))


def activation_bytes_per_token(shape: ModelShape) -> float:
    """Bytes one layer keeps a token for its backward pass, bf16, before TP splits them: the two norm
    inputs (4h), the QKV input (2h), Q (2h), K and V (4h·kv/heads), the attention output (2h), the MLP
    input (2h), the MLP's activations (6·ffn gated: gate, up, their product; 4·ffn otherwise) and one
    byte of dropout mask on each of two outputs (2h). The s×s attention scores are not kept: the
    fused attention kernel recomputes them in its backward. A GPT layer gives Korthikanti et al.'s
    34·h (2022, Table 2, selective recomputation); Llama 3 405B 31.75·h."""
    h = shape.hidden
    kv = (shape.kv_heads or shape.heads) / shape.heads
    ffn = shape.ffn or 4 * h
    mlp = (6 if shape.gated else 4) * ffn
    masks = 2 * h if shape.dropout else 0
    return 4 * h + 2 * h + 2 * h + 4 * h * kv + 2 * h + 2 * h + mlp + masks


def activation_bytes(shape: ModelShape, layout: Layout, training: Training, microbatches: int) -> float:
    """Activations kept on the first pipeline stage (the fullest): ``min(PP, m)`` micro-batches in flight,
    each with its layers' saved tensors, plus one layer's working set when recomputing."""
    tokens = training.micro_batch * shape.sequence
    per_layer = activation_bytes_per_token(shape) * tokens / layout.tp
    in_flight = min(layout.pp, microbatches) * first_stage_layers(shape, layout.pp)
    if training.recompute == "full":
        return in_flight * FULL_RECOMPUTE_KEPT_BYTES * shape.hidden * tokens / layout.tp + per_layer
    return in_flight * per_layer


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
    """AllReduce among ``n`` GPUs spaced ``stride`` apart: the fastest algorithm inside a node when they
    all sit in one, else hierarchical with as many of them per node as fit (one per node: a ring over
    the nodes on their rail)."""
    if n < 2:
        return 0.0
    per_node = max(1, min(n, fabric.node_gpus // max(stride, 1)))
    if per_node >= n:
        return fastest_intra_allreduce_seconds(n, message_bytes, fabric)
    return hierarchical_allreduce_seconds(n, message_bytes, with_node_size(fabric, per_node))


def _pipeline_sends_s(layout: Layout, microbatches: int, interleave: int, message_bytes: float,
                      fabric: Fabric) -> float:  # fmt: skip
    """Activations forward and gradients back between stages: ``2·(v·m + p - 1)`` sends on the critical
    path, across nodes on one NIC where a node holds less than a TP × PP block."""
    if layout.pp < 2:
        return 0.0
    link = fabric.intra if layout.tp * layout.pp <= fabric.node_gpus else fabric.inter
    sends = 2 * (interleave * microbatches + layout.pp - 1)
    return sends * (link.alpha_s + message_bytes * link.beta_s_per_byte)


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
    achieved = _peak_flops(spec) * COMPUTE_SHARE
    recompute = 4 / 3 if training.recompute == "full" else 1.0
    compute_s = shape.flops_per_step * recompute * stage_imbalance(shape, layout.pp) / (layout.gpus * achieved)
    tp_bytes = BF16_BYTES * shape.sequence * training.micro_batch * shape.hidden
    per_layer = 6 if training.recompute == "full" else 4
    tp_each = _group_allreduce_s(layout.tp, tp_bytes, 1, fabric)
    tp_comm_s = per_layer * layers_per_stage(shape, layout.pp) * microbatches * tp_each
    interleave = interleave_used(shape, layout.pp, training.interleave)
    bubble = bubble_fraction(layout.pp, microbatches, interleave)
    pipeline_s = (compute_s + tp_comm_s) / (1 - bubble)
    pp_comm_s = _pipeline_sends_s(layout, microbatches, interleave, tp_bytes / layout.tp, fabric)
    grad_bytes = BF16_BYTES * params_per_gpu * (1.5 if training.zero_stage == 3 else 1.0)
    dp_comm_s = _group_allreduce_s(layout.dp, grad_bytes, layout.tp * layout.pp, fabric)
    hidden_under = compute_s if training.overlap else 0.0  # the compute a transfer can run beneath
    pp_exposed = max(0.0, pp_comm_s - hidden_under)
    dp_exposed = max(0.0, dp_comm_s - hidden_under)
    step_s = pipeline_s + pp_exposed + dp_exposed
    ideal_s = shape.flops_per_step / (layout.gpus * achieved)
    mfu = shape.flops_per_step / (step_s * layout.gpus * _peak_flops(spec))
    return Plan(layout, memory, fits, problems, microbatches, bubble, compute_s, tp_comm_s, pp_comm_s, dp_comm_s,
                step_s, ideal_s / step_s, mfu, pp_exposed, dp_exposed, interleave)  # fmt: skip


def tflops_per_gpu(shape: ModelShape, plan: Plan) -> float:
    """Model FLOPs each GPU does per second of the step, TFLOPS (Meta's Table 4 column)."""
    return shape.flops_per_step / (plan.step_s * plan.layout.gpus) / 1e12


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


def published_plan(shape: ModelShape, gpus: int, plans: Iterable[Plan]) -> Plan | None:
    """The plan of the layout the model's authors published for ``gpus`` GPUs, if they did and it was priced."""
    layout = PUBLISHED_LAYOUTS.get((shape.key, gpus))
    if layout is None:
        return None
    return next((plan for plan in plans if (plan.layout.dp, plan.layout.tp, plan.layout.pp) == layout), None)


DEPARTURE_KEYS = {"bubble": "cluster-scaling.note.departs-bubble", "tp": "cluster-scaling.note.departs-tp",
                  "exposed": "cluster-scaling.note.departs-exposed", "compute": "cluster-scaling.note.departs-compute"}


def _saving_reason(best: Plan, published: Plan) -> str:
    """Which part of the step the preferred plan saves most on: the idle pipeline, TP traffic, or the
    exposed DP and PP transfers."""
    savings = {"bubble": published.bubble_s - best.bubble_s, "tp": published.tp_comm_s - best.tp_comm_s,
               "exposed": (published.dp_exposed_s + published.pp_exposed_s) - (best.dp_exposed_s + best.pp_exposed_s)}
    reason, amount = max(savings.items(), key=lambda item: item[1])
    return reason if amount > 0 else "compute"


def departure(shape: ModelShape, gpus: int, plans: Sequence[Plan]) -> Message | None:
    """Whether the best plan is the layout published for this model and GPU count, and where it departs
    from it, why (None when nothing was published or nothing fits)."""
    layout = PUBLISHED_LAYOUTS.get((shape.key, gpus))
    if layout is None:
        return None
    published_words = Layout(*layout).words()
    published, best = published_plan(shape, gpus, plans), best_plan(plans)
    if best is None:
        return None  # nothing fits: another note says so
    if best is published:
        return msg("cluster-scaling.note.published-agrees", layout=published_words)
    if published is None:  # a fixed DP, TP or PP left the published layout out of the table
        return msg("cluster-scaling.note.published-not-priced", layout=published_words, best=best.layout.words())
    if not published.usable:
        return msg("cluster-scaling.note.departs-unusable", layout=published_words, best=best.layout.words(),
                   memory=f"{published.memory.total / 1e9:.0f}", step=f"{best.step_s:.2f}")  # fmt: skip
    return msg(DEPARTURE_KEYS[_saving_reason(best, published)], layout=published_words,
               best=best.layout.words(), step=f"{published.step_s:.2f}", best_step=f"{best.step_s:.2f}",
               bubble=f"{published.bubble:.0%}", best_bubble=f"{best.bubble:.0%}",
               memory=f"{published.memory.total / 1e9:.0f}", best_memory=f"{best.memory.total / 1e9:.0f}")  # fmt: skip


def published_check(shape: ModelShape, gpus: int, plans: Sequence[Plan], gpu_key: str) -> Message | None:
    """The model's TFLOPS at the published layout beside the published figure, and where the gap comes
    from; None when nothing was published for this model, GPU and GPU count or that layout was not priced."""
    paper = PUBLISHED_TFLOPS.get((shape.key, gpu_key, gpus))
    published = published_plan(shape, gpus, plans)
    if paper is None or published is None:
        return None
    model = tflops_per_gpu(shape, published)
    return msg("cluster-scaling.note.published-check", layout=published.layout.words(), model=f"{model:.0f}",
               paper=f"{paper:.0f}", error=f"{(model - paper) / paper:+.0%}".replace("-", "−"),
               share=f"{COMPUTE_SHARE:.0%}")  # fmt: skip


def _recompute_words(recompute: str) -> Message | str:
    """The recomputation as the lab's form names it ("full recomputation"), else its value (the
    model does not see the lab's Params, so it names the form's key itself)."""
    key = f"experiment.cluster-scaling.param.recompute.choice.{recompute}"
    return msg(key) if has(key) else recompute


def planner_assumptions(shape: ModelShape, spec: GpuSpec, training: Training) -> tuple[Note, ...]:
    """The planner's assumptions, as notes."""
    per_token = activation_bytes_per_token(shape) / shape.hidden
    return (
        Note(msg("cluster-scaling.assumption.zero")),
        Note(msg("cluster-scaling.assumption.activations", recompute=_recompute_words(training.recompute),
                 per_layer=f"{per_token:g}")),
        Note(msg("cluster-scaling.assumption.bubble", interleave=training.interleave)),
        Note(msg("cluster-scaling.assumption.compute", share=f"{COMPUTE_SHARE:.0%}", gpu=spec.name,
                 memory=f"{USABLE_MEMORY_SHARE:.0%}")),
        Note(msg("cluster-scaling.assumption.comm" if training.overlap else "cluster-scaling.assumption.comm-exposed")),
    )
