"""The cluster labs' engine: what connects GPUs to each other, and how they work together."""
