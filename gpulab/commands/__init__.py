"""Headless subcommands of the gpulab CLI."""
