"""``#include`` of a header next to the kernel: found, guarded, positioned, and named on error.

Each kernel runs in the emulator against numpy and compiles with NVRTC (given the same
headers by name), so the emulator accepts nothing CUDA rejects.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from gpulab import nvrtc
from gpulab.cli import main as cli_main
from gpulab.simt import CompileError, launch
from gpulab.simt.includes import BUILTIN_HEADERS
from gpulab.simt.translate import compile_source

REDUCE_CUH = """\
// warp-level helpers, as a course's common header would have them
#ifndef REDUCE_CUH
#define REDUCE_CUH
#include "index.cuh"
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}
#endif  // REDUCE_CUH
"""

INDEX_CUH = """\
#pragma once
#define GLOBAL_ID() (blockIdx.x * blockDim.x + threadIdx.x)
__device__ int lane_of(int i) { return i % 32; }
"""

KERNEL = """\
#include <cuda_runtime.h>
#include <cstdio>
#include "reduce.cuh"
#include "reduce.cuh"   // twice: the guard keeps one copy
#include "index.cuh"    // again through #pragma once

extern "C" __global__ void warp_sums(const float* x, float* out, int n) {
    int i = GLOBAL_ID();
    float v = i < n ? x[i] : 0.0f;
    v = warp_sum(v);
    if (lane_of(i) == 0 && i < n) out[i / 32] = v;
}
"""

HEADERS = {"reduce.cuh": REDUCE_CUH, "index.cuh": INDEX_CUH}


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def _nvrtc(source: str, headers: dict[str, str] | None = None) -> None:
    """Compile with NVRTC; the built-in system headers are given empty (NVRTC, too, has their
    contents built in, and reads no toolkit folder here)."""
    stubs = {name: "" for name in re.findall(r"#\s*include\s*<([^>]+)>", source)
             + [n for text in (headers or {}).values() for n in re.findall(r"#\s*include\s*<([^>]+)>", text)]}
    try:
        nvrtc.compile_cubin(source, "kernel.cu", "sm_80", headers={**stubs, **(headers or {})})
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(f"NVRTC is not installed: {exc}")


def _compile_error(source: str, folder: Path | None = None) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_source(source, "kernel.cu", [folder] if folder else [])
    return info.value


# ----------------------------------------------------------------------------- running


def test_kernel_with_guarded_nested_headers_matches_numpy(tmp_path):
    _write(tmp_path, HEADERS)
    n = 100
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    out = np.zeros(4, np.float32)
    launch(KERNEL, "warp_sums", 1, 128, [x, out, np.int32(n)], include_dirs=[tmp_path])
    padded = np.zeros(128, np.float32)
    padded[:n] = x
    expected = padded.reshape(4, 32)
    # the GPU's shuffle-down tree adds in this order: halves, quarters, ... (float32 each step)
    for offset in (16, 8, 4, 2, 1):
        expected = expected.copy()
        expected[:, :32 - offset] += expected[:, offset:]
    np.testing.assert_array_equal(out, expected[:, 0])
    _nvrtc(KERNEL, HEADERS)


def test_header_macros_configured_by_the_kernel_and_defined_for_it(tmp_path):
    _write(tmp_path, {"tile.cuh": "#ifndef TILE\n#define TILE 8\n#endif\n#define TILE_AREA (TILE * TILE)\n"})
    source = ('#define TILE 4\n#include "tile.cuh"\n'
              'extern "C" __global__ void k(int* out) { out[threadIdx.x] = TILE_AREA + TILE; }\n')
    out = np.zeros(3, np.int32)
    launch(source, "k", 1, 3, [out], include_dirs=[tmp_path])
    assert out.tolist() == [20, 20, 20]
    _nvrtc(source, {"tile.cuh": (tmp_path / "tile.cuh").read_text()})


def test_header_in_a_subfolder_includes_its_neighbour_by_its_own_folder(tmp_path):
    _write(tmp_path, {"common/math.cuh": '#include "sq.cuh"\n__device__ int quad(int v) { return sq(sq(v)); }\n',
                      "common/sq.cuh": "__device__ int sq(int v) { return v * v; }\n"})
    source = ('#include "common/math.cuh"\n'
              'extern "C" __global__ void k(int* a) { a[threadIdx.x] = quad(a[threadIdx.x]); }\n')
    a = np.arange(-3, 5, dtype=np.int32)
    launch(source, "k", 1, 8, [a], include_dirs=[tmp_path])
    assert a.tolist() == [v ** 4 for v in range(-3, 5)]
    _nvrtc(source, {"common/math.cuh": (tmp_path / "common/math.cuh").read_text(),
                    "sq.cuh": (tmp_path / "common/sq.cuh").read_text()})


def test_include_directories_are_searched_in_order(tmp_path):
    _write(tmp_path / "first", {"v.cuh": "#define V 1\n"})
    _write(tmp_path / "second", {"v.cuh": "#define V 2\n", "only.cuh": "#define W 30\n"})
    source = '#include "v.cuh"\n#include "only.cuh"\nextern "C" __global__ void k(int* a) { a[0] = V + W; }\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out], include_dirs=[tmp_path / "first", tmp_path / "second"])
    assert out[0] == 31


@pytest.mark.parametrize("header", sorted(BUILTIN_HEADERS))
def test_built_in_system_headers_are_accepted_and_ignored(header):
    source = f'#include <{header}>\n#include "{header}"\nextern "C" __global__ void k(int* a) {{ a[0] = 7; }}\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out])
    assert out[0] == 7


def test_a_changed_header_is_read_again_not_taken_from_the_cache(tmp_path):
    _write(tmp_path, {"value.cuh": "#define VALUE 1\n"})
    source = '#include "value.cuh"\nextern "C" __global__ void k(int* a) { a[0] = VALUE; }\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out], include_dirs=[tmp_path])
    assert out[0] == 1
    (tmp_path / "value.cuh").write_text("#define VALUE 12345\n")  # another size, another mtime
    launch(source, "k", 1, 1, [out], include_dirs=[tmp_path])
    assert out[0] == 12345


# ----------------------------------------------------------------------------- positions


def test_main_file_lines_and_columns_after_an_include_stay_right(tmp_path):
    _write(tmp_path, HEADERS)
    broken = KERNEL.replace("float v = i < n", "float v = i < nope")
    err = _compile_error(broken, tmp_path)
    line = broken.split("\n").index("    float v = i < nope ? x[i] : 0.0f;") + 1
    assert (err.line, err.column) == (line, broken.split("\n")[line - 1].index("nope") + 1)
    assert "file" not in err.details


def test_steps_inside_a_header_are_shown_on_its_include_line(tmp_path):
    _write(tmp_path, HEADERS)
    x = np.ones(32, np.float32)
    result = launch(KERNEL, "warp_sums", 1, 32, [x, np.zeros(1, np.float32), np.int32(32)],
                    trace=True, include_dirs=[tmp_path])
    lines = KERNEL.split("\n")
    include_line = lines.index('#include "reduce.cuh"') + 1
    sites = {(s.line, s.col_start, s.col_end) for s in result.trace[0]}
    assert (include_line, 1, len('#include "reduce.cuh"') + 1) in sites  # the shuffle loop
    body = range(lines.index("extern \"C\" __global__ void warp_sums(const float* x, float* out, int n) {") + 1,
                 len(lines) + 1)
    for line, start, end in sites:
        assert line == include_line or line in body
        assert 1 <= start < end <= len(lines[line - 1]) + 1


def test_an_error_inside_a_header_names_the_header_its_line_and_column(tmp_path):
    _write(tmp_path, {"bad.cuh": "// helpers\n__device__ float f(float v) {\n    return v * missing;\n}\n"})
    source = '// a kernel\n#include "bad.cuh"\nextern "C" __global__ void k(float* a) { a[0] = f(a[0]); }\n'
    err = _compile_error(source, tmp_path)
    assert err.line == 2 and err.column == 1
    assert 'in "bad.cuh" line 3, column 16' in str(err) and "missing" in str(err)
    assert (err.details["file"], err.details["file_line"], err.details["file_column"]) == ("bad.cuh", 3, 16)


def test_a_syntax_error_inside_a_nested_header_names_both_headers(tmp_path):
    _write(tmp_path, {"outer.cuh": '\n#include "inner.cuh"\n', "inner.cuh": "\n\n__device__ int g() { return 1 +; }\n"})
    source = '#include "outer.cuh"\nextern "C" __global__ void k(int* a) { a[0] = g(); }\n'
    err = _compile_error(source, tmp_path)
    alone = _compile_error((tmp_path / "inner.cuh").read_text())  # the same error in a main file
    assert err.line == 1 and alone.line == 3
    assert f'in "outer.cuh" line 2: in "inner.cuh" line 3, column {alone.column}: {alone.detail}' in str(err)
    assert err.construct == alone.construct == "syntax"


def test_an_unsupported_construct_inside_a_header_names_the_header(tmp_path):
    _write(tmp_path, {"t.cuh": "\n__managed__ int counter;\n"})
    err = _compile_error('#include "t.cuh"\n', tmp_path)
    assert err.line == 1 and 'in "t.cuh" line 2, column 1' in str(err)
    assert err.construct == "__managed__"


@pytest.mark.parametrize("header, words", [
    ("#if 1\nint x;\n", ['in "h.cuh" line 3', "#if without #endif"]),
    ("\n#error this header needs C++20\n", ['in "h.cuh" line 2', "#error this header needs C++20"]),
    ("\n\n/* never closed\n", ['in "h.cuh" line 3', "unterminated comment"]),
])
def test_a_directive_error_inside_a_header_names_it(tmp_path, header, words):
    _write(tmp_path, {"h.cuh": header})
    err = _compile_error('\n#include "h.cuh"\n', tmp_path)
    assert err.line == 2
    for word in words:
        assert word in str(err)


# ----------------------------------------------------------------------------- refusals


def test_a_missing_header_names_the_file_the_folders_searched_and_the_line(tmp_path):
    err = _compile_error('// kernel\n\n  #include "helper_cuda.h"\n', tmp_path)
    assert (err.line, err.column, err.construct) == (3, 3, "#include")
    assert '"helper_cuda.h": file not found' in str(err) and str(tmp_path) in str(err)


def test_a_missing_header_without_include_directories_says_none_were_given():
    err = _compile_error('#include "util.cuh"\n')
    assert "no include directories given" in str(err) and err.line == 1


@pytest.mark.parametrize("header, words", [
    ("thrust/sort.h", ["<thrust/sort.h>", "not a header the emulator has built in", "cuda_runtime.h"]),
    ("cuda_fp16.h", ["<cuda_fp16.h>", "half precision"]),
    ("cuda_bf16.h", ["<cuda_bf16.h>", "bfloat16"]),
])
def test_unknown_or_unsupported_system_headers_are_named(header, words):
    err = _compile_error(f"\n#include <{header}>\n")
    assert err.line == 2 and err.construct == "#include"
    for word in words:
        assert word in str(err)


def test_angle_bracket_names_are_also_looked_for_in_the_include_directories(tmp_path):
    _write(tmp_path, {"mylib.cuh": "#define LIB 6\n"})
    source = '#include <mylib.cuh>\nextern "C" __global__ void k(int* o) { o[0] = LIB; }\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out], include_dirs=[tmp_path])
    assert out[0] == 6
    err = _compile_error("#include <thrust/sort.h>\n", tmp_path)
    assert "not a header the emulator has built in" in str(err) and f"not found in {tmp_path}" in str(err)


def test_an_include_cycle_without_guards_is_named_once(tmp_path):
    _write(tmp_path, {"a.cuh": '#include "b.cuh"\n', "b.cuh": '\n#include "a.cuh"\n'})
    err = _compile_error('\n\n#include "a.cuh"\n', tmp_path)
    assert err.line == 3 and err.construct == "#include cycle"
    assert str(err).count("#include cycle") == 1
    assert "a.cuh -> b.cuh -> a.cuh" in str(err)


def test_guards_stop_mutual_includes(tmp_path):
    _write(tmp_path, {"a.cuh": ('#ifndef A_CUH\n#define A_CUH\n#include "b.cuh"\n'
                                '__device__ int fa() { return fb() + 1; }\n#endif\n'),
                      "b.cuh": '#pragma once\n#include "a.cuh"\n__device__ int fb() { return 40; }\n'})
    source = '#include "a.cuh"\nextern "C" __global__ void k(int* o) { o[0] = fa() + 1; }\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out], include_dirs=[tmp_path])
    assert out[0] == 42
    _nvrtc(source, {"a.cuh": (tmp_path / "a.cuh").read_text(), "b.cuh": (tmp_path / "b.cuh").read_text()})


@pytest.mark.parametrize("directive, words", [
    ("#include", ['#include expects "FILE" or <FILE>']),
    ("#include util.cuh", ['#include expects "FILE" or <FILE>', "'util.cuh'"]),
])
def test_a_malformed_include_is_named(directive, words):
    err = _compile_error(f"{directive}\n")
    assert err.construct == "#include" and err.line == 1
    for word in words:
        assert word in str(err)


def test_an_include_named_by_a_macro_is_found(tmp_path):
    _write(tmp_path, {"cfg.cuh": "#define N 9\n"})
    source = '#define CONFIG "cfg.cuh"\n#include CONFIG\nextern "C" __global__ void k(int* o) { o[0] = N; }\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out], include_dirs=[tmp_path])
    assert out[0] == 9


def test_an_include_in_a_skipped_branch_is_not_looked_for():
    source = '#ifdef __NEVER__\n#include "absent.cuh"\n#endif\nextern "C" __global__ void k(int* o) { o[0] = 5; }\n'
    out = np.zeros(1, np.int32)
    launch(source, "k", 1, 1, [out])
    assert out[0] == 5


# ----------------------------------------------------------------------------- command line


def test_gpulab_emulate_finds_a_header_next_to_the_kernel_file(tmp_path, capsys):
    _write(tmp_path, {**HEADERS, "warp_sums.cu": KERNEL})
    code = cli_main(["emulate", str(tmp_path / "warp_sums.cu"), "--kernel", "warp_sums", "--grid", "1",
                     "--block", "64", "--arg", "float32[64]=ones", "--arg", "float32[2]=zeros",
                     "--arg", "int=64"])
    assert code == 0, capsys.readouterr().err


def test_gpulab_emulate_searches_each_include_dir(tmp_path, capsys):
    _write(tmp_path / "src", {"k.cu": '#include "shared.cuh"\nextern "C" __global__ void k(int* o) { o[0] = S; }\n'})
    _write(tmp_path / "inc", {"shared.cuh": "#define S 3\n"})
    args = ["emulate", str(tmp_path / "src" / "k.cu"), "--kernel", "k", "--grid", "1", "--block", "1",
            "--arg", "int32[1]=zeros"]
    assert cli_main(args) == 1
    assert '"shared.cuh": file not found' in capsys.readouterr().err
    assert cli_main([*args, "--include-dir", str(tmp_path / "inc")]) == 0
