"""C arithmetic semantics, bit-exact: truncating division, wrap-around, conversions."""

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.fused import fma32


def _eval_int(expr: str, ctype: str = "long long", decls: str = "") -> int:
    dtype = {"long long": np.int64, "unsigned long long": np.uint64, "int": np.int32,
             "unsigned int": np.uint32}[ctype]
    src = f"""
    extern "C" __global__ void k({ctype}* out) {{
        {decls}
        out[threadIdx.x] = ({ctype})({expr});
    }}"""
    out = np.zeros(1, dtype=dtype)
    simt.launch(src, "k", 1, 1, [out])
    return int(out[0])


@pytest.mark.parametrize("expr, expected", [
    ("-7 / 2", -3), ("-7 % 2", -1), ("7 / -2", -3), ("7 % -2", 1), ("-7 / -2", 3),
    ("(int)-3.99f", -3), ("(int)3.99", 3), ("(int)-0.5f", 0),
    ("-1 < 1u", 0), ("-1 < 1", 1), ("-1 < 1ll", 1), ("(unsigned)-1 > 0", 1),
    ("1 << 31", -2**31), ("-16 >> 2", -4), ("0xffffffff", 4294967295),
    ("2147483647 + 1", -2**31), ("(char)200", -56), ("(unsigned char)300", 44),
    ("'A' + 1", 66), ("sizeof(double) + sizeof(int)", 12), ("(7 & 3) | (8 ^ 2)", 11),
    ("!5 + !0", 1), ("~0", -1), ("10 > 3 ? 4 : 5.5", 4), ("(long long)2147483647 * 2", 4294967294),
])
def test_integer_expression_matches_c_semantics(expr, expected):
    assert _eval_int(expr) == expected


def test_unsigned_subtraction_wraps_to_32_bits():
    assert _eval_int("0u - 1", "unsigned long long") == 4294967295
    assert _eval_int("u - 1u", "unsigned int", "unsigned int u = 0;") == 4294967295


def test_unsigned_division_and_modulo_are_unsigned():
    assert _eval_int("(0u - 7) / 2u", "unsigned int") == (2**32 - 7) // 2
    assert _eval_int("(0u - 7) % 10u", "unsigned int") == (2**32 - 7) % 10


def test_signed_overflow_of_int_multiplication_wraps_like_two_complement():
    assert _eval_int("a * a", "int", "int a = 65536;") == 0
    assert _eval_int("a * 3", "int", "int a = 1000000000;") == (3_000_000_000 + 2**31) % 2**32 - 2**31


def test_unsigned_long_long_arithmetic_wraps_at_64_bits():
    assert _eval_int("x * 2ull + 5ull", "unsigned long long",
                     "unsigned long long x = 0x8000000000000000ull;") == 5


def test_per_lane_division_truncates_toward_zero_for_every_sign_combination():
    src = """
    extern "C" __global__ void k(const int* a, const int* b, int* q, int* r) {
        int i = threadIdx.x;
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
    }"""
    rng = np.random.default_rng(1)
    a = rng.integers(-1000, 1000, 64).astype(np.int32)
    b = rng.integers(1, 50, 64).astype(np.int32) * rng.choice([-1, 1], 64).astype(np.int32)
    q = np.zeros(64, np.int32)
    r = np.zeros(64, np.int32)
    simt.launch(src, "k", 1, 64, [a, b, q, r])
    assert q.tolist() == [int(x / y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert r.tolist() == [x - int(x / y) * y for x, y in zip(a.tolist(), b.tolist(), strict=True)]


def test_float_arithmetic_stays_in_float32():
    src = """
    extern "C" __global__ void k(const float* a, float* out) {
        int i = threadIdx.x;
        float x = a[i];
        out[i] = x * 3.0f + x / 7.0f - 0.1f;
    }"""
    a = np.linspace(-3, 3, 32).astype(np.float32)
    out = np.zeros(32, np.float32)
    simt.launch(src, "k", 1, 32, [a, out])
    f = np.float32
    # x * 3.0f + x / 7.0f is one fma, as NVRTC compiles it (fma.rn.f32 then add.f32 of -0.1f).
    expected = fma32(a, f(3.0), a / f(7.0)) - f(0.1)
    assert np.array_equal(out, expected)


def test_float_times_double_literal_is_computed_in_double():
    src = """
    extern "C" __global__ void k(const float* a, float* out) {
        out[threadIdx.x] = a[threadIdx.x] * 0.1;
    }"""
    a = np.array([1.0, 3.0, 7.0], dtype=np.float32)
    out = np.zeros(3, np.float32)
    simt.launch(src, "k", 1, 3, [a, out])
    assert np.array_equal(out, (a.astype(np.float64) * 0.1).astype(np.float32))


def test_scalar_arguments_convert_to_parameter_types():
    src = """
    extern "C" __global__ void k(double* out, float f, unsigned int u, char c, bool b) {
        out[0] = f; out[1] = u; out[2] = c; out[3] = b;
    }"""
    out = np.zeros(4)
    simt.launch(src, "k", 1, 1, [out, 0.1, -1, 130, 5])
    assert out.tolist() == [float(np.float32(0.1)), 4294967295.0, -126.0, 1.0]


def test_mixed_types_in_usual_arithmetic_conversions():
    src = """
    extern "C" __global__ void k(long long* out) {
        unsigned int u = 3; int s = -5; long long L = -5; unsigned char c = 250;
        out[0] = u + s;
        out[1] = L + u;
        out[2] = c + c;
        out[3] = (s < u);
        out[4] = (L < u);
    }"""
    out = np.zeros(5, np.int64)
    simt.launch(src, "k", 1, 1, [out])
    assert out.tolist() == [4294967294, -2, 500, 0, 1]


def test_macros_function_like_and_object_like_expand():
    src = """
    #define N 4
    #define SQ(x) ((x) * (x))
    #define IDX(r, c) ((r) * N + (c))
    extern "C" __global__ void k(int* out) {
        int t = threadIdx.x;
        out[IDX(t / N, t % N)] = SQ(t + 1);
    }"""
    out = np.zeros(16, np.int32)
    simt.launch(src, "k", 1, 16, [out])
    assert out.tolist() == [(t + 1) ** 2 for t in range(16)]


_K = 'extern "C" __global__ void k(int* a, const int n) {\n'


@pytest.mark.parametrize("source, line, words", [
    (_K + "    const int c = 1;\n    c = 2;\n}\n", 3, "'c' is declared const"),
    (_K + "    const int c = 1;\n    c++;\n}\n", 3, "'c' is declared const"),
    (_K + "    n += 1;\n}\n", 2, "'n' is declared const"),
    (_K + "    int x = 1;\n    int x = 2;\n}\n", 3, "'x' is already declared in this scope (first on line 2)"),
    (_K + "    __shared__ int s[4];\n    int s = 2;\n}\n", 3, "'s' is already declared"),
    (_K + "}\n" + _K + "}\n", 3, "kernel 'k' is defined twice (first on line 1)"),
    (_K + "    int b,\n}\n", 2, "a name is missing after this ','"),
    (_K + "    a[0] = 1;\n    int b,\n", 3, "a name is missing after this ','"),
    (_K + "    int i = 0;\n" + "if (i) " * 500 + "a[0] = 1;\n}\n", 3, "nested too deeply"),
    (_K + "    int (*f)(int);\n    f = a;\n}\n", 3, "cannot convert int* to int (*)(int)"),
])
def test_invalid_c_is_rejected_as_cuda_does_with_its_line(source, line, words):
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    assert info.value.line == line
    assert words in str(info.value)


def test_const_pointees_may_be_read_and_shadowing_in_an_inner_block_is_allowed():
    source = ('extern "C" __global__ void k(const int* a, int* b) {\n    const int* p = a;\n    p = a + 1;\n'
              "    int x = p[0];\n    { int x = 2; b[1] = x; }\n    b[0] = x;\n}\n")
    a = np.array([5, 7], dtype=np.int32)
    b = np.zeros(2, dtype=np.int32)
    simt.launch(source, "k", 1, 1, [a, b])
    assert b.tolist() == [7, 2]
