"""``simt.declared_itemsizes``: element sizes of pointer parameters and arrays, from the compiled program."""

import numpy as np
import pytest

from gpulab import simt

FLOAT, DOUBLE, INT = (np.dtype(t).itemsize for t in (np.float32, np.float64, np.int32))


def test_pointer_parameters_and_shared_arrays_give_their_element_sizes():
    source = """extern "C" __global__ void k(const float* __restrict__ a, double *b, int n) {
        __shared__ float tile[16][17];
        __shared__ unsigned long long acc[32];
        tile[0][0] = a[0]; acc[0] = n; b[0] = tile[0][0] + acc[0];
    }"""
    sizes = simt.declared_itemsizes(source)
    assert sizes == {"a": FLOAT, "b": DOUBLE, "tile": FLOAT, "acc": np.dtype(np.uint64).itemsize}


def test_typedefs_macros_and_vector_types_are_seen_through():
    source = """#define REAL double
    typedef REAL real;
    __device__ void fill(int* out, int i) { out[i] = i; }
    extern "C" __global__ void k(real* x, float4* v, int* out) {
        int idx[4];
        extern __shared__ double dyn[];
        idx[0] = threadIdx.x; fill(out, idx[0]);
        dyn[0] = 1.0; x[0] = dyn[0]; v[0].x = 1.0f;
    }"""
    sizes = simt.declared_itemsizes(source)
    assert sizes["x"] == DOUBLE
    assert sizes["v"] == 4 * FLOAT
    assert sizes["idx"] == INT and sizes["out"] == INT
    assert sizes["dyn"] == DOUBLE


def test_a_template_kernel_reports_the_instance_the_launch_asks_for():
    source = """template <typename T> __global__ void scale(T* data, T factor) {
        data[threadIdx.x] *= factor;
    }"""
    assert simt.declared_itemsizes(source, "scale<double>")["data"] == DOUBLE
    assert simt.declared_itemsizes(source, "scale<short>")["data"] == np.dtype(np.int16).itemsize


def test_a_source_the_emulator_rejects_raises_its_compile_error():
    with pytest.raises(simt.CompileError):
        simt.declared_itemsizes("__global__ void k(float* a) { a[0] = ; }")
