"""The cluster labs' engines: how many GPUs work as one (collectives, their algorithms, scaling)."""
"""Collective communication across ranks: MPI on CPU ranks, NCCL across GPUs, one or many nodes.

- :mod:`gpulab.cluster.busbw`: what a collective moves, algbw and busbw as nccl-tests defines them;
- :mod:`gpulab.cluster.patterns`: each rank's inputs and the results it must get back (the check);
- :mod:`gpulab.cluster.rank_main`: the program every rank runs (``python -m gpulab.cluster.rank_main``);
- :mod:`gpulab.cluster.mpi_backend`: starts ``mpiexec`` and reads rank 0's points as they come;
- :mod:`gpulab.cluster.nccl_backend`: NCCL communicators over local GPUs (CuPy), timed by CUDA events.
"""
"""The cluster labs' engine: what connects GPUs to each other, and how they work together."""
