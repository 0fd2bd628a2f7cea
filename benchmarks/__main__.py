"""``python -m benchmarks [--quick|--full]``: see ``benchmarks/run.py``."""

from benchmarks.run import main

main()
