"""Resource reads stay inside the skill folder: every kind of escape is a SkillFileError with a reason, never an
exception of another kind and never a byte from outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebook_chat.skills import Skill, SkillFileError, list_files, read_text, resolve_inside

from .skill_folders import cleaning_skill

SECRET = "outside the skill folder"


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    (tmp_path / "secret.txt").write_text(SECRET)
    return Skill.load(cleaning_skill(tmp_path / "skills"))


def refused(skill: Skill, path: str, phrase: str) -> None:
    with pytest.raises(SkillFileError, match=phrase):
        read_text(skill, path)


def test_a_file_inside_the_folder_is_read_whole(skill: Skill) -> None:
    text = read_text(skill, "reference.md")
    assert (text.text, text.truncated) == ("# Reference\nUse df.drop_duplicates().", False)


@pytest.mark.parametrize("path", ["templates/report.txt", "./templates/report.txt", "templates//report.txt",
                                  "templates\\report.txt", "templates/./report.txt"])
def test_spellings_of_a_path_inside_the_folder_read_that_file(skill: Skill, path: str) -> None:
    assert read_text(skill, path).text == "Rows before: {before}"


PARENT_SPELLINGS = ["..", "../secret.txt", "../../secret.txt", "templates/../../secret.txt", "templates/..",
                    "..\\secret.txt", "templates\\..\\..\\secret.txt", "./../secret.txt", "reference.md/../.."]


@pytest.mark.parametrize("path", PARENT_SPELLINGS)
def test_every_spelling_of_going_up_is_refused(skill: Skill, path: str) -> None:
    refused(skill, path, "goes up with '..'")


ABSOLUTE_SPELLINGS = ["/etc/passwd", "//etc/passwd", "C:\\secret.txt", "C:/secret.txt", "c:secret.txt",
                      "\\\\server\\share\\x", "\\secret.txt", "~/secret.txt", "~"]


@pytest.mark.parametrize("path", ABSOLUTE_SPELLINGS)
def test_every_spelling_of_an_absolute_path_is_refused(skill: Skill, path: str) -> None:
    refused(skill, path, "absolute path")


def test_the_absolute_path_of_a_file_inside_the_folder_is_refused_too(skill: Skill) -> None:
    refused(skill, str(skill.path / "reference.md"), "absolute path")


def test_a_file_symlink_leading_outside_is_refused(skill: Skill, tmp_path: Path) -> None:
    os.symlink(tmp_path / "secret.txt", skill.path / "link.txt")
    refused(skill, "link.txt", "leads outside the skill folder")


def test_a_folder_symlink_leading_outside_is_refused(skill: Skill, tmp_path: Path) -> None:
    os.symlink(tmp_path, skill.path / "up")
    refused(skill, "up/secret.txt", "leads outside the skill folder")


def test_a_symlink_that_stays_inside_the_folder_is_followed(skill: Skill) -> None:
    os.symlink(skill.path / "reference.md", skill.path / "alias.md")
    assert read_text(skill, "alias.md").text.startswith("# Reference")


@pytest.mark.parametrize(("path", "phrase"), [
    ("", "the path is empty"), ("   ", "the path is empty"), ("a\x00b", "NUL byte"),
    ("templates", "is a folder"), (".", "is a folder"), ("missing.md", "has no file 'missing.md'"),
])
def test_empty_nul_folder_and_missing_paths_are_refused(skill: Skill, path: str, phrase: str) -> None:
    refused(skill, path, phrase)


def test_a_binary_file_is_refused(skill: Skill) -> None:
    (skill.path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    refused(skill, "image.png", "binary file")


def test_a_file_that_is_not_utf8_is_refused(skill: Skill) -> None:
    (skill.path / "latin1.txt").write_bytes("café".encode("latin-1"))
    refused(skill, "latin1.txt", "not UTF-8 text")


def test_a_fifo_is_refused_without_blocking(skill: Skill) -> None:
    os.mkfifo(skill.path / "pipe")
    refused(skill, "pipe", "not a regular file")


def test_a_large_file_is_cut_at_the_limit_and_says_so(skill: Skill) -> None:
    (skill.path / "big.txt").write_text("x" * 1000)
    text = read_text(skill, "big.txt", max_bytes=100)
    assert (text.text, text.size, text.truncated) == ("x" * 100, 1000, True)


def test_a_cut_through_a_multibyte_character_drops_that_character_instead_of_failing(skill: Skill) -> None:
    (skill.path / "accents.txt").write_text("é" * 100)  # 2 bytes each
    assert read_text(skill, "accents.txt", max_bytes=101).text == "é" * 50


def test_the_listing_holds_the_files_inside_and_skips_links_out_and_hidden_files(
        skill: Skill, tmp_path: Path) -> None:
    os.symlink(tmp_path / "secret.txt", skill.path / "link.txt")
    os.symlink(tmp_path, skill.path / "up")
    (skill.path / ".hidden").write_text("x")
    (skill.path / ".git").mkdir()
    (skill.path / ".git" / "config").write_text("x")
    files, cut = list_files(skill)
    assert [entry.path for entry in files] == ["SKILL.md", "reference.md", "templates/report.txt"]
    assert cut is False


def test_the_listing_is_cut_at_its_limit_and_says_so(skill: Skill) -> None:
    files, cut = list_files(skill, limit=2)
    assert (len(files), cut) == (2, True)


PIECES = ["..", ".", "/", "\\", "~", ":", "C", "templates", "reference.md", "secret.txt", " ", "\x00", "skills"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_any_path_is_either_a_file_inside_the_folder_or_a_skill_file_error(skill: Skill, path: str) -> None:
    try:
        target = resolve_inside(skill, path)
    except SkillFileError:
        return
    assert target.is_relative_to(skill.path)
    assert SECRET not in read_text(skill, path).text
