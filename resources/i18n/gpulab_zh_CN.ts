<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About gpulab</source>
        <translation>关于 gpulab</translation>
    </message>
    <message>
        <source>gpulab shows, with real measurements, where a GPU&apos;s time goes. Every number is labelled measured, emulated, modelled or replayed.</source>
        <translation>gpulab 用真实的测量告诉你 GPU 的时间花在了哪里。每个数字都标明来源：实测、仿真、模型估算或回放。</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>无法获取</translation>
    </message>
</context>
<context>
    <name>AccessPatternPanel</name>
    <message>
        <source>peak %1 GB/s</source>
        <translation>峰值 %1 GB/s</translation>
    </message>
    <message>
        <source>One warp&apos;s load</source>
        <translation>一个线程束的加载</translation>
    </message>
    <message>
        <source>GB/s chart</source>
        <translation>GB/s 图</translation>
    </message>
</context>
<context>
    <name>AllReducePanel</name>
    <message>
        <source>Step by step</source>
        <translation>逐步演示</translation>
    </message>
    <message>
        <source>algbw vs busbw</source>
        <translation>算法带宽（algbw）与总线带宽（busbw）</translation>
    </message>
    <message>
        <source>Ring</source>
        <translation>环形</translation>
    </message>
    <message>
        <source>Tree</source>
        <translation>树形</translation>
    </message>
    <message>
        <source>Press Run: the ranks and their chunks appear here, ready to step through.</source>
        <translation>按“运行”：各进程及其数据块会显示在这里，可以一步一步查看。</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>A cell is a chunk; its number and colour: how many ranks&apos; data it sums (green: all). Outlined: being sent; arrows carry the chunk index.</source>
        <translation>每个格子是一个数据块；数字和颜色表示它已累加了几个进程的数据（绿色：全部）。粗边框：正在发送；箭头上标的是数据块编号。</translation>
    </message>
    <message>
        <source>n = %1</source>
        <translation>n = %1</translation>
    </message>
    <message>
        <source>The check against the plain sum comes after the last step.</source>
        <translation>与直接求和结果的比对在最后一步之后进行。</translation>
    </message>
</context>
<context>
    <name>BandwidthPanel</name>
    <message>
        <source>GPU L2</source>
        <translation>GPU L2 缓存</translation>
    </message>
    <message>
        <source>%1% of ceiling</source>
        <translation>上限的 %1%</translation>
    </message>
    <message>
        <source>, %1% of DRAM</source>
        <translation>，内存理论速率的 %1%</translation>
    </message>
    <message>
        <source>CPU best triad %1 GB/s</source>
        <translation>CPU 最佳 triad %1 GB/s</translation>
    </message>
    <message>
        <source>%1 spec %2 GB/s</source>
        <translation>%1 规格 %2 GB/s</translation>
    </message>
</context>
<context>
    <name>BatchBars</name>
    <message>
        <source>&lt;b&gt;Keep it on the GPU&lt;/b&gt; (%1): one batch is %2× faster</source>
        <translation>&lt;b&gt;让数据留在 GPU 上&lt;/b&gt;（%1）：合批快 %2 倍</translation>
    </message>
    <message>
        <source>The same bytes cross the link either way, but every copy pays a fixed start-up cost: many small copies pay it many times. Batch small pieces, and leave data on the GPU between steps.</source>
        <translation>两种做法经过链路的字节一样多，但每次拷贝都要付一笔固定的启动开销：许多小拷贝就要付许多次。把小块数据合批传输，步骤之间让数据留在 GPU 上。</translation>
    </message>
</context>
<context>
    <name>BigNumberView</name>
    <message>
        <source>Recorded on %1, %2</source>
        <translation>录于 %1，%2</translation>
    </message>
    <message>
        <source>an unknown machine</source>
        <translation>一台未知的机器</translation>
    </message>
    <message>
        <source>Ran on: %1</source>
        <translation>运行于：%1</translation>
    </message>
</context>
<context>
    <name>BothWaysBars</name>
    <message>
        <source>&lt;b&gt;Both ways at once&lt;/b&gt; (%1, %2, %3 copies)</source>
        <translation>&lt;b&gt;双向同时拷贝&lt;/b&gt;（%1，%2，每次拷贝 %3）</translation>
    </message>
    <message>
        <source>%1, one way at a time</source>
        <translation>%1，每次一个方向</translation>
    </message>
    <message>
        <source>%1, both ways at once</source>
        <translation>%1，双向同时拷贝</translation>
    </message>
    <message>
        <source>Each direction of the link has its own lanes, but the host&apos;s side is shared: hosts measured copies to the GPU falling to about half their rate while copies back keep nearly all of theirs (nvbandwidth, PCIe Gen4). A copy out of one chunk beside the copy in of the next is slower than either alone.</source>
        <translation>链路的每个方向各有自己的通道，但主机一侧是共享的：主机上实测，拷往 GPU 的速率降到约一半，而拷回的几乎不受影响（nvbandwidth，PCIe Gen4）。一块数据的拷出与下一块的拷入同时进行时，两者都比单独进行时慢。</translation>
    </message>
</context>
<context>
    <name>CaseMemoryBox</name>
    <message>
        <source>Open in warp visualizer</source>
        <translation>在线程束可视化中打开</translation>
    </message>
    <message>
        <source>Step this kernel lane by lane in the warp visualizer</source>
        <translation>在线程束可视化中逐通道单步执行这个核函数</translation>
    </message>
    <message>
        <source>Choose a case in the table to see one warp&apos;s load.</source>
        <translation>在表中选一种情形，查看一个线程束的加载。</translation>
    </message>
    <message>
        <source>%1: this result has no warp load stored (saved by an older gpulab).</source>
        <translation>%1：这个结果没有保存线程束的加载（由旧版 gpulab 保存）。</translation>
    </message>
</context>
<context>
    <name>CaseTable</name>
    <message>
        <source>Case</source>
        <translation>情形</translation>
    </message>
    <message>
        <source>Sectors</source>
        <translation>扇区</translation>
    </message>
    <message>
        <source>Useful</source>
        <translation>有用</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Bytes fetched / used</source>
        <translation>取回 / 用到的字节</translation>
    </message>
    <message>
        <source>The case&apos;s number on the chart</source>
        <translation>这种情形在图上的编号</translation>
    </message>
    <message>
        <source>The load pattern</source>
        <translation>加载模式</translation>
    </message>
    <message>
        <source>32-byte sectors one warp&apos;s load of in[] fetches (emulated, exact)</source>
        <translation>一个线程束加载 in[] 时取回的 32 字节扇区数（仿真，精确）</translation>
    </message>
    <message>
        <source>Bytes used / bytes fetched of that load</source>
        <translation>这次加载用到的字节 / 取回的字节</translation>
    </message>
    <message>
        <source>Useful bytes per second of the whole kernel: measured on the GPU, else modelled</source>
        <translation>整个核函数每秒用到的字节数：有 GPU 时为实测，否则为模型估算</translation>
    </message>
    <message>
        <source>Where the GB/s come from</source>
        <translation>GB/s 的来源</translation>
    </message>
    <message>
        <source>Bytes those sectors hold / bytes the 32 lanes asked for, per warp load (emulated)</source>
        <translation>每次线程束加载中这些扇区的字节数 / 32 个通道要的字节数（仿真）</translation>
    </message>
</context>
<context>
    <name>CheckPanel</name>
    <message>
        <source>Quick check</source>
        <translation>快速检查</translation>
    </message>
    <message>
        <source>Full check</source>
        <translation>完整检查</translation>
    </message>
    <message>
        <source>The checks are running: open the report when they are done.</source>
        <translation>检查正在运行：请等它们结束后再打开报告。</translation>
    </message>
    <message>
        <source>Could not open the check report: %1</source>
        <translation>无法打开检查报告：%1</translation>
    </message>
    <message>
        <source>Open a saved check report</source>
        <translation>打开已保存的检查报告</translation>
    </message>
    <message>
        <source>gpulab check reports (*.json);;All files (*)</source>
        <translation>gpulab 检查报告 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Run the checks or open a report first: there is nothing to export.</source>
        <translation>请先运行检查或打开一份报告：现在没有可导出的内容。</translation>
    </message>
    <message>
        <source>Running the checks…</source>
        <translation>正在运行检查…</translation>
    </message>
    <message>
        <source>Quick takes about half a minute, Full a few minutes. Or open a report saved with gpulab check --json.</source>
        <translation>快速检查约需半分钟，完整检查需几分钟。也可以打开用 gpulab check --json 保存的报告。</translation>
    </message>
    <message>
        <source>That is: something failed, so a script or a job that runs gpulab check stops here.</source>
        <translation>也就是说：有检查失败，因此运行 gpulab check 的脚本或作业会在此停下。</translation>
    </message>
    <message>
        <source>That is: nothing failed (warnings and skips do not fail the check).</source>
        <translation>也就是说：没有失败项（警告和跳过不算失败）。</translation>
    </message>
    <message>
        <source>Is this machine healthy?</source>
        <translation>这台机器健康吗？</translation>
    </message>
    <message>
        <source>an unknown machine</source>
        <translation>未知的机器</translation>
    </message>
    <message>
        <source>full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>quick</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>Replayed from %1: a %2 check made on %3 at %4, shown as saved (not run again).</source>
        <translation>回放自 %1：%4 在 %3 上做的%2检查，按保存时的样子显示（没有重新运行）。</translation>
    </message>
    <message>
        <source>Measured now: a %2 check of this machine (%3) at %4.</source>
        <translation>刚刚测得：%4 对本机（%3）做的%2检查。</translation>
    </message>
    <message>
        <source>Every check, with more repeats (a few minutes)</source>
        <translation>所有检查，重复次数更多（几分钟）</translation>
    </message>
    <message>
        <source>The quick checks (about half a minute)</source>
        <translation>快速检查（约半分钟）</translation>
    </message>
    <message>
        <source>Open report…</source>
        <translation>打开报告…</translation>
    </message>
    <message>
        <source>Show a report saved with gpulab check --json (from this or another machine)</source>
        <translation>显示用 gpulab check --json 保存的报告（来自本机或其他机器）</translation>
    </message>
</context>
<context>
    <name>CheckTable</name>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Pass, warning, failure or skipped (could not be checked here)</source>
        <translation>通过、警告、失败或跳过（在这里无法检查）</translation>
    </message>
    <message>
        <source>What was checked</source>
        <translation>检查了什么</translation>
    </message>
    <message>
        <source>The device checked (host: the machine&apos;s software)</source>
        <translation>被检查的设备（host：这台机器的软件）</translation>
    </message>
    <message>
        <source>What was measured, and in brackets the threshold it is held to; hover over a value for the threshold&apos;s source</source>
        <translation>测得的数值，括号里是它要满足的阈值；把鼠标停在数值上可以看到阈值的出处</translation>
    </message>
    <message>
        <source>Reason and next action</source>
        <translation>原因与下一步</translation>
    </message>
    <message>
        <source>Why this verdict, and below it (after →) what to do about it</source>
        <translation>为什么得出这个结论；下面（→ 之后）是应当怎么做</translation>
    </message>
    <message>
        <source>WAITING</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>RUNNING</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>NOT RUN</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>(rank %1)</source>
        <translation>（进程 %1）</translation>
    </message>
    <message>
        <source>No number is held against a threshold in this check.</source>
        <translation>这项检查没有拿数值和阈值比较。</translation>
    </message>
    <message>
        <source>Threshold: %1 %2 %3</source>
        <translation>阈值：%1 %2 %3</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>出处：%1</translation>
    </message>
    <message>
        <source>This check has not started yet.</source>
        <translation>这项检查还没有开始。</translation>
    </message>
    <message>
        <source>This check is running now.</source>
        <translation>这项检查正在运行。</translation>
    </message>
    <message>
        <source>The run was stopped before this check finished: no verdict.</source>
        <translation>这项检查完成之前运行被停止了：没有结论。</translation>
    </message>
    <message>
        <source>Pass: the measured value meets its threshold.</source>
        <translation>通过：测得的数值满足阈值。</translation>
    </message>
    <message>
        <source>Warning: worth a look, but the run does not fail for it.</source>
        <translation>警告：值得看一看，但整个检查不会因此失败。</translation>
    </message>
    <message>
        <source>Failure: something is wrong here; the check&apos;s exit code is 1.</source>
        <translation>失败：这里有问题；检查的退出码为 1。</translation>
    </message>
    <message>
        <source>Skipped: this could not be checked here (the reason says why); never a pass.</source>
        <translation>跳过：在这里无法检查（原因一栏说明了为什么）；跳过绝不算通过。</translation>
    </message>
</context>
<context>
    <name>ClusterScalingPanel</name>
    <message>
        <source>Fit to a Collectives run…</source>
        <translation>按集合通信实测拟合…</translation>
    </message>
    <message>
        <source>No fit</source>
        <translation>不拟合</translation>
    </message>
    <message>
        <source>Check the parameters: %1</source>
        <translation>请检查参数：%1</translation>
    </message>
    <message>
        <source>A saved Collectives result</source>
        <translation>已保存的集合通信结果</translation>
    </message>
    <message>
        <source>gpulab results (*.json)</source>
        <translation>gpulab 结果 (*.json)</translation>
    </message>
    <message>
        <source>Links from the spec sheet only.</source>
        <translation>只用规格表中的链路。</translation>
    </message>
    <message>
        <source>Ring also on the link fitted to %1: %2 GB/s, alpha %3 µs.</source>
        <translation>另按 %1 拟合的链路画环形：%2 GB/s，alpha %3 µs。</translation>
    </message>
</context>
<context>
    <name>CollectivesPanel</name>
    <message>
        <source>Show algbw (S / time)</source>
        <translation>显示算法带宽 (algbw)</translation>
    </message>
    <message>
        <source>Algorithm bandwidth (algbw) (GB/s)</source>
        <translation>算法带宽 (algbw)（GB/s）</translation>
    </message>
    <message>
        <source>%1 wrong</source>
        <translation>%1 个错误</translation>
    </message>
    <message>
        <source>#wrong: %1 elements of the results were not what the collective must give. Do not trust these bandwidths.</source>
        <translation>#wrong：结果中有 %1 个元素不是集合通信应给出的值。这些带宽不可信。</translation>
    </message>
    <message>
        <source>model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>With the NCCL backend on GPUs of the spec table, the model&apos;s AllReduce curves are drawn beside the measurement.</source>
        <translation>使用 NCCL 后端、且 GPU 在规格表中时，模型的 AllReduce 曲线会画在实测旁边。</translation>
    </message>
    <message>
        <source>Dashed: the AllReduce model for %1 × %2 (NCCL&apos;s achievable NVLink rate).</source>
        <translation>虚线：%1 × %2 的 AllReduce 模型（按 NCCL 实际能达到的 NVLink 速率）。</translation>
    </message>
</context>
<context>
    <name>CopyMatrix</name>
    <message>
        <source>NVLink, direct</source>
        <translation>NVLink，直连</translation>
    </message>
    <message>
        <source>NVLink through NVSwitch</source>
        <translation>经 NVSwitch 的 NVLink</translation>
    </message>
    <message>
        <source>on one board</source>
        <translation>同一块板卡上</translation>
    </message>
    <message>
        <source>PCIe switch</source>
        <translation>PCIe 交换机</translation>
    </message>
    <message>
        <source>PCIe host bridge</source>
        <translation>PCIe 主桥</translation>
    </message>
    <message>
        <source>through one CPU socket</source>
        <translation>经同一个 CPU 插槽</translation>
    </message>
    <message>
        <source>across CPU sockets</source>
        <translation>跨 CPU 插槽</translation>
    </message>
    <message>
        <source>path not known</source>
        <translation>路径未知</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>A GPU does not copy to itself here.</source>
        <translation>这里不测 GPU 拷贝给自己。</translation>
    </message>
    <message>
        <source>GPU %1 → GPU %2: %3 GB/s</source>
        <translation>GPU %1 → GPU %2：%3 GB/s</translation>
    </message>
    <message>
        <source>NVLink links: %1</source>
        <translation>NVLink 链路数：%1</translation>
    </message>
    <message>
        <source>nominal: %1 GB/s</source>
        <translation>标称：%1 GB/s</translation>
    </message>
    <message>
        <source>%1% of nominal</source>
        <translation>达到标称的 %1%</translation>
    </message>
</context>
<context>
    <name>CpuVsGpuPanel</name>
    <message>
        <source>CPU vs GPU: where does the GPU start to win?</source>
        <translation>CPU 对比 GPU：GPU 从多大规模开始胜出？</translation>
    </message>
    <message>
        <source>Run sweep</source>
        <translation>开始扫描</translation>
    </message>
    <message>
        <source>Series:</source>
        <translation>曲线：</translation>
    </message>
    <message>
        <source>Press Run sweep: the curves grow here, size by size.</source>
        <translation>按“开始扫描”：曲线会在这里按规模逐点生长。</translation>
    </message>
    <message>
        <source>Time (ms)</source>
        <translation>时间（毫秒）</translation>
    </message>
    <message>
        <source>Race</source>
        <translation>赛跑</translation>
    </message>
    <message>
        <source>time (ms)</source>
        <translation>时间（毫秒）</translation>
    </message>
    <message>
        <source>The GPU spec table cannot be read: %1</source>
        <translation>无法读取 GPU 规格表：%1</translation>
    </message>
    <message>
        <source>Modelled GPU wins from %1</source>
        <translation>模型估算的 GPU 从 %1 起胜出</translation>
    </message>
    <message>
        <source>GPU wins from %1</source>
        <translation>GPU 从 %1 起胜出</translation>
    </message>
    <message>
        <source>Nothing to save yet: run a sweep to the end first.</source>
        <translation>还没有可保存的结果：请先把一次扫描跑完。</translation>
    </message>
</context>
<context>
    <name>DevicesPanel</name>
    <message>
        <source>GPU ready</source>
        <translation>GPU 可用</translation>
    </message>
    <message>
        <source>CuPy is not installed</source>
        <translation>未安装 CuPy</translation>
    </message>
    <message>
        <source>CuPy is installed but broken</source>
        <translation>CuPy 已安装但无法使用</translation>
    </message>
    <message>
        <source>no NVIDIA driver</source>
        <translation>没有 NVIDIA 驱动</translation>
    </message>
    <message>
        <source>the NVIDIA driver is too old</source>
        <translation>NVIDIA 驱动版本过旧</translation>
    </message>
    <message>
        <source>no CUDA device found</source>
        <translation>未找到 CUDA 设备</translation>
    </message>
    <message>
        <source>CUDA could not start</source>
        <translation>CUDA 无法初始化</translation>
    </message>
    <message>
        <source>Checking devices…</source>
        <translation>正在检测设备…</translation>
    </message>
    <message>
        <source>GPU: %1</source>
        <translation>GPU：%1</translation>
    </message>
    <message>
        <source>CPU only — %1</source>
        <translation>仅 CPU — %1</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>无法获取</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>CuPy</source>
        <translation>CuPy</translation>
    </message>
    <message>
        <source>CUDA runtime</source>
        <translation>CUDA 运行时</translation>
    </message>
    <message>
        <source>CUDA driver</source>
        <translation>CUDA 驱动</translation>
    </message>
    <message>
        <source>%1 threads</source>
        <translation>%1 个线程</translation>
    </message>
    <message>
        <source>%1 physical, %2 logical</source>
        <translation>%1 个物理核心，%2 个逻辑核心</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>型号</translation>
    </message>
    <message>
        <source>Cores</source>
        <translation>核心数</translation>
    </message>
    <message>
        <source>Max clock</source>
        <translation>最高频率</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>BLAS (numpy)</source>
        <translation>BLAS（numpy）</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <source>Streaming multiprocessors</source>
        <translation>流式多处理器（SM）</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>SM clock</source>
        <translation>SM 频率</translation>
    </message>
    <message>
        <source>Memory clock</source>
        <translation>显存频率</translation>
    </message>
    <message>
        <source>Memory bus</source>
        <translation>显存位宽</translation>
    </message>
    <message>
        <source>L2 cache</source>
        <translation>L2 缓存</translation>
    </message>
    <message>
        <source>Peak memory bandwidth</source>
        <translation>理论峰值显存带宽</translation>
    </message>
    <message>
        <source>PCI bus</source>
        <translation>PCI 总线</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>驱动</translation>
    </message>
    <message>
        <source>PCIe link (now / max)</source>
        <translation>PCIe 链路（当前 / 最高）</translation>
    </message>
    <message>
        <source>Power (now / limit)</source>
        <translation>功耗（当前 / 上限）</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Devices on this machine</source>
        <translation>本机的计算设备</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Probe the GPU and CPU again</source>
        <translation>重新检测 GPU 和 CPU</translation>
    </message>
    <message>
        <source>GPU ready: %1 CUDA device(s).</source>
        <translation>GPU 可用：共 %1 个 CUDA 设备。</translation>
    </message>
    <message>
        <source>No usable GPU: %1.</source>
        <translation>没有可用的 GPU：%1。</translation>
    </message>
    <message>
        <source>CUDA software</source>
        <translation>CUDA 软件</translation>
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
        <translation>出错了：%1。实验室仍在运行；详细信息已打印在控制台上。</translation>
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
        <translation>运行实验</translation>
    </message>
    <message>
        <source>Experiment:</source>
        <translation>实验：</translation>
    </message>
    <message>
        <source>Run on:</source>
        <translation>运行设备：</translation>
    </message>
    <message>
        <source>Press Run: the points appear here as they are measured.</source>
        <translation>按“运行”：每测出一个点，就会显示在这里。</translation>
    </message>
    <message>
        <source>Nothing to save yet: run the lab to the end first.</source>
        <translation>还没有可保存的内容：请先把实验运行完。</translation>
    </message>
    <message>
        <source>The run failed before its first point; see the message above.</source>
        <translation>运行在得到第一个点之前就失败了；见上方的消息。</translation>
    </message>
    <message>
        <source>Experiment %1 cannot be loaded: %2</source>
        <translation>无法加载实验 %1：%2</translation>
    </message>
    <message>
        <source>Check the parameters: %1</source>
        <translation>请检查参数：%1</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>Machine: %1</source>
        <translation>机器：%1</translation>
    </message>
    <message>
        <source>Devices: %1</source>
        <translation>设备：%1</translation>
    </message>
    <message>
        <source>Made: %1</source>
        <translation>生成于：%1</translation>
    </message>
    <message>
        <source>%1 more series in the CSV export.</source>
        <translation>另有 %1 条曲线，见 CSV 导出。</translation>
    </message>
    <message>
        <source>the file could not be opened for drawing</source>
        <translation>无法打开文件来绘图</translation>
    </message>
    <message>
        <source>the image could not be written</source>
        <translation>无法写入图像</translation>
    </message>
    <message>
        <source>nothing was written</source>
        <translation>什么也没有写入</translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation>无法保存 %1：%2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
</context>
<context>
    <name>ExportButton</name>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Plots as PNG image…</source>
        <translation>图表存为 PNG 图片…</translation>
    </message>
    <message>
        <source>Plots as SVG drawing…</source>
        <translation>图表存为 SVG 矢量图…</translation>
    </message>
    <message>
        <source>Points as CSV table…</source>
        <translation>数据点存为 CSV 表格…</translation>
    </message>
    <message>
        <source>Result as JSON (gpulab report)…</source>
        <translation>结果存为 JSON（gpulab 报告）…</translation>
    </message>
    <message>
        <source>Export as %1</source>
        <translation>导出为 %1</translation>
    </message>
</context>
<context>
    <name>FusionPanel</name>
    <message>
        <source>Chart</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Unfused vs fused</source>
        <translation>未融合与融合</translation>
    </message>
    <message>
        <source>Step through the fused kernel</source>
        <translation>单步查看融合核函数</translation>
    </message>
    <message>
        <source>Open the fused .cu kernel in the warp visualizer</source>
        <translation>在线程束可视化中打开融合后的 .cu 核函数</translation>
    </message>
    <message>
        <source>Per element</source>
        <translation>每个元素</translation>
    </message>
    <message>
        <source>Unfused</source>
        <translation>未融合</translation>
    </message>
    <message>
        <source>Fused</source>
        <translation>融合</translation>
    </message>
    <message>
        <source>peak %1 GB/s</source>
        <translation>峰值 %1 GB/s</translation>
    </message>
    <message>
        <source>unfused ≤ %1</source>
        <translation>未融合 ≤ %1</translation>
    </message>
    <message>
        <source>Run the lab to compare the unfused and the fused version.</source>
        <translation>运行实验，比较未融合与融合两种版本。</translation>
    </message>
    <message>
        <source>What fusion saves for y = %1</source>
        <translation>融合为 y = %1 省下了什么</translation>
    </message>
    <message>
        <source>Counted by the SIMT emulator at n=%1, exactly; it claims no time.</source>
        <translation>由 SIMT 仿真器在 n=%1 时精确计数；仿真器不给出任何时间。</translation>
    </message>
    <message>
        <source>Kernel launches</source>
        <translation>核函数启动次数</translation>
    </message>
    <message>
        <source>On a CPU: passes over the arrays.</source>
        <translation>在 CPU 上：扫描数组的遍数。</translation>
    </message>
    <message>
        <source>Bytes moved (hand count)</source>
        <translation>搬运字节数（手工计数）</translation>
    </message>
    <message>
        <source>4 bytes per float32 array read or written; each intermediate is written and read back.</source>
        <translation>每读或写一个 float32 数组计 4 字节；每个中间结果都要写出去再读回来。</translation>
    </message>
    <message>
        <source>Bytes moved (emulated)</source>
        <translation>搬运字节数（仿真）</translation>
    </message>
    <message>
        <source>Instructions per thread (emulated)</source>
        <translation>每个线程的指令数（仿真）</translation>
    </message>
    <message>
        <source>Whole-array time per call at n=%1 (median of repeats).</source>
        <translation>n=%1 时处理整个数组一次调用的时间（多次重复的中位数）。</translation>
    </message>
    <message>
        <source>Time, CPU one thread, measured, n=%1</source>
        <translation>时间，CPU 单线程，实测，n=%1</translation>
    </message>
    <message>
        <source>Time, GPU .cu kernels, measured, n=%1</source>
        <translation>时间，GPU .cu 核函数，实测，n=%1</translation>
    </message>
    <message>
        <source>Time, %2, modelled, n=%1</source>
        <translation>时间，%2，模型估算，n=%1</translation>
    </message>
</context>
<context>
    <name>HidingView</name>
    <message>
        <source>Kernel:</source>
        <translation>核函数：</translation>
    </message>
    <message>
        <source>Warps per SM:</source>
        <translation>每个 SM 的线程束：</translation>
    </message>
    <message>
        <source>Load latency:</source>
        <translation>加载延迟：</translation>
    </message>
    <message>
        <source> cycles</source>
        <translation> 个周期</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>内存：</translation>
    </message>
    <message>
        <source> requests/cycle</source>
        <translation> 个请求/周期</translation>
    </message>
    <message>
        <source>Requests (loads and stores) the memory accepts per cycle: the bandwidth, the memory roof</source>
        <translation>内存每个周期能接收的请求数（加载和存储）：即带宽，也就是内存上限</translation>
    </message>
    <message>
        <source>Resident warps on the SM (up to %1, the most an SM holds)</source>
        <translation>SM 上驻留的线程束数（最多 %1 个，一个 SM 能容纳的上限）</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>One cycle</source>
        <translation>前进一个周期</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>速度：</translation>
    </message>
    <message>
        <source>%1 cycles/tick</source>
        <translation>每帧 %1 个周期</translation>
    </message>
    <message>
        <source>Emulated: each warp replays warp 0&apos;s instructions as the SIMT emulator ran them (global loads, the rest as one-cycle issues).</source>
        <translation>仿真：每个线程束重放 SIMT 仿真器执行的 0 号线程束指令（全局加载照实，其余指令各按一个周期发射计）。</translation>
    </message>
    <message>
        <source>Modelled: a small SM model (four schedulers, one instruction per cycle each, an in-order memory pipe), not measured.</source>
        <translation>模型估算：一个简化的 SM 模型（四个调度器，每个每周期发射一条指令，内存管线按顺序服务），不是实测。</translation>
    </message>
    <message>
        <source>SM: issue slots of its 4 schedulers, then each warp</source>
        <translation>SM：上方是 4 个调度器的发射槽，下方是每个线程束</translation>
    </message>
    <message>
        <source>CPU core: the same instructions and latency, one thread, nothing to switch to</source>
        <translation>CPU 核心：同样的指令、同样的延迟，只有一个线程，没有别的可切换</translation>
    </message>
    <message>
        <source>resident warps</source>
        <translation>驻留线程束数</translation>
    </message>
    <message>
        <source>loads per cycle</source>
        <translation>每周期完成的加载数</translation>
    </message>
    <message>
        <source>Latency: the DRAM latency published for %1 (%2).</source>
        <translation>延迟：采用已发表的 %1 DRAM 延迟（%2）。</translation>
    </message>
    <message>
        <source>Latency: %1 cycles, the figure you gave.</source>
        <translation>延迟：%1 个周期，即你给定的数值。</translation>
    </message>
    <message>
        <source>warps 0–%1</source>
        <translation>线程束 0–%1</translation>
    </message>
    <message>
        <source>slots</source>
        <translation>发射槽</translation>
    </message>
    <message>
        <source>memory roof:
%1 loads/cycle</source>
        <translation>内存上限：
每周期 %1 次加载</translation>
    </message>
    <message>
        <source>warp 0</source>
        <translation>线程束 0</translation>
    </message>
    <message>
        <source>slot</source>
        <translation>发射槽</translation>
    </message>
    <message>
        <source>thread</source>
        <translation>线程</translation>
    </message>
    <message>
        <source>Emulating the kernel…</source>
        <translation>正在仿真核函数……</translation>
    </message>
    <message>
        <source>Cycle %1 · %2 warps: issue slots used %3% · loads in flight %4</source>
        <translation>第 %1 周期 · %2 个线程束：发射槽利用率 %3% · 在途加载 %4 个</translation>
    </message>
    <message>
        <source>CPU core: issue slot used %1% · loads in flight %2: it waits out every load</source>
        <translation>CPU 核心：发射槽利用率 %1% · 在途加载 %2 个：每次加载都要干等到底</translation>
    </message>
    <message>
        <source>running the model over warp counts…</source>
        <translation>正在按不同线程束数运行模型……</translation>
    </message>
    <message>
        <source>Little&apos;s law:
%1 warps</source>
        <translation>利特尔定律：
%1 个线程束</translation>
    </message>
    <message>
        <source>CPU core</source>
        <translation>CPU 核心</translation>
    </message>
    <message>
        <source>at the roof</source>
        <translation>已达上限</translation>
    </message>
    <message>
        <source>Loads per cycle against the memory roof: 1 warp %1, %2 warps %3, a CPU core %4.</source>
        <translation>每周期加载数相对内存上限：1 个线程束 %1，%2 个线程束 %3，CPU 核心 %4。</translation>
    </message>
</context>
<context>
    <name>JobRunner</name>
    <message>
        <source>it ended without a result</source>
        <translation>运行结束但没有给出结果</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 运行失败：%2</translation>
    </message>
</context>
<context>
    <name>Jobs</name>
    <message>
        <source>out of memory: try smaller sizes</source>
        <translation>内存不足：请尝试更小的规模</translation>
    </message>
</context>
<context>
    <name>LabPanel</name>
    <message>
        <source>up to %1% of peak</source>
        <translation>最高达峰值的 %1%</translation>
    </message>
    <message>
        <source>This result is from %1, not from this lab.</source>
        <translation>这个结果来自 %1，不是本实验的结果。</translation>
    </message>
</context>
<context>
    <name>LadderView</name>
    <message>
        <source>This CPU, pointer chase</source>
        <translation>本机 CPU，指针追逐</translation>
    </message>
    <message>
        <source>A GPU, published</source>
        <translation>GPU，已发表数据</translation>
    </message>
    <message>
        <source>working set (bytes)</source>
        <translation>工作集（字节）</translation>
    </message>
    <message>
        <source>ns per load</source>
        <translation>每次加载的纳秒数</translation>
    </message>
    <message>
        <source>Each load waits for the one before: the time is the latency of wherever the working set lives. The lines mark this CPU&apos;s cache sizes.</source>
        <translation>每次加载都要等上一次完成：测得的时间就是工作集所在存储层级的延迟。竖线标出本机 CPU 各级缓存的大小。</translation>
    </message>
    <message>
        <source>Press Run: this CPU&apos;s ladder is measured, one working set at a time.</source>
        <translation>按“运行”：逐个工作集测量本机 CPU 的延迟阶梯。</translation>
    </message>
    <message>
        <source>No published figures for this architecture (%1).</source>
        <translation>这个架构（%1）没有已发表的数据。</translation>
    </message>
    <message>
        <source>%1 (measured on %2), cycles per load: %3. Source: &lt;a href=&quot;%4&quot;&gt;%5&lt;/a&gt;</source>
        <translation>%1（测于 %2），每次加载的周期数：%3。出处：&lt;a href=&quot;%4&quot;&gt;%5&lt;/a&gt;</translation>
    </message>
    <message>
        <source>shared memory not listed</source>
        <translation>共享内存：未列出</translation>
    </message>
    <message>
        <source>shared memory %1</source>
        <translation>共享内存 %1</translation>
    </message>
</context>
<context>
    <name>LaneGrid</name>
    <message>
        <source>active</source>
        <translation>执行中</translation>
    </message>
    <message>
        <source>masked (divergence)</source>
        <translation>被屏蔽（分支发散）</translation>
    </message>
    <message>
        <source>exited</source>
        <translation>已退出</translation>
    </message>
    <message>
        <source>at barrier</source>
        <translation>在屏障处等待</translation>
    </message>
    <message>
        <source>warp not issued</source>
        <translation>线程束未发射</translation>
    </message>
    <message>
        <source>no thread</source>
        <translation>无线程</translation>
    </message>
    <message>
        <source>The lane executes this step.</source>
        <translation>该通道执行这一步。</translation>
    </message>
    <message>
        <source>Its warp executes this step, but the lane took the other side of a branch and waits.</source>
        <translation>所在线程束执行这一步，但该通道走了分支的另一侧，只能等待。</translation>
    </message>
    <message>
        <source>The thread has finished; it never runs again.</source>
        <translation>该线程已结束，不会再运行。</translation>
    </message>
    <message>
        <source>The lane is at __syncthreads(), waiting for every thread of the block.</source>
        <translation>该通道停在 __syncthreads()，等待线程块内所有线程到达。</translation>
    </message>
    <message>
        <source>Other warps run this step; this warp runs its own instructions at another step.</source>
        <translation>这一步由其他线程束执行；本线程束在另一步执行自己的指令。</translation>
    </message>
    <message>
        <source>Beyond the launch: the block has no thread here.</source>
        <translation>超出启动范围：线程块在此处没有线程。</translation>
    </message>
    <message>
        <source>warp</source>
        <translation>线程束</translation>
    </message>
    <message>
        <source>lane</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>all warps</source>
        <translation>全部线程束</translation>
    </message>
</context>
<context>
    <name>LatencyPanel</name>
    <message>
        <source>The SM view has no kernel %1.</source>
        <translation>SM 视图中没有核函数 %1。</translation>
    </message>
    <message>
        <source>Latency ladder</source>
        <translation>延迟阶梯</translation>
    </message>
    <message>
        <source>Occupancy</source>
        <translation>占用率</translation>
    </message>
    <message>
        <source>Latency hiding</source>
        <translation>延迟隐藏</translation>
    </message>
    <message>
        <source>issuing</source>
        <translation>正在发射</translation>
    </message>
    <message>
        <source>ready, waiting for its turn</source>
        <translation>就绪，等待轮到自己</translation>
    </message>
    <message>
        <source>stalled on memory</source>
        <translation>等待内存而停顿</translation>
    </message>
    <message>
        <source>issue slot idle</source>
        <translation>发射槽空闲</translation>
    </message>
</context>
<context>
    <name>LaunchPanel</name>
    <message>
        <source>K=%2: %1 µs</source>
        <translation>K=%2：%1 µs</translation>
    </message>
</context>
<context>
    <name>LessonLab</name>
    <message>
        <source>The lab for this page is still to come: %1.</source>
        <translation>这一页的实验尚未完成：%1。</translation>
    </message>
</context>
<context>
    <name>LessonNav</name>
    <message>
        <source>Chapter %1</source>
        <translation>第 %1 章</translation>
    </message>
    <message>
        <source>◀ Back</source>
        <translation>◀ 上一页</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一页 ▶</translation>
    </message>
    <message>
        <source>A−</source>
        <translation>A−</translation>
    </message>
    <message>
        <source>A+</source>
        <translation>A+</translation>
    </message>
    <message>
        <source>End presenting (Esc)</source>
        <translation>结束演示 (Esc)</translation>
    </message>
    <message>
        <source>Present (F5)</source>
        <translation>演示 (F5)</translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <source>The run failed, so there is no number; the message above says why.</source>
        <translation>运行失败，所以没有数字；原因见上方的提示。</translation>
    </message>
    <message>
        <source>This run has no number to show: %1</source>
        <translation>这次运行没有可显示的数字：%1</translation>
    </message>
    <message>
        <source>No number on this page: its lab is still to come.</source>
        <translation>这一页没有数字：它的实验尚未完成。</translation>
    </message>
    <message>
        <source>Running… the number appears when the run ends.</source>
        <translation>运行中……运行结束后显示数字。</translation>
    </message>
    <message>
        <source>Press R (or Run this page) to measure this page&apos;s number.</source>
        <translation>按 R（或“运行本页”）测出这一页的数字。</translation>
    </message>
    <message>
        <source>Chapter %1, %4 · page %2 of %3</source>
        <translation>第 %1 章 %4 · 第 %2 页，共 %3 页</translation>
    </message>
    <message>
        <source>Sources:</source>
        <translation>出处：</translation>
    </message>
    <message>
        <source>Run (R)</source>
        <translation>运行 (R)</translation>
    </message>
    <message>
        <source>Try this (T)</source>
        <translation>试一试 (T)</translation>
    </message>
    <message>
        <source>Hide settings</source>
        <translation>收起设置</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Hide the lab&apos;s settings</source>
        <translation>收起实验设置</translation>
    </message>
    <message>
        <source>The lab&apos;s settings</source>
        <translation>实验设置</translation>
    </message>
    <message>
        <source>Try this:</source>
        <translation>试一试：</translation>
    </message>
    <message>
        <source>Source:</source>
        <translation>出处：</translation>
    </message>
    <message>
        <source>Run this page (R)</source>
        <translation>运行本页 (R)</translation>
    </message>
    <message>
        <source>Try the change (T)</source>
        <translation>试试改动 (T)</translation>
    </message>
</context>
<context>
    <name>LivePlot</name>
    <message>
        <source>right axis</source>
        <translation>右轴</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>gpulab — where a GPU&apos;s time goes</source>
        <translation>gpulab — GPU 的时间花在哪里</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open result…</source>
        <translation>打开结果(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Hide sidebar</source>
        <translation>隐藏侧边栏(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>How good are the &amp;models?</source>
        <translation>这些模型有多准？(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;About gpulab</source>
        <translation>关于 gpulab(&amp;A)</translation>
    </message>
    <message>
        <source>Numbers shown:</source>
        <translation>数据来源：</translation>
    </message>
    <message>
        <source>The translation for %1 could not be loaded; showing English.</source>
        <translation>无法加载 %1 的翻译，暂时显示英文。</translation>
    </message>
    <message>
        <source>A run is still going</source>
        <translation>仍有实验在运行</translation>
    </message>
    <message>
        <source>A lab is still running. Keep the points it has measured so far? They are saved as a partial result in %1.</source>
        <translation>有一个实验仍在运行。要保留它目前测得的点吗？它们会作为部分结果保存在 %1。</translation>
    </message>
    <message>
        <source>Open a saved result</source>
        <translation>打开保存的结果</translation>
    </message>
    <message>
        <source>gpulab results (*.json);;All files (*)</source>
        <translation>gpulab 结果 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Could not open the result: %1</source>
        <translation>无法打开结果：%1</translation>
    </message>
    <message>
        <source>an unknown machine</source>
        <translation>未知的机器</translation>
    </message>
    <message>
        <source>Opened %1: replayed, made on %2 at %3 (shown as saved, not run again)</source>
        <translation>已打开 %1：回放，%3 在 %2 上生成（按保存时的样子显示，未重新运行）</translation>
    </message>
    <message>
        <source>every lab</source>
        <translation>所有实验</translation>
    </message>
</context>
<context>
    <name>MemoryView</name>
    <message>
        <source>load from</source>
        <translation>读取</translation>
    </message>
    <message>
        <source>store to</source>
        <translation>写入</translation>
    </message>
    <message>
        <source>atomic on</source>
        <translation>原子操作</translation>
    </message>
    <message>
        <source>global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>shared</source>
        <translation>共享</translation>
    </message>
    <message>
        <source>local</source>
        <translation>局部</translation>
    </message>
    <message>
        <source>Warp %1: %2 &apos;%3&apos; (%4 memory), %5 lanes x %6 bytes.</source>
        <translation>线程束 %1：%2 &apos;%3&apos;（%4内存），%5 个通道 × %6 字节。</translation>
    </message>
    <message>
        <source>Conflict degree %1: the busiest bank serves %1 words one after another.</source>
        <translation>冲突度 %1：最忙的存储体要依次服务 %1 个不同的字。</translation>
    </message>
    <message>
        <source>No bank conflict: each bank serves one word (same-word reads are broadcast).</source>
        <translation>没有存储体冲突：每个存储体只服务一个字（读同一个字会广播）。</translation>
    </message>
    <message>
        <source>Sectors needed %1, fetched %2, in %3 line(s) of 128 bytes.</source>
        <translation>需要 %1 个扇区，实际取了 %2 个，分布在 %3 个 128 字节的缓存行里。</translation>
    </message>
    <message>
        <source>Step to a load or store to see its memory traffic.</source>
        <translation>走到一次读取或写入，就能看到它的内存流量。</translation>
    </message>
    <message>
        <source>sector %1</source>
        <translation>扇区 %1</translation>
    </message>
    <message>
        <source>line %1</source>
        <translation>行 %1</translation>
    </message>
    <message>
        <source>... and %1 more lines</source>
        <translation>……还有 %1 行</translation>
    </message>
    <message>
        <source>No memory access at this step.</source>
        <translation>这一步没有内存访问。</translation>
    </message>
    <message>
        <source>bank efficiency %1% (1 / conflict degree)</source>
        <translation>存储体效率 %1%（1 / 冲突度）</translation>
    </message>
    <message>
        <source>coalescing efficiency %1% (sectors needed / fetched)</source>
        <translation>合并访问效率 %1%（需要的扇区 / 取回的扇区）</translation>
    </message>
</context>
<context>
    <name>MessageBar</name>
    <message>
        <source>Error:</source>
        <translation>错误：</translation>
    </message>
    <message>
        <source>Warning:</source>
        <translation>警告：</translation>
    </message>
    <message>
        <source>Note:</source>
        <translation>提示：</translation>
    </message>
    <message>
        <source>Dismiss this message</source>
        <translation>关闭这条消息</translation>
    </message>
</context>
<context>
    <name>MetricsStrip</name>
    <message>
        <source>Branch efficiency</source>
        <translation>分支效率</translation>
    </message>
    <message>
        <source>Share of branches where all lanes of a warp went the same way.</source>
        <translation>线程束内所有通道走同一方向的分支所占比例。</translation>
    </message>
    <message>
        <source>Warp execution efficiency</source>
        <translation>线程束执行效率</translation>
    </message>
    <message>
        <source>nvprof&apos;s warp_execution_efficiency: active lanes / 32, averaged over every warp-step of every warp in the launch.</source>
        <translation>即 nvprof 的 warp_execution_efficiency：活跃通道数 / 32，对整次启动中每个线程束的每一步取平均。</translation>
    </message>
    <message>
        <source>Sectors per load request</source>
        <translation>每次读取请求的扇区数</translation>
    </message>
    <message>
        <source>32-byte sectors per warp load; 32 lanes x 4 bytes need only 4.</source>
        <translation>线程束每次读取用到的 32 字节扇区数；32 个通道 × 4 字节只需 4 个。</translation>
    </message>
    <message>
        <source>Sectors per load</source>
        <translation>每次读取的扇区数</translation>
    </message>
    <message>
        <source>Shared transactions per request</source>
        <translation>每次共享内存请求的事务数</translation>
    </message>
    <message>
        <source>Bank passes per shared load; more than 1 means bank conflicts.</source>
        <translation>每次共享内存读取需要的轮数；大于 1 说明有存储体冲突。</translation>
    </message>
    <message>
        <source>Shared transactions</source>
        <translation>共享内存事务数</translation>
    </message>
    <message>
        <source>under the ideal %1: not every lane loads</source>
        <translation>低于理想值 %1：并非每个通道都在加载</translation>
    </message>
    <message>
        <source>ideal %1</source>
        <translation>理想值 %1</translation>
    </message>
</context>
<context>
    <name>MonitorStrip</name>
    <message>
        <source>CPU per core (%)</source>
        <translation>CPU 各核心（%）</translation>
    </message>
    <message>
        <source>GPU utilization (%)</source>
        <translation>GPU 利用率（%）</translation>
    </message>
    <message>
        <source>GPU memory used (GiB)</source>
        <translation>GPU 显存占用（GiB）</translation>
    </message>
    <message>
        <source>SM clock (MHz)</source>
        <translation>SM 频率（MHz）</translation>
    </message>
    <message>
        <source>Power (W)</source>
        <translation>功耗（W）</translation>
    </message>
    <message>
        <source>Temperature (°C)</source>
        <translation>温度（°C）</translation>
    </message>
    <message>
        <source>PCIe TX / RX (GB/s)</source>
        <translation>PCIe 发送 / 接收（GB/s）</translation>
    </message>
    <message>
        <source>GPU counters hidden: %1</source>
        <translation>已隐藏 GPU 计数器：%1</translation>
    </message>
    <message>
        <source>Collecting samples…</source>
        <translation>正在采样…</translation>
    </message>
    <message>
        <source>Note: “GPU utilization” only means a kernel was running during the sample, not that the SMs were busy; one tiny kernel can show 100%.</source>
        <translation>注意：“GPU 利用率”只表示采样期间有内核在运行，并不代表 SM 都在忙；一个很小的内核也可能显示 100%。</translation>
    </message>
</context>
<context>
    <name>OccupancyView</name>
    <message>
        <source>Architecture or GPU:</source>
        <translation>架构或 GPU：</translation>
    </message>
    <message>
        <source>Lab kernel:</source>
        <translation>实验核函数：</translation>
    </message>
    <message>
        <source>(none: type the numbers)</source>
        <translation>（不选：直接填写数字）</translation>
    </message>
    <message>
        <source>Fills registers and static shared memory from NVRTC&apos;s compile</source>
        <translation>用 NVRTC 编译结果填入寄存器数和静态共享内存</translation>
    </message>
    <message>
        <source>Threads per block:</source>
        <translation>每个线程块的线程数：</translation>
    </message>
    <message>
        <source>Registers per thread:</source>
        <translation>每个线程的寄存器数：</translation>
    </message>
    <message>
        <source>Shared memory per block (bytes):</source>
        <translation>每个线程块的共享内存（字节）：</translation>
    </message>
    <message>
        <source>Shared memory carve-out:</source>
        <translation>共享内存划分：</translation>
    </message>
    <message>
        <source>largest (the default)</source>
        <translation>最大（默认）</translation>
    </message>
    <message>
        <source>Modelled: the CUDA occupancy rules applied to the limits NVIDIA publishes, not measured on a GPU.</source>
        <translation>模型估算：把 CUDA 占用率规则套用到 NVIDIA 公布的限制上，不是在 GPU 上实测的。</translation>
    </message>
    <message>
        <source>Fill in every field with a whole number.</source>
        <translation>请在每一栏填入整数。</translation>
    </message>
    <message>
        <source>%1 blocks per SM · %2 of %3 warps · occupancy %4%</source>
        <translation>每个 SM %1 个线程块 · %2/%3 个线程束 · 占用率 %4%</translation>
    </message>
    <message>
        <source>Binding limit: %1</source>
        <translation>起约束作用的限制：%1</translation>
    </message>
    <message>
        <source>not used: no limit</source>
        <translation>未使用：不构成限制</translation>
    </message>
    <message>
        <source>%1 blocks</source>
        <translation>%1 个线程块</translation>
    </message>
    <message>
        <source>The blocks per SM this limit alone allows</source>
        <translation>只看这一项限制时，每个 SM 能容纳的线程块数</translation>
    </message>
    <message>
        <source>Compiling %1 with NVRTC for %2…</source>
        <translation>正在用 NVRTC 为 %2 编译 %1……</translation>
    </message>
    <message>
        <source>NVRTC could not compile %1 for %2 (%3): type the registers yourself.</source>
        <translation>NVRTC 无法为 %2 编译 %1（%3）：请自己填写寄存器数。</translation>
    </message>
    <message>
        <source>%1 compiled by NVRTC for %2: %3 registers per thread, %4 bytes of static shared memory.</source>
        <translation>%1 由 NVRTC 为 %2 编译：每个线程 %3 个寄存器，静态共享内存 %4 字节。</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Run experiment</source>
        <translation>运行实验</translation>
    </message>
    <message>
        <source>CPU vs GPU</source>
        <translation>CPU 对比 GPU</translation>
    </message>
    <message>
        <source>Basics</source>
        <translation>基础</translation>
    </message>
    <message>
        <source>Inside a GPU</source>
        <translation>GPU 内部</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Start here</source>
        <translation>从这里开始</translation>
    </message>
    <message>
        <source>Warp visualizer</source>
        <translation>线程束可视化</translation>
    </message>
    <message>
        <source>Check this machine</source>
        <translation>检查本机</translation>
    </message>
    <message>
        <source>Trace doctor</source>
        <translation>性能追踪诊断</translation>
    </message>
    <message>
        <source>Lesson viewer</source>
        <translation>课程</translation>
    </message>
</context>
<context>
    <name>ParamsForm</name>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Quick</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>Standard</source>
        <translation>标准</translation>
    </message>
    <message>
        <source>Large</source>
        <translation>大</translation>
    </message>
    <message>
        <source>Huge</source>
        <translation>超大</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>均衡</translation>
    </message>
    <message>
        <source>Copies longer</source>
        <translation>拷贝更长</translation>
    </message>
    <message>
        <source>Kernel longer</source>
        <translation>核函数更长</translation>
    </message>
    <message>
        <source>No usable GPU: %1</source>
        <translation>没有可用的 GPU：%1</translation>
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
        <translation>放得下？</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>流水线气泡</translation>
    </message>
    <message>
        <source>Step (s)</source>
        <translation>每步（秒）</translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>Why not</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
</context>
<context>
    <name>PrecisionPanel</name>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Of peak</source>
        <translation>占峰值</translation>
    </message>
    <message>
        <source>Error (%1)</source>
        <translation>误差（%1）</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>GPU throughput: measured on this GPU where it ran, else modelled</source>
        <translation>GPU 吞吐量：在本机 GPU 上运行过的为实测值，否则为模型估算值</translation>
    </message>
    <message>
        <source>Percent of the spec-sheet peak of this format</source>
        <translation>占该格式规格表峰值的百分比</translation>
    </message>
    <message>
        <source>Relative error of C against FP64, computed on this CPU</source>
        <translation>C 相对 FP64 的相对误差，在本机 CPU 上计算</translation>
    </message>
    <message>
        <source>Bytes of A, B and C at the GPU size</source>
        <translation>GPU 规模下 A、B、C 的字节数</translation>
    </message>
    <message>
        <source>Run the lab to compare the formats.</source>
        <translation>运行本实验来比较各种格式。</translation>
    </message>
    <message>
        <source>GPU: %1, N = %2</source>
        <translation>GPU：%1，N = %2</translation>
    </message>
    <message>
        <source>error %1 at N = %2 (unit roundoff %3); worst entry %4</source>
        <translation>N = %2 时误差 %1（单位舍入误差 %3）；最差元素 %4</translation>
    </message>
    <message>
        <source>numpy on this CPU: %1 GFLOP/s at N = %2</source>
        <translation>本机 CPU 上的 numpy：N = %2 时 %1 GFLOP/s</translation>
    </message>
    <message>
        <source>modelled: %1 TFLOP/s (peak %2)</source>
        <translation>模型估算：%1 TFLOP/s（峰值 %2）</translation>
    </message>
    <message>
        <source>without tensor cores (CUDA cores): %1 TFLOP/s</source>
        <translation>不用 Tensor Core（CUDA 核心）：%1 TFLOP/s</translation>
    </message>
</context>
<context>
    <name>PrintfTab</name>
    <message>
        <source>[block (%1) thread (%2) | warp %3 lane %4]</source>
        <translation>[线程块 (%1) 线程 (%2) | 线程束 %3 通道 %4]</translation>
    </message>
    <message>
        <source>No printf output: the kernel printed nothing in this run.</source>
        <translation>没有 printf 输出：本次运行中核函数什么也没有打印。</translation>
    </message>
    <message>
        <source>Printed before the error: %1 line(s).</source>
        <translation>出错之前打印的内容：%1 行。</translation>
    </message>
    <message>
        <source>%1 line(s) printed, one per thread and printf call, in the emulator&apos;s order (a GPU may order warps and blocks differently).</source>
        <translation>共打印 %1 行，每个线程每次调用 printf 一行，按仿真器的执行顺序排列（GPU 上线程束之间、线程块之间的顺序可能不同）。</translation>
    </message>
    <message>
        <source>The first %1 are shown.</source>
        <translation>这里只显示前 %1 行。</translation>
    </message>
    <message>
        <source>%1 older line(s) were lost: the 1 MiB printf buffer was full, as it would be on a GPU.</source>
        <translation>有 %1 行较早的输出丢失了：1 MiB 的 printf 缓冲区已满，在 GPU 上也会这样。</translation>
    </message>
</context>
<context>
    <name>ProvenanceBadge</name>
    <message>
        <source>MEASURED</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>EMULATED</source>
        <translation>仿真</translation>
    </message>
    <message>
        <source>MODELLED</source>
        <translation>模型估算</translation>
    </message>
    <message>
        <source>REPLAYED</source>
        <translation>回放</translation>
    </message>
    <message>
        <source>NO DATA</source>
        <translation>暂无数据</translation>
    </message>
    <message>
        <source>Measured: timed on real hardware in this run.</source>
        <translation>实测：本次运行在真实硬件上计时得到。</translation>
    </message>
    <message>
        <source>Emulated: executed exactly by the SIMT emulator. Results are exact; no time is claimed.</source>
        <translation>仿真：由 SIMT 仿真器逐条精确执行。结果是精确的，但不代表任何运行时间。</translation>
    </message>
    <message>
        <source>Modelled: computed from a spec sheet and a stated formula, not measured.</source>
        <translation>模型估算：根据规格表和给定公式计算得出，并非实测。</translation>
    </message>
    <message>
        <source>Replayed: a saved report from another machine or run.</source>
        <translation>回放：来自另一台机器或另一次运行的已保存报告。</translation>
    </message>
    <message>
        <source>Nothing measured or computed yet.</source>
        <translation>还没有任何测量或计算结果。</translation>
    </message>
</context>
<context>
    <name>RaceTab</name>
    <message>
        <source>One multiply at N = %1</source>
        <translation>一次乘法，N = %1</translation>
    </message>
    <message>
        <source>One add of n = %1</source>
        <translation>一次加法，n = %1</translation>
    </message>
    <message>
        <source>Size %1</source>
        <translation>规模 %1</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>规模：</translation>
    </message>
    <message>
        <source>Start race</source>
        <translation>开始赛跑</translation>
    </message>
</context>
<context>
    <name>RaceView</name>
    <message>
        <source>%1 is about %2× faster than %3</source>
        <translation>%1 比 %3 快约 %2 倍</translation>
    </message>
    <message>
        <source>Run a sweep, then race one size.</source>
        <translation>先跑一次扫描，再选一个规模来赛跑。</translation>
    </message>
    <message>
        <source>copy in</source>
        <translation>拷入</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>copy out</source>
        <translation>拷出</translation>
    </message>
</context>
<context>
    <name>ReportExportButton</name>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Report as JSON (gpulab check --json)…</source>
        <translation>报告存为 JSON（gpulab check --json）…</translation>
    </message>
    <message>
        <source>Report as an HTML page…</source>
        <translation>报告存为 HTML 网页…</translation>
    </message>
    <message>
        <source>Export the check report as %1</source>
        <translation>把检查报告导出为 %1</translation>
    </message>
</context>
<context>
    <name>RooflinePanel</name>
    <message>
        <source>Kernel</source>
        <translation>核函数</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>受限于</translation>
    </message>
    <message>
        <source>Roof</source>
        <translation>屋顶</translation>
    </message>
    <message>
        <source>Percent of the roof above the kernel it reaches</source>
        <translation>核函数达到其上方屋顶的百分比</translation>
    </message>
    <message>
        <source>Run the lab to place every kernel.</source>
        <translation>运行本实验，把每个核函数放到图上。</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>no roof to compare with</source>
        <translation>没有可比较的屋顶</translation>
    </message>
    <message>
        <source>memory-bound, %1% of roof</source>
        <translation>受限于内存，达到屋顶的 %1%</translation>
    </message>
    <message>
        <source>compute-bound, %1% of roof</source>
        <translation>受限于计算，达到屋顶的 %1%</translation>
    </message>
    <message>
        <source>no reuse</source>
        <translation>无复用</translation>
    </message>
    <message>
        <source>ideal reuse</source>
        <translation>理想复用</translation>
    </message>
    <message>
        <source>%1 FLOP/byte, %2 GFLOP/s</source>
        <translation>%1 FLOP/字节，%2 GFLOP/s</translation>
    </message>
    <message>
        <source>no floating-point work; %1 GB/s</source>
        <translation>没有浮点运算；%1 GB/s</translation>
    </message>
    <message>
        <source>with %1: %2 FLOP/byte, %3 GFLOP/s</source>
        <translation>%1时：%2 FLOP/字节，%3 GFLOP/s</translation>
    </message>
    <message>
        <source>published, a kernel like it: %1 GFLOP/s on the %2, %3% of its fp32 peak</source>
        <translation>已发表实测，同类核函数：在 %2 上 %1 GFLOP/s，为其 fp32 峰值的 %3%</translation>
    </message>
    <message>
        <source>Click to open it in the warp visualizer.</source>
        <translation>点击即可在线程束可视化中打开它。</translation>
    </message>
    <message>
        <source>ridge %1</source>
        <translation>脊点 %1</translation>
    </message>
    <message>
        <source>○ %1</source>
        <translation>○ %1</translation>
    </message>
    <message>
        <source>Kernels on %1 (%2, %3):</source>
        <translation>%1 上的核函数（%2，%3）：</translation>
    </message>
</context>
<context>
    <name>RunControls</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Waiting for the device to be free…</source>
        <translation>正在等待设备空闲…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Keyboard: %1</source>
        <translation>键盘：%1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>ScalingExplorer</name>
    <message>
        <source>ring on the fitted link</source>
        <translation>拟合链路上的环形</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>AllReduce of %1</source>
        <translation>%1 的 AllReduce</translation>
    </message>
    <message>
        <source>Plans for %1 GPUs (★ best that fits; ◆ Meta&apos;s published layout; tinted: cannot run)</source>
        <translation>%1 块 GPU 的方案（★ 放得下的最佳方案；◆ Meta 公布的切分；底色标红：无法运行）</translation>
    </message>
    <message>
        <source>In a node %1 GB/s a GPU (NCCL&apos;s share of %2&apos;s %3); out of it %4 NICs × %5 = %6 GB/s. </source>
        <translation>节点内每块 GPU %1 GB/s（NCCL 在 %2 的 %3 中实际能用的部分）；出节点 %4 块网卡 × %5 = %6 GB/s。</translation>
    </message>
    <message>
        <source>NVLink SHARP: %1 GB/s busbw on %2 GPUs, one node only.</source>
        <translation>NVLink SHARP：%2 块 GPU 上总线带宽 %1 GB/s，仅限一个节点内。</translation>
    </message>
    <message>
        <source>scaling efficiency, % of the ideal step</source>
        <translation>扩展效率，理想步时的百分比</translation>
    </message>
    <message>
        <source>goodput, % of wall time</source>
        <translation>有效产出 (goodput)，墙钟时间的百分比</translation>
    </message>
    <message>
        <source>ideal step: the model&apos;s FLOPs at %1 of peak</source>
        <translation>理想步时：模型运算按峰值的 %1 完成</translation>
    </message>
    <message>
        <source>Goodput %5% on %1 GPUs: %2 interruptions/day (MTBF %3 h), a checkpoint every %4 min (Young)</source>
        <translation>%1 块 GPU 的有效产出 (goodput) %5%：每天中断 %2 次（MTBF %3 小时），每 %4 分钟存一次检查点（Young）</translation>
    </message>
    <message>
        <source>Llama 3, 16,384 H100s — model: %1/day; Meta&apos;s paper: %2 (%3 unexpected)</source>
        <translation>Llama 3，16,384 块 H100：模型估算每天 %1 次，Meta 论文 %2 次（意外 %3 次）</translation>
    </message>
    <message>
        <source>Efficiency, goodput</source>
        <translation>效率 / 有效产出</translation>
    </message>
    <message>
        <source>Planner</source>
        <translation>规划器</translation>
    </message>
</context>
<context>
    <name>ScalingSliders</name>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>AllReduce message</source>
        <translation>AllReduce 消息</translation>
    </message>
    <message>
        <source>Interruptions per GPU-year</source>
        <translation>每 GPU 每年中断次数</translation>
    </message>
    <message>
        <source>Checkpoint write</source>
        <translation>检查点写入</translation>
    </message>
</context>
<context>
    <name>SchedulingPanel</name>
    <message>
        <source>Gantt</source>
        <translation>甘特图</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Lost GPU-hours</source>
        <translation>损失的 GPU 小时</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Hours</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Cause</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>GPU 小时</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Press Run: the jobs appear on their nodes; drag the red line to see the queue at that time.</source>
        <translation>按“运行”：作业会出现在各自的节点上；拖动红线可查看那一时刻的队列。</translation>
    </message>
    <message>
        <source>At %1 h (squeue): %2 jobs running, %3 waiting.</source>
        <translation>%1 小时时（squeue）：%2 个作业在运行，%3 个在等待。</translation>
    </message>
    <message>
        <source>Nodes (sinfo): %1 allocated, %2 idle, %3 down.</source>
        <translation>节点（sinfo）：%1 个已分配，%2 个空闲，%3 个下线。</translation>
    </message>
    <message>
        <source>large</source>
        <translation>大</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>small</source>
        <translation>小</translation>
    </message>
</context>
<context>
    <name>SeriesLegend</name>
    <message>
        <source>○ Hollow, faded points: %1 measured under load or implausible; no ratio, crossover, ceiling or speed-up uses them.</source>
        <translation>○ 淡色空心点：%1 个在负载下测得或明显不合理；比值、交叉点、上限和加速比都不采用它们。</translation>
    </message>
</context>
<context>
    <name>SpeakerView</name>
    <message>
        <source>gpulab: speaker notes</source>
        <translation>gpulab：讲者备注</translation>
    </message>
    <message>
        <source>Restart the clock</source>
        <translation>计时归零</translation>
    </message>
    <message>
        <source>No notes for this page.</source>
        <translation>这一页没有备注。</translation>
    </message>
    <message>
        <source>Next: %1</source>
        <translation>下一页：%1</translation>
    </message>
    <message>
        <source>This is the last page.</source>
        <translation>这是最后一页。</translation>
    </message>
</context>
<context>
    <name>SqueezePanel</name>
    <message>
        <source>Export trace…</source>
        <translation>导出 trace…</translation>
    </message>
    <message>
        <source>The steps as a Chrome trace: open it in the trace doctor or in Perfetto.</source>
        <translation>把各训练步导出为 Chrome trace：可在 trace 诊断页或 Perfetto 中打开。</translation>
    </message>
    <message>
        <source>ms per step:</source>
        <translation>每步毫秒数：</translation>
    </message>
    <message>
        <source>time per step (ms)</source>
        <translation>每步时间（ms）</translation>
    </message>
    <message>
        <source>%1 (GPU %2%)</source>
        <translation>%1（GPU %2%）</translation>
    </message>
    <message>
        <source>Export trace</source>
        <translation>导出 trace</translation>
    </message>
    <message>
        <source>The trace cannot be written: %1</source>
        <translation>无法写入 trace：%1</translation>
    </message>
</context>
<context>
    <name>StreamsPanel</name>
    <message>
        <source>Rows:</source>
        <translation>行：</translation>
    </message>
    <message>
        <source>one per stream</source>
        <translation>每个流一行</translation>
    </message>
    <message>
        <source>one per engine</source>
        <translation>每个引擎一行</translation>
    </message>
    <message>
        <source>Configuration</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>总时间</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>加速比</translation>
    </message>
    <message>
        <source>Press Run: each configuration&apos;s timeline appears here.</source>
        <translation>按“运行”：每种配置的时间线会显示在这里。</translation>
    </message>
    <message>
        <source>Modelled: %1</source>
        <translation>模型估算：%1</translation>
    </message>
    <message>
        <source>Measured: %1</source>
        <translation>实测：%1</translation>
    </message>
    <message>
        <source>this GPU</source>
        <translation>本机 GPU</translation>
    </message>
    <message>
        <source>Timed under noise (its repeats disagree): no speed-up is stated for it.</source>
        <translation>计时受噪声影响（各次重复结果不一致）：不给出它的加速比。</translation>
    </message>
</context>
<context>
    <name>SweepControls</name>
    <message>
        <source>Experiment:</source>
        <translation>实验：</translation>
    </message>
    <message>
        <source>Sizes:</source>
        <translation>规模：</translation>
    </message>
    <message>
        <source>Data type:</source>
        <translation>数据类型：</translation>
    </message>
    <message>
        <source>GPU to model:</source>
        <translation>建模的 GPU：</translation>
    </message>
    <message>
        <source>Matrix multiply</source>
        <translation>矩阵乘法</translation>
    </message>
    <message>
        <source>Vector add</source>
        <translation>向量加法</translation>
    </message>
    <message>
        <source>Include PCIe copies</source>
        <translation>计入 PCIe 拷贝</translation>
    </message>
    <message>
        <source>Count the time to copy the inputs over PCIe to the GPU and the result back to the CPU.</source>
        <translation>把输入经 PCIe 拷到 GPU、再把结果拷回 CPU 的时间也算进去。</translation>
    </message>
    <message>
        <source>Without a GPU, this GPU&apos;s spec sheet gives a modelled curve (dashed, labelled MODELLED).</source>
        <translation>没有 GPU 时，用这块 GPU 的规格表算出一条模型估算曲线（虚线，标为“模型估算”）。</translation>
    </message>
    <message>
        <source>Slow on a CPU: each of the largest multiplies takes seconds.</source>
        <translation>在 CPU 上很慢：最大的几个矩阵乘法每次都要好几秒。</translation>
    </message>
</context>
<context>
    <name>Theme</name>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Projector (high contrast)</source>
        <translation>投影仪（高对比度）</translation>
    </message>
</context>
<context>
    <name>TimelineChart</name>
    <message>
        <source>copy in (H2D)</source>
        <translation>拷入（H2D）</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>核函数</translation>
    </message>
    <message>
        <source>copy out (D2H)</source>
        <translation>拷出（D2H）</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>copy on the GPU (D2D)</source>
        <translation>GPU 内拷贝（D2D）</translation>
    </message>
    <message>
        <source>copy between GPUs (P2P)</source>
        <translation>GPU 之间拷贝（P2P）</translation>
    </message>
    <message>
        <source>copy</source>
        <translation>拷贝</translation>
    </message>
    <message>
        <source>memset</source>
        <translation>内存置值（memset）</translation>
    </message>
    <message>
        <source>CPU launch call</source>
        <translation>CPU 发起调用</translation>
    </message>
    <message>
        <source>synchronisation</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <source>profiler step</source>
        <translation>性能分析步</translation>
    </message>
    <message>
        <source>H2D copy engine</source>
        <translation>H2D 拷贝引擎</translation>
    </message>
    <message>
        <source>D2H copy engine</source>
        <translation>D2H 拷贝引擎</translation>
    </message>
    <message>
        <source>copy engine</source>
        <translation>拷贝引擎</translation>
    </message>
    <message>
        <source>SMs (kernels)</source>
        <translation>SM（核函数）</translation>
    </message>
    <message>
        <source>default stream</source>
        <translation>默认流</translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation>流 %1</translation>
    </message>
    <message>
        <source>stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>start: %1</source>
        <translation>开始：%1</translation>
    </message>
    <message>
        <source>duration: %1</source>
        <translation>时长：%1</translation>
    </message>
    <message>
        <source>bytes: %1</source>
        <translation>字节：%1</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
</context>
<context>
    <name>TopologyPanel</name>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Copy matrix (GB/s)</source>
        <translation>拷贝矩阵（GB/s）</translation>
    </message>
    <message>
        <source>Press Run: the GPUs and their links appear here.</source>
        <translation>按“运行”：GPU 及其链路会显示在这里。</translation>
    </message>
    <message>
        <source>Press Run: the modelled network of nodes appears here.</source>
        <translation>按“运行”：模型估算的节点网络会显示在这里。</translation>
    </message>
    <message>
        <source>Rows: the GPU copying; columns: the GPU receiving. GB/s per direction.</source>
        <translation>行：发出拷贝的 GPU；列：接收的 GPU。单位为每个方向的 GB/s。</translation>
    </message>
    <message>
        <source>NVML did not describe this machine&apos;s links; see the matrix.</source>
        <translation>NVML 没有给出本机的链路；请看拷贝矩阵。</translation>
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
        <translation>PCIe 交换机 %1</translation>
    </message>
    <message>
        <source>CPU %1</source>
        <translation>CPU %1</translation>
    </message>
    <message>
        <source>NIC %1</source>
        <translation>网卡 %1</translation>
    </message>
    <message>
        <source>Node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <source>Leaf %1</source>
        <translation>叶 %1</translation>
    </message>
    <message>
        <source>Spine %1</source>
        <translation>脊 %1</translation>
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
        <translation>CPU 插槽之间的链路</translation>
    </message>
    <message>
        <source>InfiniBand (network)</source>
        <translation>InfiniBand（网络）</translation>
    </message>
    <message>
        <source>rate not known</source>
        <translation>速率未知</translation>
    </message>
    <message>
        <source>%1 GB/s per direction</source>
        <translation>每个方向 %1 GB/s</translation>
    </message>
    <message>
        <source>× %1 links</source>
        <translation>× %1 条链路</translation>
    </message>
    <message>
        <source>bus %1</source>
        <translation>总线 %1</translation>
    </message>
    <message>
        <source>NVLink links: %1</source>
        <translation>NVLink 链路数：%1</translation>
    </message>
    <message>
        <source>PCIe: %1</source>
        <translation>PCIe：%1</translation>
    </message>
</context>
<context>
    <name>TraceFindings</name>
    <message>
        <source>Evidence: %1</source>
        <translation>证据：%1</translation>
    </message>
    <message>
        <source>Longest: %1</source>
        <translation>最长的几项：%1</translation>
    </message>
    <message>
        <source>Open the %1 lab</source>
        <translation>打开“%1”实验</translation>
    </message>
    <message>
        <source>%1 more findings are in the exported result.</source>
        <translation>另有 %1 条发现，见导出的结果。</translation>
    </message>
</context>
<context>
    <name>TraceLessonLab</name>
    <message>
        <source>The sample trace has no profiler step %1.</source>
        <translation>示例追踪里没有第 %1 个性能分析步。</translation>
    </message>
</context>
<context>
    <name>TraceOpener</name>
    <message>
        <source>Reading a trace</source>
        <translation>读取追踪文件</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Reading cancelled: the trace shown before stays.</source>
        <translation>已取消读取：仍显示之前的追踪。</translation>
    </message>
    <message>
        <source>Reading cancelled.</source>
        <translation>已取消读取。</translation>
    </message>
    <message>
        <source>Could not open the trace: %1</source>
        <translation>无法打开追踪文件：%1</translation>
    </message>
    <message>
        <source>Open a profiler trace (several files: one per rank)</source>
        <translation>打开性能分析追踪文件（可多选：每个进程一个文件）</translation>
    </message>
    <message>
        <source>Traces (*.json *.json.gz *.gz *.sqlite);;All files (*)</source>
        <translation>追踪文件 (*.json *.json.gz *.gz *.sqlite);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open trace…</source>
        <translation>打开追踪文件…</translation>
    </message>
    <message>
        <source>A PyTorch Profiler / Kineto trace (or one file per rank of a distributed run), an Nsight Systems SQLite export, a saved lab result or a saved gpulab trace --json diagnosis</source>
        <translation>PyTorch Profiler / Kineto 追踪文件（分布式运行可每个进程选一个文件）、Nsight Systems SQLite 导出文件、保存的实验结果，或用 gpulab trace --json 保存的诊断</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop reading: the trace shown before stays</source>
        <translation>停止读取：仍显示之前的追踪</translation>
    </message>
    <message>
        <source>%1 … %2 (%3 files)</source>
        <translation>%1 … %2（共 %3 个文件）</translation>
    </message>
</context>
<context>
    <name>TracePanel</name>
    <message>
        <source>No findings: nothing here crosses a threshold.</source>
        <translation>没有发现：这里没有任何一项超过阈值。</translation>
    </message>
    <message>
        <source>whole trace</source>
        <translation>整个追踪</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>all ranks</source>
        <translation>所有进程</translation>
    </message>
    <message>
        <source>Open a PyTorch Profiler trace (.json, .json.gz), an Nsight Systems SQLite export or a saved lab result: this page shows where each GPU&apos;s time went, why it sat idle, and which lab teaches the fix.</source>
        <translation>打开 PyTorch Profiler 追踪文件（.json、.json.gz）、Nsight Systems 导出的 SQLite 文件或已保存的实验结果：本页告诉你每块 GPU 的时间花在了哪里、为什么空闲，以及哪个实验讲解了解决办法。</translation>
    </message>
    <message>
        <source>Replayed from %1: the diagnosis of %2 (%3) saved with gpulab trace --json, shown as saved. It holds no events: open the trace itself to see its timeline.</source>
        <translation>回放自 %1：用 gpulab trace --json 保存的 %2（%3）的诊断，按保存时的样子显示。其中没有事件：要看时间线，请打开追踪文件本身。</translation>
    </message>
    <message>
        <source>Modelled: %1 is a modelled run of a gpulab lab (its times computed from a spec sheet, not measured); its %3 configurations are shown as ranks.</source>
        <translation>模型估算：%1 是 gpulab 某个实验的模型估算运行（时间由规格表算出，并非实测）；它的 %3 种配置各作为一个进程显示。</translation>
    </message>
    <message>
        <source>Measured by the profiler that wrote these %6 files (%2), read as one run of %3 ranks: %5; %4 profiler steps.</source>
        <translation>由写出这 %6 个文件（%2）的性能分析器实测，合为一次 %3 个进程的运行读取：%5；%4 个性能分析步。</translation>
    </message>
    <message>
        <source>Modelled: %1 (%2) is a gpulab lab&apos;s modelled run written as a profiler trace (its GPU times computed from a spec sheet, not measured): %3 ranks, %4 profiler steps.</source>
        <translation>模型估算：%1（%2）是 gpulab 某个实验的模型估算运行，写成了性能追踪文件（GPU 时间由规格表算出，并非实测）：%3 个进程，%4 个性能分析步。</translation>
    </message>
    <message>
        <source>Measured by the profiler that wrote %1 (%2): %3 ranks, %4 profiler steps.</source>
        <translation>由写出 %1（%2）的性能分析器实测：%3 个进程，%4 个性能分析步。</translation>
    </message>
    <message>
        <source>Open a trace: its timeline appears here.</source>
        <translation>打开一个追踪文件：它的时间线会显示在这里。</translation>
    </message>
    <message>
        <source>A saved diagnosis holds no timeline: open the trace file itself.</source>
        <translation>保存的诊断中没有时间线：请打开追踪文件本身。</translation>
    </message>
    <message>
        <source>the whole trace</source>
        <translation>整个追踪</translation>
    </message>
    <message>
        <source>%1 to %2 of %3. Wheel: zoom; drag: move; double-click: all of it.</source>
        <translation>%3的 %1 到 %2。滚轮：缩放；拖动：平移；双击：显示全部。</translation>
    </message>
    <message>
        <source>Drawn: the %1 longest of %2 operations here; zoom in to see the rest.</source>
        <translation>只画出了这里 %2 个操作中最长的 %1 个；放大可看到其余的。</translation>
    </message>
    <message>
        <source>Nothing ran in this window.</source>
        <translation>这个时间窗口内没有任何操作。</translation>
    </message>
    <message>
        <source>Trace doctor: where did the GPU&apos;s time go?</source>
        <translation>性能追踪诊断：GPU 的时间花在了哪里？</translation>
    </message>
    <message>
        <source>Step:</source>
        <translation>步：</translation>
    </message>
    <message>
        <source>Rank:</source>
        <translation>进程：</translation>
    </message>
    <message>
        <source>Open a trace first: there is nothing to export.</source>
        <translation>请先打开一个追踪文件：现在没有可导出的内容。</translation>
    </message>
</context>
<context>
    <name>TraceShares</name>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>memory copies</source>
        <translation>内存拷贝</translation>
    </message>
    <message>
        <source>idle: launch</source>
        <translation>空闲：等发起</translation>
    </message>
    <message>
        <source>idle: sync</source>
        <translation>空闲：同步</translation>
    </message>
    <message>
        <source>idle: data</source>
        <translation>空闲：等数据</translation>
    </message>
    <message>
        <source>idle: other</source>
        <translation>空闲：其他</translation>
    </message>
    <message>
        <source>idle: the GPU waited for the CPU to launch the next work</source>
        <translation>空闲：GPU 在等 CPU 发起下一项工作</translation>
    </message>
    <message>
        <source>idle: the CPU was held by a synchronisation and queued nothing ahead</source>
        <translation>空闲：CPU 被同步卡住，没能提前排入工作</translation>
    </message>
    <message>
        <source>idle: the CPU was waiting for the data loader</source>
        <translation>空闲：CPU 在等数据加载器</translation>
    </message>
    <message>
        <source>idle: work was queued but waited (a dependency, or no host calls in the trace to tell)</source>
        <translation>空闲：工作已排队但在等待（有依赖，或追踪中没有主机调用可供判断）</translation>
    </message>
    <message>
        <source>and %1 more ranks (in the exported result)</source>
        <translation>另有 %1 个进程（见导出的结果）</translation>
    </message>
</context>
<context>
    <name>TraceTimeline</name>
    <message>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <source>profiler steps</source>
        <translation>性能分析步</translation>
    </message>
    <message>
        <source>CPU thread %1</source>
        <translation>CPU 线程 %1</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步</translation>
    </message>
    <message>
        <source>lane</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>… (the rank list names them all)</source>
        <translation>…（进程列表里有全部名称）</translation>
    </message>
    <message>
        <source>R = rank</source>
        <translation>R = 进程</translation>
    </message>
    <message>
        <source>S = stream</source>
        <translation>S = 流</translation>
    </message>
    <message>
        <source>D = default stream</source>
        <translation>D = 默认流</translation>
    </message>
    <message>
        <source>T = CPU thread</source>
        <translation>T = CPU 线程</translation>
    </message>
    <message>
        <source>Lanes: %1</source>
        <translation>通道：%1</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>TransferPanel</name>
    <message>
        <source>Copy sizes</source>
        <translation>拷贝大小</translation>
    </message>
    <message>
        <source>Round trips vs batch</source>
        <translation>往返与合批</translation>
    </message>
    <message>
        <source>Both ways at once</source>
        <translation>双向同时拷贝</translation>
    </message>
    <message>
        <source>%1: %2 GB/s</source>
        <translation>%1：%2 GB/s</translation>
    </message>
    <message>
        <source>%1: pinned, in practice</source>
        <translation>%1：锁页内存的实际水平</translation>
    </message>
    <message>
        <source>up to %1% of the link</source>
        <translation>最高达链路的 %1%</translation>
    </message>
</context>
<context>
    <name>Transport</name>
    <message>
        <source>step %1 / %2</source>
        <translation>第 %1 / %2 步</translation>
    </message>
    <message>
        <source>%1 steps/s</source>
        <translation>每秒 %1 步</translation>
    </message>
    <message>
        <source>Go to the first step</source>
        <translation>跳到第一步</translation>
    </message>
    <message>
        <source>Step back</source>
        <translation>后退一步</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Step forward</source>
        <translation>前进一步</translation>
    </message>
    <message>
        <source>Go to the last step</source>
        <translation>跳到最后一步</translation>
    </message>
    <message>
        <source>Next divergence</source>
        <translation>下一次分支发散</translation>
    </message>
    <message>
        <source>Jump to the next branch that splits a warp&apos;s lanes</source>
        <translation>跳到下一个让线程束内通道分开执行的分支</translation>
    </message>
    <message>
        <source>Next memory access</source>
        <translation>下一次内存访问</translation>
    </message>
    <message>
        <source>Jump to the next load, store or atomic</source>
        <translation>跳到下一次读取、写入或原子操作</translation>
    </message>
    <message>
        <source>Playback speed, 0.5 to 60 steps a second</source>
        <translation>播放速度：每秒 0.5 到 60 步</translation>
    </message>
</context>
<context>
    <name>ValidationButton</name>
    <message>
        <source>How good is this model?</source>
        <translation>这个模型有多准？</translation>
    </message>
    <message>
        <source>%1 published measurements set against this lab&apos;s model</source>
        <translation>用 %1 项公开发表的实测值检验本实验的模型</translation>
    </message>
</context>
<context>
    <name>ValidationDialog</name>
    <message>
        <source>The rows could not be checked: %1</source>
        <translation>无法核对这些行：%1</translation>
    </message>
    <message>
        <source>How good is this model? — %1</source>
        <translation>这个模型有多准？— %1</translation>
    </message>
    <message>
        <source>Each row sets one modelled figure against a published measurement. The model passes a row when it lands within the tolerance the project claims; the error is measured from the nearest end of the published figure. A row without a published figure is unvalidated. Under each row: its source, and where the model departs from the published setting.</source>
        <translation>每一行把一个模型估算的数字与一项公开发表的实测值对照。模型的数字落在本项目声明的容差之内，这一行就算通过；误差从公开数字（或其范围）最近的一端算起。没有公开数字的行标为“未经验证”。每行下方是它的出处，以及模型与公开发表时的条件有何不同。</translation>
    </message>
    <message>
        <source>Checking the model against the published figures…</source>
        <translation>正在用公开发表的数字核对模型…</translation>
    </message>
    <message>
        <source>%1 of %2 rows within tolerance; %3 unvalidated.</source>
        <translation>%2 行中有 %1 行在容差之内；另有 %3 行未经验证。</translation>
    </message>
    <message>
        <source>%1 of %2 rows within tolerance.</source>
        <translation>%2 行中有 %1 行在容差之内。</translation>
    </message>
    <message>
        <source> %1 of the rows set the model&apos;s constants (fitted).</source>
        <translation>其中 %1 行是用来确定模型常数的（拟合）。</translation>
    </message>
</context>
<context>
    <name>ValidationSheet</name>
    <message>
        <source>What is compared</source>
        <translation>对照的内容</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Published</source>
        <translation>公开发表</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>Tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>✓ within</source>
        <translation>✓ 在容差内</translation>
    </message>
    <message>
        <source>✗ outside</source>
        <translation>✗ 超出容差</translation>
    </message>
    <message>
        <source>✗ not priced</source>
        <translation>✗ 无法计算</translation>
    </message>
    <message>
        <source>unvalidated</source>
        <translation>未经验证</translation>
    </message>
    <message>
        <source>none published</source>
        <translation>无公开数字</translation>
    </message>
    <message>
        <source>%1 (upper bound)</source>
        <translation>%1（上限）</translation>
    </message>
    <message>
        <source>%1 (lower bound)</source>
        <translation>%1（下限）</translation>
    </message>
    <message>
        <source> · fitted</source>
        <translation> · 拟合</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>出处：%1</translation>
    </message>
    <message>
        <source>The model claims only an upper bound: it passes when its figure is at or above the measured one.</source>
        <translation>模型只声称给出一个上限：它的数字不低于实测值，这一行就算通过。</translation>
    </message>
    <message>
        <source>The model claims only a lower bound: it passes when its figure is at or below the measured one.</source>
        <translation>模型只声称给出一个下限：它的数字不高于实测值，这一行就算通过。</translation>
    </message>
    <message>
        <source>Fitted: the model&apos;s constants were set from this figure, so this row checks that they hang together, not what the model predicts.</source>
        <translation>拟合：模型的常数就是按这个数字定的，所以这一行检验的是这些常数彼此是否自洽，而不是模型的预测。</translation>
    </message>
    <message>
        <source>Where the model departs: %1</source>
        <translation>模型与实际的差别：%1</translation>
    </message>
    <message>
        <source>Not priced: %1</source>
        <translation>模型无法计算：%1</translation>
    </message>
</context>
<context>
    <name>WarpPanel</name>
    <message>
        <source>tiny</source>
        <translation>极小</translation>
    </message>
    <message>
        <source>small</source>
        <translation>小</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>large</source>
        <translation>大</translation>
    </message>
    <message>
        <source>%1 (%2 threads)</source>
        <translation>%1（%2 个线程）</translation>
    </message>
    <message>
        <source>Emulate %1</source>
        <translation>仿真 %1</translation>
    </message>
    <message>
        <source>The greyed lanes and metrics are from the previous run.</source>
        <translation>变灰的通道和指标来自上一次运行。</translation>
    </message>
    <message>
        <source>Emulating…</source>
        <translation>正在仿真……</translation>
    </message>
    <message>
        <source>Edited — not run yet (Run or Ctrl+Return emulates it).</source>
        <translation>已编辑 — 尚未运行（点“运行”或按 Ctrl+Return 仿真）。</translation>
    </message>
    <message>
        <source>Emulation cancelled.</source>
        <translation>仿真已取消。</translation>
    </message>
    <message>
        <source>Run %1 on the GPU</source>
        <translation>在 GPU 上运行 %1</translation>
    </message>
    <message>
        <source>Running on the GPU…</source>
        <translation>正在 GPU 上运行……</translation>
    </message>
    <message>
        <source>The GPU run failed: %1</source>
        <translation>GPU 运行失败：%1</translation>
    </message>
    <message>
        <source>outputs match the numpy reference</source>
        <translation>输出与 numpy 参考结果一致</translation>
    </message>
    <message>
        <source>outputs DIFFER from the numpy reference</source>
        <translation>输出与 numpy 参考结果【不一致】</translation>
    </message>
    <message>
        <source>Emulated block %1 of %2: %3 warps traced, %4 steps; %5.</source>
        <translation>已仿真线程块 %1（共 %2 个）：跟踪了 %3 个线程束，共 %4 步；%5。</translation>
    </message>
    <message>
        <source>The trace stops early (the emulator keeps at most 20,000 steps per warp).</source>
        <translation>跟踪提前截止（仿真器每个线程束最多保留 20,000 步）。</translation>
    </message>
    <message>
        <source>Line %1 (%2): %3 of %4 warps execute, %5 lanes active.</source>
        <translation>第 %1 行（%2）：%4 个线程束中有 %3 个在执行，%5 个通道活跃。</translation>
    </message>
    <message>
        <source>statement</source>
        <translation>语句</translation>
    </message>
    <message>
        <source>This run has no divergent branch: every branch kept its warps together.</source>
        <translation>这次运行没有发散的分支：每个分支都没有拆开线程束。</translation>
    </message>
    <message>
        <source>No further divergent branch after step %1 (this run has %2; the last is step %3).</source>
        <translation>第 %1 步之后没有更多发散的分支（本次运行共有 %2 个，最后一个在第 %3 步）。</translation>
    </message>
    <message>
        <source>No further memory access after step %1.</source>
        <translation>第 %1 步之后没有更多内存访问。</translation>
    </message>
    <message>
        <source>branch</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>load</source>
        <translation>读取</translation>
    </message>
    <message>
        <source>store</source>
        <translation>写入</translation>
    </message>
    <message>
        <source>atomic</source>
        <translation>原子操作</translation>
    </message>
    <message>
        <source>barrier</source>
        <translation>屏障</translation>
    </message>
    <message>
        <source>shuffle</source>
        <translation>洗牌</translation>
    </message>
    <message>
        <source>Warp %1, lane %2: %3.</source>
        <translation>线程束 %1，通道 %2：%3。</translation>
    </message>
    <message>
        <source>Warp %1, lane %2: threadIdx %3, blockIdx %4, thread %5 of the grid — %6.</source>
        <translation>线程束 %1，通道 %2：threadIdx %3，blockIdx %4，网格中的第 %5 号线程 —— %6。</translation>
    </message>
    <message>
        <source>Warp %1, lane %2 (thread %3): %4.</source>
        <translation>线程束 %1，通道 %2（第 %3 号线程）：%4。</translation>
    </message>
    <message>
        <source>Address %1.</source>
        <translation>地址 %1。</translation>
    </message>
    <message>
        <source>Variables: %1.</source>
        <translation>变量：%1。</translation>
    </message>
    <message>
        <source>Bank %1.</source>
        <translation>存储体 %1。</translation>
    </message>
    <message>
        <source>Sector %1 of line %2.</source>
        <translation>行 %2 的扇区 %1。</translation>
    </message>
    <message>
        <source>the device check has not finished</source>
        <translation>设备检测尚未完成</translation>
    </message>
    <message>
        <source>No GPU run: %1 The emulated results above stand alone.</source>
        <translation>没有在 GPU 上运行：%1 上面的仿真结果依然成立。</translation>
    </message>
    <message>
        <source>Run the same source on the GPU to compare outputs and time it.</source>
        <translation>在 GPU 上运行同一份源码，对比输出并计时。</translation>
    </message>
    <message>
        <source>outputs MATCH the emulator</source>
        <translation>输出与仿真器【一致】</translation>
    </message>
    <message>
        <source>Emulated counts, every warp of the launch: %1 warp-steps (nvprof inst_executed), %2 load sectors in %3 requests.</source>
        <translation>仿真计数（整次启动的所有线程束）：%1 个线程束步（nvprof inst_executed），%3 次请求加载了 %2 个扇区。</translation>
    </message>
    <message>
        <source>outputs DO NOT MATCH the emulator</source>
        <translation>输出与仿真器【不一致】</translation>
    </message>
    <message>
        <source>%1: %2; kernel time %3 µs (median of %4 launches, CUDA events).</source>
        <translation>%1：%2；核函数耗时 %3 µs（%4 次启动的中位数，CUDA 事件计时）。</translation>
    </message>
    <message>
        <source>Kernel:</source>
        <translation>核函数：</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>规模：</translation>
    </message>
    <message>
        <source>Block:</source>
        <translation>线程块：</translation>
    </message>
    <message>
        <source>Which block&apos;s warps to trace (linear block id)</source>
        <translation>跟踪哪个线程块的线程束（线性块编号）</translation>
    </message>
    <message>
        <source>Dynamic shared:</source>
        <translation>动态共享内存：</translation>
    </message>
    <message>
        <source> bytes</source>
        <translation> 字节</translation>
    </message>
    <message>
        <source>Bytes of dynamic shared memory per block, for extern __shared__ arrays (shared_mem of a CuPy launch)</source>
        <translation>每个线程块的动态共享内存字节数，供 extern __shared__ 数组使用（即 CuPy 启动时的 shared_mem）</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the emulation now</source>
        <translation>立即停止仿真</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>时间上限：</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>An emulation that runs longer stops, naming the loop it was in</source>
        <translation>运行超过这个时间的仿真会停止，并指出它所在的循环</translation>
    </message>
    <message>
        <source>Emulate the code in the editor, your edits included (Ctrl+Return)</source>
        <translation>仿真编辑器里的代码，包括你的修改（Ctrl+回车）</translation>
    </message>
    <message>
        <source>The warp visualizer has no kernel %1.</source>
        <translation>线程束可视化面板里没有核函数 %1。</translation>
    </message>
    <message>
        <source>Click a warp to follow it. Keys: Space play/pause, arrows step, D next divergence, M next memory access.</source>
        <translation>点击一个线程束来跟踪它。按键：空格 播放/暂停，方向键 单步，D 下一次分支发散，M 下一次内存访问。</translation>
    </message>
    <message>
        <source>Memory traffic</source>
        <translation>内存流量</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>On a GPU</source>
        <translation>在 GPU 上</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>printf output</source>
        <translation>printf 输出</translation>
    </message>
    <message>
        <source>printf</source>
        <translation>printf</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Compare with:</source>
        <translation>对比：</translation>
    </message>
    <message>
        <source>SM view</source>
        <translation>SM 视图</translation>
    </message>
    <message>
        <source>Open in SM view: this kernel&apos;s warps hiding memory latency (the latency page)</source>
        <translation>在 SM 视图中打开：看这个核函数的线程束如何隐藏内存延迟（延迟页面）</translation>
    </message>
    <message>
        <source>Run on the GPU</source>
        <translation>在 GPU 上运行</translation>
    </message>
    <message>
        <source>Cannot read the constants “%1”: write NAME=v1,v2,… (numbers separated by commas), several separated by “;”, e.g. weights=0.1,0.2,0.4,0.2,0.1.</source>
        <translation>无法读取常量“%1”：请写成 NAME=v1,v2,…（数字之间用逗号分隔），多个之间用“;”分隔，例如 weights=0.1,0.2,0.4,0.2,0.1。</translation>
    </message>
    <message>
        <source>Contract a*b + c into fma (nvcc -fmad=true)</source>
        <translation>把 a*b + c 合并为 fma（nvcc -fmad=true）</translation>
    </message>
    <message>
        <source>fma</source>
        <translation>fma</translation>
    </message>
    <message>
        <source>On, as nvcc by default: a*b + c is one fused multiply-add, rounded once. Off, as nvcc -fmad=false: the product is rounded, then the sum; float results can differ in the last bit. fmaf() calls stay fused either way.</source>
        <translation>勾选（nvcc 的默认）：a*b + c 成为一次融合乘加（fma），只舍入一次。不勾选（如 nvcc -fmad=false）：先对乘积舍入，再对和舍入；浮点结果可能在最后一位不同。显式调用 fmaf() 时无论哪种都保持融合。</translation>
    </message>
    <message>
        <source>__constant__:</source>
        <translation>__constant__：</translation>
    </message>
    <message>
        <source>NAME=v1,v2,…</source>
        <translation>名称=v1,v2,…</translation>
    </message>
    <message>
        <source>Fill __constant__ data before the launch, as cudaMemcpyToSymbol does: NAME=v1,v2,… sets its first elements (the rest keep their initial values); several separated by “;”. Empty: the values the source initializes. Enter runs.</source>
        <translation>在启动前填写 __constant__ 数据，如同 cudaMemcpyToSymbol：NAME=v1,v2,… 设置它的前几个元素（其余保持初始值）；多个之间用“;”分隔。留空：使用源代码中的初始值。按回车运行。</translation>
    </message>
</context>
<context>
    <name>WarpTimeline</name>
    <message>
        <source>active lanes</source>
        <translation>活跃通道数</translation>
    </message>
    <message>
        <source>step of this warp</source>
        <translation>本线程束的第几步</translation>
    </message>
    <message>
        <source>Nothing run yet.</source>
        <translation>还没有运行。</translation>
    </message>
    <message>
        <source>%1 — warp %2 alone: %3 steps, %4 of 32 lanes active on average (%5 %)</source>
        <translation>%1 — 仅线程束 %2：%3 步，平均 32 个通道中有 %4 个活跃（%5 %）</translation>
    </message>
    <message>
        <source>This warp&apos;s own steps only. The warp execution efficiency metric averages every warp of the launch, and the warp-steps count on the GPU tab counts every warp&apos;s steps.</source>
        <translation>只统计这个线程束自己的步。线程束执行效率指标对整次启动的所有线程束取平均，GPU 页的线程束步数统计的是所有线程束的步。</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <source>1 · One GPU&apos;s bottlenecks</source>
        <translation>1 · 一块 GPU 的瓶颈</translation>
    </message>
    <message>
        <source>2 · Squeezing it</source>
        <translation>2 · 把它榨干</translation>
    </message>
    <message>
        <source>3 · Ten thousand GPUs</source>
        <translation>3 · 一万块 GPU</translation>
    </message>
    <message>
        <source>(to come)</source>
        <translation>（尚未完成）</translation>
    </message>
    <message>
        <source>Where does a GPU&apos;s time go?</source>
        <translation>GPU 的时间都花在哪儿了？</translation>
    </message>
    <message>
        <source>A lesson in three parts, each page beside a live lab: first the bottlenecks of one GPU, then how to squeeze it, then ten thousand GPUs working as one.</source>
        <translation>课程分三部分，每一页旁边都有一个能实际运行的实验：先看一块 GPU 的瓶颈，再看怎样把它榨干，最后看一万块 GPU 怎样像一块那样干活。</translation>
    </message>
    <message>
        <source>The labs run here on: %1 (the emulator and the models stand in for a missing GPU; every number says which)</source>
        <translation>实验在这里运行于：%1（没有 GPU 时由模拟器和模型代替，每个数字都会标明来源）</translation>
    </message>
    <message>
        <source>Start the lesson ▶</source>
        <translation>开始上课 ▶</translation>
    </message>
    <message>
        <source>Labs: %1</source>
        <translation>实验：%1</translation>
    </message>
</context>
</TS>
