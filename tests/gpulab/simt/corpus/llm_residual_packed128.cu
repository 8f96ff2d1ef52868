// llm_residual_packed128.cu: llm.c's residual add (out = inp1 + inp2) on 128-bit packets, through
// its Packed128<ElementType> vector wrapper, each thread adding four floats.
// Constructs: struct template (template<class ElementType> struct alignas(16) Packed128), typedef of
// an instance (f128), static constexpr member sizing a member array, static member functions,
// = default constructor, operator[] returning a reference, T::size / obj.size, function templates
// taking and returning a struct template instance (load128/store128 deduce ElementType).
// corpus: {"kernel": "residual_forward_kernel", "grid": 3, "block": 64, "args": ["out:float32[702]", "inp1:float32[702]=rand", "inp2:float32[702]=rand", 702]}

// llm.c builds a packet from an int4 with memcpy; the emulator has no memcpy into a struct, so
// load128/store128 here reinterpret the address as a packet (the same 16-byte load and store).
template<class ElementType>
struct alignas(16) Packed128 {
    Packed128() = default;

    __device__ static Packed128 constant(ElementType value) {
        Packed128 result;
        for (int k = 0; k < size; ++k) {
            result.payload[k] = value;
        }
        return result;
    }
    __device__ static Packed128 zeros() {
        return constant(0.f);
    }
    __device__ ElementType& operator[](int index) {
        return payload[index];
    }
    __device__ const ElementType& operator[](int index) const {
        return payload[index];
    }
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
};

template<class ElementType>
__device__ Packed128<ElementType> load128(const ElementType* address) {
    return *reinterpret_cast<const Packed128<ElementType>*>(address);
}

template<class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
    *reinterpret_cast<Packed128<ElementType>*>(target) = value;
}

typedef Packed128<float> f128;

extern "C" __global__ void residual_forward_kernel(float* out, const float* inp1, const float* inp2, int N) {
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * f128::size;
    if (idx + f128::size <= N) {
        f128 packed_out = f128::zeros();
        f128 packed_inp1 = load128(inp1 + idx);
        f128 packed_inp2 = load128(inp2 + idx);
        for (int k = 0; k < packed_inp1.size; k++) {
            packed_out[k] = (float)(packed_inp1[k] + packed_inp2[k]);
        }
        store128(out + idx, packed_out);
    } else {
        for (int k = idx; k < N; k++) {  // the tail that does not fill a packet
            out[k] = inp1[k] + inp2[k];
        }
    }
}
