"""Rounding to each number format and the error of an emulated matmul, against known results."""

import math

import numpy as np
import pytest

from gpulab.precision import (
    FORMATS,
    emulated_matmul,
    extended_reference_available,
    product_error,
    reference_matmul,
    round_to,
)


def rounded(value: float, name: str) -> float:
    return float(round_to(np.array([value]), name)[0])


def test_each_format_has_its_published_significand_width_and_unit_roundoff():
    explicit = {name: fmt.explicit_mantissa_bits for name, fmt in FORMATS.items()}
    assert explicit == {"fp64": 52, "fp32": 23, "tf32": 10, "fp16": 10, "bf16": 7, "fp8": 3, "fp8e5m2": 2}
    for fmt in FORMATS.values():
        assert fmt.unit_roundoff == 2.0 ** -(fmt.explicit_mantissa_bits + 1)
    assert [FORMATS[n].bytes_per_element for n in ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp8e5m2")] == [
        8, 4, 4, 2, 2, 1, 1]


NARROW_DTYPES = [("bf16", "bfloat16"), ("fp8", "float8_e4m3fn"), ("fp8e5m2", "float8_e5m2")]


@pytest.mark.parametrize(("name", "dtype"), NARROW_DTYPES)
def test_each_narrow_format_tops_out_where_its_ml_dtypes_type_does(name, dtype):
    import ml_dtypes

    assert FORMATS[name].max_finite == float(ml_dtypes.finfo(getattr(ml_dtypes, dtype)).max)


def test_importing_the_formats_leaves_ml_dtypes_for_the_first_rounding():
    import subprocess
    import sys

    code = (
        "import sys, gpulab.precision as p; print('ml_dtypes' in sys.modules); "
        "p.round_to([1.0], 'bf16'); print('ml_dtypes' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_fp8_e5m2_reaches_57344_overflows_to_infinity_and_keeps_two_mantissa_bits():
    # Micikevicius et al., "FP8 Formats for Deep Learning" (arXiv:2209.05433), Table 1: E5M2 max 57344.
    assert FORMATS["fp8e5m2"].max_finite == 57344.0
    assert rounded(57344, "fp8e5m2") == 57344.0
    assert math.isinf(rounded(70000, "fp8e5m2"))  # IEEE-like: there is an infinity to overflow to
    assert rounded(1 + 2**-3, "fp8e5m2") == 1.0 and rounded(1 + 2**-2, "fp8e5m2") == 1 + 2**-2
    assert rounded(2**-16, "fp8e5m2") == 2**-16  # the smallest subnormal: five exponent bits reach far


def test_bf16_keeps_8_significand_bits_so_one_plus_2_to_the_minus_9_rounds_to_one():
    assert rounded(1 + 2**-9, "bf16") == 1.0
    assert rounded(1 + 2**-8, "bf16") == 1.0  # a tie goes to the even neighbour
    assert rounded(1 + 2**-8 + 2**-20, "bf16") == 1 + 2**-7  # past the tie: up
    assert rounded(1 + 2**-7, "bf16") == 1 + 2**-7  # representable: kept
    assert rounded(3e38, "bf16") == pytest.approx(3e38, rel=2**-8)  # FP32's range


def test_fp16_tops_out_at_65504_and_overflows_to_infinity_past_the_last_rounding_boundary():
    assert FORMATS["fp16"].max_finite == 65504.0
    assert rounded(65504, "fp16") == 65504.0
    assert rounded(65519, "fp16") == 65504.0
    assert math.isinf(rounded(65520, "fp16"))
    assert rounded(1 + 2**-11, "fp16") == 1.0 and rounded(1 + 2**-10, "fp16") == 1 + 2**-10


def test_tf32_keeps_10_explicit_mantissa_bits_rounding_to_nearest_even():
    assert rounded(1 + 2**-10, "tf32") == 1 + 2**-10
    assert rounded(1 + 2**-11, "tf32") == 1.0  # tie, mantissa ...0 is even
    assert rounded(1 + 3 * 2**-11, "tf32") == 1 + 2**-9  # tie, rounds to the even ...10
    assert rounded(2 - 2**-23, "tf32") == 2.0  # the carry moves into the exponent
    assert rounded(1e38, "tf32") == pytest.approx(1e38, rel=2**-11)  # FP32's range, unlike FP16
    values = np.random.default_rng(3).standard_normal(1000).astype(np.float32)
    bits = round_to(values, "tf32").astype(np.float32).view(np.uint32)
    assert not (bits & np.uint32(0x1FFF)).any()  # the 13 dropped bits are clear
    assert math.isinf(rounded(np.inf, "tf32")) and math.isnan(rounded(np.nan, "tf32"))


def test_fp8_e4m3_tops_out_at_448_and_has_no_infinity():
    assert FORMATS["fp8"].max_finite == 448.0
    assert rounded(448, "fp8") == 448.0
    assert rounded(460, "fp8") == 448.0
    assert math.isnan(rounded(1000, "fp8"))  # E4M3 'fn': no infinity to overflow to
    assert rounded(1 + 2**-4, "fp8") == 1.0 and rounded(1 + 2**-3, "fp8") == 1 + 2**-3
    assert rounded(2**-9, "fp8") == 2**-9  # the smallest subnormal


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_one_rounding_errs_by_at_most_the_unit_roundoff(name):
    rng = np.random.default_rng(1)  # magnitudes in every format's normal range (FP8's starts at 2^-6)
    values = rng.uniform(0.02, 400, 5000) * rng.choice([-1.0, 1.0], 5000)
    error = np.abs(round_to(values, name) - values) / np.abs(values)
    assert error.max() <= FORMATS[name].unit_roundoff * (1 + 1e-12)
    assert name == "fp64" or error.max() > FORMATS[name].unit_roundoff / 2  # the bound is reached, nearly


def test_an_emulated_half_product_is_stored_in_the_format_and_summed_in_fp32():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((32, 32)), rng.standard_normal((32, 32))
    c = emulated_matmul(a, b, "fp16")
    assert np.array_equal(round_to(c, "fp16"), c)
    by_hand = (round_to(a, "fp16").astype(np.float32) @ round_to(b, "fp16").astype(np.float32)).astype(np.float16)
    assert np.array_equal(c, by_hand.astype(np.float64))
    assert np.array_equal(emulated_matmul(a, b, "fp8"), round_to(emulated_matmul(a, b, "fp8"), "fp32"))


NARROW = ("tf32", "fp16", "bf16", "fp8", "fp8e5m2")


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(0)
    return rng.standard_normal((64, 64)), rng.standard_normal((64, 64))


def test_with_fp32_sums_the_error_of_a_narrow_format_is_of_the_order_of_its_unit_roundoff(operands):
    errors = {name: product_error(*operands, name) for name in NARROW}
    for name, error in errors.items():
        assert 0.2 * error.unit_roundoff < error.normwise < 2 * error.unit_roundoff, name
    # It grows like u: BF16's u is 8 times FP16's, and so is its error (within a factor 2).
    assert 4 < errors["bf16"].normwise / errors["fp16"].normwise < 16
    assert 8 < errors["fp8"].normwise / errors["bf16"].normwise < 32
    assert 1 < errors["fp8e5m2"].normwise / errors["fp8"].normwise < 4  # one mantissa bit less: u doubles


def test_sums_kept_in_the_format_itself_stay_within_the_classic_n_u_bound(operands):
    n = operands[0].shape[0]
    fp32 = product_error(*operands, "fp32")
    assert fp32.componentwise_max <= (n + 2) * fp32.unit_roundoff
    assert fp32.normwise > 0.2 * fp32.unit_roundoff
    if not extended_reference_available():
        pytest.skip("long double is plain FP64 here: no finer reference for FP64")
    fp64 = product_error(*operands, "fp64", reference_matmul(*operands, extended=True))
    assert 0 < fp64.componentwise_max <= n * fp64.unit_roundoff
    assert fp64.normwise < 1e-3 * fp32.normwise


def test_an_unknown_format_is_named_in_the_error():
    with pytest.raises(ValueError, match="fp12"):
        round_to(np.ones(2), "fp12")
