"""One build of the distributions per session, made with no node on PATH; every packaging test reads it."""

from __future__ import annotations

import pytest

from .environments import Distributions, build_distributions, node_free_env


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> Distributions:
    built = build_distributions(tmp_path_factory.mktemp("dist"),
                                node_free_env(tmp_path_factory.mktemp("build-path")))
    print(f"\nsdist + wheel (from the sdist) built without node in {built.seconds:.1f} s: "
          f"{built.wheel.name} {built.wheel.stat().st_size / 1000:.0f} kB, "
          f"{built.sdist.name} {built.sdist.stat().st_size / 1000:.0f} kB")
    return built
