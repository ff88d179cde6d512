"""Hatch build hook: make sure the front-end assets exist and match their sources before packaging.

Two assets, each built with npm from a folder under js/ and stamped with a hash of that folder's sources:
- the anywidget bundle:        js/widget        -> notebook_chat/static/      (`npm run build`)
- the JupyterLab extension:    js/labextension  -> notebook_chat/labextension/ (`jupyter-builder build`)
An asset is rebuilt when its output or stamp is missing or the stamp differs from the sources.
Without node/npm a stale-but-present asset is used as is (with a warning);
a missing one stops the build and says what to install.
Set NOTEBOOK_CHAT_SKIP_JS=1 to skip all of this (e.g. packaging only the Python side).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STAMP = ".source-hash"
JUPYTER_BUILDER = "import sys; from jupyter_builder.main import main; sys.exit(main())"
IGNORED_PARTS = {"node_modules", ".cache", "dist", "lib-tsc"}


class Asset(NamedTuple):  # not a dataclass: hatchling loads this file outside sys.modules
    name: str
    source: str  # folder under the project root holding package.json
    output: str  # folder the build writes into
    required: tuple[str, ...]  # files (relative to output) that must exist after a build
    build_args: tuple[str, ...]  # after `npm install`: the build command

    def stamp_path(self, root: Path) -> Path:
        return root / self.output / STAMP


ASSETS = (
    Asset(
        name="chat widget bundle",
        source="js/widget",
        output="notebook_chat/static",
        required=("widget.js",),
        build_args=("npm", "run", "build"),
    ),
    Asset(
        name="JupyterLab extension",
        source="js/labextension",
        output="notebook_chat/labextension",
        required=("package.json",),
        # `jupyter-builder build ...`, run by this interpreter so the build environment's copy is used
        build_args=(sys.executable, "-c", JUPYTER_BUILDER, "build", "--core-package-file", "core-package.json", "."),
    ),
)


def source_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if IGNORED_PARTS.intersection(relative.parts) or relative.name == "package-lock.json":
            continue
        digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_current(asset: Asset, root: Path, wanted: str) -> bool:
    stamp = asset.stamp_path(root)
    return has_output(asset, root) and stamp.is_file() and stamp.read_text().strip() == wanted


def has_output(asset: Asset, root: Path) -> bool:
    return all((root / asset.output / name).is_file() for name in asset.required)


def run(command: list[str], cwd: Path) -> None:
    env = dict(os.environ)
    # jupyter-builder lives next to the Python running this hook (the build environment).
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    print(f"[notebook_chat build] {' '.join(command)}  (in {cwd})", flush=True)
    completed = subprocess.run(command, cwd=cwd, env=env, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"`{' '.join(command)}` failed in {cwd} with exit code {completed.returncode}")


def npm_install_command(folder: Path) -> list[str]:
    if (folder / "package-lock.json").is_file():
        return ["npm", "ci", "--no-audit", "--no-fund"]
    return ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock"]


def build(asset: Asset, root: Path, wanted: str) -> None:
    folder = root / asset.source
    run(npm_install_command(folder), folder)
    run(list(asset.build_args), folder)
    missing = [name for name in asset.required if not (root / asset.output / name).is_file()]
    if missing:
        raise RuntimeError(f"building the {asset.name} did not produce {missing} in {asset.output}")
    asset.stamp_path(root).write_text(wanted + "\n")


def ensure(asset: Asset, root: Path) -> None:
    folder = root / asset.source
    if not (folder / "package.json").is_file():
        if has_output(asset, root):
            return
        raise RuntimeError(f"the {asset.name} has neither sources ({asset.source}) nor built output")
    wanted = source_hash(folder)
    if is_current(asset, root, wanted):
        return
    node_ok = shutil.which("node") is not None and shutil.which("npm") is not None
    if node_ok:
        build(asset, root, wanted)
    elif has_output(asset, root):
        print(
            f"[notebook_chat build] WARNING: the {asset.name} in {asset.output} may be out of date with "
            f"{asset.source}, and node/npm are not installed to rebuild it; packaging it as is.",
            flush=True,
        )
    else:
        raise RuntimeError(
            f"the {asset.name} ({asset.output}) is not built and node/npm are not installed. Install Node.js "
            f">= 18 (with npm) and build again, or install notebook_chat from a wheel."
        )


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("NOTEBOOK_CHAT_SKIP_JS") == "1":
            return
        root = Path(self.root)
        for asset in ASSETS:
            ensure(asset, root)
