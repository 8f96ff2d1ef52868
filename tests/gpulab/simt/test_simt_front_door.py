"""The emulator's front door: hostile or odd sources are refused quickly, at their line, with
a reason; harmless oddities (a byte order mark, old Mac line ends) are read as editors read them."""

import os
import threading
import tracemalloc

import numpy as np
import pytest

from gpulab.simt import CompileError, KernelFault, launch
from gpulab.simt import preprocess as pp
from gpulab.simt.translate import compile_source

KERNEL = 'extern "C" __global__ void k(int* o) { o[threadIdx.x] = threadIdx.x + 1; }\n'


def _refusal(source: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_source(source)
    return info.value


def _runs(source: str) -> np.ndarray:
    out = np.zeros(4, np.int32)
    launch(source, "k", 1, 4, [out])
    return out


def test_a_source_starting_with_a_utf8_byte_order_mark_compiles_and_runs():
    assert _runs("\ufeff" + KERNEL).tolist() == [1, 2, 3, 4]


def test_carriage_return_line_ends_are_line_ends_and_errors_keep_their_line():
    source = "#define ONE 1\r" + KERNEL.replace("threadIdx.x + 1", "threadIdx.x + ONE")
    assert _runs(source).tolist() == [1, 2, 3, 4]
    err = _refusal("// first\r// second\rint x = ;\r")
    assert err.line == 3


def test_windows_line_ends_after_a_byte_order_mark_run():
    assert _runs("\ufeff" + KERNEL.replace("\n", "\r\n")).tolist() == [1, 2, 3, 4]


def test_a_name_followed_by_a_block_is_a_syntax_error_at_its_line():
    err = _refusal(KERNEL + "i\n{ int x = 1; }\n")
    assert err.line == 2 and err.construct == "syntax"
    assert "'i'" in err.detail and "internal error" not in err.detail


def test_ifs_nested_past_the_bound_are_refused_at_the_first_line_too_deep():
    depth = pp.MAX_IF_DEPTH + 1
    err = _refusal("#if 1\n" * depth + KERNEL + "#endif\n" * depth)
    assert err.line == depth and err.construct == "#if depth"
    assert str(pp.MAX_IF_DEPTH) in err.detail


def test_ifs_nested_to_the_bound_are_still_read():
    depth = pp.MAX_IF_DEPTH
    assert _runs("#if 1\n" * depth + KERNEL + "#endif\n" * depth).tolist() == [1, 2, 3, 4]


def test_too_many_directives_are_refused_at_the_first_one_over(monkeypatch):
    monkeypatch.setattr(pp, "MAX_DIRECTIVES", 50)
    defines = "".join(f"#define M{i} {i}\n" for i in range(60))
    err = _refusal(defines + KERNEL)
    assert err.line == 51 and err.construct == "directive count"


def test_thousands_of_defines_take_memory_in_proportion_not_a_table_per_line():
    defines = "".join(f"#define M{i} {i}\n" for i in range(4000))
    tracemalloc.start()
    try:
        pre = pp.preprocess(defines + KERNEL.replace("+ 1", "+ M3999"))
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "+ 3999" in pre.text
    assert peak_bytes < 64 * 2**20  # a table copied per line took 4000 x 4000 / 2 entries


def test_a_line_longer_than_the_bound_is_refused_before_parsing():
    long_line = "int x = " + "(" * pp.MAX_LINE_CHARS + "1" + ")" * pp.MAX_LINE_CHARS + ";\n"
    err = _refusal(KERNEL + long_line)
    assert err.line == 2 and err.construct == "line length"
    assert f"{pp.MAX_LINE_CHARS:,}" in err.detail


def test_a_source_over_the_size_bound_is_refused_naming_the_size():
    filler = ("// " + "x" * 1000 + "\n") * (pp.MAX_SOURCE_CHARS // 1000 + 1)
    err = _refusal(filler + KERNEL)
    assert err.construct == "source size" and f"{pp.MAX_SOURCE_CHARS:,}" in err.detail


def test_headers_together_over_the_total_bound_are_refused_at_their_include_line(tmp_path, monkeypatch):
    monkeypatch.setattr(pp, "MAX_TOTAL_CHARS", 5000)
    (tmp_path / "big.cuh").write_text(("// " + "y" * 100 + "\n") * 60)
    with pytest.raises(CompileError) as info:
        compile_source('#include "big.cuh"\n' + KERNEL, include_dirs=[tmp_path])
    assert info.value.line == 1 and info.value.construct == "source size"


@pytest.mark.parametrize("spelled", ['"/etc/passwd"', '"../secret.txt"', '"/proc/self/environ"'])
def test_an_include_outside_the_include_folders_is_refused_naming_the_rule(tmp_path, spelled):
    (tmp_path / "secret.txt").write_text("int leaked_token_42;\n")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    err = _refusal_in(kernels, f"#include {spelled}\n" + KERNEL)
    assert err.line == 1 and err.construct == "include outside the include folders"
    assert "outside the folders the emulator reads headers from" in err.detail
    assert "leaked_token_42" not in str(err)


def test_a_symbolic_link_out_of_the_include_folder_is_refused(tmp_path):
    (tmp_path / "secret.txt").write_text("int leaked;\n")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "link.cuh").symlink_to(tmp_path / "secret.txt")
    err = _refusal_in(kernels, '#include "link.cuh"\n' + KERNEL)
    assert err.construct == "include outside the include folders"


def test_a_header_in_a_subfolder_of_the_include_folder_is_still_read(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "one.cuh").write_text("#define ONE 1\n")
    source = '#include "sub/one.cuh"\n' + KERNEL.replace("+ 1", "+ ONE")
    out = np.zeros(4, np.int32)
    launch(source, "k", 1, 4, [out], include_dirs=[tmp_path])
    assert out.tolist() == [1, 2, 3, 4]


def test_a_fifo_named_as_a_header_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.cuh")
    result: list[BaseException | None] = []

    def compile_it() -> None:
        try:
            compile_source('#include "pipe.cuh"\n' + KERNEL, include_dirs=[tmp_path])
            result.append(None)
        except BaseException as exc:  # handed to the test thread
            result.append(exc)
    worker = threading.Thread(target=compile_it, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # unblock the reader so the thread ends, then fail
        with open(os.open(tmp_path / "pipe.cuh", os.O_WRONLY | os.O_NONBLOCK), "w"):
            pass
        pytest.fail("compiling a kernel that includes a FIFO blocked")
    assert isinstance(result[0], CompileError)
    assert result[0].line == 1 and "not a regular file" in result[0].detail


def _refusal_in(folder, source: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_source(source, include_dirs=[folder])
    return info.value


BIG_STRUCT = "struct S { float a[1 << 26]; float b; };\n"


@pytest.mark.parametrize("body, words", [
    ("S s; s.b = 1; o[0] = s.b;", "a struct value of type S"),
    ("o[0] = S().b;", "a struct value of type S"),
    ("o[0] = (S){}.b;", "a struct value of type S"),
])
def test_a_struct_over_the_per_thread_limit_held_by_a_thread_is_refused_at_its_line(body, words):
    err = _refusal(BIG_STRUCT + f'extern "C" __global__ void k(float* o) {{\n  {body}\n}}\n')
    assert err.line == 3 and err.construct == "struct size"
    assert words in err.detail and "512 KiB" in err.detail


def test_a_struct_parameter_over_the_limit_is_refused_at_its_function():
    err = _refusal(BIG_STRUCT + "__device__ float f(S s) { return s.b; }\n"
                   'extern "C" __global__ void k(float* o) { o[0] = 0; }\n')
    assert err.line == 2 and "parameter 's'" in err.detail


def test_struct_variables_count_with_local_arrays_against_the_per_thread_limit():
    source = ("struct H { float a[70000]; };\n"  # 280,000 bytes each
              'extern "C" __global__ void k(float* o) {\n  H x;\n  H y;\n  o[0] = 0;\n}\n')
    err = _refusal(source)
    assert err.line == 4 and err.construct == "local memory size"


def test_a_big_struct_reached_through_a_pointer_is_still_allowed():
    source = BIG_STRUCT + 'extern "C" __global__ void k(S* p, float* o) { if (p) o[0] = p->b; }\n'
    out = np.zeros(1, np.float32)
    launch(source, "k", 1, 1, [None, out])
    assert out[0] == 0


DIVIDE = 'extern "C" __global__ void k(int* o, const int* d) {\n  int i = threadIdx.x;\n  %s\n}\n'


def _divided(body: str, divisors: list[int]) -> list[int]:
    out = np.zeros(len(divisors), np.int32)
    launch(DIVIDE % body, "k", 1, len(divisors), [out, np.array(divisors, np.int32)])
    return out.tolist()


@pytest.mark.parametrize("body, word", [("o[i] = 10 / d[i];", "division"),
                                        ("o[i] = 10 % d[i];", "remainder (%)"),
                                        ("int x = 10; x /= d[i]; o[i] = x;", "division"),
                                        ("o[i] = 10u / (unsigned)d[i];", "division")])
def test_an_integer_division_by_zero_is_a_fault_naming_the_line_and_the_lanes(body, word):
    with pytest.raises(KernelFault) as info:
        _divided(body, [1, 0, 2, 0])
    err = info.value
    assert err.kind == "division-by-zero" and err.line == 3 and err.lanes == (1, 3)
    assert f"integer {word} by zero" in str(err) and "thread (1,0,0)" in str(err)


@pytest.mark.parametrize("body, expected", [
    ("o[i] = d[i] ? 10 / d[i] : -7;", [10, -7, 5, -7]),
    ("o[i] = d[i] != 0 && 10 / d[i] > 2;", [1, 0, 1, 0]),
    ("if (d[i] != 0) o[i] = 10 / d[i]; else o[i] = -1;", [10, -1, 5, -1]),
    ("o[i] = 10.0f / d[i] > 1e30f;", [0, 1, 0, 1]),  # float division by zero is IEEE infinity
])
def test_a_division_guarded_against_zero_runs_only_in_the_lanes_let_through(body, expected):
    assert _divided(body, [1, 0, 2, 0]) == expected

