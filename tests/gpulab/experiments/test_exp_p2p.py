"""The topology lab: the modelled matrix without GPUs, the measured one through a stand-in copier, and CuPy's."""

from __future__ import annotations

import pytest

from gpulab import experiments, results
from gpulab.catalogue import render
from gpulab.cluster.topology import read_topology, topology_from_json
from gpulab.devices import CudaStatus, GpuInfo
from gpulab.experiments import p2p
from gpulab.lab.base import Context, ParamError, drive
from gpulab.measure import Samples
from tests.gpulab.cluster.test_cluster_topology import pcie_pair


def run(**params):
    return drive(p2p.run(p2p.Params(**params), Context()))


def no_gpu(monkeypatch):
    status = CudaStatus(False, "no GPU here", "no-device")
    monkeypatch.setattr(p2p.cuda, "cuda_status", lambda: status)


def test_without_gpus_the_matrix_is_the_modelled_nodes_achievable_rates_beside_the_nominal_ones(monkeypatch):
    no_gpu(monkeypatch)
    result = run(layout="dgx-h100", nodes=2)
    assert [s.key for s in result.series] == [f"from-gpu-{i}" for i in range(8)]
    assert all(s.provenance.kind == "modelled" and s.role == "model" for s in result.series)
    first = result.series[0]
    assert [p.x for p in first.points] == list(range(1, 8))
    assert {p.extra["nominal_gb_s"] for p in first.points} == {450.0}  # 18 links of 25 GB/s
    assert all(p.y == pytest.approx(18 * 20.6) for p in first.points)  # what NCCL counts a link as
    assert any("no GPU here" in note for note in result.notes)
    topo = topology_from_json(first.provenance.details["topology"])
    assert topo is not None and topo.source == "modelled" and len(topo.gpus) == 8
    assert topology_from_json(first.provenance.details["cluster"]).facts["nodes"] == 2


def test_gpus_on_different_sockets_copy_at_the_cpu_links_rate(monkeypatch):
    no_gpu(monkeypatch)
    result = run(layout="pcie-server")
    rates = {p.x: p for p in result.series[0].points}
    assert rates[1].extra["path"] == "pcie-switch" and rates[2].extra["path"] == "system"
    assert rates[2].y == pytest.approx(22.0) and rates[1].y == pytest.approx(31.5 * 0.85)
    assert rates[2].y < rates[1].y
    assert any("UPI link between them: 22 GB/s" in note for note in result.notes)


def test_a_saved_result_reopens_with_its_matrix_and_pictures(monkeypatch, tmp_path):
    no_gpu(monkeypatch)
    result = run(layout="pcie-server")
    result.save(tmp_path / "p2p.json")
    again = results.load(tmp_path / "p2p.json")
    assert [[p.y for p in s.points] for s in again.series] == [[p.y for p in s.points] for s in result.series]
    assert topology_from_json(again.series[0].provenance.details["topology"]).path(0, 2).kind == "system"


class FakeCopies:
    """Stands in for p2p_gpu.PeerCopies: GPU 0 -> 1 takes 2 ms, 1 -> 0 takes 4 ms for 64 MiB."""

    def __init__(self, devices, nbytes):
        self.closed, self.peers = False, []

    def enable_peer(self, src, dst):
        self.peers.append((src, dst))
        return True

    def time(self, src, dst, policy, check_cancelled):
        check_cancelled()
        return Samples([0.002 if src == 0 else 0.004] * policy.repeats)

    def close(self):
        self.closed = True


def two_gpus(monkeypatch, copier):
    devices = tuple(GpuInfo(i, "NVIDIA L4", "8.9", 58, 24 << 30, None, None, None, None,
                            f"0000:{0x1B + 0x10 * i:02x}:00.0", None) for i in range(2))  # fmt: skip
    status = CudaStatus(True, "2 GPUs", "ok", devices)
    monkeypatch.setattr(p2p.cuda, "cuda_status", lambda: status)
    monkeypatch.setattr(p2p.cuda, "device_name", lambda i=0: "NVIDIA L4")
    monkeypatch.setattr(p2p, "read_topology", lambda: read_topology(pcie_pair()))
    monkeypatch.setattr(p2p.p2p_gpu, "free_bytes", lambda d: 8 << 30)
    monkeypatch.setattr(p2p.p2p_gpu, "open_copies", copier)


def test_with_two_gpus_every_ordered_pair_is_measured_and_compared_with_its_path(monkeypatch):
    made = []
    two_gpus(monkeypatch, lambda devices, nbytes: made.append(FakeCopies(devices, nbytes)) or made[-1])
    result = run(copy_bytes=1 << 26, repeats=3)
    assert [s.provenance.kind for s in result.series] == ["measured", "measured"]
    (there,), (back,) = (s.points for s in result.series)
    assert there.x == 1 and there.y == pytest.approx((1 << 26) / 0.002 / 1e9)
    assert back.x == 0 and back.y == pytest.approx((1 << 26) / 0.004 / 1e9)
    assert there.extra["path"] == "host-bridge" and there.extra["nominal_gb_s"] == pytest.approx(31.5)
    assert there.extra["percent_of_peak"] == pytest.approx(100 * there.y / 31.5)
    assert made[0].closed and made[0].peers == [(0, 1), (1, 0)]
    assert any("NVML" in note for note in result.notes)


def test_a_gpu_error_mid_sweep_keeps_the_pairs_measured_and_says_where(monkeypatch):
    class Failing(FakeCopies):
        def time(self, src, dst, policy, check_cancelled):
            if src == 1:
                raise RuntimeError("cudaErrorIllegalAddress")
            return super().time(src, dst, policy, check_cancelled)

    two_gpus(monkeypatch, Failing)
    result = run(repeats=1)
    assert [len(s.points) for s in result.series] == [1, 0]
    assert any("GPU 1 -> GPU 0" in note and "cudaErrorIllegalAddress" in note for note in result.notes)


@pytest.mark.parametrize("bad", [{"nodes": 0}, {"nodes": 33}, {"copy_bytes": 100}, {"layout": "dgx-b200"}])
def test_bad_parameters_name_the_parameter(bad):
    with pytest.raises(ParamError) as caught:
        p2p.Params(**bad)
    assert next(iter(bad)) in str(caught.value) and render(caught.value.message, "zh")


def test_the_lab_is_registered():
    assert experiments.get("p2p") is p2p


@pytest.mark.gpu
def test_on_two_real_gpus_every_pair_copies_at_a_positive_rate():
    from gpulab.cuda import cuda_status

    if len(cuda_status().devices) < 2:
        pytest.skip("needs two CUDA devices")
    result = run(copy_bytes=1 << 24, repeats=3)
    assert all(s.provenance.kind == "measured" for s in result.series)
    assert all(p.y > 0 for s in result.series for p in s.points)


@pytest.mark.gpu
def test_peer_copies_time_a_copy_with_cuda_events():
    from gpulab.cuda import cuda_status
    from gpulab.experiments.p2p import gpu as p2p_gpu
    from gpulab.measure import RepeatPolicy

    count = len(cuda_status().devices)
    if count < 2:
        pytest.skip("needs two CUDA devices")
    copies = p2p_gpu.open_copies([0, 1], 1 << 20)
    try:
        copies.enable_peer(0, 1)
        samples = copies.time(0, 1, RepeatPolicy(repeats=3, min_seconds=0, max_samples=3), lambda: None)
    finally:
        copies.close()
    assert len(samples) == 3 and all(s > 0 for s in samples)
