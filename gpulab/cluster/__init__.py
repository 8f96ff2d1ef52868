"""The cluster labs' engines: how many GPUs work as one (collectives, their algorithms, scaling)."""
