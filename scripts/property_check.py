"""Run the Chat-level property machine (tests/hostile/property_chat.py) for many sequences and print the figures.

    .venv/bin/python scripts/property_check.py [--sequences 10000] [--steps 10] [--seed N]

Prints how many sequences and steps ran; on a failure, Hypothesis's shrunk reproduction (the rule calls, in order) and
exit status 1.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.hostile import property_chat


class CountingMachine(property_chat.ChatMachine):
    sequences = 0
    steps = 0

    def __init__(self) -> None:
        super().__init__()
        CountingMachine.sequences += 1

    def check_invariants(self, settings: object, output: object, runtimes: object) -> None:  # type: ignore[override]
        CountingMachine.steps += 1
        super().check_invariants(settings, output, runtimes)  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sequences", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=None)
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else random.randrange(2**32)
    began = time.monotonic()
    chosen = settings(max_examples=options.sequences, stateful_step_count=options.steps, deadline=None,
                      suppress_health_check=list(HealthCheck), database=None, print_blob=True)
    failed = False
    try:
        from hypothesis import seed as hypothesis_seed

        hypothesis_seed(seed)(lambda: run_state_machine_as_test(CountingMachine, settings=chosen))()
    except Exception as error:  # the shrunk reproduction was printed by Hypothesis above
        failed = True
        print(f"FAILURE: {type(error).__name__}: {error}", file=sys.stderr)
    elapsed = time.monotonic() - began
    print(f"property_check: seed {seed}: {CountingMachine.sequences} sequences "
          f"(shrinking included), {CountingMachine.steps} invariant checks, {elapsed:.0f} s, "
          f"{'FAILED' if failed else 'all invariants held'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
