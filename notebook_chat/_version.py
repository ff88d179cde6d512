"""The one place the version is written: pyproject.toml reads it (hatch `[tool.hatch.version]`), the package
exports it as ``notebook_chat.__version__``, and tests/packaging keeps js/*/package.json equal to it."""

__version__ = "0.1.0"
