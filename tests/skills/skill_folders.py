"""Real skill folders on disk for the tests."""

from __future__ import annotations

from pathlib import Path

CLEANING_BODY = "Check the dtypes first.\nThen drop exact duplicates."
PLOTTING_BODY = "Label every axis with its unit."


def write_skill(root: Path, folder: str, front: str, body: str = "", files: dict[str, str] | None = None) -> Path:
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n", encoding="utf-8")
    for name, text in (files or {}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return path


def cleaning_skill(root: Path) -> Path:
    return write_skill(root, "cleaning", "name: pandas-cleaning\ndescription: A checklist for cleaning DataFrames",
                       CLEANING_BODY, {"reference.md": "# Reference\nUse df.drop_duplicates().",
                                       "templates/report.txt": "Rows before: {before}"})


def plotting_skill(root: Path) -> Path:
    return write_skill(root, "plotting", "name: plotting-style\ndescription: House style for matplotlib charts",
                       PLOTTING_BODY)
