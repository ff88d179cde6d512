"""What the browser benchmarks need, made ready from a clean clone after the README's setup (`bash scripts/demo.sh`
or `bash scripts/test.sh`): the project's .venv (JupyterLab, Playwright) and Debian's chromium.

`ensure_browser_tools()` re-runs the script under .venv/bin/python when started with another Python, and runs
`scripts/setup.sh` (which installs chromium when it is missing and we are root) when chromium is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")


def ensure_browser_tools() -> None:
    venv_python = ROOT / ".venv" / "bin" / "python"
    try:
        import playwright  # noqa: F401
    except ImportError:
        if not venv_python.exists():
            print(f"[bench] setting up {ROOT / '.venv'} (bash scripts/setup.sh)", flush=True)
            subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh")], check=True)
        if Path(sys.executable).resolve() != venv_python.resolve():
            os.execv(str(venv_python), [str(venv_python), *sys.argv])
        raise SystemExit("playwright is missing from .venv: run bash scripts/setup.sh") from None
    if not CHROMIUM.exists():
        print("[bench] chromium is missing: bash scripts/setup.sh installs it", flush=True)
        subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh")], check=True,
                       env={**os.environ, "NOTEBOOK_CHAT_SKIP_CHROMIUM": "0"})
        if not CHROMIUM.exists():
            raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium (as root)")
