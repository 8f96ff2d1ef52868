"""The ``gpulab emulate`` command and the ``gpulab bench simt`` driver."""

import argparse
import json

import pytest

from gpulab.bench import simt as bench
from gpulab.simt import cli

VECTOR_ADD = """extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def _main(argv):
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "vector_add.cu"
    path.write_text(VECTOR_ADD)
    return path


def test_emulate_prints_metrics_as_json(kernel_file, capsys):
    code = _main(["emulate", str(kernel_file), "--kernel", "vector_add", "--grid", "16",
                  "--block", "256", "--arg", "float32[4096]=random", "--arg", "float32[4096]=ones",
                  "--arg", "float32[4096]", "--arg", "int=4096", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["provenance"] == "emulated"
    assert out["metrics"]["gld_transactions_per_request"] == 4.0
    assert out["grid"] == [16, 1, 1]


def test_emulate_prints_a_table_and_a_trace(kernel_file, capsys):
    code = _main(["emulate", str(kernel_file), "--kernel", "vector_add", "--grid", "1",
                  "--block", "64", "--arg", "float32[64]=arange", "--arg", "float32[64]=2.5",
                  "--arg", "float32[64]", "--arg", "40", "--trace", "1"])
    assert code == 0
    out = capsys.readouterr().out
    assert "warp_execution_efficiency" in out
    assert "trace of warp 1" in out and "mask=000000ff" in out


def test_emulate_reports_faults_with_exit_code_one(kernel_file, capsys):
    code = _main(["emulate", str(kernel_file), "--kernel", "vector_add", "--grid", "1",
                  "--block", "64", "--arg", "float32[64]", "--arg", "float32[64]",
                  "--arg", "float32[10]", "--arg", "64"])
    assert code == 1
    assert "KernelFault" in capsys.readouterr().err


def test_emulate_rejects_unknown_dtype(kernel_file, capsys):
    code = _main(["emulate", str(kernel_file), "--kernel", "vector_add", "--grid", "1",
                  "--block", "32", "--arg", "float16[4]", "--arg", "1", "--arg", "1", "--arg", "1"])
    assert code == 2  # a usage error (issue 11: 2 for usage errors)
    assert "unknown dtype" in capsys.readouterr().err


@pytest.mark.parametrize("text, dims", [("256", (256,)), ("16,16", (16, 16)), ("4x4x2", (4, 4, 2))])
def test_grid_and_block_syntax(text, dims):
    assert cli.parse_dims(text) == dims


def test_bench_runs_a_small_workload_in_process_and_checks_the_result():
    rows = bench.run(sizes=["matmul_tiled_64", "even_odd_65536"], in_process=True)
    assert [r["workload"] for r in rows] == ["matmul_tiled_64", "even_odd_65536"]
    assert all(r["correct"] and r["wall_s"] > 0 and r["lane_steps"] > 0 for r in rows)
    assert "matmul_tiled_64" in bench._format(rows)
