"""Float arithmetic as nvcc compiles it: C++ math overloads, and ``a * b + c`` contracted into one
fused multiply-add (nvcc's default ``-fmad=true``), rounded once; held against NVRTC's own PTX,
which needs no GPU: where its ``fma.rn`` instructions are, the emulator fuses, and nowhere else."""

from __future__ import annotations

import glob
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gpulab import nvrtc, simt
from gpulab.bench import corpus
from gpulab.simt.api import template_requests
from gpulab.simt.contraction import Comparison, ptx_fma_lines
from gpulab.simt.errors import CompileError
from gpulab.simt.fused import fma32, fma64
from gpulab.simt.translate import compile_source

ROOT = Path(__file__).resolve().parents[3]


def _needs_nvrtc() -> None:
    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


def _exact32(a, b, c) -> np.float32:
    """``a * b + c`` rounded once to float32, in rational arithmetic (ties to even)."""
    value = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    near = np.float32(float(value))
    around = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]
    return min(around, key=lambda x: (abs(Fraction(float(x)) - value), int(np.float32(x).view(np.int32)) & 1))


# ---------------------------------------------------------------- rounded once


def test_fma32_rounds_once_where_float64_then_float32_rounds_twice():
    # A product just off 2**-24 added to about 1: the float64 sum lands on a float32 midpoint.
    cases = [(1 + k * 2.0**-23, 2.0**-24 * (1 + j * 2.0**-23), c) for k in range(1, 200)
             for j in (-k, k, -(k + 1)) for c in (1.0, -1.0, 1 + 2.0**-23)]  # fmt: skip
    a, b, c = (np.array(column, np.float32) for column in zip(*cases, strict=True))
    want = np.array([_exact32(x, y, z) for x, y, z in zip(a, b, c, strict=True)], np.float32)
    twice = (a.astype(np.float64) * b + c).astype(np.float32)
    assert np.array_equal(fma32(a, b, c), want)
    assert not np.array_equal(twice, want)  # the cases are ones where rounding twice goes wrong


def test_fma64_is_the_exact_sum_rounded_once():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(2000), rng.standard_normal(2000)
    c = -a * b * (1 + rng.standard_normal(2000) * 1e-12)  # near cancellation: the error term decides
    want = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c, strict=True)]
    assert fma64(a, b, c).tolist() == want
    assert ((a * b + c) != np.array(want)).sum() > 1000


# ---------------------------------------------------------------- C++ overloads

OVERLOADS = r"""
extern "C" __global__ void k(const float* a, const float* b, const float* c, float* o, double* d) {
    int i = threadIdx.x;
    o[i] = fma(a[i], b[i], fma(-a[i], c[i], c[i]));
    o[i + 64] = fabs(a[i]) * 0.1f + c[i];
    o[i + 128] = pow(a[i], 2);
    d[i] = fma((double)a[i], (double)b[i], (double)c[i]);
}
"""


def test_math_functions_called_with_floats_are_the_float_overloads_as_in_cpp():
    rng = np.random.default_rng(4)
    a, b, c = (rng.standard_normal(64).astype(np.float32) for _ in range(3))
    o, d = np.zeros(192, np.float32), np.zeros(64, np.float64)
    simt.launch(OVERLOADS, "k", 1, 64, [a, b, c, o, d])
    assert np.array_equal(o[:64], fma32(a, b, fma32(-a, c, c)))
    promoted = (a.astype(np.float64) * b + (-a.astype(np.float64) * c + c)).astype(np.float32)
    assert (o[:64] != promoted).any()  # C's promotion to double is another answer
    assert np.array_equal(o[64:128], fma32(np.abs(a), np.float32(0.1), c))
    assert np.array_equal(o[128:], a * a)  # pow(float, int): CUDA's float overload
    assert np.array_equal(d, fma64(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)))


@pytest.mark.parametrize(("call", "types"), [("sqrt(n)", "int"), ("fmax(a[i], 0.5)", "float, double")])
def test_a_math_call_cpp_finds_ambiguous_is_refused_by_name_as_nvcc_refuses_it(call, types):
    source = f'extern "C" __global__ void k(const float* a, float* o, int n) {{ int i = threadIdx.x; o[i] = {call}; }}'
    with pytest.raises(CompileError) as info:
        compile_source(source)
    assert "ambiguous" in str(info.value) and f"({types})" in str(info.value)
    _needs_nvrtc()
    with pytest.raises(nvrtc.NvrtcCompileError, match="more than one instance of overloaded function"):
        nvrtc.compile_ptx(source, "k.cu")


# ---------------------------------------------------------------- contraction, case by case

BODY = 'extern "C" __global__ void k(const float* a, const float* b, const float* c, const float* d, float* o) {\n'
BODY += "    int i = threadIdx.x; float A = a[i], B = b[i], C = c[i], D = d[i];\n    o[i] = %s;\n}\n"
CASES = {  # the expression, and what NVRTC's PTX computes (checked below against the PTX itself)
    "A * B + C": lambda A, B, C, D: fma32(A, B, C),
    "C + A * B": lambda A, B, C, D: fma32(A, B, C),
    "A * B + C * D": lambda A, B, C, D: fma32(A, B, C * D),  # the left product
    "A * B - 0.5f": lambda A, B, C, D: fma32(A, B, np.float32(-0.5)),  # minus a constant: plus its negation
    "A * B - C": lambda A, B, C, D: A * B - C,  # a subtraction is not contracted
    "C - A * B": lambda A, B, C, D: C - A * B,
    "-A * B + C": lambda A, B, C, D: C - A * B,  # turned into a subtraction first
    "A * B + -C": lambda A, B, C, D: A * B - C,
    "A * 1.0f + C": lambda A, B, C, D: A + C,  # no product is left to fuse
    "(A * B) * C + D": lambda A, B, C, D: fma32(A * B, C, D),
    "A / B + C": lambda A, B, C, D: A / B + C,
}
ARGS = [np.random.default_rng(5).standard_normal(64).astype(np.float32) for _ in range(4)]


@pytest.mark.parametrize("expression", CASES)
def test_each_sum_is_contracted_exactly_where_nvrtc_contracts_it(expression):
    source = BODY % expression
    out = np.zeros(64, np.float32)
    simt.launch(source, "k", 1, 64, [*ARGS, out])
    assert np.array_equal(out, CASES[expression](*ARGS))
    _needs_nvrtc()
    ptx, _ = nvrtc.compile_ptx(source, "k.cu")
    fused_in_ptx = ptx_fma_lines(ptx, "k.cu")
    assert fused_in_ptx == compile_source(source).fused_lines  # line 3, or nowhere
    assert bool(fused_in_ptx) == (CASES[expression].__code__.co_names.count("fma32") > 0)


def test_fmad_false_rounds_every_product_and_sum_and_keeps_the_explicit_fma():
    source = BODY % "A * B + C + fmaf(C, D, A)"
    out = np.zeros(64, np.float32)
    simt.launch(source, "k", 1, 64, [*ARGS, out], fmad=False)
    A, B, C, D = ARGS
    assert np.array_equal(out, (A * B + C) + fma32(C, D, A))
    assert compile_source(source, fmad=False).fused_lines == (3,)  # the fmaf call only
    _needs_nvrtc()
    ptx, _ = nvrtc.compile_ptx(source, "k.cu", options=("-std=c++17", "-lineinfo", "-fmad=false"))
    assert sum(line.strip().startswith("fma.rn.f32") for line in ptx.splitlines()) == 1


# ---------------------------------------------------------------- every kernel we ship

# Where NVRTC fuses and the emulator does not yet: a product computed in one inlined function and
# added in another (the compiler sees them together after inlining; the emulator compiles each
# function on its own).
KNOWN = {"particles_aos_float3": ((8,), ())}


def _corpus_comparison(kernel: corpus.CorpusKernel) -> Comparison:
    names = tuple(n for n in template_requests(kernel.entry) if "<" in n)
    dirs = [str(kernel.path.parent), *nvrtc.cuda_include_dirs()]
    headers, options = nvrtc.nvcc_environment()
    ptx, _ = nvrtc.compile_ptx(kernel.source, kernel.path.name, options=("-std=c++17", "-lineinfo", *options),
                               name_expressions=names, include_dirs=dirs, headers=headers)  # fmt: skip
    program = compile_source(kernel.source, str(kernel.path), (kernel.path.parent,),
                             instantiate=template_requests(kernel.entry))  # fmt: skip
    return Comparison(ptx_fma_lines(ptx, kernel.path.name), program.fused_lines, program.library_lines)


def test_every_corpus_and_catalogue_kernel_fuses_on_the_lines_nvrtc_fuses():
    _needs_nvrtc()
    differences, fused_lines = {}, 0
    for kernel in corpus.load():
        found = _corpus_comparison(kernel)
        fused_lines += len(found.emulator)
        if not found.agrees:
            differences[kernel.name] = (found.only_nvrtc, found.only_emulator)
    for path in sorted(glob.glob(str(ROOT / "kernels" / "*.cu"))):
        source, name = Path(path).read_text(), Path(path).name
        ptx, _ = nvrtc.compile_ptx(source, name, include_dirs=nvrtc.cuda_include_dirs())
        program = compile_source(source, path)
        found = Comparison(ptx_fma_lines(ptx, name), program.fused_lines, program.library_lines)
        fused_lines += len(found.emulator)
        if not found.agrees:
            differences[name] = (found.only_nvrtc, found.only_emulator)
    assert differences == KNOWN
    assert fused_lines >= 20  # the check compared real contractions, not empty lists
