"""What `python -m build` makes of the checkout: an sdist that builds a wheel without node, and a wheel that carries
the front end, complete metadata and a README the package index can render. Read from the built files."""

from __future__ import annotations

import email
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message

import pytest

from notebook_chat._version import __version__

from .environments import ROOT, Distributions

pytestmark = pytest.mark.packaging

SHARE = f"notebook_chat-{__version__}.data/data/share/jupyter/labextensions/notebook-chat"
REQUIRED_CLASSIFIERS = (
    "Framework :: Jupyter",
    "Framework :: Jupyter :: JupyterLab",
    "Framework :: Jupyter :: JupyterLab :: 4",
    "Framework :: Jupyter :: JupyterLab :: Extensions",
    "Framework :: Jupyter :: JupyterLab :: Extensions :: Prebuilt",
    "Topic :: Software Development :: Widget Sets",
)


def wheel_names(distributions: Distributions) -> set[str]:
    with zipfile.ZipFile(distributions.wheel) as wheel:
        return set(wheel.namelist())


def wheel_file(distributions: Distributions, name: str) -> bytes:
    with zipfile.ZipFile(distributions.wheel) as wheel:
        return wheel.read(name)


def metadata(distributions: Distributions) -> Message:
    return email.message_from_bytes(wheel_file(distributions, f"notebook_chat-{__version__}.dist-info/METADATA"))


def sdist_names(distributions: Distributions) -> set[str]:
    with tarfile.open(distributions.sdist) as sdist:
        prefix = f"notebook_chat-{__version__}/"
        return {name.removeprefix(prefix) for name in sdist.getnames()}


def test_the_wheel_carries_the_committed_widget_bundle(distributions: Distributions) -> None:
    for name in ("widget.js", "widget.css"):
        committed = (ROOT / "notebook_chat" / "static" / name).read_bytes()
        assert wheel_file(distributions, f"notebook_chat/static/{name}") == committed


def test_the_wheel_installs_the_prebuilt_labextension_into_share_jupyter_labextensions(
    distributions: Distributions,
) -> None:
    package = json.loads(wheel_file(distributions, f"{SHARE}/package.json"))
    assert package["name"] == "notebook-chat"
    built = ROOT / "notebook_chat" / "labextension"
    for path in built.rglob("*"):
        if path.is_file() and path.name != ".source-hash":
            assert wheel_file(distributions, f"{SHARE}/{path.relative_to(built).as_posix()}") == path.read_bytes()
    assert f"{SHARE}/{package['jupyterlab']['_build']['load']}" in wheel_names(distributions)
    owner = json.loads(wheel_file(distributions, f"{SHARE}/install.json"))
    assert (owner["packageManager"], owner["packageName"]) == ("python", "notebook_chat")


def test_the_wheel_holds_the_license_and_no_sources_of_the_front_end_or_tests(distributions: Distributions) -> None:
    names = wheel_names(distributions)
    assert f"notebook_chat-{__version__}.dist-info/licenses/LICENSE" in names
    assert not [name for name in names if re.search(r"^(js|tests)/|(^|/)node_modules/", name)]


def test_the_sdist_carries_the_front_end_sources_and_the_built_assets_with_their_stamps(
    distributions: Distributions,
) -> None:
    names = sdist_names(distributions)
    expected = {
        "LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "hatch_build.py", "install.json",
        "js/widget/package.json", "js/widget/package-lock.json", "js/widget/src/index.js",
        "js/labextension/package.json", "js/labextension/lib/index.js",
        "notebook_chat/static/widget.js", "notebook_chat/static/.source-hash",
        "notebook_chat/labextension/package.json", "notebook_chat/labextension/.source-hash",
    }
    assert expected <= names
    unwanted = re.compile(r"(^|/)(node_modules|\.venv|test-artifacts|__pycache__)(/|$)")
    assert not [name for name in names if unwanted.search(name)]


def test_the_wheel_is_built_from_the_sdist_without_node_and_without_running_npm(distributions: Distributions) -> None:
    assert "Building wheel from sdist" in distributions.build_output
    assert "[notebook_chat build]" not in distributions.build_output  # the hook neither ran npm nor warned of staleness


def test_twine_check_passes_strictly_for_the_wheel_and_the_sdist(distributions: Distributions) -> None:
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(distributions.wheel),
                           str(distributions.sdist)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_the_package_index_readme_is_markdown_without_relative_images_and_ends_with_the_changelog(
    distributions: Distributions,
) -> None:
    meta = metadata(distributions)
    assert meta["Description-Content-Type"] == "text/markdown"
    description = str(meta.get_payload())
    assert description.startswith("# notebook_chat")
    assert "![" in (ROOT / "README.md").read_text()  # the repository's README does show screenshots
    assert not re.findall(r"!\[[^\]]*\]\((?!https?://)", description)
    assert not re.findall(r"\]\((?!https?://|#)[^)]*\)", description), "a relative link the index can't resolve"
    assert "\n# Changelog\n" in description
    assert f"## {__version__}" in description


def test_jupyterlab_is_an_extra_so_a_kernel_environment_does_not_get_it(distributions: Distributions) -> None:
    requirements = metadata(distributions).get_all("Requires-Dist") or []
    unconditional = [line for line in requirements if ";" not in line]
    assert not [line for line in unconditional if re.match(r"(jupyterlab|jupyter-server|notebook)\b", line)]
    names = {re.split(r"[<>=!~ \[]", line)[0] for line in unconditional}
    assert {"anywidget", "ipywidgets", "openai", "pydantic"} <= names
    assert "jupyterlab>=4.2; extra == 'lab'" in requirements
    assert "ipykernel>=6.29; extra == 'lab'" in requirements


def test_the_metadata_names_license_classifiers_and_project_urls(distributions: Distributions) -> None:
    meta = metadata(distributions)
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert "BSD 3-Clause License" in (ROOT / "LICENSE").read_text()
    assert set(REQUIRED_CLASSIFIERS) <= set(meta.get_all("Classifier") or [])
    urls = dict(line.split(", ", 1) for line in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())


def test_the_version_is_written_once_and_every_package_json_carries_it(distributions: Distributions) -> None:
    assert metadata(distributions)["Version"] == __version__
    import notebook_chat

    assert notebook_chat.__version__ == __version__
    shipped = json.loads(wheel_file(distributions, f"{SHARE}/package.json"))["version"]
    sources = {path.relative_to(ROOT).as_posix(): json.loads(path.read_text())["version"]
               for path in (ROOT / "js" / "widget" / "package.json", ROOT / "js" / "labextension" / "package.json")}
    versions = {"shipped labextension": shipped, **sources}
    assert versions == dict.fromkeys(versions, __version__)
    assert f"## {__version__}" in (ROOT / "CHANGELOG.md").read_text()
