"""The benchmark harness behind bench/run.py (see docs/benchmarks.md)."""
