"""Times a notebook's first cell after Restart Kernel: ``from notebook_chat import Chat`` + ``DemoModel``.

Run: python benchmarks/import_time.py [--runs N] [--top K] [--before CODE] [--statement CODE] [--from-source]
                                      [--kernel]
     (default: 7 runs, the 15 costliest modules and packages)
Each run starts a new interpreter, runs ``--before`` untimed (default: what a Jupyter kernel has imported before the
first cell — IPython, traitlets, zmq, asyncio, comm; ``--before ''`` for a bare interpreter), then times the
statement: wall and CPU seconds, and whether the ``openai`` SDK was imported (the demo must not need it). As many
more runs under ``-X importtime`` (which slows imports a little, so the wall time comes from the plain runs) give the
median self time of each package and of the costliest modules. ``--kernel`` also times the statement as a cell
of a real IPython kernel (jupyter_client), each run in a new kernel.
Bytecode is cached in a temporary folder, as an installed package has it; ``--from-source`` compiles every module
each time instead (what an editable install under ``PYTHONDONTWRITEBYTECODE=1`` pays, as in this repository's
sandbox). Target (issue 17): <= 0.5 s on a quiet machine; ipywidgets + anywidget take about 0.1-0.2 s of it. The
machine's load average is printed with the figures: on a busy machine the wall time is well above the CPU time.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

STATEMENT = "from notebook_chat import Chat; from notebook_chat.providers import DemoModel"
KERNEL = "import ipykernel.ipkernel, ipykernel.comm"
MARK = "--- timed from here"
PROBE = """
import json, sys, time
exec({before!r})
print({mark!r}, file=sys.stderr, flush=True)
wall, cpu = time.perf_counter(), time.process_time()
exec(compile({statement!r}, "<cell>", "exec"), {{}})
print(json.dumps({{"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                   "openai": "openai" in sys.modules}}))
"""
KERNEL_CELL = """
import json as _json, sys as _sys, time as _time
_wall, _cpu = _time.perf_counter(), _time.process_time()
exec(compile({statement!r}, "<cell>", "exec"), {{}})
print(_json.dumps({{"wall": _time.perf_counter() - _wall, "cpu": _time.process_time() - _cpu,
                    "openai": "openai" in _sys.modules}}))
"""
LINE = re.compile(r"^import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)$")


@dataclass
class Figures:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    openai: bool = False
    kernel_walls: list[float] = field(default_factory=list)
    kernel_cpus: list[float] = field(default_factory=list)
    self_times: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))


def run_probe(args: argparse.Namespace, env: dict[str, str], importtime: bool) -> tuple[dict[str, object], str]:
    """One fresh interpreter: the probe's figures and its ``-X importtime`` lines after ``--before``."""
    flags = ["-X", "importtime"] if importtime else []
    code = PROBE.format(before=args.before, mark=MARK, statement=args.statement)
    done = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr.split(MARK, 1)[-1]


def run_in_kernel(args: argparse.Namespace, env: dict[str, str]) -> dict[str, object]:
    """A new kernel runs the statement as its first cell; the cell's own figures."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", env=env, stderr=subprocess.DEVNULL)
    try:
        printed: list[str] = []

        def keep(message: dict[str, object]) -> None:
            content = message.get("content")
            if message.get("msg_type") == "stream" and isinstance(content, dict):
                printed.append(str(content.get("text", "")))

        reply = client.execute_interactive(KERNEL_CELL.format(statement=args.statement), timeout=120,
                                           output_hook=keep)
        if reply["content"].get("status") != "ok":
            raise RuntimeError(f"the cell failed in the kernel: {reply['content']}")
        result: dict[str, object] = json.loads("".join(printed).strip().splitlines()[-1])
        return result
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def self_times(importtime_lines: str) -> dict[str, float]:
    """Each module's own import time in seconds."""
    times: dict[str, float] = {}
    for line in importtime_lines.splitlines():
        match = LINE.match(line)
        if match:
            times[match.group(2)] = int(match.group(1)) / 1e6
    return times


def package(module: str) -> str:
    """``notebook_chat.engine.conversation`` → ``notebook_chat.engine``; ``pydantic.main`` → ``pydantic``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "notebook_chat" and len(parts) > 1 else parts[0]


def environment(cache: str, from_source: bool) -> dict[str, str]:
    """Bytecode cached in ``cache`` (not written into the checkout), or none at all."""
    env = dict(os.environ)
    if from_source:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def measure(args: argparse.Namespace, env: dict[str, str]) -> Figures:
    run_probe(args, env, importtime=False)  # warms the file cache and writes the bytecode
    figures = Figures()
    for _ in range(args.runs):
        probe, _ = run_probe(args, env, importtime=False)
        figures.walls.append(float(str(probe["wall"])))
        figures.cpus.append(float(str(probe["cpu"])))
        figures.openai = figures.openai or bool(probe["openai"])
        _, lines = run_probe(args, env, importtime=True)
        if args.kernel:
            cell = run_in_kernel(args, env)
            figures.kernel_walls.append(float(str(cell["wall"])))
            figures.kernel_cpus.append(float(str(cell["cpu"])))
            figures.openai = figures.openai or bool(cell["openai"])
        for module, seconds in self_times(lines).items():
            figures.self_times[module].append(seconds)
    return figures


def report(args: argparse.Namespace, figures: Figures) -> None:
    medians = {module: statistics.median(times + [0.0] * (args.runs - len(times)))
               for module, times in figures.self_times.items()}
    packages: dict[str, float] = collections.defaultdict(float)
    for module, seconds in medians.items():
        packages[package(module)] += seconds
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    before = f"after {args.before!r} (untimed)" if args.before else "in a bare interpreter"
    bytecode = "compiled from source every time" if args.from_source else "with bytecode"
    print(f"{args.statement}\n  fresh interpreter {before}, {bytecode}; {args.runs} runs; load average {load}")
    print(f"  wall: median {statistics.median(figures.walls):.3f} s, best {min(figures.walls):.3f} s"
          f" (target <= 0.5 s); CPU: median {statistics.median(figures.cpus):.3f} s")
    if figures.kernel_walls:
        print(f"  as a real kernel's first cell: wall median {statistics.median(figures.kernel_walls):.3f} s, best"
              f" {min(figures.kernel_walls):.3f} s; CPU median {statistics.median(figures.kernel_cpus):.3f} s")
    print(f"  openai imported: {'yes' if figures.openai else 'no'}; {len(medians)} modules imported,"
          f" their own times summed {sum(medians.values()):.3f} s (under -X importtime)")
    print("\nself time by package (median, s):")
    for name, seconds in sorted(packages.items(), key=lambda item: -item[1])[:args.top]:
        print(f"  {seconds:7.3f}  {name}")
    print("\ncostliest modules by their own time (median, s):")
    for name, seconds in sorted(medians.items(), key=lambda item: -item[1])[:args.top]:
        print(f"  {seconds:7.3f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--statement", default=STATEMENT)
    parser.add_argument("--before", default=KERNEL, help="run first, untimed ('' for a bare interpreter)")
    parser.add_argument("--from-source", action="store_true", help="no bytecode: compile every module each time")
    parser.add_argument("--kernel", action="store_true", help="also time it as the first cell of a real kernel")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="import-time-") as cache:
        report(args, measure(args, environment(cache, args.from_source)))


if __name__ == "__main__":
    main()
