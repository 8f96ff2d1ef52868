"""The cluster-scaling lab's model arithmetic against cases worked by hand."""

from __future__ import annotations

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


def test_hierarchical_allreduce_is_two_node_halves_plus_a_ring_of_one_eighth_across_nodes():
    intra, inter = cluster.Link(1e-6, 400e9), cluster.Link(5e-6, 50e9)
    fabric = cluster.Fabric(intra, inter, 8)
    size = 8e8
    half = 7 * 1e-6 + 7 / 8 * size / 400e9
    across = 2 * 3 * 5e-6 + 2 * 3 / 4 * (size / 8) / 50e9  # 4 nodes, S/8 each
    assert cluster.hierarchical_allreduce_seconds(32, size, fabric) == pytest.approx(2 * half + across)
    assert cluster.hierarchical_allreduce_seconds(8, size, fabric) == pytest.approx(
        cluster.ring_allreduce_seconds(8, size, intra))


def test_a_flat_ring_beyond_one_node_runs_at_the_inter_node_pace():
    fabric = cluster.Fabric(cluster.Link(1e-6, 400e9), cluster.Link(5e-6, 50e9), 8)
    assert cluster.allreduce_seconds("ring", 16, 1e6, fabric) == cluster.ring_allreduce_seconds(16, 1e6, fabric.inter)
    assert cluster.allreduce_seconds("ring", 8, 1e6, fabric) == cluster.ring_allreduce_seconds(8, 1e6, fabric.intra)
    with pytest.raises(ValueError, match="unknown AllReduce algorithm"):
        cluster.allreduce_seconds("butterfly", 8, 1e6, fabric)


def test_bus_bandwidth_follows_nccl_tests():
    assert cluster.bus_bandwidth_gb_s(8, 1e9, 0.01) == pytest.approx(100 * 2 * 7 / 8)


def test_the_h100_fabric_takes_half_the_spec_tables_nvlink_total_and_a_400_gbit_nic():
    fabric = cluster.fabric_for(load_specs().get("h100-sxm"))
    assert fabric.intra.bytes_per_s == pytest.approx(450e9) and fabric.inter.bytes_per_s == pytest.approx(50e9)
    assert cluster.fabric_for(load_specs().get("l4")).intra_name.startswith("PCIe")  # no NVLink on an L4


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


def test_llama3_405b_on_16384_h100s_flags_plans_that_do_not_fit_and_finds_one_that_does():
    spec = load_specs().get("h100-sxm")
    plans = parallelism.plan_all(parallelism.MODELS["llama3-405b"], 16384, spec, cluster.fabric_for(spec),
                                 parallelism.Training(zero_stage=1, recompute="full"))
    assert any(not plan.fits for plan in plans) and any(plan.usable for plan in plans)
    meta = next(p for p in plans if (p.layout.tp, p.layout.pp) == (8, 16))  # the paper's layout
    assert meta.usable and meta.bubble == pytest.approx(15 / 31)  # m = 2048 / 128 = 16 micro-batches
    # weights + grads on 405e9 / 128 parameters, optimizer over DP 128
    psi = 405e9 / 128
    states = meta.memory.weights + meta.memory.gradients + meta.memory.optimizer
    assert states == pytest.approx(4 * psi + 12 * psi / 128)
    best = parallelism.best_plan(plans)
    assert best is not None and 0 < best.efficiency < 1 and best.step_s > 0


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
    assert model == pytest.approx(paper.unexpected_per_day, rel=0.03)  # the rate is the unexpected ones, rounded
    assert model < paper.interruptions_per_day  # planned interruptions are not failures
