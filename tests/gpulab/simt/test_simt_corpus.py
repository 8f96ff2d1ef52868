"""The kernel corpus (tests/gpulab/simt/corpus/*.cu): CUDA written the way learners paste it
from samples, textbooks and online judges, each run by the emulator against numpy and each
compiled by NVRTC, so the emulator never accepts what CUDA rejects.

A kernel the emulator cannot run yet is an xfail (strict) naming the construct it needs: when
that construct is supported the test passes, strict xfail fails, and the mark must go.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from gpulab import nvrtc, simt
from gpulab.bench import corpus
from tests.gpulab.simt.corpus_references import EXTRA_CHECKS, REFERENCES, TOLERANCES

KERNELS = corpus.load()
FOLDER = corpus.default_folder()

# What each kernel needs that the emulator on this branch does not have yet (the first construct
# the emulator stops at; later ones in the same file are listed after it).
NEEDS: dict[str, str] = {
}


def _param(kernel: corpus.CorpusKernel):
    need = NEEDS.get(kernel.name)
    marks = [pytest.mark.xfail(strict=True, reason=f"needs {need}")] if need else []
    return pytest.param(kernel, id=kernel.name, marks=marks)


def _launch(kernel: corpus.CorpusKernel, args: list) -> simt.LaunchResult:
    extra = {"shared_mem": kernel.shared_mem} if kernel.shared_mem else {}
    return simt.launch(kernel.source, kernel.entry, kernel.grid, kernel.block, args,
                       filename=str(kernel.path), include_dirs=(kernel.path.parent,), **extra)


@pytest.mark.parametrize("kernel", [_param(k) for k in KERNELS])
def test_corpus_kernel_matches_its_numpy_reference(kernel):
    args = kernel.build_args(seed=7)
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = REFERENCES[kernel.name](inputs)
    _launch(kernel, args)
    rtol, atol = TOLERANCES.get(kernel.name, (0.0, 0.0))
    for index, want in expected.items():
        got = args[index]
        assert got.dtype == want.dtype or np.asarray(want).dtype.kind == got.dtype.kind, (index, want.dtype)
        if rtol or atol:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"argument {index}")
        else:
            np.testing.assert_array_equal(got, want.reshape(got.shape), err_msg=f"argument {index}")
    if kernel.name in EXTRA_CHECKS:
        EXTRA_CHECKS[kernel.name](args)


def test_the_corpus_has_at_least_45_kernels_each_with_a_reference_and_a_header():
    assert len(KERNELS) >= 45
    assert {k.name for k in KERNELS} == set(REFERENCES)
    assert set(NEEDS) <= {k.name for k in KERNELS}
    for kernel in KERNELS:
        head = kernel.source.split("\n", 6)
        assert head[0].startswith(f"// {kernel.file}: "), kernel.file
        assert "// Constructs: " in kernel.source, kernel.file


def test_the_readme_table_lists_every_corpus_kernel():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    missing = [k.name for k in KERNELS if f"`{k.name}`" not in readme]
    assert not missing, f"README.md does not mention {missing}"


def test_a_malformed_corpus_line_names_the_file(tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text('// corpus: {"kernel": "k", "grid": 1, "block": 32, "args": ["x:float32[4]=nope"]}\n')
    with pytest.raises(corpus.CorpusSpecError, match=r"bad\.cu: unknown fill 'nope'"):
        corpus.parse(bad)
    bad.write_text("__global__ void k() {}\n")
    with pytest.raises(corpus.CorpusSpecError, match="no '// corpus:"):
        corpus.parse(bad)


def test_corpus_arguments_are_reproducible_and_typed():
    kernel = next(k for k in KERNELS if k.name == "atomic_minmax")
    first, again = kernel.build_args(seed=3), kernel.build_args(seed=3)
    assert np.array_equal(first[0], again[0]) and first[0].dtype == np.int32
    assert first[1][0] == np.iinfo(np.int32).max and first[2][0] == np.iinfo(np.int32).min
    assert first[3] == 1000


# --- NVRTC: every corpus kernel is real CUDA ---------------------------------------------------

_SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s*<", re.M)


@pytest.mark.parametrize("kernel", [pytest.param(k, id=k.name) for k in KERNELS])
def test_corpus_kernel_compiles_with_nvrtc(kernel):
    toolkit = tuple(nvrtc.cuda_include_dirs())
    if _SYSTEM_INCLUDE.search(kernel.source) and not toolkit:
        pytest.skip("no CUDA toolkit headers (cooperative_groups.h) found for NVRTC")
    templates = (kernel.entry,) if "<" in kernel.entry else ()
    headers, options = nvrtc.nvcc_environment()  # uint, M_PI, <cassert>, ... as nvcc gives them
    try:
        nvrtc.compile_cubin(kernel.source, kernel.file, "sm_80", ("-std=c++17", *options),
                            name_expressions=templates, include_dirs=(str(FOLDER), *toolkit), headers=headers)
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


def test_printf_debug_kernel_logs_each_printing_lane_once_with_its_values():
    kernel = next(k for k in KERNELS if k.name == "printf_debug")
    args = kernel.build_args(seed=7)
    before = args[0].copy()
    result = _launch(kernel, args)
    texts = [r.text for r in result.printf]
    expected = [f"block {b} thread {t}: {before[b * 32 + t]:f} -> {2 * before[b * 32 + t]:.2f}\n"
                for b in (0, 1) for t in (0, 16)]
    assert sorted(t for t in texts if t.startswith("block")) == sorted(expected)
    assert texts.count("first thread done\n") == 1 and result.printf_lost == 0
