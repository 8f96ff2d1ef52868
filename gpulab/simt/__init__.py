"""gpulab.simt — a SIMT emulator that runs real CUDA C lane by lane on any CPU.

    from gpulab import simt
    r = simt.launch(source, "vector_add", grid=4096, block=256, args=[a, b, c, n])
    r.metrics["gld_transactions_per_request"]   # 4.0 for coalesced float32 loads

Results are exact and carry provenance ``emulated``: values, lane masks, addresses,
sectors and bank conflicts are computed, no time is claimed.

The CUDA C subset
-----------------
The same ``kernels/*.cu`` file that CuPy compiles is preprocessed (comments, ``#define``
object-like and function-like macros, ``#if/#ifdef/#ifndef/#else/#endif`` with integer
conditions, ``#undef``; ``#pragma`` ignored; line and column numbers kept) and parsed with
pycparser. Accepted: ``extern "C"``, ``__global__`` and ``__device__`` functions (device
functions may return early and recurse up to depth 64), ``__shared__`` arrays (fixed size,
any dimension) and scalars, fixed-size thread-local arrays (with ``{...}`` initializers), ``__restrict__``, ``const``,
``__forceinline__``, ``__launch_bounds__``, casts, ``sizeof``. Types: ``bool``, ``char``,
``unsigned char``, ``short``, ``int``, ``unsigned int``, ``long``/``long long`` (64-bit),
their unsigned forms, ``size_t``/``intN_t``, ``float``, ``double`` and pointers to them
(pointer arithmetic, comparison, difference, swapping pointers to shared buffers).
Statements: if/else, for, while, do-while, ``switch`` (see :mod:`.compile_switch`), break,
continue, return, expression statements; operators: all C arithmetic, bitwise, logical (short-circuit), comparison,
ternary, comma, assignment and compound assignment, ``++``/``--``. Builtins:
``threadIdx/blockIdx/blockDim/gridDim.{x,y,z}``, ``warpSize``, ``__syncthreads``,
``atomicAdd/Sub/Min/Max/Exch/CAS/And/Or/Xor`` (the types CUDA overloads them for, global
and shared), ``atomicInc/atomicDec``, ``clock()``/``clock64()`` (warp-steps, not cycles) and
``__nanosleep`` (see :mod:`.builtins_more`), ``printf`` (a per-launch log, see :mod:`.printf`),
``__shfl_sync/__shfl_up_sync/__shfl_down_sync/__shfl_xor_sync`` (with ``width``),
``__ballot_sync``, ``__any_sync``, ``__all_sync``, ``__activemask``, ``__popc(ll)``,
``__clz(ll)``, ``__ffs(ll)``, ``__brev``, ``min``, ``max``, ``abs``, float math
(``sqrtf expf logf fabsf fminf fmaxf fmaf powf sinf cosf tanf rsqrtf exp2f log2f log10f
tanhf floorf ceilf truncf roundf rintf atan2f fmodf hypotf`` ... and the double versions),
``__int_as_float``-style reinterpretations, ``__float2int_r?`` conversions, ``__ldg``
(an ordinary load here) and ``__fadd_r?/__fmul_r?/__fdiv_r?/__fsqrt_r?/__fmaf_r?``
(always rounded to nearest in the emulator).
Anything else (goto, ``__device__`` global variables, unions, lambdas, ...) raises
:class:`CompileError` naming the
construct, line and column.

Also accepted (C++ a kernel file commonly has):
dynamic shared memory, ``extern __shared__ T name[];`` (any element type; every such array
aliases the start of the block's buffer, whose size in bytes the launch gives:
``launch(..., shared_mem=BYTES)``; see :mod:`.dynshared`); file-scope ``const``,
``constexpr`` and ``static const`` scalars initialized with constant expressions
(compile-time constants; see :mod:`.filescope`); function templates with type and integer
or bool value parameters and defaults, instantiated by the launch (``launch(src,
"reduce<256>", ...)``, as CuPy's ``name_expressions``), by explicit instantiations and by
calls with explicit or deduced arguments (see :mod:`.templates` and :mod:`.instantiate`);
struct templates, one struct per set of arguments named as C++ prints it (``Pair<float>``),
with ``static constexpr`` members, static member functions and ``T::size`` (see
:mod:`.struct_templates` and :mod:`.struct_instances`); conversion operators
(``operator T*()``) and ``operator[]`` in structs;
a value template argument or tile size may name a ``const``/``constexpr`` local. Overloaded
functions, function templates and kernels (a call picks as C++ does; a launch of an
overloaded kernel picks by the argument dtypes) and ``auto`` return types (see :mod:`.overloads`).
Function objects (a struct's ``operator()``, ``cg::plus<float>{}``), function pointers (typedef
and ``using`` aliases, a function as an argument; lanes calling different functions run one
function at a time) and braced arguments and return values (``f({x, y})``, ``return {a, b};``)
(see :mod:`.fnptr`); unscoped enums and ``static_assert`` (see :mod:`.compiletime`);
``[[attributes]]``, ``noexcept``, ``alignas`` on a variable and ``if constexpr``.

C semantics are exact: 32-bit wrap-around for ``int`` and ``unsigned``, 64-bit for
``long long``; integer promotion and the usual arithmetic conversions (so ``-1 < 1u`` is
false); division and ``%`` truncate toward zero; float-to-int conversion truncates and
saturates like ``cvt.rzi`` (NaN -> 0); ``float`` arithmetic is done in float32 and mixing
in a ``double`` promotes to float64, as in C. Integer division or ``%`` by zero (undefined
in C; PTX gives an unspecified value, no trap) stops the launch with a ``division-by-zero``
KernelFault naming the line and the lanes. Transcendental functions use numpy's correctly rounded float32/float64
functions, so they match a GPU (which uses approximations, more so with fast-math) to
float32 tolerance, not bit for bit; ``fmaf`` rounds once.

Execution model
---------------
Every thread of the launch is one lane of numpy arrays (registers are arrays over all
lanes of the grid, or scalars while a value is uniform). Each block is padded to whole
warps; a warp is 32 consecutive linear thread ids of a block (linear id = x + y*bx +
z*bx*by); global warp id = block linear id * warps per block + warp in block. Control
flow uses the classic SIMT stack model: an execution mask per construct, both sides of a
divergent branch run one after the other (then-side first) with complementary masks, and
lanes reconverge at the end of each structured construct (if, loop, function call).
Volta and later GPUs schedule threads independently and may interleave divergent paths
differently; results of race-free kernels are the same, timings and interleavings of
racy ones are not. All blocks advance in lockstep statement by statement.

``__syncthreads`` is a real barrier: when some but not all live threads of a block
(threads that have not returned) reach it, the launch stops with :class:`KernelFault`
"divergent barrier". Out-of-bounds or misaligned global/shared/local accesses raise a
KernelFault like compute-sanitizer memcheck, with attributes ``kernel``, ``line``,
``buffer``, ``lanes`` and ``address``. Global buffers sit at 256-byte-aligned virtual
addresses (as cudaMalloc places them) with unmapped guard gaps between them.

When several lanes store to one address in one step, the highest lane (last in linear
launch order) wins. Atomics behave as if the lanes ran one after another in increasing
lane order (lane order within a warp, warps in increasing global warp id): that is the
order of the old values returned by ``atomicAdd``/``atomicExch``/``atomicCAS``.
Shuffles read the source lane's current value of the variable; reading a lane that is
inactive or not named in the mask (undefined on a GPU) returns that lane's last value in
the emulator. An active lane calling a ``*_sync`` intrinsic whose mask does not include
it is a KernelFault. Out-of-range shuffle sources (``__shfl_up/down`` past the segment,
``__shfl_xor`` into a later segment) return the caller's own value, as on a GPU.

Budget and cancellation: ``max_steps`` (default 10**8) bounds warp-steps; every loop is
also capped at ``max_loop_iterations`` (default 10**6) iterations per execution; both
raise KernelFault "possible infinite loop at line N". ``cancel=threading.Event()`` is
polled at every step and loop back-edge and raises :class:`Cancelled`.

Metrics (``LaunchResult.metrics``, nvprof names)
------------------------------------------------
A *step* is one statement executed (expression statement, initialized declaration,
return, break, continue) or one branch/loop condition evaluated; ``inst_executed`` counts
(warp, step) pairs where the warp has at least one active lane. ``warp_execution_efficiency``
= 100 * active lanes summed over those steps / (32 * inst_executed).
``branch_efficiency`` = 100 * non-divergent / all branch evaluations, a branch (if or
loop condition) being evaluated once per warp with an active lane and divergent when its
active lanes disagree. ``gld_requests``/``gst_requests``: warp-level global load/store
instructions with an active lane; ``*_transactions``: distinct 32-byte sectors they touch.
Shared memory: 32 banks of 4 bytes; ``shared_*_transactions`` are wavefronts = the largest
number of distinct 4-byte words any one bank must serve (lanes reading one word
broadcast). ``atomic_requests`` counts warp-level atomic instructions. Extra keys:
``branches``, ``divergent_branches``, ``lane_steps``, ``barriers``,
``atomic_transactions``, ``local_load_requests``, ``local_store_requests``. With
``launch(..., count_flops=True)`` (a separately compiled variant; see :mod:`.work`) also
``flop_count_sp``/``flop_count_dp`` (floating-point + - * / per active lane, fma = 2) and
``unique_global_load_bytes``/``unique_global_store_bytes`` (distinct bytes touched).

Trace
-----
``trace=True`` traces the warps of block 0 (at most 32 warps); ``trace=[ids]`` selects
global warp ids. ``LaunchResult.trace[warp]`` is the ordered list of :class:`TraceStep`
(line, column span, kind, 32-bit active mask; memory steps add per-lane addresses,
sectors, 128-byte lines, the bank-conflict degree and ``itemsize``, the bytes per element
accessed). Every step also has ``seq``, a launch-wide sequence number: traced warps that
take part in the same lock-step warp-step share it and later steps have larger numbers,
so merging the warps' lists by ``seq`` gives the exact order the emulator ran them in;
and ``exited_mask``, the lanes of the warp that have already returned from the kernel
(lanes masked off by divergence, or waiting for a construct to end, are not in it). Each
warp keeps at most ``trace.MAX_STEPS_PER_WARP`` (20,000) steps and
``LaunchResult.trace_truncated`` says when one was cut short; metrics always cover every
warp.

``LaunchResult.registers[warp]`` (traced warps only; nothing is recorded, and nothing
costs, without ``trace``) is a :class:`RegisterTrace`: after every statement that has a
step, the per-lane values of the running function's scalar local variables and
parameters in scope there (local arrays are memory, not registers).
``registers[warp].at(k)`` gives ``{name: 32 per-lane values}`` after the warp's own step
``k`` (None where a lane has not reached the declaration yet, has returned, or is a
padding lane); ``registers[warp].lane(k, lane)`` one lane's defined values. Values are
stored as changes in numpy columns, at most ``trace.MAX_REGISTER_CHANGES_PER_WARP``
(20,000) change records per warp (``RegisterTrace.truncated`` says when the cap was hit).

Structs and vector types (:mod:`.layout`, :mod:`.aggregates`, :mod:`.structs`): CUDA's
``float2/3/4``, ``int2/3/4``, ``uint4``, ``double2`` ... with ``.x .y .z .w``, ``make_float4(...)``
and the sizes and alignments of ``vector_types.h``; user structs (``struct T {...};``,
``typedef struct {...} T;``, nested structs, member arrays in memory) with C layout, as
locals, parameters, return values, ``__shared__`` and local arrays and behind pointers
(``p->f``, ``a[i].f``); member functions, ``this``, constructors (initializer lists, default
arguments), operators (member and free, chosen by operand types), ``T{...}``/``T(...)``
temporaries and aggregate initializers. A whole-struct load or store is one access per
chunk the GPU would use (a ``float4`` is one aligned 16-byte access per lane). A ``T*``
parameter takes a numpy array with T's layout (:func:`struct_dtype`; a vector type also an
array of its component with a last axis of its length, a struct of two floats also
complex64); a struct parameter by value takes a tuple or a structured scalar.
:func:`declared_itemsizes` reads the element size of each pointer parameter and array from
the compiled program (for tools that show memory accesses; nothing outside the emulator
needs to parse C declarations).

Syntax errors raise :class:`CompileError` with ``line`` and ``column`` in the original
source (through macros and conditionals); a missing ``;`` is reported at the end of the
line that lacks it, and a source that ends inside a construct at its last token.
"""

from .api import LaunchResult, declared_itemsizes, launch, struct_dtype
from .errors import Cancelled, CompileError, KernelFault, SimtError
from .layout import numpy_dtype
from .trace import RegisterTrace, TraceStep
from .translate import compile_source

__all__ = [
           "Cancelled",
           "CompileError",
           "KernelFault",
           "LaunchResult",
           "RegisterTrace",
           "SimtError",
           "TraceStep",
           "compile_source",
           "declared_itemsizes",
           "launch",
           "numpy_dtype",
           "struct_dtype",
]
