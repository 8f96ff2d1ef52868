"""The cluster-scaling lab's model arithmetic against cases worked by hand."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from gpulab.model import cluster, parallelism, reliability
from gpulab.specs import load_specs

LINK = cluster.Link(alpha_s=2e-6, bytes_per_s=100e9)  # beta = 1e-11 s a byte


def test_ring_allreduce_is_two_n_minus_one_alphas_plus_two_n_minus_one_over_n_bytes():
    # n = 4, S = 1 GB: 6 alphas (12 µs) + 1.5 GB at 100 GB/s (15 ms)
    assert cluster.ring_allreduce_seconds(4, 1e9, LINK) == pytest.approx(6 * 2e-6 + 1.5e9 / 100e9)
    assert cluster.ring_allreduce_seconds(1, 1e9, LINK) == 0.0


def test_tree_allreduce_is_two_log2_n_alphas_plus_two_message_times():
    assert cluster.tree_allreduce_seconds(1024, 1e6, LINK) == pytest.approx(20 * 2e-6 + 2e6 / 100e9)
    assert cluster.tree_allreduce_seconds(5, 0, LINK) == pytest.approx(6 * 2e-6)  # ceil(log2 5) = 3 levels


FABRIC = cluster.Fabric(cluster.Link(1e-6, 400e9), cluster.Link(5e-6, 50e9), node_gpus=8, nics=8)


def test_hierarchical_allreduce_pipelines_its_phases_so_the_slower_one_sets_the_pace():
    size = 8e8  # 32 GPUs: 4 nodes of 8
    inside = 2 * 7 / 8 * size / 400e9  # reduce-scatter and all-gather on NVLink
    across = 2 * 3 / 4 * (size / 8) / 50e9  # each GPU rings its S/8 slice over 4 nodes on its own NIC
    alphas = 2 * 7 * 1e-6 + 2 * 3 * 5e-6
    assert cluster.hierarchical_allreduce_seconds(32, size, FABRIC) == pytest.approx(alphas + max(inside, across))
    assert cluster.hierarchical_allreduce_seconds(32, size, FABRIC) < alphas + inside + across
    assert cluster.hierarchical_allreduce_seconds(8, size, FABRIC) == pytest.approx(
        cluster.ring_allreduce_seconds(8, size, FABRIC.intra))


def test_a_flat_ring_leaving_the_node_uses_all_its_nics_up_to_the_nvlink_rate():
    size = 1e9
    # 8 NICs of 50 GB/s carry 400 GB/s, as much as NVLink: the ring is paced at 400 GB/s, and only
    # its 2(N-1) = 2 network steps pay the network's start-up.
    expected = (30 - 2) * 1e-6 + 2 * 5e-6 + 30 / 16 * size / 400e9
    assert cluster.allreduce_seconds("ring", 16, size, FABRIC) == pytest.approx(expected)
    two_nics = dataclasses.replace(FABRIC, nics=2)
    assert two_nics.node_network_bytes_per_s(8) == pytest.approx(100e9)
    slow = cluster.allreduce_seconds("ring", 16, size, two_nics)
    assert slow == pytest.approx((30 - 2) * 1e-6 + 2 * 5e-6 + 30 / 16 * size / 100e9)
    assert cluster.allreduce_seconds("ring", 8, size, FABRIC) == cluster.ring_allreduce_seconds(8, size, FABRIC.intra)
    with pytest.raises(ValueError, match="unknown AllReduce algorithm"):
        cluster.allreduce_seconds("butterfly", 8, 1e6, FABRIC)


def test_a_tree_across_nodes_runs_at_nccls_share_of_the_ring_rate():
    size = 1e9  # 4 nodes: a chain of 8 in each, 2 levels between nodes
    alphas = 2 * (7 * 1e-6 + 2 * cluster.IB_TREE_ALPHA_S)
    expected = alphas + 2 * size / (400e9 * cluster.TREE_EFFICIENCY)
    assert cluster.allreduce_seconds("tree", 32, size, FABRIC) == pytest.approx(expected)


def _h100() -> cluster.Fabric:
    return cluster.fabric_for(load_specs().get("h100-sxm"))


def test_nvls_moves_n_plus_one_over_n_of_the_message_so_its_busbw_grows_with_n():
    fabric, size = _h100(), 8 * 2**30
    rate = fabric.nvls.bytes_per_s
    for n in (5, 6, 7, 8):  # busbw = rate·2(n-1)/(n+1) where the switch beats the ring
        seconds = cluster.allreduce_seconds("nvls", n, size, fabric)
        assert seconds == pytest.approx(fabric.nvls.alpha_s + size * (n + 1) / n / rate)
        assert cluster.bus_bandwidth_gb_s(n, size, seconds) == pytest.approx(
            rate * 2 * (n - 1) / (n + 1) / 1e9, rel=1e-3)
    ring = cluster.allreduce_seconds("ring", 3, size, fabric)
    assert cluster.allreduce_seconds("nvls", 3, size, fabric) == ring  # NCCL's tuner takes the faster ring


def test_nvls_needs_an_nvswitch_of_hopper_or_later_and_one_node():
    specs = load_specs()
    assert cluster.unavailable("nvls", 8, _h100()) is None
    assert cluster.unavailable("nvls", 16, _h100()).key == "cluster-scaling.nvls.one-node"
    a100 = cluster.fabric_for(specs.get("a100-sxm4-80gb"))
    assert cluster.unavailable("nvls", 8, a100).key == "cluster-scaling.nvls.old-nvswitch"
    assert cluster.unavailable("nvls", 4, cluster.fabric_for(specs.get("l4"))).key == "cluster-scaling.nvls.no-nvswitch"
    with pytest.raises(ValueError, match="not available"):
        cluster.allreduce_seconds("nvls", 8, 1e6, a100)


def test_bus_bandwidth_follows_nccl_tests():
    assert cluster.bus_bandwidth_gb_s(8, 1e9, 0.01) == pytest.approx(100 * 2 * 7 / 8)


def test_the_h100_fabric_takes_nccls_nvlink_figure_and_eight_nics_at_their_achievable_rate():
    fabric = _h100()
    assert fabric.intra_line_gb_s == pytest.approx(450)  # half the spec table's 900 GB/s both ways
    assert fabric.intra.bytes_per_s == pytest.approx(18 * 20.6e9)  # NCCL's SM90_NVLINK_BW a link
    assert fabric.inter.bytes_per_s == pytest.approx(50e9 * cluster.NIC_EFFICIENCY) and fabric.nics == 8
    assert fabric.nvls.bytes_per_s == pytest.approx(fabric.intra.bytes_per_s * cluster.NVLS_EFFICIENCY)
    l4 = cluster.fabric_for(load_specs().get("l4"))
    assert l4.intra_name.startswith("PCIe") and l4.nvls is None  # no NVLink on an L4


@pytest.mark.parametrize("algorithm", ["ring", "tree"])
def test_fitting_alpha_and_beta_to_synthetic_times_recovers_them(algorithm):
    n, alpha, beta = 16, 7e-6, 1 / 40e9
    sizes = np.array([2.0**k for k in range(10, 31, 2)])
    a, b = {"ring": (2 * (n - 1), 2 * (n - 1) / n), "tree": (8, 2)}[algorithm]
    noise = 1 + 0.01 * np.random.default_rng(3).standard_normal(sizes.size)
    fit = cluster.fit_alpha_beta(sizes, (a * alpha + b * sizes * beta) * noise, n, algorithm)
    exact = cluster.fit_alpha_beta(sizes, a * alpha + b * sizes * beta, n, algorithm)
    assert exact.alpha_s == pytest.approx(alpha, rel=1e-6) and exact.gb_s == pytest.approx(40, rel=1e-6)
    assert fit.gb_s == pytest.approx(40, rel=0.03) and fit.r_squared > 0.99


def test_a_fit_weighs_every_size_alike_so_the_latency_of_small_messages_survives():
    # 2 ranks: t = 2·alpha + S·beta. Small messages pay 2 µs; past 1 MiB each byte costs a third more
    # (out of cache), which drags an unweighted line's intercept below zero.
    sizes = np.array([2.0**k for k in range(3, 27, 2)])
    times = np.where(sizes <= 2**20, 2e-6 + sizes / 4e9, 2e-6 + sizes / 3e9)
    assert np.polyfit(sizes, times, 1)[1] < 0  # what the plain least-squares line says
    fit = cluster.fit_alpha_beta(sizes, times, 2)
    assert fit.alpha_s == pytest.approx(1e-6, rel=0.1) and 3 <= fit.gb_s <= 4


def test_fitting_needs_two_sizes():
    with pytest.raises(ValueError, match="two or more different message sizes"):
        cluster.fit_alpha_beta([1024, 1024], [1e-5, 1e-5], 8)


# ---------------------------------------------------------------- planner


def test_the_bubble_is_p_minus_one_over_m_plus_p_minus_one():
    assert parallelism.bubble_fraction(16, 16) == pytest.approx(15 / 31)
    assert parallelism.bubble_fraction(4, 12) == pytest.approx(3 / 15)
    assert parallelism.bubble_fraction(1, 5) == 0.0
    assert parallelism.bubble_fraction(4, 12, interleave=2) == pytest.approx(3 / 27)


@pytest.mark.parametrize(("stage", "expected"), [
    (0, (2e9, 2e9, 12e9)),      # 16 bytes a parameter, all on every GPU
    (1, (2e9, 2e9, 1.5e9)),     # optimizer state / DP
    (2, (2e9, 0.25e9, 1.5e9)),  # also gradients / DP
    (3, (0.25e9, 0.25e9, 1.5e9)),  # also weights / DP
])  # fmt: skip
def test_zero_memory_per_stage_with_mixed_precision_adam(stage, expected):
    memory = parallelism.zero_memory_bytes(1e9, dp=8, stage=stage)
    assert (memory.weights, memory.gradients, memory.optimizer) == pytest.approx(expected)


def test_every_layout_multiplies_to_the_gpu_count_and_a_fixed_tp_is_kept():
    layouts = parallelism.layouts(64)
    assert layouts and all(layout.gpus == 64 for layout in layouts)
    assert {layout.tp for layout in parallelism.layouts(64, tp=4)} == {4}
    assert parallelism.layouts(64, 2, 4, 8) == [parallelism.Layout(2, 4, 8)]


def test_impossible_layouts_are_flagged_with_their_reason():
    shape = parallelism.MODELS["gpt-1.3b"]  # 24 layers, 16 heads, batch 512
    keys = lambda layout, gpus: [m.key for m in parallelism.layout_problems(shape, layout, gpus)]  # noqa: E731
    assert keys(parallelism.Layout(1, 3, 1), 3) == ["cluster-scaling.problem.heads"]
    assert keys(parallelism.Layout(1, 1, 32), 32) == ["cluster-scaling.problem.layers"]
    assert keys(parallelism.Layout(2, 2, 2), 16) == ["cluster-scaling.problem.product"]
    assert keys(parallelism.Layout(1024, 1, 1), 1024) == ["cluster-scaling.problem.batch"]
    assert keys(parallelism.Layout(8, 2, 4), 64) == []


META = parallelism.Training(zero_stage=2, recompute="selective", interleave=8, overlap=True)


def test_a_layers_kept_tensors_give_korthikantis_34h_for_gpt_and_less_for_llama3():
    assert parallelism.activation_bytes_per_token(parallelism.MODELS["gpt-1.3b"]) == 34 * 2048
    llama = parallelism.MODELS["llama3-405b"]  # no dropout masks, 8 of 128 heads for K and V, SwiGLU of 3.25h
    assert parallelism.activation_bytes_per_token(llama) == pytest.approx(31.75 * 16384)
    assert parallelism.first_stage_layers(llama, 16) == 7  # the embedding takes a layer's place
    assert parallelism.first_stage_layers(llama, 1) == 126


def test_llama3_405b_at_metas_layout_fits_and_takes_the_papers_bubble():
    spec = load_specs().get("h100-sxm")
    shape, fabric = parallelism.MODELS["llama3-405b"], cluster.fabric_for(spec)
    plans = parallelism.plan_all(shape, 16384, spec, fabric, META)
    meta = parallelism.published_plan(shape, 16384, plans)
    assert meta is not None and meta.usable and meta.interleave == 8
    assert meta.bubble == pytest.approx(15 / (8 * 16 + 15))  # (PP-1)/(V·M) of the busy time
    psi = 405e9 / 128  # weights whole, gradients and optimizer over DP 128 (ZeRO 2)
    states = meta.memory.weights + meta.memory.gradients + meta.memory.optimizer
    assert states == pytest.approx(2 * psi + 14 * psi / 128)
    tokens = 8192 / 8  # a micro-batch of one sequence, split over TP 8
    assert meta.memory.activations == pytest.approx(16 * 7 * 31.75 * 16384 * tokens)
    flops = shape.flops_per_step
    assert parallelism.tflops_per_gpu(shape, meta) == pytest.approx(flops / (meta.step_s * 16384) / 1e12)
    assert meta.efficiency == pytest.approx(flops / (16384 * 989.5e12 * parallelism.COMPUTE_SHARE) / meta.step_s)


def test_full_recomputation_costs_a_third_more_compute_and_more_tp_traffic():
    spec = load_specs().get("h100-sxm")
    shape, fabric, layout = parallelism.MODELS["llama3-405b"], cluster.fabric_for(spec), parallelism.Layout(128, 8, 16)
    kept = parallelism.evaluate(shape, layout, spec, fabric, META)
    full = parallelism.evaluate(shape, layout, spec, fabric, dataclasses.replace(META, recompute="full"))
    assert full.compute_s == pytest.approx(kept.compute_s * 4 / 3)
    assert full.tp_comm_s == pytest.approx(kept.tp_comm_s * 6 / 4)
    assert full.memory.activations < kept.memory.activations / 10


def test_overlap_hides_dp_and_pp_transfers_under_the_compute():
    spec = load_specs().get("h100-sxm")
    shape, fabric, layout = parallelism.MODELS["llama3-405b"], cluster.fabric_for(spec), parallelism.Layout(128, 8, 16)
    hidden = parallelism.evaluate(shape, layout, spec, fabric, META)
    exposed = parallelism.evaluate(shape, layout, spec, fabric, dataclasses.replace(META, overlap=False))
    assert hidden.dp_exposed_s == 0 and hidden.pp_exposed_s == 0
    assert exposed.step_s == pytest.approx(hidden.step_s + exposed.dp_comm_s + exposed.pp_comm_s)


def test_the_best_plan_says_whether_it_departs_from_the_published_layout_and_why():
    spec = load_specs().get("h100-sxm")
    shape, fabric = parallelism.MODELS["llama3-405b"], cluster.fabric_for(spec)
    agrees = parallelism.departure(shape, 16384, parallelism.plan_all(shape, 16384, spec, fabric, META))
    assert agrees.key == "cluster-scaling.note.published-agrees"
    # Full recomputation and no interleaving: activations are small and PP 16's bubble is 15/31 of the step
    old_default = dataclasses.replace(META, recompute="full", interleave=1)
    plans = parallelism.plan_all(shape, 16384, spec, fabric, old_default)
    best = parallelism.best_plan(plans)
    departs = parallelism.departure(shape, 16384, plans)
    assert (best.layout.dp, best.layout.tp, best.layout.pp) != (128, 8, 16)
    assert departs.key == "cluster-scaling.note.departs-bubble" and departs.args["best"] == best.layout.words()
    assert best.bubble < parallelism.published_plan(shape, 16384, plans).bubble
    assert parallelism.departure(shape, 4096, plans) is None  # nothing published for 4,096 GPUs


def test_scaling_efficiency_falls_as_a_fixed_batch_is_spread_over_more_gpus():
    spec = load_specs().get("h100-sxm")
    curve = parallelism.scaling(parallelism.MODELS["gpt-1.3b"], [64, 512, 4096], spec, cluster.fabric_for(spec),
                                parallelism.Training())
    efficiencies = [plan.efficiency for _n, plan in curve if plan is not None]
    assert len(efficiencies) == 3 and efficiencies == sorted(efficiencies, reverse=True)


# ---------------------------------------------------------------- failures


def test_young_interval_is_the_square_root_of_two_delta_mtbf():
    assert reliability.young_interval_seconds(60, 10_000) == pytest.approx(math.sqrt(2 * 60 * 10_000))
    daly = reliability.daly_interval_seconds(60, 10_000)
    ratio = 60 / 20_000
    assert daly == pytest.approx(math.sqrt(1.2e6) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - 60)


def test_goodput_is_one_minus_checkpoint_and_lost_work_shares():
    assert reliability.goodput_fraction(1000, 50, 200, 10_000) == pytest.approx(1 - 0.05 - (200 + 500) / 10_000)


def test_interruptions_a_day_grow_with_the_gpu_count():
    assert reliability.interruptions_per_day(365.25, 1.0) == pytest.approx(1.0)
    assert reliability.mtbf_seconds(365.25, 1.0) == pytest.approx(86400)


def test_the_llama3_preset_matches_metas_54_day_snapshot():
    paper = reliability.LLAMA3
    assert (paper.gpus, paper.days, paper.interruptions, paper.unexpected) == (16384, 54, 466, 419)
    assert paper.interruptions_per_day == pytest.approx(8.63, abs=0.01)  # 466 / 54
    assert paper.unexpected_per_day == pytest.approx(7.76, abs=0.01)  # 419 / 54
    model = reliability.interruptions_per_day(paper.gpus, reliability.LLAMA3_FAILURES_PER_GPU_YEAR)
    assert model == pytest.approx(paper.interruptions_per_day, rel=0.02)  # planned stops halt the job too


def test_the_llama3_checkpoint_is_its_model_state_at_the_storage_rate():
    assert reliability.LLAMA3_CHECKPOINT_SECONDS == pytest.approx(405e9 * 14 / 2e12)
    rate, delta = reliability.LLAMA3_FAILURES_PER_GPU_YEAR, reliability.LLAMA3_CHECKPOINT_SECONDS
    assert reliability.reliability(16384, rate, delta, 300).goodput > 0.9  # the paper: "higher than 90%"


def test_the_published_check_sets_the_models_tflops_beside_metas_on_h100_only():
    spec = load_specs().get("h100-sxm")
    shape, fabric = parallelism.MODELS["llama3-405b"], cluster.fabric_for(spec)
    plans = parallelism.plan_all(shape, 8192, spec, fabric, META)
    check = parallelism.published_check(shape, 8192, plans, "h100-sxm")
    model = parallelism.tflops_per_gpu(shape, parallelism.published_plan(shape, 8192, plans))
    assert check.args["paper"] == "430" and check.args["model"] == f"{model:.0f}"
    assert parallelism.published_check(shape, 8192, plans, "h200-sxm") is None  # Meta measured H100s
