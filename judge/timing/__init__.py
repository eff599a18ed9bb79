"""Timing: measurement statistics and stopping rules for kernel benchmarks."""
