"""Cooperative groups in the emulator: thread blocks, tiles, tile collectives, cg::reduce.

Every kernel here is checked against a numpy reference that follows NVIDIA's headers (a
tile reduction is the butterfly out = op(out, shfl_xor(out, k)), so float sums match bit
for bit) and is compiled by NVRTC with the real <cooperative_groups.h>.
"""

import numpy as np
import pytest

from gpulab import nvrtc, simt
from gpulab.simt.coop_groups import GRID_CONSTRUCT

HEAD = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
"""

BLOCK_REDUCE = HEAD + """
extern "C" __global__ void block_sum(const float* x, float* out) {
    __shared__ float partial[8];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned int i = blockIdx.x * block.size() + block.thread_rank();
    float v = cg::reduce(tile, x[i], cg::plus<float>());
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        float p = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0.0f;
        p = cg::reduce(tile, p, cg::plus<float>());
        if (block.thread_rank() == 0) out[blockIdx.x] = p;
    }
}
"""

SHFL_DOWN = HEAD + """
extern "C" __global__ void tile_sum32(const float* x, float* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = x[block.thread_rank()];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    out[block.thread_rank()] = v;
}

extern "C" __global__ void tile_sum16(const float* x, float* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    float v = x[block.thread_rank()];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    out[block.thread_rank()] = v;
}
"""

VOTES = HEAD + """
extern "C" __global__ void votes(const int* x, unsigned int* ballot, int* any, int* all) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    unsigned int i = block.thread_rank();
    int p = x[i] > 0;
    ballot[i] = tile.ballot(p);
    any[i] = tile.any(p);
    all[i] = tile.all(p);
}
"""

RANKS = HEAD + """
extern "C" __global__ void ranks(unsigned int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(tile);
    unsigned int r = block.thread_rank();
    unsigned int* o = out + 12 * (block.group_index().x * block.size() + r);
    o[0] = r;
    o[1] = block.thread_index().x + 100 * block.thread_index().y + 10000 * block.thread_index().z;
    o[2] = block.group_dim().x * block.dim_threads().y * block.group_dim().z;
    o[3] = tile.thread_rank();
    o[4] = tile.meta_group_rank();
    o[5] = tile.meta_group_size();
    o[6] = quad.thread_rank();
    o[7] = quad.meta_group_rank();
    o[8] = quad.meta_group_size();
    o[9] = cg::thread_rank(quad) + 10 * cg::group_size(tile);
    o[10] = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    o[11] = block.num_threads();
}
"""

SHUFFLES = HEAD + """
extern "C" __global__ void shuffles(const int* x, int* out) {
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
    unsigned int i = cg::this_thread_block().thread_rank();
    int v = x[i];
    out[4 * i + 0] = tile.shfl(v, 5);
    out[4 * i + 1] = tile.shfl_up(v, 3);
    out[4 * i + 2] = tile.shfl_xor(v, 6);
    out[4 * i + 3] = tile.shfl(v, tile.thread_rank() + 9);
}
"""

INT_REDUCE = HEAD + """
extern "C" __global__ void int_reduce(const int* x, int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned int i = block.thread_rank();
    int v = x[i];
    out[6 * i + 0] = cg::reduce(tile, v, cg::plus<int>());
    out[6 * i + 1] = cg::reduce(tile, v, cg::less<int>());
    out[6 * i + 2] = cg::reduce(tile, v, cg::greater<int>());
    out[6 * i + 3] = cg::reduce(tile, v, cg::bit_and<int>());
    out[6 * i + 4] = cg::reduce(tile, v, cg::bit_or<int>());
    out[6 * i + 5] = cg::reduce(tile, v, cg::bit_xor<int>());
}
"""

USING = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
using namespace cooperative_groups;

__device__ float tile_total(thread_block_tile<32> t, float v) {
    return reduce(t, v, plus<float>());
}

extern "C" __global__ void using_ns(const float* x, float* out) {
    thread_block block = this_thread_block();
    thread_block_tile<32> tile = tiled_partition<32>(block);
    float v = tile_total(tile, x[block.thread_rank()]);
    sync(block);
    cooperative_groups::thread_block_tile<32> same = cooperative_groups::tiled_partition<32>(block);
    out[block.thread_rank()] = v + same.shfl(v, 0) - v;
}
"""

DYNAMIC = HEAD + """
extern "C" __global__ void dynamic_tiles(unsigned long long* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group g = cg::tiled_partition(block, 16);
    cg::thread_group whole = block;
    g.sync();
    whole.sync();
    unsigned int r = block.thread_rank();
    out[3 * r + 0] = g.thread_rank();
    out[3 * r + 1] = g.size();
    out[3 * r + 2] = whole.size() + 1000 * whole.thread_rank();
}
"""

COALESCED = HEAD + """
extern "C" __global__ void coalesced(const int* x, unsigned int* out) {
    unsigned int i = threadIdx.x;
    out[3 * i] = 7777;
    if (x[i] > 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        out[3 * i + 0] = active.thread_rank();
        out[3 * i + 1] = active.size();
        out[3 * i + 2] = active.ballot(x[i] > 5);
    }
}
"""

MATCH = HEAD + """
extern "C" __global__ void match(const int* x, unsigned int* out) {
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    out[threadIdx.x] = tile.match_any(x[threadIdx.x]);
}
"""

KERNELS = {"block_reduce": BLOCK_REDUCE, "shfl_down": SHFL_DOWN, "votes": VOTES, "ranks": RANKS,
           "shuffles": SHUFFLES, "int_reduce": INT_REDUCE, "using": USING, "dynamic": DYNAMIC,
           "coalesced": COALESCED, "match": MATCH}


# ---------------------------------------------------------------------- numpy references
def _butterfly(x: np.ndarray, n: int, op) -> np.ndarray:
    """Every lane's value of the headers' tile reduction (x reshaped into tiles of n)."""
    tiles = x.reshape(-1, n).copy()
    k = n // 2
    while k:
        tiles = op(tiles, tiles[:, np.arange(n) ^ k]).astype(x.dtype)
        k //= 2
    return tiles.reshape(-1)


def _shfl_down_tree(x: np.ndarray, n: int) -> np.ndarray:
    tiles = x.reshape(-1, n).copy()
    rank = np.arange(n)
    offset = n // 2
    while offset:
        src = np.where(rank + offset < n, rank + offset, rank)
        tiles = tiles + tiles[:, src]
        offset //= 2
    return tiles.reshape(-1)


def _nvrtc_compile(source: str) -> None:
    if not nvrtc.has_header("cooperative_groups.h"):
        pytest.skip("NVRTC needs the cooperative groups headers: pip install nvidia-cuda-runtime "
                    "nvidia-cuda-cccl (the dev extra)")
    try:
        nvrtc.compile_cubin(source, "cg.cu", "sm_80", include_dirs=nvrtc.cuda_include_dirs())
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


# ---------------------------------------------------------------------- semantics
def test_block_reduction_with_tiles_and_cg_reduce_matches_the_butterfly_bit_for_bit():
    x = np.random.default_rng(7).standard_normal(3 * 256).astype(np.float32)
    out = np.zeros(3, np.float32)
    simt.launch(BLOCK_REDUCE, "block_sum", 3, 256, [x, out])
    warp_sums = _butterfly(x, 32, np.add)[::32].reshape(3, 8)
    padded = np.zeros((3, 32), np.float32)
    padded[:, :8] = warp_sums
    expected = _butterfly(padded.reshape(-1), 32, np.add)[::32]
    assert out.tobytes() == expected.tobytes()
    assert np.allclose(out, x.reshape(3, 256).sum(axis=1, dtype=np.float64), rtol=1e-5)


@pytest.mark.parametrize(("kernel", "width"), [("tile_sum32", 32), ("tile_sum16", 16)])
def test_tile_shfl_down_reduction_follows_the_tile_width(kernel, width):
    x = np.random.default_rng(width).standard_normal(96).astype(np.float32)
    out = np.zeros(96, np.float32)
    simt.launch(SHFL_DOWN, kernel, 1, 96, [x, out])
    assert out.tobytes() == _shfl_down_tree(x, width).tobytes()
    assert np.allclose(out[::width], x.reshape(-1, width).sum(axis=1), rtol=1e-5)


def test_ballot_any_all_are_per_tile_with_bits_from_the_tile_rank():
    x = np.random.default_rng(3).integers(-1, 2, 64).astype(np.int32)
    x[8:16] = 1  # a tile where all() holds
    x[16:24] = 0  # a tile where any() fails
    ballot, any_, all_ = np.zeros(64, np.uint32), np.zeros(64, np.int32), np.zeros(64, np.int32)
    simt.launch(VOTES, "votes", 1, 64, [x, ballot, any_, all_])
    bits = (x.reshape(-1, 8) > 0)
    tile_ballot = (bits * (1 << np.arange(8))).sum(axis=1)
    assert ballot.tolist() == np.repeat(tile_ballot, 8).tolist()
    assert any_.tolist() == np.repeat(bits.any(axis=1), 8).astype(int).tolist()
    assert all_.tolist() == np.repeat(bits.all(axis=1), 8).astype(int).tolist()
    assert all_[8] == 1 and any_[16] == 0


def test_thread_rank_meta_groups_and_dims_in_a_3d_block_follow_row_major_rank():
    block = (8, 4, 2)
    out = np.zeros(2 * 64 * 12, np.uint32)
    simt.launch(RANKS, "ranks", 2, block, [out])
    rows = out.reshape(2, 64, 12)
    r = np.arange(64)
    tx, ty, tz = r % 8, (r // 8) % 4, r // 32
    for b in range(2):
        o = rows[b]
        assert o[:, 0].tolist() == r.tolist()
        assert o[:, 1].tolist() == (tx + 100 * ty + 10000 * tz).tolist()
        assert set(o[:, 2]) == {64}
        assert o[:, 3].tolist() == (r % 16).tolist()
        assert o[:, 4].tolist() == (r // 16).tolist() and set(o[:, 5]) == {4}
        assert o[:, 6].tolist() == (r % 4).tolist()
        assert o[:, 7].tolist() == ((r % 16) // 4).tolist() and set(o[:, 8]) == {4}
        assert o[:, 9].tolist() == (r % 4 + 160).tolist()
        assert o[:, 10].tolist() == o[:, 0].tolist() and set(o[:, 11]) == {64}


def test_tile_shfl_shfl_up_and_shfl_xor_stay_inside_the_tile():
    x = (np.arange(64, dtype=np.int32) * 7 + 3)
    out = np.zeros(4 * 64, np.int32)
    simt.launch(SHUFFLES, "shuffles", 1, 64, [x, out])
    got = out.reshape(64, 4)
    i = np.arange(64)
    base, rank = i - i % 8, i % 8
    assert got[:, 0].tolist() == x[base + 5].tolist()
    assert got[:, 1].tolist() == x[np.where(rank >= 3, i - 3, i)].tolist()
    assert got[:, 2].tolist() == x[base + (rank ^ 6)].tolist()
    assert got[:, 3].tolist() == x[base + (rank + 9) % 8].tolist()


def test_integer_reductions_plus_less_greater_and_bit_operators():
    x = np.random.default_rng(11).integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    out = np.zeros(6 * 64, np.int32)
    simt.launch(INT_REDUCE, "int_reduce", 1, 64, [x, out])
    got = out.reshape(64, 6)
    tiles = x.reshape(-1, 16)
    with np.errstate(over="ignore"):
        sums = tiles.sum(axis=1, dtype=np.int32)  # wraps like the GPU
    expected = [sums, tiles.min(axis=1), tiles.max(axis=1), np.bitwise_and.reduce(tiles, axis=1),
                np.bitwise_or.reduce(tiles, axis=1), np.bitwise_xor.reduce(tiles, axis=1)]
    for column, want in enumerate(expected):
        assert got[:, column].tolist() == np.repeat(want, 16).tolist()


def test_using_namespace_and_fully_qualified_spellings_and_a_tile_parameter():
    x = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    simt.launch(USING, "using_ns", 1, 64, [x, out])
    assert out.tobytes() == _butterfly(x, 32, np.add).tobytes()


def test_dynamic_tiled_partition_gives_a_partial_last_tile():
    out = np.zeros(3 * 40, np.uint64)
    simt.launch(DYNAMIC, "dynamic_tiles", 1, 40, [out])
    got = out.reshape(40, 3)
    r = np.arange(40)
    assert got[:, 0].tolist() == (r % 16).tolist()
    assert got[:, 1].tolist() == [16] * 32 + [8] * 8
    assert got[:, 2].tolist() == (40 + 1000 * r).tolist()


def test_coalesced_threads_ranks_the_active_lanes_of_each_warp():
    x = np.array([(i * 5) % 9 - 2 for i in range(64)], np.int32)
    out = np.zeros(3 * 64, np.uint32)
    simt.launch(COALESCED, "coalesced", 1, 64, [x, out])
    got = out.reshape(64, 3)
    for w in range(2):
        lanes = np.arange(32 * w, 32 * w + 32)
        active = lanes[x[lanes] > 0]
        big = (x[active] > 5)
        packed = int((big * (1 << np.arange(len(active)))).sum())
        assert got[active, 0].tolist() == list(range(len(active)))
        assert set(got[active, 1]) == {len(active)}
        assert set(got[active, 2]) == {packed}
        assert set(got[lanes[x[lanes] <= 0], 0]) == {7777}


def test_match_any_gives_the_tile_lanes_holding_the_same_value():
    x = (np.arange(32, dtype=np.int32) * 3) % 4
    out = np.zeros(32, np.uint32)
    simt.launch(MATCH, "match", 1, 32, [x, out])
    tiles = x.reshape(2, 16)
    want = [(tiles[t] == tiles[t][j]) @ (1 << np.arange(16)) for t in range(2) for j in range(16)]
    assert out.tolist() == want


# ---------------------------------------------------------------------- undefined behaviour
def _fault_kernel(body: str) -> str:
    return HEAD + """
extern "C" __global__ void k(int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int v = block.thread_rank();
""" + body + "\n}\n"


def test_tile_sync_reached_by_part_of_the_tile_is_a_fault_naming_the_missing_thread():
    src = _fault_kernel("    if (tile.thread_rank() < 16) {\n        tile.sync();\n    }\n"
                        "    out[v] = v;")
    with pytest.raises(simt.KernelFault, match=r"sync\(\) reached by 16 of the 32 threads of a "
                       r"thread_block_tile<32>: thread \(block \(0,0,0\), thread \(16,0,0\)\) did "
                       r"not arrive") as info:
        simt.launch(src, "k", 1, 64, [np.zeros(64, np.int32)])
    assert info.value.line == 10


def test_divergent_tile_shuffle_and_reduce_are_faults():
    src = _fault_kernel("    if (v % 2 == 0) out[v] = tile.shfl_down(v, 1);")
    with pytest.raises(simt.KernelFault, match=r"shfl_down\(\) reached by 16 of the 32"):
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])
    src = _fault_kernel("    if (v == 3) return;\n    out[v] = cg::reduce(tile, v, cg::plus<int>());")
    with pytest.raises(simt.KernelFault, match=r"cg::reduce reached by 31 of the 32 .* has exited"):
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])


def test_a_tile_shuffle_reading_an_exited_thread_is_a_fault_but_sync_without_it_is_fine():
    src = _fault_kernel("    if (v >= 30) return;\n    tile.sync();\n    out[v] = tile.shfl_down(v, 1);")
    with pytest.raises(simt.KernelFault, match=r"reads thread \(block \(0,0,0\), thread \(30,0,0\)\), "
                       "which has exited"):
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])
    ok = _fault_kernel("    if (v >= 30) return;\n    tile.sync();\n    out[v] = tile.shfl_up(v, 1);")
    out = np.zeros(32, np.int32)
    simt.launch(ok, "k", 1, 32, [out])
    assert out[:30].tolist() == [0, *range(29)]


def test_a_tile_size_that_does_not_divide_the_block_is_a_fault():
    src = _fault_kernel("    out[v] = tile.thread_rank();")
    with pytest.raises(simt.KernelFault, match=r"tiled_partition<32> of a block of 48 threads"):
        simt.launch(src, "k", 1, 48, [np.zeros(48, np.int32)])


def test_divergent_block_sync_is_the_divergent_barrier_fault():
    src = _fault_kernel("    if (v < 40) block.sync();")
    with pytest.raises(simt.KernelFault) as info:
        simt.launch(src, "k", 1, 64, [np.zeros(64, np.int32)])
    assert info.value.kind == "divergent-barrier"


def test_block_sync_is_traced_as_a_barrier_step():
    src = _fault_kernel("    block.sync();\n    cg::sync(block);\n    out[v] = v;")
    result = simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)], trace=True)
    kinds = {step.line: step.kind for step in result.trace[0]}
    assert kinds[9] == "barrier" and kinds[10] == "barrier"


# ---------------------------------------------------------------------- rejected sources
@pytest.mark.parametrize(("body", "construct"), [
    ("cg::grid_group grid = cg::this_grid();\n    grid.sync();", GRID_CONSTRUCT),
    ("cg::this_grid().sync();", GRID_CONSTRUCT),
    ("cg::this_multi_grid().sync();", GRID_CONSTRUCT),
])
def test_grid_wide_synchronisation_is_a_named_compile_error(body, construct):
    src = _fault_kernel("    " + body)
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])
    assert info.value.construct == construct
    assert "grid-wide synchronisation (cooperative launch)" in str(info.value)
    assert info.value.line == 9


@pytest.mark.parametrize(("body", "construct", "cuda_rejects"), [
    ("float f = cg::reduce(tile, v, cg::plus<float>());", "cg::reduce type mismatch", True),
    ("cg::thread_block_tile<32> t = cg::tiled_partition<32>(tile);", "tiled_partition size", True),
    ("cg::thread_block_tile<3> t = cg::tiled_partition<3>(block);", "thread_block_tile size", True),
    ("cg::thread_block_tile<16> t = tile;", "cooperative group conversion", True),
    ("int r = cg::reduce(block, v, cg::plus<int>());", "cg::reduce group", True),
    ("cg::thread_block b;", "uninitialised group", True),
    ("cg::thread_block_tile<64> t = cg::tiled_partition<64>(block);",
     "multi-warp thread_block_tile", False),
    ("auto g = cg::labeled_partition(tile, v);", "cooperative_groups::labeled_partition", False),
])
def test_rejected_cooperative_group_code_names_its_construct(body, construct, cuda_rejects):
    src = _fault_kernel("    " + body)
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])
    assert info.value.construct == construct and info.value.line == 9
    if cuda_rejects and nvrtc.has_header("cooperative_groups.h"):  # CUDA rejects it too
        with pytest.raises((nvrtc.NvrtcCompileError, nvrtc.NvrtcUnavailable)):
            nvrtc.compile_cubin(src, "cg.cu", "sm_80", include_dirs=nvrtc.cuda_include_dirs())


def test_cooperative_groups_need_their_include():
    src = 'namespace cg = cooperative_groups;\nextern "C" __global__ void k(int* out) {\n' \
          '    cg::thread_block b = cg::this_thread_block();\n}\n'
    with pytest.raises(simt.CompileError, match=r"needs #include <cooperative_groups\.h>") as info:
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])
    assert info.value.line == 3
    no_reduce_h = src.replace("namespace", "#include <cooperative_groups.h>\nnamespace").replace(
        "cg::thread_block b = cg::this_thread_block();", "int r = cg::reduce(cg::tiled_partition<32>"
        "(cg::this_thread_block()), 1, cg::plus<int>());")
    with pytest.raises(simt.CompileError, match=r"reduce\.h"):
        simt.launch(no_reduce_h, "k", 1, 32, [np.zeros(32, np.int32)])


def test_errors_after_a_lowered_name_keep_their_column():
    src = _fault_kernel("    cg::thread_block_tile<32> t2 = cg::tiled_partition<32>(block); nope = 1;")
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])
    assert (info.value.line, info.value.column) == (9, 68)


def test_auto_tile_from_tiled_partition():
    src = _fault_kernel("    auto t = cg::tiled_partition<32>(block);\n    out[v] = t.thread_rank();")
    out = np.zeros(32, np.int32)
    simt.launch(src, "k", 1, 32, [out])
    assert out.tolist() == list(range(32))


# ---------------------------------------------------------------------- NVRTC cross-check
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_cooperative_groups_kernel_compiles_with_nvrtc(name):
    _nvrtc_compile(KERNELS[name])


def test_the_fault_kernels_compile_with_nvrtc():
    _nvrtc_compile(_fault_kernel("    if (v >= 30) return;\n    tile.sync();\n    block.sync();\n"
                                 "    cg::sync(block);\n    out[v] = tile.shfl_down(v, 1);"))


def test_a_run_time_tile_size_must_be_one_value_for_the_group():
    source = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(const int* sizes, unsigned* out) {
    cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), sizes[threadIdx.x]);
    out[threadIdx.x] = tile.thread_rank();
}"""
    out = np.zeros(32, np.uint32)
    simt.launch(source, "k", 1, 32, [np.full(32, 8, np.int32), out])
    np.testing.assert_array_equal(out, np.arange(32) % 8)
    sizes = np.full(32, 8, np.int32)
    sizes[5] = 4
    different = r"line 4: tiled_partition\(group, n\): the threads give different n \(4, 8\)"
    with pytest.raises(simt.KernelFault, match=different):
        simt.launch(source, "k", 1, 32, [sizes, out])
