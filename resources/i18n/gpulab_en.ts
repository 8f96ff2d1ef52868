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
        <source>Run</source>
        <translation>Run</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Experiment %1 cannot be loaded: %2</source>
        <translation>Experiment %1 cannot be loaded: %2</translation>
    </message>
    <message>
        <source>Check the parameters: %1</source>
        <translation>Check the parameters: %1</translation>
    </message>
    <message>
        <source>Waiting for the device to be free…</source>
        <translation>Waiting for the device to be free…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Failed: %1</translation>
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
        <source>Done.</source>
        <translation>Done.</translation>
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
        <source>&amp;Help</source>
        <translation>&amp;Help</translation>
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
    <name>Panels</name>
    <message>
        <source>Devices</source>
        <translation>Devices</translation>
    </message>
    <message>
        <source>Run experiment</source>
        <translation>Run experiment</translation>
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
    <name>RaceView</name>
    <message>
        <source>%1 is %2× faster than %3</source>
        <translation>%1 is %2× faster than %3</translation>
    </message>
    <message>
        <source>Run a sweep, then race one size.</source>
        <translation>Run a sweep, then race one size.</translation>
    </message>
    <message>
        <source>running…</source>
        <translation>running…</translation>
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
</TS>