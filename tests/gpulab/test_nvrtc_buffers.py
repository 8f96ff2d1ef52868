"""NVRTC writes its log and cubin into buffers we pass: they must be our own mutable ones."""

import pytest


def test_a_successful_compile_leaves_pythons_shared_one_byte_objects_alone():
    from gpulab import nvrtc

    try:
        cubin, log = nvrtc.compile_cubin('extern "C" __global__ void k() {}', "empty.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(f"NVRTC is not installed: {exc}")
    assert log == "" and cubin[:4] == b"\x7fELF" and isinstance(cubin, bytes)
    space = bytes([32])  # the interpreter's shared b" ", which an empty log once overwrote with NUL
    assert space == b" " and space.decode() == " " and " ".join("ab") == "a b"
