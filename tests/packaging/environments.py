"""Build notebook_chat's distributions and install them into fresh environments that have no Node.js.

"No node" is made, not assumed: every PATH folder holding `node`/`npm`/`npx`/`corepack` is replaced by a folder of
links to everything else in it, so `shutil.which("node")` finds nothing while git, sh and the rest still work.
Pip's cache is used (it is shared, not an environment); every venv is new.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE_TOOLS = ("node", "nodejs", "npm", "npx", "corepack")
HIDDEN = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH", "NOTEBOOK_CHAT_SKIP_JS")


def path_without_node(shadows: Path, path: str | None = None) -> str:
    """`path` (default: this process's PATH) with every folder holding a node tool replaced by a node-free copy."""
    folders: list[str] = []
    for index, folder in enumerate((path if path is not None else os.environ.get("PATH", "")).split(os.pathsep)):
        place = Path(folder)
        if not folder or not place.is_dir():
            continue
        if not any((place / tool).exists() for tool in NODE_TOOLS):
            folders.append(folder)
            continue
        shadow = shadows / f"{index}-{place.name or 'root'}"
        shadow.mkdir(parents=True, exist_ok=True)
        for entry in place.iterdir():
            if entry.name not in NODE_TOOLS and not (shadow / entry.name).exists():
                (shadow / entry.name).symlink_to(entry)
        folders.append(str(shadow))
    return os.pathsep.join(folders)


def node_free_env(shadows: Path, *first: Path) -> dict[str, str]:
    """This process's environment without node on PATH (`first` folders in front), nothing pointing into a venv,
    and no OpenAI settings (so `Chat()` picks the offline DemoModel)."""
    env = {key: value for key, value in os.environ.items()
           if key not in HIDDEN and not key.startswith("OPENAI_") and key != "NOTEBOOK_CHAT_MODEL"}
    env["PATH"] = os.pathsep.join([*map(str, first), path_without_node(shadows)])
    found = [tool for tool in NODE_TOOLS if shutil.which(tool, path=env["PATH"])]
    if found:
        raise RuntimeError(f"{found} still on the node-free PATH {env['PATH']}")
    return env


def run(command: list[str], env: dict[str, str], log: Path, cwd: Path | None = None) -> str:
    """Run `command`; return its output (also written to `log`); raise with the output's tail when it fails."""
    done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    output = done.stdout.decode(errors="replace")
    log.write_text(output)
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(command)}` failed with {done.returncode}:\n{output[-4000:]}")
    return output


@dataclass
class Distributions:
    wheel: Path
    sdist: Path
    build_output: str
    seconds: float


def build_distributions(outdir: Path, env: dict[str, str]) -> Distributions:
    """`python -m build` of the checkout (isolated): the sdist, then the wheel built *from that sdist*."""
    began = time.monotonic()
    output = run([sys.executable, "-m", "build", "--outdir", str(outdir), str(ROOT)], env, outdir / "build.log")
    (wheel,) = outdir.glob("notebook_chat-*.whl")
    (sdist,) = outdir.glob("notebook_chat-*.tar.gz")
    return Distributions(wheel, sdist, output, time.monotonic() - began)


@dataclass
class Venv:
    path: Path
    seconds: float

    @property
    def bin(self) -> Path:
        return self.path / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"


def fresh_venv(path: Path, requirements: list[str], env: dict[str, str]) -> Venv:
    """A new venv at `path` (from this interpreter's base Python) with `pip install <requirements>`."""
    began = time.monotonic()
    base = getattr(sys, "_base_executable", sys.executable)
    run([base, "-m", "venv", str(path)], env, path.parent / f"{path.name}-venv.log")
    run([str(path / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--no-compile",
         *requirements], env, path.parent / f"{path.name}-pip.log")
    return Venv(path, time.monotonic() - began)


def labextension_listing(venv: Venv, env: dict[str, str], log: Path) -> str:
    return run([str(venv.bin / "jupyter"), "labextension", "list"], env, log)
