"""C++ the emulator does not run is rejected by name, with its line (never a bare syntax error)."""

import pytest

from gpulab import simt
from gpulab.simt import cxx
from gpulab.simt.preprocess import preprocess

_HEAD = 'extern "C" __global__ void k(float* out, int n) {\n'

# (source, line, words the construct field holds, words the message holds)
REJECTED = [
    (_HEAD + "    auto f = [](float x) { return x; };\n}\n", 2, "lambda", "lambda"),
    (_HEAD + "    auto g = [=] __device__ (int i) { return out[i]; };\n}\n", 2, "lambda", "lambda"),
    (_HEAD + "    float* p = new float[4];\n}\n", 2, "new", "heap"),
    (_HEAD + "    float* p = out;\n    delete p;\n}\n", 3, "delete", "heap"),
    (_HEAD + "    try { out[0] = 1; } catch (...) { }\n}\n", 2, "try", "exceptions"),
    (_HEAD + "    if (n < 0) throw 1;\n}\n", 2, "throw", "exceptions"),
    ("struct Shape { virtual float area(); };\n" + _HEAD + "}\n", 1, "virtual", "virtual"),
    ("struct Base { float x; };\nstruct Derived : Base { float y; };\n" + _HEAD + "}\n", 2,
     "inheritance", "inheritance"),
    ("struct Pool { void* operator new(unsigned long n); };\n" + _HEAD + "}\n", 1, "operator new",
     "operator new"),
    (_HEAD + "    out[0] = sizeof(typeid(n));\n}\n", 2, "typeid", "typeid"),
    (_HEAD + "    float* p = dynamic_cast<float*>(out);\n}\n", 2, "dynamic_cast", "dynamic_cast"),
    (_HEAD + "    decltype(n) m = n;\n}\n", 2, "decltype", "decltype"),
    ("enum struct Color { Red, Green };\n" + _HEAD + "}\n", 1, "enum class", "enum class"),
    ('extern "C" __global__ void k(float* restrict out) {\n}\n', 1, "restrict", "__restrict__"),
    (_HEAD + "    out[0] = unsigned int(n);\n}\n", 2, "functional cast", "one-word type"),
    (_HEAD + "    out[0] = std::min(1.0f, 2.0f);\n}\n", 2, "std::min", "standard library"),
    (_HEAD + "\n    std::vector<float> v;\n}\n", 3, "std::vector", "standard library"),
    (_HEAD + "    out[0] = cg::this_thread_block();\n}\n", 2, "cg::", "not a namespace"),
    ("namespace a { __device__ int f() { return 1; } }\n" + _HEAD + "    out[0] = a::g();\n}\n", 3,
     "a::g", "not a member"),
    ("using namespace nowhere;\n" + _HEAD + "}\n", 1, "namespace nowhere", "not declared"),
    (_HEAD + "    float&& r = out[0];\n}\n", 2, "rvalue reference", "rvalue"),
    (_HEAD + "    auto x;\n    x = 1;\n}\n", 2, "auto without initializer", "initializer"),
    (_HEAD + "    auto x = {1};\n}\n", 2, "auto with = {...}", "initializer_list"),
    (_HEAD + "    auto x{1, 2};\n}\n", 2, "auto with braces", "one value"),
    ("__device__ auto half(int v) {\n    if (v > 0) return v / 2.0f;\n    return 0;\n}\n" + _HEAD + "}\n",
     3, "conflicting auto return types", "deduced as float on line 2 but as int"),
    ("__global__ auto k2(float* out) { out[0] = 1; }\n" + _HEAD + "}\n", 1, "auto kernel", "void"),
    ("__device__ int twice(auto v) { return 2 * v; }\n" + _HEAD + "}\n", 1, "auto parameter", "auto"),
    ('extern "C" __global__ void k(float& x) {\n    x = 1;\n}\n', 1, "kernel reference parameter",
     "host memory"),
    ("__device__ float& first(float* p) { return p[0]; }\n" + _HEAD + "}\n", 1,
     "reference return type", "returns a reference"),
    (_HEAD + "    float& r;\n}\n", 2, "reference without initializer", "initializer"),
    ("__device__ void set(float& x) { x = 1; }\n" + _HEAD + "    set(out[0] + 1);\n}\n", 3,
     "reference to a temporary", "non-const reference"),
    ("__device__ void set(float& x) { x = 1; }\n" + _HEAD + "    set(n);\n}\n", 3,
     "reference type mismatch", "float&"),
    ("__device__ void set(float& x) { x = 1; }\n" + _HEAD + "    const float c = 1;\n    set(c);\n}\n",
     4, "reference to const", "const"),
    (_HEAD + "    const float& c = out[0];\n    c = 2;\n}\n", 3, "assignment to const", "const"),
    (_HEAD + "    int* p = static_cast<int*>(out);\n}\n", 2, "static_cast", "unrelated pointer"),
    ('extern "C" __global__ void k(const float* in) {\n    float* p = static_cast<float*>(in);\n}\n',
     2, "static_cast", "away const"),
    ('extern "C" __global__ void k(const float* in) {\n'
     '    int* p = reinterpret_cast<int*>(in);\n}\n', 2, "reinterpret_cast", "away const"),
    (_HEAD + "    float f = reinterpret_cast<float>(n);\n}\n", 2, "reinterpret_cast", "pointers"),
    (_HEAD + "    int* p = const_cast<int*>(out);\n}\n", 2, "const_cast", "only const"),
    (_HEAD + "    int i = const_cast<int>(n);\n}\n", 2, "const_cast", "pointers"),
    (_HEAD + "    float& r = static_cast<float&>(out[0]);\n}\n", 2, "static_cast to reference",
     "reference"),
    (_HEAD + "    out[0] = float(1, 2);\n}\n", 2, "functional cast", "one value"),
    (_HEAD + "    float v[4]{};\n    for (float x : v) { out[0] += x; }\n}\n", 3, "range-based for",
     "range-based"),
    (_HEAD + "    float huge[2147483647]{};\n}\n", 2, "local memory size", "512 KiB"),
    ("__device__ float f(float a = 1.0f, float b) { return a + b; }\n" + _HEAD + "}\n", 1,
     "default argument", "default"),
    ("struct P { float a, b; };\n" + _HEAD + "    P p{1, 2};\n    auto [a, b] = p;\n}\n", 4,
     "structured binding", "members one by one"),
    (_HEAD + "    if (int i = n; i > 0) out[0] = 1;\n}\n", 2, "if with an initializer", "before it"),
    ("template <typename T> __device__ typename T::type f(T t);\n" + _HEAD + "}\n", 1,
     "dependent type name", "typename T::type"),
    ("__device__ float s(const float (&a)[4]) { return a[0]; }\n" + _HEAD + "}\n", 1,
     "reference to an array", "pointer"),
    (_HEAD + "    out[0] = 16_KiB;\n}\n", 2, "user-defined literal", "16_KiB"),
    ("namespace geo {\nstruct P { float x; __device__ float twice() const { return 2 * x; } };\n}\n"
     + _HEAD + "}\n", 2, "struct with member functions in a namespace", "outside the namespace"),
    ("__device__ float f(float a, float b = 1.0f);\n__device__ float f(float a, float b = 1.0f) "
     "{ return a + b; }\n" + _HEAD + "}\n", 2, "default argument", "twice"),
]


@pytest.mark.parametrize("source, line, construct, words", REJECTED)
def test_unsupported_cxx_is_named_with_its_line(source, line, construct, words):
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    error = info.value
    assert error.line == line, str(error)
    assert construct in error.construct, (error.construct, str(error))
    assert words in str(error), str(error)
    assert "syntax error" not in str(error)


@pytest.mark.parametrize("body, construct", [
    ("template <typename... Ts> __device__ void f(Ts... ts) { }\n", "variadic template"),
    ("template <class... Ts> __device__ int count() { return sizeof...(Ts); }\n",
     "variadic template"),
])
def test_variadic_templates_are_named_by_the_cxx_lowering(body, construct):
    # preprocess() rejects every template today; the lowering names the variadic ones
    pre = preprocess("int placeholder;\n")
    pre.text = pre.text.replace("int placeholder;", body.rstrip("\n"))
    with pytest.raises(simt.CompileError) as info:
        cxx.lower(pre)
    assert info.value.construct == construct
    assert info.value.line == 1


def test_a_library_namespace_registers_its_names_and_rejections():
    cxx.register_namespace("testlib", {"answer": "__testlib_answer"},
                           rejected={"grid": "grid-wide groups are not supported"})
    try:
        source = ("namespace t = testlib;\n" + _HEAD + "    out[0] = t::answer();\n"
                  "    out[1] = testlib::answer();\n}\n")
        text = cxx.lower(preprocess(source)).text
        assert text.count("__testlib_answer()") == 2
        with pytest.raises(simt.CompileError) as info:
            cxx.lower(preprocess("using namespace testlib;\n" + _HEAD + "    grid();\n}\n"))
        assert info.value.construct == "testlib::grid"
        assert "grid-wide" in str(info.value) and info.value.line == 3
    finally:
        del cxx.NAMESPACES["testlib"]
