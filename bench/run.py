"""`make bench`: every speed and memory target of the project, printed beside its target.

Exit status 1 if any figure misses its target. Timings never appear in tests.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _harness import print_table

SUITES = {
    "Import and discovery": "bench_import",
    "Dispatch": "bench_dispatch",
    "The one call path (a kernels-only plugin)": "bench_plan",
    "NumPy backend arithmetic": "bench_ops",
    "Linear solves": "bench_solvers",
    "Conversion between backends": "bench_convert",
    "The Array API both ways (bk-arrayapi on array-api-strict; bk.array_namespace beside array_api_compat)": "bench_arrayapi",
    "Profiling": "bench_profile",
    "Testkit": "bench_certify",
    "Lazy graphs (bk-lazy)": "bench_lazy",
    "Dask (bk-dask on a LocalCluster)": "bench_dask",
}


def main() -> int:
    """Runs every suite, or those named on the command line (`python bench/run.py lazy dask`)."""
    chosen = {name.removeprefix("bench_") for name in sys.argv[1:]}
    if chosen & {"-h", "--help"}:
        print(f"usage: python bench/run.py [SUITE ...]  (suites: {', '.join(m.removeprefix('bench_') for m in SUITES.values())})")
        return 0
    unknown = chosen - {m.removeprefix("bench_") for m in SUITES.values()}
    if unknown:
        print(f"no bench suite named {', '.join(sorted(unknown))}; suites: {', '.join(m.removeprefix('bench_') for m in SUITES.values())}")
        return 2
    missed = []
    for title, module_name in SUITES.items():
        if chosen and module_name.removeprefix("bench_") not in chosen:
            continue
        module = importlib.import_module(module_name)
        figures = module.run()
        if figures:
            print_table(title, figures)
            missed += [f.name for f in figures if not f.ok]
    print()
    if missed:
        print(f"{len(missed)} figure(s) missed their target: {', '.join(missed)}")
        return 1
    print("every figure is within its target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
