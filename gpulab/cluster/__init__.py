"""The cluster labs' engines: how many GPUs work as one.

- :mod:`gpulab.cluster.busbw`: what a collective moves, algbw and busbw as nccl-tests defines them;
- :mod:`gpulab.cluster.patterns`: each rank's inputs and the results it must get back (the check);
- :mod:`gpulab.cluster.timing`: repeats sized by a warm-up, and one point's fields (both backends);
- :mod:`gpulab.cluster.rank_main`: the program every rank runs (``python -m gpulab.cluster.rank_main``);
- :mod:`gpulab.cluster.report`: the ranks' events as a Result (the lab's, and rank 0's saved report);
- :mod:`gpulab.cluster.mpi_backend`: starts ``mpiexec`` and reads rank 0's points as they come;
- :mod:`gpulab.cluster.nccl_backend`: NCCL communicators over local GPUs (CuPy), timed by CUDA events;
- :mod:`gpulab.cluster.allreduce_steps`: ring and tree AllReduce step by step, on real data;
- :mod:`gpulab.cluster.topology`: what connects the local GPUs (NVML), every field NA-able.
"""
