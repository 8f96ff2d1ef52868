"""The ``gpulab emulate`` command and the ``gpulab bench simt`` driver."""

import argparse
import json
import os

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


K3 = 'extern "C" __global__ void k(int *a, int n, unsigned char *b) { int i = threadIdx.x; if (i < n) a[i] = n; }\n'


@pytest.fixture
def k3(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(K3, encoding="utf-8")
    return str(path)


def _emulate(argv, capsys):
    code = _main(["emulate", *argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_emulate_refuses_an_endless_device_as_not_a_regular_file(capsys):
    code, err = _emulate(["/dev/zero", "--kernel", "k", "--grid", "1", "--block", "1"], capsys)
    assert code == 2 and "/dev/zero is a character device, not a regular file" in err


def test_emulate_refuses_a_fifo_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "kernel.cu"
    os.mkfifo(fifo)
    code, err = _emulate([str(fifo), "--kernel", "k", "--grid", "1", "--block", "1"], capsys)
    assert code == 2 and "a named pipe (FIFO), not a regular file" in err


def test_emulate_refuses_a_big_file_with_its_size(tmp_path, capsys):
    big = tmp_path / "big.cu"
    big.write_text("//" + "x" * (5 * 1024 * 1024), encoding="utf-8")
    code, err = _emulate([str(big), "--kernel", "k", "--grid", "1", "--block", "1"], capsys)
    assert code == 2 and "5.0 MiB" in err


def test_emulate_refuses_a_file_that_is_not_utf8_naming_the_line(tmp_path, capsys):
    bad = tmp_path / "latin1.cu"
    bad.write_bytes("// ok\n// caf\xe9\n".encode("latin-1"))
    code, err = _emulate([str(bad), "--kernel", "k", "--grid", "1", "--block", "1"], capsys)
    assert code == 2 and "not UTF-8" in err and "byte 0xe9 on line 2" in err


@pytest.mark.parametrize("args, words", [
    (["int32[1099511627776]=zeros", "4", "uint8[4]=1"], ["4.0 TiB", "memory available"]),
    (["int32[4]=zeros", "4", "uint8[4]=300"], ["300 is outside uint8's range 0 to 255"]),
    (["int32[16]=1e40", "4", "uint8[4]=3"], ["1e+40 is outside int32's range"]),
    (["int32[4]=zeros", "int=4294967296", "uint8[4]=3"], ["(int n)", "4294967296 is outside int's range"]),
    (["int32[4]=zeros", "inf", "uint8[4]=3"], ["--arg 2 (int n)", "inf is not a whole number"]),
    (["int32[4]=zeros", "nan", "uint8[4]=3"], ["nan is not a whole number"]),
    (["int32[4]=zeros", "-1", "uint8[4]=-1"], ["-1 is outside uint8's range"]),
    (["int32[4]=pi", "4", "uint8[4]=1"], ["unknown array initializer"]),
])
def test_emulate_checks_argument_sizes_and_values_against_their_types(k3, capsys, args, words):
    argv = [k3, "--kernel", "k", "--grid", "1", "--block", "4"]
    for a in args:
        argv += ["--arg", a]
    code, err = _emulate(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1
    for word in words:
        assert word in err


def test_emulate_accepts_values_at_the_edges_of_their_types(k3, capsys):
    code = _main(["emulate", k3, "--kernel", "k", "--grid", "1", "--block", "4", "--arg", "int32[4]=-2147483648",
                  "--arg", "int=2147483647", "--arg", "uint8[4]=255"])
    assert code == 0


@pytest.mark.parametrize(("option", "fmad"), [([], True), (["--fmad", "false"], False)])
def test_emulate_fuses_products_as_nvcc_does_unless_told_fmad_false(k3, capsys, monkeypatch, option, fmad):
    seen = []
    real = cli.launch

    def recording(*args, **kwargs):
        seen.append(kwargs["fmad"])
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "launch", recording)
    code, err = _emulate([k3, "--kernel", "k", "--grid", "1", "--block", "4", "--arg", "int32[4]",
                          "--arg", "4", "--arg", "uint8[4]", *option], capsys)  # fmt: skip
    assert code == 0, err
    assert seen == [fmad]


CONST_KERNEL = ('__constant__ float weights[3] = {1.0f, 1.0f, 1.0f};\n'
                'extern "C" __global__ void k(float *o) { int i = threadIdx.x; o[i] = weights[i % 3]; }\n')


def test_emulate_fills_constant_data_from_const_and_refuses_a_malformed_one(tmp_path, capsys, monkeypatch):
    path = tmp_path / "c.cu"
    path.write_text(CONST_KERNEL, encoding="utf-8")
    seen = []
    real = cli.launch

    def recording(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append((kwargs["constants"], args[4][0].tolist()))
        return result

    monkeypatch.setattr(cli, "launch", recording)
    base = [str(path), "--kernel", "k", "--grid", "1", "--block", "3", "--arg", "float32[3]"]
    code, err = _emulate([*base, "--const", "weights=0.25,0.5"], capsys)
    assert code == 0, err
    assert seen == [({"weights": [0.25, 0.5]}, [0.25, 0.5, 1.0])]
    code, err = _emulate([*base, "--const", "weights"], capsys)
    assert code == 2 and "write NAME=VALUES" in err
    code, err = _emulate([*base, "--const", "weights=a,b"], capsys)
    assert code == 2 and "must be numbers" in err


STENCIL_1D = """#define RADIUS 2
extern "C" __global__ void stencil_1d(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) s += in[i + k];
    out[i] = s;
}
"""


@pytest.fixture
def stencil_file(tmp_path):
    path = tmp_path / "stencil_1d.cu"
    path.write_text(STENCIL_1D, encoding="utf-8")
    return str(path)


def _stencil(path, n, arg_in, capsys):
    return _emulate([path, "--kernel", "stencil_1d", "--grid", str(-(-n // 256)), "--block", "256",
                     "--arg", arg_in, "--arg", f"float32[{n}]", "--arg", str(n)], capsys)


def test_a_stencil_faults_at_the_start_of_its_input_without_an_offset_and_runs_with_one(stencil_file, capsys):
    code, err = _stencil(stencil_file, 1024, "float32[1028]=random", capsys)
    assert code == 1 and "out-of-bounds global load from 'in'" in err
    code, err = _stencil(stencil_file, 1024, "float32[1028]=random@2", capsys)  # d_in + RADIUS
    assert code == 0, err


def test_a_read_past_the_whole_array_still_faults_through_an_offset_pointer(stencil_file, capsys):
    code, err = _stencil(stencil_file, 1025, "float32[1028]=random@2", capsys)  # the last lane reads in[1028]
    assert code == 1 and "out-of-bounds global load from 'in'" in err and "4112-byte buffer" in err


PEEK = """extern "C" __global__ void peek(const int* a, const int* b, int* c) {
    if (threadIdx.x == 0) { c[0] = 7; printf("a[0]=%d b[0]=%d b[-1]=%d a[-3]=%d\\n", a[0], b[0], b[-1], a[-3]); }
}
"""


def test_a_pointer_into_an_earlier_argument_shares_its_array(tmp_path, capsys):
    path = tmp_path / "peek.cu"
    path.write_text(PEEK, encoding="utf-8")
    code = _main(["emulate", str(path), "--kernel", "peek", "--grid", "1", "--block", "32", "--arg",
                  "int32[64]=arange@5", "--arg", "@1+32", "--arg", "@1+2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "a[0]=5 b[0]=32 b[-1]=31 a[-3]=7" in out  # c points at element 2 of a's array: a[-3] reads its 7


@pytest.mark.parametrize("args, words", [
    (["float32[8]=zeros@8", "@1", "@1"], ["'float32[8]=zeros@8'", "offset 8 is past the end", "0 to 7"]),
    (["float32[8]@-1", "@1", "@1"], ["'float32[8]@-1'", "offset -1 is negative"]),
    (["float32[8]=ones@x", "@1", "@1"], ["'float32[8]=ones@x'", "whole number of elements"]),
    (["int32[8]", "@1+8", "@1"], ["'@1+8'", "offset 8 is past the end"]),
    (["int32[8]", "@1-1", "@1"], ["'@1-1'", "negative"]),
    (["4", "@1+0", "@1"], ["'@1+0'", "--arg 1 is a scalar"]),
    (["int32[8]", "@3+0", "@1"], ["'@3+0'", "--arg 3 is not an earlier argument (this is --arg 2)"]),
    (["int32[8]", "@2", "@1"], ["'@2'", "--arg 2 is not an earlier argument"]),
    (["int32[8]", "@0", "@1"], ["'@0'", "--arg 0 is not an earlier argument"]),
    (["int32[8]", "@one+2", "@1"], ["'@one+2'", "write @N+OFFSET"]),
])
def test_a_bad_offset_or_reference_is_refused_naming_the_arg(tmp_path, capsys, args, words):
    path = tmp_path / "peek.cu"
    path.write_text(PEEK, encoding="utf-8")
    argv = [str(path), "--kernel", "peek", "--grid", "1", "--block", "32"]
    for a in args:
        argv += ["--arg", a]
    code, err = _emulate(argv, capsys)
    assert code == 2 and err.count("\n") == 1
    for word in words:
        assert word in err


def test_the_help_shows_the_offset_and_reference_syntax(capsys):
    with pytest.raises(SystemExit):
        _main(["emulate", "--help"])
    out = capsys.readouterr().out
    assert "float32[1028]=random@2" in out and "@1+4" in out
