<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About gpulab</source>
        <translation>About gpulab</translation>
    </message>
    <message>
        <source>gpulab shows, with real measurements, where a GPU's time goes. Every number is labelled measured, emulated, modelled or replayed.</source>
        <translation>gpulab shows, with real measurements, where a GPU's time goes. Every number is labelled measured, emulated, modelled or replayed.</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>not installed</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>not available</translation>
    </message>
</context>
<context>
    <name>AccessPatternPanel</name>
    <message>
        <source>peak %1 GB/s</source>
        <translation>peak %1 GB/s</translation>
    </message>
    <message>
        <source>One warp's load</source>
        <translation>One warp's load</translation>
    </message>
    <message>
        <source>GB/s chart</source>
        <translation>GB/s chart</translation>
    </message>
</context>
<context>
    <name>AllReducePanel</name>
    <message>
        <source>Step by step</source>
        <translation>Step by step</translation>
    </message>
    <message>
        <source>algbw vs busbw</source>
        <translation>algbw vs busbw</translation>
    </message>
    <message>
        <source>Ring</source>
        <translation>Ring</translation>
    </message>
    <message>
        <source>Tree</source>
        <translation>Tree</translation>
    </message>
    <message>
        <source>Press Run: the ranks and their chunks appear here, ready to step through.</source>
        <translation>Press Run: the ranks and their chunks appear here, ready to step through.</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>all</source>
        <translation>all</translation>
    </message>
    <message>
        <source>A cell is a chunk; its number and colour: how many ranks' data it sums (green: all). Outlined: being sent; arrows carry the chunk index.</source>
        <translation>A cell is a chunk; its number and colour: how many ranks' data it sums (green: all). Outlined: being sent; arrows carry the chunk index.</translation>
    </message>
    <message>
        <source>n = %1</source>
        <translation>n = %1</translation>
    </message>
    <message>
        <source>The check against the plain sum comes after the last step.</source>
        <translation>The check against the plain sum comes after the last step.</translation>
    </message>
</context>
<context>
    <name>BandwidthPanel</name>
    <message>
        <source>GPU L2</source>
        <translation>GPU L2</translation>
    </message>
    <message>
        <source>%1% of ceiling</source>
        <translation>%1% of ceiling</translation>
    </message>
    <message>
        <source>, %1% of DRAM</source>
        <translation>, %1% of DRAM</translation>
    </message>
    <message>
        <source>CPU best triad %1 GB/s</source>
        <translation>CPU best triad %1 GB/s</translation>
    </message>
    <message>
        <source>%1 spec %2 GB/s</source>
        <translation>%1 spec %2 GB/s</translation>
    </message>
</context>
<context>
    <name>BatchBars</name>
    <message>
        <source>&lt;b&gt;Keep it on the GPU&lt;/b&gt; (%1): one batch is %2× faster</source>
        <translation>&lt;b&gt;Keep it on the GPU&lt;/b&gt; (%1): one batch is %2× faster</translation>
    </message>
    <message>
        <source>The same bytes cross the link either way, but every copy pays a fixed start-up cost: many small copies pay it many times. Batch small pieces, and leave data on the GPU between steps.</source>
        <translation>The same bytes cross the link either way, but every copy pays a fixed start-up cost: many small copies pay it many times. Batch small pieces, and leave data on the GPU between steps.</translation>
    </message>
</context>
<context>
    <name>BothWaysBars</name>
    <message>
        <source>&lt;b&gt;Both ways at once&lt;/b&gt; (%1, %2, %3 copies)</source>
        <translation>&lt;b&gt;Both ways at once&lt;/b&gt; (%1, %2, %3 copies)</translation>
    </message>
    <message>
        <source>%1, one way at a time</source>
        <translation>%1, one way at a time</translation>
    </message>
    <message>
        <source>%1, both ways at once</source>
        <translation>%1, both ways at once</translation>
    </message>
    <message>
        <source>Each direction of the link has its own lanes, but the host's side is shared: hosts measured copies to the GPU falling to about half their rate while copies back keep nearly all of theirs (nvbandwidth, PCIe Gen4). A copy out of one chunk beside the copy in of the next is slower than either alone.</source>
        <translation>Each direction of the link has its own lanes, but the host's side is shared: hosts measured copies to the GPU falling to about half their rate while copies back keep nearly all of theirs (nvbandwidth, PCIe Gen4). A copy out of one chunk beside the copy in of the next is slower than either alone.</translation>
    </message>
</context>
<context>
    <name>CaseMemoryBox</name>
    <message>
        <source>Open in warp visualizer</source>
        <translation>Open in warp visualizer</translation>
    </message>
    <message>
        <source>Step this kernel lane by lane in the warp visualizer</source>
        <translation>Step this kernel lane by lane in the warp visualizer</translation>
    </message>
    <message>
        <source>Choose a case in the table to see one warp's load.</source>
        <translation>Choose a case in the table to see one warp's load.</translation>
    </message>
    <message>
        <source>%1: this result has no warp load stored (saved by an older gpulab).</source>
        <translation>%1: this result has no warp load stored (saved by an older gpulab).</translation>
    </message>
</context>
<context>
    <name>CaseTable</name>
    <message>
        <source>Case</source>
        <translation>Case</translation>
    </message>
    <message>
        <source>Sectors</source>
        <translation>Sectors</translation>
    </message>
    <message>
        <source>Useful</source>
        <translation>Useful</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Source</translation>
    </message>
    <message>
        <source>Bytes fetched / used</source>
        <translation>Bytes fetched / used</translation>
    </message>
    <message>
        <source>The case's number on the chart</source>
        <translation>The case's number on the chart</translation>
    </message>
    <message>
        <source>The load pattern</source>
        <translation>The load pattern</translation>
    </message>
    <message>
        <source>32-byte sectors one warp's load of in[] fetches (emulated, exact)</source>
        <translation>32-byte sectors one warp's load of in[] fetches (emulated, exact)</translation>
    </message>
    <message>
        <source>Bytes used / bytes fetched of that load</source>
        <translation>Bytes used / bytes fetched of that load</translation>
    </message>
    <message>
        <source>Useful bytes per second of the whole kernel: measured on the GPU, else modelled</source>
        <translation>Useful bytes per second of the whole kernel: measured on the GPU, else modelled</translation>
    </message>
    <message>
        <source>Where the GB/s come from</source>
        <translation>Where the GB/s come from</translation>
    </message>
    <message>
        <source>Bytes those sectors hold / bytes the 32 lanes asked for, per warp load (emulated)</source>
        <translation>Bytes those sectors hold / bytes the 32 lanes asked for, per warp load (emulated)</translation>
    </message>
</context>
<context>
    <name>ClusterScalingPanel</name>
    <message>
        <source>Fit to a Collectives run…</source>
        <translation>Fit to a Collectives run…</translation>
    </message>
    <message>
        <source>No fit</source>
        <translation>No fit</translation>
    </message>
    <message>
        <source>Check the parameters: %1</source>
        <translation>Check the parameters: %1</translation>
    </message>
    <message>
        <source>A saved Collectives result</source>
        <translation>A saved Collectives result</translation>
    </message>
    <message>
        <source>gpulab results (*.json)</source>
        <translation>gpulab results (*.json)</translation>
    </message>
    <message>
        <source>Links from the spec sheet only.</source>
        <translation>Links from the spec sheet only.</translation>
    </message>
    <message>
        <source>Ring also on the link fitted to %1: %2 GB/s, alpha %3 µs.</source>
        <translation>Ring also on the link fitted to %1: %2 GB/s, alpha %3 µs.</translation>
    </message>
</context>
<context>
    <name>CollectivesPanel</name>
    <message>
        <source>Show algbw (S / time)</source>
        <translation>Show algbw (S / time)</translation>
    </message>
    <message>
        <source>Algorithm bandwidth (algbw) (GB/s)</source>
        <translation>Algorithm bandwidth (algbw) (GB/s)</translation>
    </message>
    <message>
        <source>%1 wrong</source>
        <translation>%1 wrong</translation>
    </message>
    <message>
        <source>#wrong: %1 elements of the results were not what the collective must give. Do not trust these bandwidths.</source>
        <translation>#wrong: %1 elements of the results were not what the collective must give. Do not trust these bandwidths.</translation>
    </message>
    <message>
        <source>model: %1</source>
        <translation>model: %1</translation>
    </message>
    <message>
        <source>With the NCCL backend on GPUs of the spec table, the model's AllReduce curves are drawn beside the measurement.</source>
        <translation>With the NCCL backend on GPUs of the spec table, the model's AllReduce curves are drawn beside the measurement.</translation>
    </message>
    <message>
        <source>Dashed: the AllReduce model for %1 × %2 (NCCL's achievable NVLink rate).</source>
        <translation>Dashed: the AllReduce model for %1 × %2 (NCCL's achievable NVLink rate).</translation>
    </message>
</context>
<context>
    <name>CopyMatrix</name>
    <message>
        <source>NVLink, direct</source>
        <translation>NVLink, direct</translation>
    </message>
    <message>
        <source>NVLink through NVSwitch</source>
        <translation>NVLink through NVSwitch</translation>
    </message>
    <message>
        <source>on one board</source>
        <translation>on one board</translation>
    </message>
    <message>
        <source>PCIe switch</source>
        <translation>PCIe switch</translation>
    </message>
    <message>
        <source>PCIe host bridge</source>
        <translation>PCIe host bridge</translation>
    </message>
    <message>
        <source>through one CPU socket</source>
        <translation>through one CPU socket</translation>
    </message>
    <message>
        <source>across CPU sockets</source>
        <translation>across CPU sockets</translation>
    </message>
    <message>
        <source>path not known</source>
        <translation>path not known</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>A GPU does not copy to itself here.</source>
        <translation>A GPU does not copy to itself here.</translation>
    </message>
    <message>
        <source>GPU %1 → GPU %2: %3 GB/s</source>
        <translation>GPU %1 → GPU %2: %3 GB/s</translation>
    </message>
    <message>
        <source>NVLink links: %1</source>
        <translation>NVLink links: %1</translation>
    </message>
    <message>
        <source>nominal: %1 GB/s</source>
        <translation>nominal: %1 GB/s</translation>
    </message>
    <message>
        <source>%1% of nominal</source>
        <translation>%1% of nominal</translation>
    </message>
</context>
<context>
    <name>CpuVsGpuPanel</name>
    <message>
        <source>CPU vs GPU: where does the GPU start to win?</source>
        <translation>CPU vs GPU: where does the GPU start to win?</translation>
    </message>
    <message>
        <source>Run sweep</source>
        <translation>Run sweep</translation>
    </message>
    <message>
        <source>Series:</source>
        <translation>Series:</translation>
    </message>
    <message>
        <source>Press Run sweep: the curves grow here, size by size.</source>
        <translation>Press Run sweep: the curves grow here, size by size.</translation>
    </message>
    <message>
        <source>Time (ms)</source>
        <translation>Time (ms)</translation>
    </message>
    <message>
        <source>Race</source>
        <translation>Race</translation>
    </message>
    <message>
        <source>time (ms)</source>
        <translation>time (ms)</translation>
    </message>
    <message>
        <source>The GPU spec table cannot be read: %1</source>
        <translation>The GPU spec table cannot be read: %1</translation>
    </message>
    <message>
        <source>Modelled GPU wins from %1</source>
        <translation>Modelled GPU wins from %1</translation>
    </message>
    <message>
        <source>GPU wins from %1</source>
        <translation>GPU wins from %1</translation>
    </message>
    <message>
        <source>Nothing to save yet: run a sweep to the end first.</source>
        <translation>Nothing to save yet: run a sweep to the end first.</translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation>Could not save %1: %2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>Saved %1</translation>
    </message>
</context>
<context>
    <name>DevicesPanel</name>
    <message>
        <source>GPU ready</source>
        <translation>GPU ready</translation>
    </message>
    <message>
        <source>CuPy is not installed</source>
        <translation>CuPy is not installed</translation>
    </message>
    <message>
        <source>CuPy is installed but broken</source>
        <translation>CuPy is installed but broken</translation>
    </message>
    <message>
        <source>no NVIDIA driver</source>
        <translation>no NVIDIA driver</translation>
    </message>
    <message>
        <source>the NVIDIA driver is too old</source>
        <translation>the NVIDIA driver is too old</translation>
    </message>
    <message>
        <source>no CUDA device found</source>
        <translation>no CUDA device found</translation>
    </message>
    <message>
        <source>CUDA could not start</source>
        <translation>CUDA could not start</translation>
    </message>
    <message>
        <source>Checking devices…</source>
        <translation>Checking devices…</translation>
    </message>
    <message>
        <source>GPU: %1</source>
        <translation>GPU: %1</translation>
    </message>
    <message>
        <source>CPU only — %1</source>
        <translation>CPU only — %1</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>not available</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>not installed</translation>
    </message>
    <message>
        <source>CuPy</source>
        <translation>CuPy</translation>
    </message>
    <message>
        <source>CUDA runtime</source>
        <translation>CUDA runtime</translation>
    </message>
    <message>
        <source>CUDA driver</source>
        <translation>CUDA driver</translation>
    </message>
    <message>
        <source>%1 threads</source>
        <translation>%1 threads</translation>
    </message>
    <message>
        <source>%1 physical, %2 logical</source>
        <translation>%1 physical, %2 logical</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Cores</source>
        <translation>Cores</translation>
    </message>
    <message>
        <source>Max clock</source>
        <translation>Max clock</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memory</translation>
    </message>
    <message>
        <source>BLAS (numpy)</source>
        <translation>BLAS (numpy)</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>Compute capability</translation>
    </message>
    <message>
        <source>Streaming multiprocessors</source>
        <translation>Streaming multiprocessors</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>Device memory</translation>
    </message>
    <message>
        <source>SM clock</source>
        <translation>SM clock</translation>
    </message>
    <message>
        <source>Memory clock</source>
        <translation>Memory clock</translation>
    </message>
    <message>
        <source>Memory bus</source>
        <translation>Memory bus</translation>
    </message>
    <message>
        <source>L2 cache</source>
        <translation>L2 cache</translation>
    </message>
    <message>
        <source>Peak memory bandwidth</source>
        <translation>Peak memory bandwidth</translation>
    </message>
    <message>
        <source>PCI bus</source>
        <translation>PCI bus</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>Driver</translation>
    </message>
    <message>
        <source>PCIe link (now / max)</source>
        <translation>PCIe link (now / max)</translation>
    </message>
    <message>
        <source>Power (now / limit)</source>
        <translation>Power (now / limit)</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperature</translation>
    </message>
    <message>
        <source>Devices on this machine</source>
        <translation>Devices on this machine</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <source>Probe the GPU and CPU again</source>
        <translation>Probe the GPU and CPU again</translation>
    </message>
    <message>
        <source>GPU ready: %1 CUDA device(s).</source>
        <translation>GPU ready: %1 CUDA device(s).</translation>
    </message>
    <message>
        <source>No usable GPU: %1.</source>
        <translation>No usable GPU: %1.</translation>
    </message>
    <message>
        <source>CUDA software</source>
        <translation>CUDA software</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>Something went wrong: %1. The lab keeps running; the details are printed on the console.</source>
        <translation>Something went wrong: %1. The lab keeps running; the details are printed on the console.</translation>
    </message>
</context>
<context>
    <name>ExperimentsPanel</name>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Run an experiment</source>
        <translation>Run an experiment</translation>
    </message>
    <message>
        <source>Experiment:</source>
        <translation>Experiment:</translation>
    </message>
    <message>
        <source>Run on:</source>
        <translation>Run on:</translation>
    </message>
    <message>
        <source>Press Run: the points appear here as they are measured.</source>
        <translation>Press Run: the points appear here as they are measured.</translation>
    </message>
    <message>
        <source>The run failed before its first point; see the message above.</source>
        <translation>The run failed before its first point; see the message above.</translation>
    </message>
    <message>
        <source>Experiment %1 cannot be loaded: %2</source>
        <translation>Experiment %1 cannot be loaded: %2</translation>
    </message>
    <message>
        <source>Check the parameters: %1</source>
        <translation>Check the parameters: %1</translation>
    </message>
</context>
<context>
    <name>ExportButton</name>
    <message>
        <source>Export…</source>
        <translation>Export…</translation>
    </message>
    <message>
        <source>Plots as PNG image…</source>
        <translation>Plots as PNG image…</translation>
    </message>
    <message>
        <source>Plots as SVG drawing…</source>
        <translation>Plots as SVG drawing…</translation>
    </message>
    <message>
        <source>Points as CSV table…</source>
        <translation>Points as CSV table…</translation>
    </message>
    <message>
        <source>Result as JSON (gpulab report)…</source>
        <translation>Result as JSON (gpulab report)…</translation>
    </message>
    <message>
        <source>Export as %1</source>
        <translation>Export as %1</translation>
    </message>
</context>
<context>
    <name>FusionPanel</name>
    <message>
        <source>Chart</source>
        <translation>Chart</translation>
    </message>
    <message>
        <source>Unfused vs fused</source>
        <translation>Unfused vs fused</translation>
    </message>
    <message>
        <source>Step through the fused kernel</source>
        <translation>Step through the fused kernel</translation>
    </message>
    <message>
        <source>Open the fused .cu kernel in the warp visualizer</source>
        <translation>Open the fused .cu kernel in the warp visualizer</translation>
    </message>
    <message>
        <source>Per element</source>
        <translation>Per element</translation>
    </message>
    <message>
        <source>Unfused</source>
        <translation>Unfused</translation>
    </message>
    <message>
        <source>Fused</source>
        <translation>Fused</translation>
    </message>
    <message>
        <source>peak %1 GB/s</source>
        <translation>peak %1 GB/s</translation>
    </message>
    <message>
        <source>unfused ≤ %1</source>
        <translation>unfused ≤ %1</translation>
    </message>
    <message>
        <source>Run the lab to compare the unfused and the fused version.</source>
        <translation>Run the lab to compare the unfused and the fused version.</translation>
    </message>
    <message>
        <source>What fusion saves for y = %1</source>
        <translation>What fusion saves for y = %1</translation>
    </message>
    <message>
        <source>Counted by the SIMT emulator at n=%1, exactly; it claims no time.</source>
        <translation>Counted by the SIMT emulator at n=%1, exactly; it claims no time.</translation>
    </message>
    <message>
        <source>Kernel launches</source>
        <translation>Kernel launches</translation>
    </message>
    <message>
        <source>On a CPU: passes over the arrays.</source>
        <translation>On a CPU: passes over the arrays.</translation>
    </message>
    <message>
        <source>Bytes moved (hand count)</source>
        <translation>Bytes moved (hand count)</translation>
    </message>
    <message>
        <source>4 bytes per float32 array read or written; each intermediate is written and read back.</source>
        <translation>4 bytes per float32 array read or written; each intermediate is written and read back.</translation>
    </message>
    <message>
        <source>Bytes moved (emulated)</source>
        <translation>Bytes moved (emulated)</translation>
    </message>
    <message>
        <source>Instructions per thread (emulated)</source>
        <translation>Instructions per thread (emulated)</translation>
    </message>
    <message>
        <source>Whole-array time per call at n=%1 (median of repeats).</source>
        <translation>Whole-array time per call at n=%1 (median of repeats).</translation>
    </message>
    <message>
        <source>Time, CPU one thread, measured, n=%1</source>
        <translation>Time, CPU one thread, measured, n=%1</translation>
    </message>
    <message>
        <source>Time, GPU .cu kernels, measured, n=%1</source>
        <translation>Time, GPU .cu kernels, measured, n=%1</translation>
    </message>
    <message>
        <source>Time, %2, modelled, n=%1</source>
        <translation>Time, %2, modelled, n=%1</translation>
    </message>
</context>
<context>
    <name>JobRunner</name>
    <message>
        <source>it ended without a result</source>
        <translation>it ended without a result</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 failed: %2</translation>
    </message>
</context>
<context>
    <name>Jobs</name>
    <message>
        <source>out of memory: try smaller sizes</source>
        <translation>out of memory: try smaller sizes</translation>
    </message>
</context>
<context>
    <name>LabPanel</name>
    <message>
        <source>up to %1% of peak</source>
        <translation>up to %1% of peak</translation>
    </message>
    <message>
        <source>This result is from %1, not from this lab.</source>
        <translation>This result is from %1, not from this lab.</translation>
    </message>
    <message>
        <source>Nothing to save yet: run the lab to the end first.</source>
        <translation>Nothing to save yet: run the lab to the end first.</translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation>Could not save %1: %2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>Saved %1</translation>
    </message>
</context>
<context>
    <name>LaneGrid</name>
    <message>
        <source>active</source>
        <translation>active</translation>
    </message>
    <message>
        <source>masked (divergence)</source>
        <translation>masked (divergence)</translation>
    </message>
    <message>
        <source>exited</source>
        <translation>exited</translation>
    </message>
    <message>
        <source>at barrier</source>
        <translation>at barrier</translation>
    </message>
    <message>
        <source>warp not issued</source>
        <translation>warp not issued</translation>
    </message>
    <message>
        <source>no thread</source>
        <translation>no thread</translation>
    </message>
    <message>
        <source>The lane executes this step.</source>
        <translation>The lane executes this step.</translation>
    </message>
    <message>
        <source>Its warp executes this step, but the lane took the other side of a branch and waits.</source>
        <translation>Its warp executes this step, but the lane took the other side of a branch and waits.</translation>
    </message>
    <message>
        <source>The thread has finished; it never runs again.</source>
        <translation>The thread has finished; it never runs again.</translation>
    </message>
    <message>
        <source>The lane is at __syncthreads(), waiting for every thread of the block.</source>
        <translation>The lane is at __syncthreads(), waiting for every thread of the block.</translation>
    </message>
    <message>
        <source>Other warps run this step; this warp runs its own instructions at another step.</source>
        <translation>Other warps run this step; this warp runs its own instructions at another step.</translation>
    </message>
    <message>
        <source>Beyond the launch: the block has no thread here.</source>
        <translation>Beyond the launch: the block has no thread here.</translation>
    </message>
    <message>
        <source>warp</source>
        <translation>warp</translation>
    </message>
    <message>
        <source>lane</source>
        <translation>lane</translation>
    </message>
    <message>
        <source>all warps</source>
        <translation>all warps</translation>
    </message>
</context>
<context>
    <name>LaunchPanel</name>
    <message>
        <source>K=%2: %1 µs</source>
        <translation>K=%2: %1 µs</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>gpulab — where a GPU's time goes</source>
        <translation>gpulab — where a GPU's time goes</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;File</translation>
    </message>
    <message>
        <source>&amp;Open result…</source>
        <translation>&amp;Open result…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quit</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;View</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Theme</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Language</translation>
    </message>
    <message>
        <source>&amp;Hide sidebar</source>
        <translation>&amp;Hide sidebar</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Help</translation>
    </message>
    <message>
        <source>How good are the &amp;models?</source>
        <translation>How good are the &amp;models?</translation>
    </message>
    <message>
        <source>&amp;About gpulab</source>
        <translation>&amp;About gpulab</translation>
    </message>
    <message>
        <source>Numbers shown:</source>
        <translation>Numbers shown:</translation>
    </message>
    <message>
        <source>The translation for %1 could not be loaded; showing English.</source>
        <translation>The translation for %1 could not be loaded; showing English.</translation>
    </message>
    <message>
        <source>Open a saved result</source>
        <translation>Open a saved result</translation>
    </message>
    <message>
        <source>gpulab results (*.json);;All files (*)</source>
        <translation>gpulab results (*.json);;All files (*)</translation>
    </message>
    <message>
        <source>Could not open the result: %1</source>
        <translation>Could not open the result: %1</translation>
    </message>
    <message>
        <source>Opened %1 (replayed: made elsewhere, not measured here)</source>
        <translation>Opened %1 (replayed: made elsewhere, not measured here)</translation>
    </message>
    <message>
        <source>every lab</source>
        <translation>every lab</translation>
    </message>
</context>
<context>
    <name>MemoryView</name>
    <message>
        <source>load from</source>
        <translation>load from</translation>
    </message>
    <message>
        <source>store to</source>
        <translation>store to</translation>
    </message>
    <message>
        <source>atomic on</source>
        <translation>atomic on</translation>
    </message>
    <message>
        <source>global</source>
        <translation>global</translation>
    </message>
    <message>
        <source>shared</source>
        <translation>shared</translation>
    </message>
    <message>
        <source>local</source>
        <translation>local</translation>
    </message>
    <message>
        <source>Warp %1: %2 '%3' (%4 memory), %5 lanes x %6 bytes.</source>
        <translation>Warp %1: %2 '%3' (%4 memory), %5 lanes x %6 bytes.</translation>
    </message>
    <message>
        <source>Conflict degree %1: the busiest bank serves %1 words one after another.</source>
        <translation>Conflict degree %1: the busiest bank serves %1 words one after another.</translation>
    </message>
    <message>
        <source>No bank conflict: each bank serves one word (same-word reads are broadcast).</source>
        <translation>No bank conflict: each bank serves one word (same-word reads are broadcast).</translation>
    </message>
    <message>
        <source>Sectors needed %1, fetched %2, in %3 line(s) of 128 bytes.</source>
        <translation>Sectors needed %1, fetched %2, in %3 line(s) of 128 bytes.</translation>
    </message>
    <message>
        <source>Step to a load or store to see its memory traffic.</source>
        <translation>Step to a load or store to see its memory traffic.</translation>
    </message>
    <message>
        <source>sector %1</source>
        <translation>sector %1</translation>
    </message>
    <message>
        <source>line %1</source>
        <translation>line %1</translation>
    </message>
    <message>
        <source>... and %1 more lines</source>
        <translation>... and %1 more lines</translation>
    </message>
    <message>
        <source>No memory access at this step.</source>
        <translation>No memory access at this step.</translation>
    </message>
    <message>
        <source>bank efficiency %1% (1 / conflict degree)</source>
        <translation>bank efficiency %1% (1 / conflict degree)</translation>
    </message>
    <message>
        <source>coalescing efficiency %1% (sectors needed / fetched)</source>
        <translation>coalescing efficiency %1% (sectors needed / fetched)</translation>
    </message>
</context>
<context>
    <name>MessageBar</name>
    <message>
        <source>Error:</source>
        <translation>Error:</translation>
    </message>
    <message>
        <source>Warning:</source>
        <translation>Warning:</translation>
    </message>
    <message>
        <source>Note:</source>
        <translation>Note:</translation>
    </message>
    <message>
        <source>Dismiss this message</source>
        <translation>Dismiss this message</translation>
    </message>
</context>
<context>
    <name>MetricsStrip</name>
    <message>
        <source>Branch efficiency</source>
        <translation>Branch efficiency</translation>
    </message>
    <message>
        <source>Share of branches where all lanes of a warp went the same way.</source>
        <translation>Share of branches where all lanes of a warp went the same way.</translation>
    </message>
    <message>
        <source>Warp execution efficiency</source>
        <translation>Warp execution efficiency</translation>
    </message>
    <message>
        <source>nvprof's warp_execution_efficiency: active lanes / 32, averaged over every warp-step of every warp in the launch.</source>
        <translation>nvprof's warp_execution_efficiency: active lanes / 32, averaged over every warp-step of every warp in the launch.</translation>
    </message>
    <message>
        <source>Sectors per load request</source>
        <translation>Sectors per load request</translation>
    </message>
    <message>
        <source>32-byte sectors per warp load; 32 lanes x 4 bytes need only 4.</source>
        <translation>32-byte sectors per warp load; 32 lanes x 4 bytes need only 4.</translation>
    </message>
    <message>
        <source>Sectors per load</source>
        <translation>Sectors per load</translation>
    </message>
    <message>
        <source>Shared transactions per request</source>
        <translation>Shared transactions per request</translation>
    </message>
    <message>
        <source>Bank passes per shared load; more than 1 means bank conflicts.</source>
        <translation>Bank passes per shared load; more than 1 means bank conflicts.</translation>
    </message>
    <message>
        <source>Shared transactions</source>
        <translation>Shared transactions</translation>
    </message>
    <message>
        <source>under the ideal %1: not every lane loads</source>
        <translation>under the ideal %1: not every lane loads</translation>
    </message>
    <message>
        <source>ideal %1</source>
        <translation>ideal %1</translation>
    </message>
</context>
<context>
    <name>MonitorStrip</name>
    <message>
        <source>CPU per core (%)</source>
        <translation>CPU per core (%)</translation>
    </message>
    <message>
        <source>GPU utilization (%)</source>
        <translation>GPU utilization (%)</translation>
    </message>
    <message>
        <source>GPU memory used (GiB)</source>
        <translation>GPU memory used (GiB)</translation>
    </message>
    <message>
        <source>SM clock (MHz)</source>
        <translation>SM clock (MHz)</translation>
    </message>
    <message>
        <source>Power (W)</source>
        <translation>Power (W)</translation>
    </message>
    <message>
        <source>Temperature (°C)</source>
        <translation>Temperature (°C)</translation>
    </message>
    <message>
        <source>PCIe TX / RX (GB/s)</source>
        <translation>PCIe TX / RX (GB/s)</translation>
    </message>
    <message>
        <source>GPU counters hidden: %1</source>
        <translation>GPU counters hidden: %1</translation>
    </message>
    <message>
        <source>Collecting samples…</source>
        <translation>Collecting samples…</translation>
    </message>
    <message>
        <source>Note: “GPU utilization” only means a kernel was running during the sample, not that the SMs were busy; one tiny kernel can show 100%.</source>
        <translation>Note: “GPU utilization” only means a kernel was running during the sample, not that the SMs were busy; one tiny kernel can show 100%.</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <source>Devices</source>
        <translation>Devices</translation>
    </message>
    <message>
        <source>Run experiment</source>
        <translation>Run experiment</translation>
    </message>
    <message>
        <source>CPU vs GPU</source>
        <translation>CPU vs GPU</translation>
    </message>
    <message>
        <source>Basics</source>
        <translation>Basics</translation>
    </message>
    <message>
        <source>Inside a GPU</source>
        <translation>Inside a GPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memory</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>Execution</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Check</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>Lessons</translation>
    </message>
    <message>
        <source>Warp visualizer</source>
        <translation>Warp visualizer</translation>
    </message>
    <message>
        <source>Memory wall</source>
        <translation>Memory wall</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>PCIe transfers</source>
        <translation>PCIe transfers</translation>
    </message>
    <message>
        <source>Stream overlap</source>
        <translation>Stream overlap</translation>
    </message>
    <message>
        <source>Launch overhead &amp; CUDA Graphs</source>
        <translation>Launch overhead &amp; CUDA Graphs</translation>
    </message>
    <message>
        <source>Operator fusion</source>
        <translation>Operator fusion</translation>
    </message>
    <message>
        <source>Mixed precision</source>
        <translation>Mixed precision</translation>
    </message>
    <message>
        <source>Ring &amp; tree AllReduce</source>
        <translation>Ring &amp; tree AllReduce</translation>
    </message>
    <message>
        <source>Scaling to 16,384 GPUs</source>
        <translation>Scaling to 16,384 GPUs</translation>
    </message>
    <message>
        <source>Collectives</source>
        <translation>Collectives</translation>
    </message>
    <message>
        <source>Topology</source>
        <translation>Topology</translation>
    </message>
    <message>
        <source>Access patterns</source>
        <translation>Access patterns</translation>
    </message>
</context>
<context>
    <name>ParamsForm</name>
    <message>
        <source>Default</source>
        <translation>Default</translation>
    </message>
    <message>
        <source>Quick</source>
        <translation>Quick</translation>
    </message>
    <message>
        <source>Standard</source>
        <translation>Standard</translation>
    </message>
    <message>
        <source>Large</source>
        <translation>Large</translation>
    </message>
    <message>
        <source>Huge</source>
        <translation>Huge</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>Full</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>Balanced</translation>
    </message>
    <message>
        <source>Copies longer</source>
        <translation>Copies longer</translation>
    </message>
    <message>
        <source>Kernel longer</source>
        <translation>Kernel longer</translation>
    </message>
</context>
<context>
    <name>PlanTable</name>
    <message>
        <source>GB / GPU</source>
        <translation>GB / GPU</translation>
    </message>
    <message>
        <source>Fits?</source>
        <translation>Fits?</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>Bubble</translation>
    </message>
    <message>
        <source>Step (s)</source>
        <translation>Step (s)</translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation>Efficiency</translation>
    </message>
    <message>
        <source>Why not</source>
        <translation>Why not</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>yes</translation>
    </message>
    <message>
        <source>no</source>
        <translation>no</translation>
    </message>
</context>
<context>
    <name>PrecisionPanel</name>
    <message>
        <source>Format</source>
        <translation>Format</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Source</translation>
    </message>
    <message>
        <source>Of peak</source>
        <translation>Of peak</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memory</translation>
    </message>
    <message>
        <source>GPU throughput: measured on this GPU where it ran, else modelled</source>
        <translation>GPU throughput: measured on this GPU where it ran, else modelled</translation>
    </message>
    <message>
        <source>Percent of the spec-sheet peak of this format</source>
        <translation>Percent of the spec-sheet peak of this format</translation>
    </message>
    <message>
        <source>Relative error of C against FP64, computed on this CPU</source>
        <translation>Relative error of C against FP64, computed on this CPU</translation>
    </message>
    <message>
        <source>Bytes of A, B and C at the GPU size</source>
        <translation>Bytes of A, B and C at the GPU size</translation>
    </message>
    <message>
        <source>Run the lab to compare the formats.</source>
        <translation>Run the lab to compare the formats.</translation>
    </message>
    <message>
        <source>GPU: %1, N = %2</source>
        <translation>GPU: %1, N = %2</translation>
    </message>
    <message>
        <source>error %1 at N = %2 (unit roundoff %3); worst entry %4</source>
        <translation>error %1 at N = %2 (unit roundoff %3); worst entry %4</translation>
    </message>
    <message>
        <source>numpy on this CPU: %1 GFLOP/s at N = %2</source>
        <translation>numpy on this CPU: %1 GFLOP/s at N = %2</translation>
    </message>
    <message>
        <source>modelled: %1 TFLOP/s (peak %2)</source>
        <translation>modelled: %1 TFLOP/s (peak %2)</translation>
    </message>
    <message>
        <source>without tensor cores (CUDA cores): %1 TFLOP/s</source>
        <translation>without tensor cores (CUDA cores): %1 TFLOP/s</translation>
    </message>
</context>
<context>
    <name>PrintfTab</name>
    <message>
        <source>[block (%1) thread (%2) | warp %3 lane %4]</source>
        <translation>[block (%1) thread (%2) | warp %3 lane %4]</translation>
    </message>
    <message>
        <source>No printf output: the kernel printed nothing in this run.</source>
        <translation>No printf output: the kernel printed nothing in this run.</translation>
    </message>
    <message>
        <source>Printed before the error: %1 line(s).</source>
        <translation>Printed before the error: %1 line(s).</translation>
    </message>
    <message>
        <source>%1 line(s) printed, one per thread and printf call, in the emulator's order (a GPU may order warps and blocks differently).</source>
        <translation>%1 line(s) printed, one per thread and printf call, in the emulator's order (a GPU may order warps and blocks differently).</translation>
    </message>
    <message>
        <source>The first %1 are shown.</source>
        <translation>The first %1 are shown.</translation>
    </message>
    <message>
        <source>%1 older line(s) were lost: the 1 MiB printf buffer was full, as it would be on a GPU.</source>
        <translation>%1 older line(s) were lost: the 1 MiB printf buffer was full, as it would be on a GPU.</translation>
    </message>
</context>
<context>
    <name>ProvenanceBadge</name>
    <message>
        <source>MEASURED</source>
        <translation>MEASURED</translation>
    </message>
    <message>
        <source>EMULATED</source>
        <translation>EMULATED</translation>
    </message>
    <message>
        <source>MODELLED</source>
        <translation>MODELLED</translation>
    </message>
    <message>
        <source>REPLAYED</source>
        <translation>REPLAYED</translation>
    </message>
    <message>
        <source>NO DATA</source>
        <translation>NO DATA</translation>
    </message>
    <message>
        <source>Measured: timed on real hardware in this run.</source>
        <translation>Measured: timed on real hardware in this run.</translation>
    </message>
    <message>
        <source>Emulated: executed exactly by the SIMT emulator. Results are exact; no time is claimed.</source>
        <translation>Emulated: executed exactly by the SIMT emulator. Results are exact; no time is claimed.</translation>
    </message>
    <message>
        <source>Modelled: computed from a spec sheet and a stated formula, not measured.</source>
        <translation>Modelled: computed from a spec sheet and a stated formula, not measured.</translation>
    </message>
    <message>
        <source>Replayed: a saved report from another machine or run.</source>
        <translation>Replayed: a saved report from another machine or run.</translation>
    </message>
    <message>
        <source>Nothing measured or computed yet.</source>
        <translation>Nothing measured or computed yet.</translation>
    </message>
</context>
<context>
    <name>RaceTab</name>
    <message>
        <source>One multiply at N = %1</source>
        <translation>One multiply at N = %1</translation>
    </message>
    <message>
        <source>One add of n = %1</source>
        <translation>One add of n = %1</translation>
    </message>
    <message>
        <source>Size %1</source>
        <translation>Size %1</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>Size:</translation>
    </message>
    <message>
        <source>Start race</source>
        <translation>Start race</translation>
    </message>
</context>
<context>
    <name>RaceView</name>
    <message>
        <source>%1 is about %2× faster than %3</source>
        <translation>%1 is about %2× faster than %3</translation>
    </message>
    <message>
        <source>Run a sweep, then race one size.</source>
        <translation>Run a sweep, then race one size.</translation>
    </message>
    <message>
        <source>copy in</source>
        <translation>copy in</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>compute</translation>
    </message>
    <message>
        <source>copy out</source>
        <translation>copy out</translation>
    </message>
</context>
<context>
    <name>RooflinePanel</name>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>Bound</translation>
    </message>
    <message>
        <source>Roof</source>
        <translation>Roof</translation>
    </message>
    <message>
        <source>Percent of the roof above the kernel it reaches</source>
        <translation>Percent of the roof above the kernel it reaches</translation>
    </message>
    <message>
        <source>Run the lab to place every kernel.</source>
        <translation>Run the lab to place every kernel.</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>memory</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>compute</translation>
    </message>
    <message>
        <source>no roof to compare with</source>
        <translation>no roof to compare with</translation>
    </message>
    <message>
        <source>memory-bound, %1% of roof</source>
        <translation>memory-bound, %1% of roof</translation>
    </message>
    <message>
        <source>compute-bound, %1% of roof</source>
        <translation>compute-bound, %1% of roof</translation>
    </message>
    <message>
        <source>no reuse</source>
        <translation>no reuse</translation>
    </message>
    <message>
        <source>ideal reuse</source>
        <translation>ideal reuse</translation>
    </message>
    <message>
        <source>%1 FLOP/byte, %2 GFLOP/s</source>
        <translation>%1 FLOP/byte, %2 GFLOP/s</translation>
    </message>
    <message>
        <source>no floating-point work; %1 GB/s</source>
        <translation>no floating-point work; %1 GB/s</translation>
    </message>
    <message>
        <source>with %1: %2 FLOP/byte, %3 GFLOP/s</source>
        <translation>with %1: %2 FLOP/byte, %3 GFLOP/s</translation>
    </message>
    <message>
        <source>published, a kernel like it: %1 GFLOP/s on the %2, %3% of its fp32 peak</source>
        <translation>published, a kernel like it: %1 GFLOP/s on the %2, %3% of its fp32 peak</translation>
    </message>
    <message>
        <source>Click to open it in the warp visualizer.</source>
        <translation>Click to open it in the warp visualizer.</translation>
    </message>
    <message>
        <source>ridge %1</source>
        <translation>ridge %1</translation>
    </message>
    <message>
        <source>○ %1</source>
        <translation>○ %1</translation>
    </message>
    <message>
        <source>Kernels on %1 (%2, %3):</source>
        <translation>Kernels on %1 (%2, %3):</translation>
    </message>
</context>
<context>
    <name>RunControls</name>
    <message>
        <source>Run</source>
        <translation>Run</translation>
    </message>
    <message>
        <source>Waiting for the device to be free…</source>
        <translation>Waiting for the device to be free…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>Done.</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Cancelled.</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>Cancelling…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Failed: %1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>ScalingExplorer</name>
    <message>
        <source>ring on the fitted link</source>
        <translation>ring on the fitted link</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>AllReduce of %1</source>
        <translation>AllReduce of %1</translation>
    </message>
    <message>
        <source>Plans for %1 GPUs (★ best that fits; ◆ Meta's published layout; tinted: cannot run)</source>
        <translation>Plans for %1 GPUs (★ best that fits; ◆ Meta's published layout; tinted: cannot run)</translation>
    </message>
    <message>
        <source>In a node %1 GB/s a GPU (NCCL's share of %2's %3); out of it %4 NICs × %5 = %6 GB/s. </source>
        <translation>In a node %1 GB/s a GPU (NCCL's share of %2's %3); out of it %4 NICs × %5 = %6 GB/s. </translation>
    </message>
    <message>
        <source>NVLink SHARP: %1 GB/s busbw on %2 GPUs, one node only.</source>
        <translation>NVLink SHARP: %1 GB/s busbw on %2 GPUs, one node only.</translation>
    </message>
    <message>
        <source>scaling efficiency, % of the ideal step</source>
        <translation>scaling efficiency, % of the ideal step</translation>
    </message>
    <message>
        <source>goodput, % of wall time</source>
        <translation>goodput, % of wall time</translation>
    </message>
    <message>
        <source>ideal step: the model's FLOPs at %1 of peak</source>
        <translation>ideal step: the model's FLOPs at %1 of peak</translation>
    </message>
    <message>
        <source>Goodput %5% on %1 GPUs: %2 interruptions/day (MTBF %3 h), a checkpoint every %4 min (Young)</source>
        <translation>Goodput %5% on %1 GPUs: %2 interruptions/day (MTBF %3 h), a checkpoint every %4 min (Young)</translation>
    </message>
    <message>
        <source>Llama 3, 16,384 H100s — model: %1/day; Meta's paper: %2 (%3 unexpected)</source>
        <translation>Llama 3, 16,384 H100s — model: %1/day; Meta's paper: %2 (%3 unexpected)</translation>
    </message>
    <message>
        <source>Efficiency, goodput</source>
        <translation>Efficiency, goodput</translation>
    </message>
    <message>
        <source>Planner</source>
        <translation>Planner</translation>
    </message>
</context>
<context>
    <name>ScalingSliders</name>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>AllReduce message</source>
        <translation>AllReduce message</translation>
    </message>
    <message>
        <source>Interruptions per GPU-year</source>
        <translation>Interruptions per GPU-year</translation>
    </message>
    <message>
        <source>Checkpoint write</source>
        <translation>Checkpoint write</translation>
    </message>
</context>
<context>
    <name>StreamsPanel</name>
    <message>
        <source>Rows:</source>
        <translation>Rows:</translation>
    </message>
    <message>
        <source>one per stream</source>
        <translation>one per stream</translation>
    </message>
    <message>
        <source>one per engine</source>
        <translation>one per engine</translation>
    </message>
    <message>
        <source>Configuration</source>
        <translation>Configuration</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Total</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>Speedup</translation>
    </message>
    <message>
        <source>Press Run: each configuration's timeline appears here.</source>
        <translation>Press Run: each configuration's timeline appears here.</translation>
    </message>
    <message>
        <source>Modelled: %1</source>
        <translation>Modelled: %1</translation>
    </message>
    <message>
        <source>Measured: %1</source>
        <translation>Measured: %1</translation>
    </message>
    <message>
        <source>this GPU</source>
        <translation>this GPU</translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation>Could not save %1: %2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>Saved %1</translation>
    </message>
</context>
<context>
    <name>SweepControls</name>
    <message>
        <source>Experiment:</source>
        <translation>Experiment:</translation>
    </message>
    <message>
        <source>Sizes:</source>
        <translation>Sizes:</translation>
    </message>
    <message>
        <source>Data type:</source>
        <translation>Data type:</translation>
    </message>
    <message>
        <source>GPU to model:</source>
        <translation>GPU to model:</translation>
    </message>
    <message>
        <source>Matrix multiply</source>
        <translation>Matrix multiply</translation>
    </message>
    <message>
        <source>Vector add</source>
        <translation>Vector add</translation>
    </message>
    <message>
        <source>Include PCIe copies</source>
        <translation>Include PCIe copies</translation>
    </message>
    <message>
        <source>Count the time to copy the inputs over PCIe to the GPU and the result back to the CPU.</source>
        <translation>Count the time to copy the inputs over PCIe to the GPU and the result back to the CPU.</translation>
    </message>
    <message>
        <source>Without a GPU, this GPU's spec sheet gives a modelled curve (dashed, labelled MODELLED).</source>
        <translation>Without a GPU, this GPU's spec sheet gives a modelled curve (dashed, labelled MODELLED).</translation>
    </message>
    <message>
        <source>Slow on a CPU: each of the largest multiplies takes seconds.</source>
        <translation>Slow on a CPU: each of the largest multiplies takes seconds.</translation>
    </message>
</context>
<context>
    <name>Theme</name>
    <message>
        <source>Light</source>
        <translation>Light</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dark</translation>
    </message>
    <message>
        <source>Projector (high contrast)</source>
        <translation>Projector (high contrast)</translation>
    </message>
</context>
<context>
    <name>TimelineChart</name>
    <message>
        <source>copy in (H2D)</source>
        <translation>copy in (H2D)</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>kernel</translation>
    </message>
    <message>
        <source>copy out (D2H)</source>
        <translation>copy out (D2H)</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>communication</translation>
    </message>
    <message>
        <source>host</source>
        <translation>host</translation>
    </message>
    <message>
        <source>H2D copy engine</source>
        <translation>H2D copy engine</translation>
    </message>
    <message>
        <source>D2H copy engine</source>
        <translation>D2H copy engine</translation>
    </message>
    <message>
        <source>copy engine</source>
        <translation>copy engine</translation>
    </message>
    <message>
        <source>SMs (kernels)</source>
        <translation>SMs (kernels)</translation>
    </message>
    <message>
        <source>default stream</source>
        <translation>default stream</translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation>stream %1</translation>
    </message>
    <message>
        <source>stream</source>
        <translation>stream</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>start: %1</source>
        <translation>start: %1</translation>
    </message>
    <message>
        <source>duration: %1</source>
        <translation>duration: %1</translation>
    </message>
    <message>
        <source>bytes: %1</source>
        <translation>bytes: %1</translation>
    </message>
    <message>
        <source>time</source>
        <translation>time</translation>
    </message>
</context>
<context>
    <name>TopologyPanel</name>
    <message>
        <source>Node</source>
        <translation>Node</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>Network</translation>
    </message>
    <message>
        <source>Copy matrix (GB/s)</source>
        <translation>Copy matrix (GB/s)</translation>
    </message>
    <message>
        <source>Press Run: the GPUs and their links appear here.</source>
        <translation>Press Run: the GPUs and their links appear here.</translation>
    </message>
    <message>
        <source>Press Run: the modelled network of nodes appears here.</source>
        <translation>Press Run: the modelled network of nodes appears here.</translation>
    </message>
    <message>
        <source>Rows: the GPU copying; columns: the GPU receiving. GB/s per direction.</source>
        <translation>Rows: the GPU copying; columns: the GPU receiving. GB/s per direction.</translation>
    </message>
    <message>
        <source>NVML did not describe this machine's links; see the matrix.</source>
        <translation>NVML did not describe this machine's links; see the matrix.</translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation>Could not save %1: %2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>Saved %1</translation>
    </message>
</context>
<context>
    <name>TopologyView</name>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>NVSwitch %1</source>
        <translation>NVSwitch %1</translation>
    </message>
    <message>
        <source>PCIe switch %1</source>
        <translation>PCIe switch %1</translation>
    </message>
    <message>
        <source>CPU %1</source>
        <translation>CPU %1</translation>
    </message>
    <message>
        <source>NIC %1</source>
        <translation>NIC %1</translation>
    </message>
    <message>
        <source>Node %1</source>
        <translation>Node %1</translation>
    </message>
    <message>
        <source>Leaf %1</source>
        <translation>Leaf %1</translation>
    </message>
    <message>
        <source>Spine %1</source>
        <translation>Spine %1</translation>
    </message>
    <message>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source>link between CPU sockets</source>
        <translation>link between CPU sockets</translation>
    </message>
    <message>
        <source>InfiniBand (network)</source>
        <translation>InfiniBand (network)</translation>
    </message>
    <message>
        <source>rate not known</source>
        <translation>rate not known</translation>
    </message>
    <message>
        <source>%1 GB/s per direction</source>
        <translation>%1 GB/s per direction</translation>
    </message>
    <message>
        <source>× %1 links</source>
        <translation>× %1 links</translation>
    </message>
    <message>
        <source>bus %1</source>
        <translation>bus %1</translation>
    </message>
    <message>
        <source>NVLink links: %1</source>
        <translation>NVLink links: %1</translation>
    </message>
    <message>
        <source>PCIe: %1</source>
        <translation>PCIe: %1</translation>
    </message>
</context>
<context>
    <name>TransferPanel</name>
    <message>
        <source>Copy sizes</source>
        <translation>Copy sizes</translation>
    </message>
    <message>
        <source>Round trips vs batch</source>
        <translation>Round trips vs batch</translation>
    </message>
    <message>
        <source>Both ways at once</source>
        <translation>Both ways at once</translation>
    </message>
    <message>
        <source>%1: %2 GB/s</source>
        <translation>%1: %2 GB/s</translation>
    </message>
    <message>
        <source>%1: pinned, in practice</source>
        <translation>%1: pinned, in practice</translation>
    </message>
    <message>
        <source>up to %1% of the link</source>
        <translation>up to %1% of the link</translation>
    </message>
</context>
<context>
    <name>Transport</name>
    <message>
        <source>step %1 / %2</source>
        <translation>step %1 / %2</translation>
    </message>
    <message>
        <source>%1 steps/s</source>
        <translation>%1 steps/s</translation>
    </message>
    <message>
        <source>Go to the first step</source>
        <translation>Go to the first step</translation>
    </message>
    <message>
        <source>Step back</source>
        <translation>Step back</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Play</translation>
    </message>
    <message>
        <source>Step forward</source>
        <translation>Step forward</translation>
    </message>
    <message>
        <source>Go to the last step</source>
        <translation>Go to the last step</translation>
    </message>
    <message>
        <source>Next divergence</source>
        <translation>Next divergence</translation>
    </message>
    <message>
        <source>Jump to the next branch that splits a warp's lanes</source>
        <translation>Jump to the next branch that splits a warp's lanes</translation>
    </message>
    <message>
        <source>Next memory access</source>
        <translation>Next memory access</translation>
    </message>
    <message>
        <source>Jump to the next load, store or atomic</source>
        <translation>Jump to the next load, store or atomic</translation>
    </message>
    <message>
        <source>Playback speed, 0.5 to 60 steps a second</source>
        <translation>Playback speed, 0.5 to 60 steps a second</translation>
    </message>
</context>
<context>
    <name>ValidationButton</name>
    <message>
        <source>How good is this model?</source>
        <translation>How good is this model?</translation>
    </message>
    <message>
        <source>%1 published measurements set against this lab's model</source>
        <translation>%1 published measurements set against this lab's model</translation>
    </message>
</context>
<context>
    <name>ValidationDialog</name>
    <message>
        <source>The rows could not be checked: %1</source>
        <translation>The rows could not be checked: %1</translation>
    </message>
    <message>
        <source>How good is this model? — %1</source>
        <translation>How good is this model? — %1</translation>
    </message>
    <message>
        <source>Each row sets one modelled figure against a published measurement. The model passes a row when it lands within the tolerance the project claims; the error is measured from the nearest end of the published figure. A row without a published figure is unvalidated. Under each row: its source, and where the model departs from the published setting.</source>
        <translation>Each row sets one modelled figure against a published measurement. The model passes a row when it lands within the tolerance the project claims; the error is measured from the nearest end of the published figure. A row without a published figure is unvalidated. Under each row: its source, and where the model departs from the published setting.</translation>
    </message>
    <message>
        <source>Checking the model against the published figures…</source>
        <translation>Checking the model against the published figures…</translation>
    </message>
    <message>
        <source>%1 of %2 rows within tolerance; %3 unvalidated.</source>
        <translation>%1 of %2 rows within tolerance; %3 unvalidated.</translation>
    </message>
    <message>
        <source>%1 of %2 rows within tolerance.</source>
        <translation>%1 of %2 rows within tolerance.</translation>
    </message>
    <message>
        <source> %1 of the rows set the model's constants (fitted).</source>
        <translation> %1 of the rows set the model's constants (fitted).</translation>
    </message>
</context>
<context>
    <name>ValidationSheet</name>
    <message>
        <source>What is compared</source>
        <translation>What is compared</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Published</source>
        <translation>Published</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Tolerance</source>
        <translation>Tolerance</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Verdict</translation>
    </message>
    <message>
        <source>✓ within</source>
        <translation>✓ within</translation>
    </message>
    <message>
        <source>✗ outside</source>
        <translation>✗ outside</translation>
    </message>
    <message>
        <source>✗ not priced</source>
        <translation>✗ not priced</translation>
    </message>
    <message>
        <source>unvalidated</source>
        <translation>unvalidated</translation>
    </message>
    <message>
        <source>none published</source>
        <translation>none published</translation>
    </message>
    <message>
        <source>%1 (upper bound)</source>
        <translation>%1 (upper bound)</translation>
    </message>
    <message>
        <source>%1 (lower bound)</source>
        <translation>%1 (lower bound)</translation>
    </message>
    <message>
        <source> · fitted</source>
        <translation> · fitted</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>Source: %1</translation>
    </message>
    <message>
        <source>The model claims only an upper bound: it passes when its figure is at or above the measured one.</source>
        <translation>The model claims only an upper bound: it passes when its figure is at or above the measured one.</translation>
    </message>
    <message>
        <source>The model claims only a lower bound: it passes when its figure is at or below the measured one.</source>
        <translation>The model claims only a lower bound: it passes when its figure is at or below the measured one.</translation>
    </message>
    <message>
        <source>Fitted: the model's constants were set from this figure, so this row checks that they hang together, not what the model predicts.</source>
        <translation>Fitted: the model's constants were set from this figure, so this row checks that they hang together, not what the model predicts.</translation>
    </message>
    <message>
        <source>Where the model departs: %1</source>
        <translation>Where the model departs: %1</translation>
    </message>
    <message>
        <source>Not priced: %1</source>
        <translation>Not priced: %1</translation>
    </message>
</context>
<context>
    <name>WarpPanel</name>
    <message>
        <source>tiny</source>
        <translation>tiny</translation>
    </message>
    <message>
        <source>small</source>
        <translation>small</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>medium</translation>
    </message>
    <message>
        <source>large</source>
        <translation>large</translation>
    </message>
    <message>
        <source>%1 (%2 threads)</source>
        <translation>%1 (%2 threads)</translation>
    </message>
    <message>
        <source>Emulate %1</source>
        <translation>Emulate %1</translation>
    </message>
    <message>
        <source>The greyed lanes and metrics are from the previous run.</source>
        <translation>The greyed lanes and metrics are from the previous run.</translation>
    </message>
    <message>
        <source>Emulating…</source>
        <translation>Emulating…</translation>
    </message>
    <message>
        <source>Edited — not run yet (Run or Ctrl+Return emulates it).</source>
        <translation>Edited — not run yet (Run or Ctrl+Return emulates it).</translation>
    </message>
    <message>
        <source>Emulation cancelled.</source>
        <translation>Emulation cancelled.</translation>
    </message>
    <message>
        <source>Run %1 on the GPU</source>
        <translation>Run %1 on the GPU</translation>
    </message>
    <message>
        <source>Running on the GPU…</source>
        <translation>Running on the GPU…</translation>
    </message>
    <message>
        <source>The GPU run failed: %1</source>
        <translation>The GPU run failed: %1</translation>
    </message>
    <message>
        <source>outputs match the numpy reference</source>
        <translation>outputs match the numpy reference</translation>
    </message>
    <message>
        <source>outputs DIFFER from the numpy reference</source>
        <translation>outputs DIFFER from the numpy reference</translation>
    </message>
    <message>
        <source>Emulated block %1 of %2: %3 warps traced, %4 steps; %5.</source>
        <translation>Emulated block %1 of %2: %3 warps traced, %4 steps; %5.</translation>
    </message>
    <message>
        <source>The trace stops early (the emulator keeps at most 20,000 steps per warp).</source>
        <translation>The trace stops early (the emulator keeps at most 20,000 steps per warp).</translation>
    </message>
    <message>
        <source>Line %1 (%2): %3 of %4 warps execute, %5 lanes active.</source>
        <translation>Line %1 (%2): %3 of %4 warps execute, %5 lanes active.</translation>
    </message>
    <message>
        <source>statement</source>
        <translation>statement</translation>
    </message>
    <message>
        <source>This run has no divergent branch: every branch kept its warps together.</source>
        <translation>This run has no divergent branch: every branch kept its warps together.</translation>
    </message>
    <message>
        <source>No further divergent branch after step %1 (this run has %2; the last is step %3).</source>
        <translation>No further divergent branch after step %1 (this run has %2; the last is step %3).</translation>
    </message>
    <message>
        <source>No further memory access after step %1.</source>
        <translation>No further memory access after step %1.</translation>
    </message>
    <message>
        <source>branch</source>
        <translation>branch</translation>
    </message>
    <message>
        <source>load</source>
        <translation>load</translation>
    </message>
    <message>
        <source>store</source>
        <translation>store</translation>
    </message>
    <message>
        <source>atomic</source>
        <translation>atomic</translation>
    </message>
    <message>
        <source>barrier</source>
        <translation>barrier</translation>
    </message>
    <message>
        <source>shuffle</source>
        <translation>shuffle</translation>
    </message>
    <message>
        <source>Warp %1, lane %2: %3.</source>
        <translation>Warp %1, lane %2: %3.</translation>
    </message>
    <message>
        <source>Warp %1, lane %2: threadIdx %3, blockIdx %4, thread %5 of the grid — %6.</source>
        <translation>Warp %1, lane %2: threadIdx %3, blockIdx %4, thread %5 of the grid — %6.</translation>
    </message>
    <message>
        <source>Warp %1, lane %2 (thread %3): %4.</source>
        <translation>Warp %1, lane %2 (thread %3): %4.</translation>
    </message>
    <message>
        <source>Address %1.</source>
        <translation>Address %1.</translation>
    </message>
    <message>
        <source>Variables: %1.</source>
        <translation>Variables: %1.</translation>
    </message>
    <message>
        <source>Bank %1.</source>
        <translation>Bank %1.</translation>
    </message>
    <message>
        <source>Sector %1 of line %2.</source>
        <translation>Sector %1 of line %2.</translation>
    </message>
    <message>
        <source>the device check has not finished</source>
        <translation>the device check has not finished</translation>
    </message>
    <message>
        <source>No GPU run: %1 The emulated results above stand alone.</source>
        <translation>No GPU run: %1 The emulated results above stand alone.</translation>
    </message>
    <message>
        <source>Run the same source on the GPU to compare outputs and time it.</source>
        <translation>Run the same source on the GPU to compare outputs and time it.</translation>
    </message>
    <message>
        <source>outputs MATCH the emulator</source>
        <translation>outputs MATCH the emulator</translation>
    </message>
    <message>
        <source>Emulated counts, every warp of the launch: %1 warp-steps (nvprof inst_executed), %2 load sectors in %3 requests.</source>
        <translation>Emulated counts, every warp of the launch: %1 warp-steps (nvprof inst_executed), %2 load sectors in %3 requests.</translation>
    </message>
    <message>
        <source>outputs DO NOT MATCH the emulator</source>
        <translation>outputs DO NOT MATCH the emulator</translation>
    </message>
    <message>
        <source>%1: %2; kernel time %3 µs (median of %4 launches, CUDA events).</source>
        <translation>%1: %2; kernel time %3 µs (median of %4 launches, CUDA events).</translation>
    </message>
    <message>
        <source>Kernel:</source>
        <translation>Kernel:</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>Size:</translation>
    </message>
    <message>
        <source>Block:</source>
        <translation>Block:</translation>
    </message>
    <message>
        <source>Which block's warps to trace (linear block id)</source>
        <translation>Which block's warps to trace (linear block id)</translation>
    </message>
    <message>
        <source>Dynamic shared:</source>
        <translation>Dynamic shared:</translation>
    </message>
    <message>
        <source> bytes</source>
        <translation> bytes</translation>
    </message>
    <message>
        <source>Bytes of dynamic shared memory per block, for extern __shared__ arrays (shared_mem of a CuPy launch)</source>
        <translation>Bytes of dynamic shared memory per block, for extern __shared__ arrays (shared_mem of a CuPy launch)</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Run</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Stop the emulation now</source>
        <translation>Stop the emulation now</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>Time limit:</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>An emulation that runs longer stops, naming the loop it was in</source>
        <translation>An emulation that runs longer stops, naming the loop it was in</translation>
    </message>
    <message>
        <source>Emulate the code in the editor, your edits included (Ctrl+Return)</source>
        <translation>Emulate the code in the editor, your edits included (Ctrl+Return)</translation>
    </message>
    <message>
        <source>The warp visualizer has no kernel %1.</source>
        <translation>The warp visualizer has no kernel %1.</translation>
    </message>
    <message>
        <source>Click a warp to follow it. Keys: Space play/pause, arrows step, D next divergence, M next memory access.</source>
        <translation>Click a warp to follow it. Keys: Space play/pause, arrows step, D next divergence, M next memory access.</translation>
    </message>
    <message>
        <source>Memory traffic</source>
        <translation>Memory traffic</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>Timeline</translation>
    </message>
    <message>
        <source>On a GPU</source>
        <translation>On a GPU</translation>
    </message>
    <message>
        <source>printf output</source>
        <translation>printf output</translation>
    </message>
    <message>
        <source>Compare with:</source>
        <translation>Compare with:</translation>
    </message>
    <message>
        <source>Run on the GPU</source>
        <translation>Run on the GPU</translation>
    </message>
</context>
<context>
    <name>WarpTimeline</name>
    <message>
        <source>active lanes</source>
        <translation>active lanes</translation>
    </message>
    <message>
        <source>step of this warp</source>
        <translation>step of this warp</translation>
    </message>
    <message>
        <source>Nothing run yet.</source>
        <translation>Nothing run yet.</translation>
    </message>
    <message>
        <source>%1 — warp %2 alone: %3 steps, %4 of 32 lanes active on average (%5 %)</source>
        <translation>%1 — warp %2 alone: %3 steps, %4 of 32 lanes active on average (%5 %)</translation>
    </message>
    <message>
        <source>This warp's own steps only. The warp execution efficiency metric averages every warp of the launch, and the warp-steps count on the GPU tab counts every warp's steps.</source>
        <translation>This warp's own steps only. The warp execution efficiency metric averages every warp of the launch, and the warp-steps count on the GPU tab counts every warp's steps.</translation>
    </message>
</context>
</TS>