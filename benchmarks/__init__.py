"""Answer-quality and speed benchmarks of agentmaker (not tests): see ``run.py``."""
