"""A cluster scheduler, simulated: jobs arriving at a cluster of nodes, placed by a policy, killed by
failures and restarted from their last checkpoint (the Scheduling & failures lab's engine; no Qt).

- :mod:`.cluster`: the cluster (nodes of GPUs, racks of nodes on one leaf switch per rail) and
  where a job's GPUs go (anywhere, or topology-aware: a tensor-parallel group inside a node and a
  data-parallel ring inside a rack);
- :mod:`.jobs`: jobs and the seeded job mixes;
- :mod:`.sim`: the discrete-event simulation (a heap of events, numpy arrays for the free GPUs);
- :mod:`.snapshot`: what squeue and sinfo would print at a time of a finished simulation.
"""
