"""Preprocessing keeps lines and columns and records CUDA qualifiers."""

import pytest

from gpulab.simt import CompileError
from gpulab.simt.preprocess import preprocess

SOURCE = """#define TILE 16
#define IDX(r, c) ((r) * TILE + (c))
// a comment
extern "C" __global__ void k(const float* __restrict__ a, float* b) { /* note */
    __shared__ float t[TILE][TILE];
    b[IDX(threadIdx.x, 1)] = a[0];
}
__device__ __forceinline__ int helper(int x) { return x; }
"""


def _body_lines(text: str) -> list[str]:
    return text.split("\n")[2:]


def test_qualifiers_become_spaces_of_equal_length():
    pre = preprocess(SOURCE)
    line4 = _body_lines(pre.text)[3]
    assert len(line4) == len(SOURCE.split("\n")[3])
    assert "__global__" not in line4 and "__restrict__" not in line4 and "extern" not in line4
    assert line4.index("void k(") == SOURCE.split("\n")[3].index("void k(")


def test_kernel_and_device_function_names_are_recorded():
    pre = preprocess(SOURCE)
    assert pre.global_functions == {"k"}
    assert pre.device_functions == {"helper"}


def test_shared_declarations_are_marked_static_and_macros_expanded():
    line5 = _body_lines(preprocess(SOURCE).text)[4]
    assert line5.strip() == "static     float t[16][16];"


def test_line_count_is_preserved_including_comments_and_directives():
    pre = preprocess(SOURCE)
    assert len(_body_lines(pre.text)) == len(SOURCE.split("\n")) + 1


def test_columns_after_a_macro_expansion_map_back_to_the_original():
    pre = preprocess(SOURCE)
    expanded = _body_lines(pre.text)[5]
    original = SOURCE.split("\n")[5]
    col_expanded = expanded.index("a[0]") + 1
    assert pre.original_column(6, col_expanded) == original.index("a[0]") + 1
    inside = expanded.index("threadIdx") + 1
    assert pre.original_column(6, inside) == original.index("IDX") + 1


def test_conditional_directives_select_lines():
    pre = preprocess("#define A 1\n#if A\nint x;\n#else\nint y;\n#endif\n#ifdef B\nint z;\n#endif\n")
    body = "\n".join(_body_lines(pre.text))
    assert "int x;" in body and "int y;" not in body and "int z;" not in body


def test_multi_line_macro_keeps_following_line_numbers():
    pre = preprocess("#define SUM(a, b) \\\n    ((a) + (b))\nint x = SUM(1, 2);\n")
    assert _body_lines(pre.text)[2] == "int x = ((1) + (2));"


@pytest.mark.parametrize("source, construct", [
    ("#include <thrust/sort.h>\n", "#include"),
    ("__managed__ float c[4];\n", "__managed__"),
    ("template <> __global__ void k<int>() {}\n", "template specialization"),
    ("/* unterminated\n", "comment"),
    ("#if 1\nint x;\n", "#if"),
])
def test_unsupported_preprocessor_input_names_the_construct(source, construct):
    with pytest.raises(CompileError) as info:
        preprocess(source)
    assert info.value.construct == construct
    assert info.value.line is not None


def test_windows_line_endings_are_accepted():
    import numpy as np

    from gpulab import simt
    src = '#define V 7\r\nextern "C" __global__ void k(int* o) {\r\n    o[0] = V;\r\n}\r\n'
    o = np.zeros(1, np.int32)
    simt.launch(src, "k", 1, 1, [o])
    assert o[0] == 7


def _kept(condition: str) -> bool:
    """Whether '#if condition' keeps its body."""
    text = preprocess(f"#if {condition}\nint kept;\n#endif\n").text
    return "int kept;" in text


@pytest.mark.parametrize("condition", [
    "3/2 == 1", "-7 % 2 == -1", "-7 / 2 == -3", "!(-1 < 0u)", "010 == 8", "0x1F == 31", "0b101 == 5",
    "'a' == 97", "'\\n' == 10", "'\\x41' == 65", "'\\101' == 65", "(0u - 1) == 18446744073709551615u",
    "-1 >> 1 == -1", "(1 ? -1 : 0u) > 0", "2 || 1/0", "!(0 && 1/0)", "UNDEFINED_NAME == 0",
    "defined(TILE) && defined TILE && !defined(NOPE)", "TILE * 2 == 32", "~0 == -1", "1 << 63 < 0",
])
def test_if_conditions_follow_c_integer_rules(condition):
    assert preprocess(f"#define TILE 16\n#if {condition}\nint kept;\n#endif\n").text.count("int kept;") == 1


@pytest.mark.parametrize("condition, words", [
    ("9**9**9", "no '**' power operator"),
    ("2 ** 3", "no '**' power operator"),
    ("1/0", "division by zero"),
    ("08", "octal"),
    ("1.5 > 1", "only integers"),
    ("sizeof(int)", "not allowed"),  # the preprocessor reads sizeof and int as identifiers, so 0(0)
    ("", "empty"),
    ("1 << 64", "shift count"),
    ("__import__('os')", "not allowed"),
])
def test_if_conditions_outside_c_are_compile_errors_naming_the_line(condition, words):
    with pytest.raises(CompileError) as info:
        preprocess(f"int a;\n#if {condition}\n#endif\n")
    assert info.value.line == 2
    assert words in str(info.value)


def test_exponential_macro_expansion_stops_with_a_clear_error():
    source = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 31))
    with pytest.raises(CompileError, match="grows too large") as info:
        preprocess(source + "int y = A30;\n")
    assert info.value.line == 32


def test_no_python_eval_or_exec_anywhere_in_the_project():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    calls = []
    for path in [*root.glob("gpulab/**/*.py"), *root.glob("ui/**/*.py"), *root.glob("tools/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
                calls.append(f"{path.relative_to(root)}:{node.lineno}")
    assert calls == []
