"""Device printf: C formatting, one record per lane and call, in a capped per-launch log."""

import ctypes
import ctypes.util
import itertools

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt import printf as pf
from tests.gpulab.simt.nvrtc_check import compiles


def nvrtc_compiles(source: str) -> None:
    compiles(source, "printf.cu")


def launch(body: str, grid=1, block=32, params: str = "", args=()):
    source = f"""
extern "C" __global__ void k(int* ret{params}) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    {body}
}}
"""
    ret = np.zeros(grid * block if isinstance(grid, int) else 1, dtype=np.int32)
    return source, simt.launch(source, "k", grid, block, [ret, *args])


def texts(result) -> list[str]:
    return [r.text for r in result.printf]


# ------------------------------------------------------------------ the formatter against glibc
def libc_snprintf():
    name = ctypes.util.find_library("c")
    if name is None:
        pytest.skip("no C library to compare with")
    libc = ctypes.CDLL(name)
    if not hasattr(libc, "snprintf"):
        pytest.skip("the C library has no snprintf")

    def c_format(fmt: str, arg) -> str:
        buf = ctypes.create_string_buffer(1024)
        libc.snprintf(buf, 1024, fmt.encode(), arg)
        return buf.value.decode("latin-1")
    return c_format


FLAGS = ["", "-", "+", " ", "0", "#", "0+", "- ", "#0"]
WIDTHS = ["", "1", "9", "22"]
PRECISIONS = ["", ".0", ".1", ".4", ".12"]


def specs(conversions: str, length: str = ""):
    for flags, width, precision, conv in itertools.product(FLAGS, WIDTHS, PRECISIONS, conversions):
        yield f"%{flags}{width}{precision}{length}{conv}"


def check(c_format, fmt: str, value, c_value) -> None:
    (conversion,) = pf.parse_format(fmt)
    assert pf.format_value(conversion, value, conversion.width, conversion.precision) == c_format(fmt, c_value), fmt


def test_integer_conversions_print_as_glibc_does_with_every_flag_width_and_precision():
    c_format = libc_snprintf()
    for fmt in specs("diuxXo"):
        for v in (0, 1, -1, 42, -2**31, 2**31 - 1, 4096):
            check(c_format, fmt, v if fmt[-1] in "di" else v & 0xFFFFFFFF, ctypes.c_int(v))
    for fmt in specs("dxu", "ll"):
        for v in (-2**63, 2**63 - 1, -5, 2**40):
            check(c_format, fmt, v if fmt[-1] == "d" else v & (2**64 - 1), ctypes.c_longlong(v))


def test_floating_conversions_print_as_glibc_does_including_inf_nan_and_negative_zero():
    c_format = libc_snprintf()
    values = (0.0, -0.0, 0.5, 2.5, -1.5, 1 / 3, 1e-5, 123456789.0, 1e300, -2.5e-300, 1e21, 9.9999999,
              float("inf"), -float("inf"), float("nan"), -float("nan"), float(np.float32(0.1)))
    for fmt in specs("fFeEgG"):
        for v in values:
            check(c_format, fmt, v, ctypes.c_double(v))


def test_char_string_and_pointer_conversions_print_as_glibc_does():
    c_format = libc_snprintf()
    for fmt in specs("c"):
        for v in (65, 48, 122):
            check(c_format, fmt, v, ctypes.c_int(v))
    for fmt in specs("s"):
        for v in ("hello", ""):
            check(c_format, fmt, v, v.encode())
    for fmt in specs("p"):
        for v in (0, 0x7F0000001000):
            check(c_format, fmt, v, ctypes.c_void_p(v))


# ------------------------------------------------------------------ kernels
def test_each_active_lane_prints_one_record_in_lane_order_with_its_coordinates():
    source, r = launch('if (threadIdx.x % 5 == 1) printf("thread %d of block %d\\n", threadIdx.x, blockIdx.x);',
                       grid=2, block=40)
    expected = [(b, t) for b in range(2) for t in range(40) if t % 5 == 1]
    assert texts(r) == [f"thread {t} of block {b}\n" for b, t in expected]
    rec = r.printf[3]  # block 0, thread 16: warp 0, lane 16
    assert (rec.block, rec.thread, rec.warp, rec.lane, rec.line) == ((0, 0, 0), (16, 0, 0), 0, 16, 4)
    late = r.printf[-1]  # block 1, thread 36: the block's second warp = global warp 3
    assert (late.block, late.thread, late.warp, late.lane) == ((1, 0, 0), (36, 0, 0), 3, 4)
    assert late.tagged() == "[block (1,0,0) thread (36,0,0)] thread 36 of block 1"
    assert r.printf_lost == 0
    nvrtc_compiles(source)


def test_records_follow_the_lock_step_order_call_by_call_and_threads_of_2d_blocks_are_named():
    source, r = launch('printf("a%d ", threadIdx.y); printf("b\\n");', block=(2, 2))
    assert texts(r) == ["a0 ", "a0 ", "a1 ", "a1 ", "b\n", "b\n", "b\n", "b\n"]
    assert [rec.thread for rec in r.printf[:4]] == [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    nvrtc_compiles(source)


def test_negative_and_huge_integers_wrap_to_the_conversions_type():
    body = ('printf("%d %u %x %X %o %i|", -1, -1, -1, 255u, 8, INT_MIN);'
            'printf("%lld %llu %llx %ld %lu|", (long long)-9223372036854775807LL - 1, 18446744073709551615ULL,'
            ' -2LL, 1LL << 40, (unsigned long long)-1);'
            'printf("%hd %hhu %hhd|", 70000, 511, 200);'
            'unsigned int big = 4294967295u; printf("%u %d %zu %c\\n", big, big, sizeof(double), 65 + 256);')
    source, r = launch("if (i == 0) { " + body + " }", block=32)
    assert "".join(texts(r)) == ("-1 4294967295 ffffffff FF 10 -2147483648|"
                                 "-9223372036854775808 18446744073709551615 fffffffffffffffe 1099511627776 "
                                 "18446744073709551615|4464 255 -56|4294967295 -1 8 A\n")
    nvrtc_compiles(source.replace("INT_MIN", "(-2147483647 - 1)"))


def test_floats_are_promoted_to_double_exactly_and_print_with_c_rounding():
    body = ('if (i == 0) { float f = 0.1f; double d = 0.1; '
            'printf("%.10f %.17g %.3e %g %g %#g %+.2f %08.3f %-8.2f| %f %f %e\\n", f, d, 12345.678f, 1e-5f, 1e16,'
            ' 1.0, 2.5, -3.14159f, 0.125, x[0], x[1], x[2]); }')
    x = np.array([np.inf, -np.nan, -0.0], dtype=np.float32)
    source, r = launch(body, params=", const float* x", args=(x,))
    assert texts(r) == [f"{float(np.float32(0.1)):.10f} 0.10000000000000001 1.235e+04 1e-05 1e+16 1.00000 +2.50 "
                        "-003.142 0.12    | inf -nan -0.000000e+00\n"]
    nvrtc_compiles(source)


def test_star_width_and_precision_take_int_arguments_and_a_negative_width_left_justifies():
    source, r = launch('if (i < 2) printf("[%*.*f][%*d]\\n", 8 - i, 2 + i, 3.14159, i ? -5 : 5, 42);')
    assert texts(r) == ["[    3.14][   42]\n", "[  3.142][42   ]\n"]
    nvrtc_compiles(source)


def test_string_literals_concatenate_escape_and_print_with_precision():
    source, r = launch('if (i == 0) printf("%s|%.3s|%-6s|%5s|tab\\tquote\\"q\\x41\\101%%\\n", "hi" " there",'
                       ' "abcdef", "ab", "xyz");')
    assert texts(r) == ['hi there|abc|ab    |  xyz|tab\tquote"qAA%\n']
    nvrtc_compiles(source)


def test_printf_returns_the_number_of_arguments_and_extra_arguments_are_evaluated():
    source, r = launch('int c = 0; ret[i] = printf("%d\\n", i, c++, c++); ret[i] += 10 * c;', block=4)
    assert r.args[0].tolist() == [23, 23, 23, 23]
    assert texts(r) == ["0\n", "1\n", "2\n", "3\n"]
    nvrtc_compiles(source)


def test_a_divergent_printf_prints_only_for_the_lanes_on_its_path():
    source, r = launch('if (i % 2) printf("odd %d\\n", i); else printf("even %d\\n", i);', block=8)
    assert texts(r) == [f"odd {i}\n" for i in (1, 3, 5, 7)] + [f"even {i}\n" for i in (0, 2, 4, 6)]
    nvrtc_compiles(source)


def test_pointers_print_as_emulator_addresses_and_null_as_nil():
    source, r = launch('int* none = 0; if (i == 0) printf("%p %p\\n", ret, none);')
    address = int(r.printf[0].text.split()[0], 16)
    assert address >= 0x7F00_0000_0000 and r.printf[0].text.endswith(" (nil)\n")
    nvrtc_compiles(source)


def test_a_full_buffer_keeps_the_newest_records_and_counts_the_lost_ones(monkeypatch):
    monkeypatch.setattr(pf, "PRINTF_BUFFER_BYTES", 100)
    monkeypatch.setattr(pf.PrintfLog.__init__, "__defaults__", (100,))
    _, r = launch('printf("line %03d\\n", i);', block=64)  # 9 bytes a record: 11 fit in 100
    assert texts(r) == [f"line {i:03d}\n" for i in range(53, 64)]
    assert r.printf_lost == 53


def test_a_faulting_kernel_keeps_what_it_printed_before_the_fault():
    source = """extern "C" __global__ void k(int* a) {
    printf("before %d\\n", threadIdx.x);
    a[threadIdx.x * 1000000] = 1;
}"""
    with pytest.raises(simt.KernelFault) as info:
        simt.launch(source, "k", 1, 4, [np.zeros(4, np.int32)])
    assert [rec.text for rec in info.value.printf] == [f"before {t}\n" for t in range(4)]


# ------------------------------------------------------------------ named rejections
@pytest.mark.parametrize("call, match", [
    ('printf("%d\\n", 1.5f)', "'%d' takes an integer, but argument 1 is float \\(use %f\\)"),
    ('printf("%f\\n", i)', "'%f' takes a float or double, but argument 1 is int"),
    ('printf("%lld\\n", i)', "'%lld' takes a 64-bit integer, but argument 1 is int"),
    ('printf("%d\\n", 1LL << 40)', "'%d' takes an int-sized integer, but argument 1 is long long \\(use %lld\\)"),
    ('printf("%s\\n", ret)', "'%s' prints string literals only"),
    ('printf("%p\\n", i)', "'%p' takes a pointer"),
    ('printf("%d %d\\n", i)', "more conversions than arguments \\('%d' has none; 1 given\\)"),
    ('printf("%n\\n", ret)', "the conversion '%n' is not supported"),
    ('printf("%Lf\\n", 1.0)', "the length modifier in '%Lf' is not supported"),
    ('printf("50%")', "ends in the middle of the conversion"),
    ('printf(0)', "the format must be a string literal"),
    ("printf(\"" + "%d" * 33 + "\"" + ", i" * 33 + ")", "33 arguments after the format; CUDA takes at most 32"),
])
def test_printf_mistakes_are_compile_errors_that_name_printf_and_the_line(call, match):
    with pytest.raises(simt.CompileError, match=match) as info:
        launch(call + ";")
    assert info.value.construct == "printf"
    assert info.value.line == 4


# ------------------------------------------------------------------ gpulab emulate
def emulate(tmp_path, source: str, *extra: str) -> int:
    import argparse

    from gpulab.simt import cli

    path = tmp_path / "hello.cu"
    path.write_text(source)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(["emulate", str(path), "--kernel", "k", "--grid", "2", "--block", "3",
                              "--arg", "int32[6]", *extra])
    return args.func(args)


HELLO = """extern "C" __global__ void k(int* a) {
    printf("hello from %d\\n", blockIdx.x * blockDim.x + threadIdx.x);
    a[threadIdx.x * (blockIdx.x + 1) * 1000] = 1;
}"""


def test_gpulab_emulate_prints_the_log_tagged_with_block_and_thread_before_the_metrics(tmp_path, capsys):
    assert emulate(tmp_path, HELLO.replace("* 1000", "* 0")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == [f"[block ({b},0,0) thread ({t},0,0)] hello from {3 * b + t}" for b in range(2) for t in range(3)]
    assert out[7].startswith("k<<<")


def test_gpulab_emulate_json_carries_the_records(tmp_path, capsys):
    import json

    assert emulate(tmp_path, HELLO.replace("* 1000", "* 0"), "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["printf"][4] == {"block": [1, 0, 0], "thread": [1, 0, 0], "warp": 1, "lane": 1, "line": 2,
                                "text": "hello from 4\n"}
    assert out["printf_lost"] == 0


def test_gpulab_emulate_prints_what_a_faulting_kernel_printed_before_its_fault(tmp_path, capsys):
    assert emulate(tmp_path, HELLO) == 1
    captured = capsys.readouterr()
    assert "[block (1,0,0) thread (2,0,0)] hello from 5" in captured.out
    assert "out-of-bounds" in captured.err
