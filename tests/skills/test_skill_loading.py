"""Skill.load and discover: a folder with SKILL.md (YAML front matter name + description, body = instructions);
every malformed SKILL.md is a SkillError that names the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from notebook_chat.skills import Skill, SkillError, discover

from .skill_folders import CLEANING_BODY, cleaning_skill, plotting_skill, write_skill


def test_a_skill_folder_loads_its_name_description_and_instructions(tmp_path: Path) -> None:
    skill = Skill.load(cleaning_skill(tmp_path))
    assert (skill.name, skill.description) == ("pandas-cleaning", "A checklist for cleaning DataFrames")
    assert skill.instructions == CLEANING_BODY
    assert skill.path == (tmp_path / "cleaning").resolve()


def test_a_path_to_the_skill_md_itself_loads_the_same_skill(tmp_path: Path) -> None:
    folder = cleaning_skill(tmp_path)
    assert Skill.load(folder / "SKILL.md") == Skill.load(folder)


def test_front_matter_fields_other_than_name_and_description_are_kept_as_metadata(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s", "name: s\ndescription: d\nlicense: MIT\nversion: 2", "body")
    assert dict(Skill.load(folder).metadata) == {"license": "MIT", "version": 2}


def test_a_multi_line_yaml_description_is_read_by_the_yaml_parser(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s", "name: s\ndescription: >\n  folded\n  text", "body")
    assert Skill.load(folder).description == "folded text"


@pytest.mark.parametrize(("front", "phrase"), [
    ("description: d", "field 'name' is missing"),
    ("name: s", "field 'description' is missing"),
    ("name: 12\ndescription: d", "field 'name' must be a string, got int"),
    ("name: s\ndescription: [a, b]", "field 'description' must be a string, got list"),
    ("name: s\ndescription: ''", "field 'description' is empty"),
    ("name: '  '\ndescription: d", "field 'name' is empty"),
    ("name: ../escape\ndescription: d", "field 'name' must be 1-64 letters"),
    ("name: has space\ndescription: d", "field 'name' must be 1-64 letters"),
    (f"name: {'x' * 65}\ndescription: d", "field 'name' must be 1-64 letters"),
    (f"name: s\ndescription: {'d' * 1025}", "field 'description' has 1025 characters"),
    ("- a list\n- not a mapping", "must be a mapping with name and description, got a list"),
    ("", "must be a mapping with name and description, got empty"),
    ("name: s\ndescription: d: e", "not valid YAML"),
    ("name: [unclosed\ndescription: d", "not valid YAML"),
])
def test_a_malformed_front_matter_is_an_error_naming_the_file_and_the_field(
        tmp_path: Path, front: str, phrase: str) -> None:
    folder = write_skill(tmp_path, "bad", front, "body")
    with pytest.raises(SkillError) as raised:
        Skill.load(folder)
    assert str(folder / "SKILL.md") in str(raised.value)
    assert phrase in str(raised.value)


def test_a_yaml_error_says_the_line_of_the_file(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "bad", "name: s\ndescription: [unclosed", "body")
    with pytest.raises(SkillError, match=r"line \d+, column \d+ of the file"):
        Skill.load(folder)


@pytest.mark.parametrize("text", [
    "no front matter at all\n", "name: s\ndescription: d\n", "---\nname: s\ndescription: d\n(never closed)\n",
    " ---\nname: s\n---\n",
])
def test_a_skill_md_without_front_matter_between_two_dash_lines_is_refused(tmp_path: Path, text: str) -> None:
    (tmp_path / "SKILL.md").write_text(text)
    with pytest.raises(SkillError, match="must start with YAML front matter"):
        Skill.load(tmp_path)


def test_a_folder_without_skill_md_is_an_error_naming_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match=r"SKILL\.md: missing"):
        Skill.load(tmp_path)


def test_a_missing_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match="no such skill folder"):
        Skill.load(tmp_path / "nowhere")


def test_a_skill_md_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_bytes(b"---\nname: s\ndescription: \xff\xfe\n---\n")
    with pytest.raises(SkillError, match="not UTF-8"):
        Skill.load(tmp_path)


def test_yaml_tags_that_build_python_objects_are_refused_not_executed(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s", "name: !!python/object/apply:os.getcwd []\ndescription: d")
    with pytest.raises(SkillError, match="not valid YAML"):
        Skill.load(folder)


def test_discover_finds_every_skill_subfolder_sorted_by_name_and_skips_other_folders(tmp_path: Path) -> None:
    plotting_skill(tmp_path)
    cleaning_skill(tmp_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "README.md").write_text("not a skill")
    assert [skill.name for skill in discover(tmp_path)] == ["pandas-cleaning", "plotting-style"]


def test_discover_refuses_two_skills_with_one_name(tmp_path: Path) -> None:
    write_skill(tmp_path, "a", "name: twin\ndescription: d")
    write_skill(tmp_path, "b", "name: twin\ndescription: d")
    with pytest.raises(SkillError, match="the name 'twin' is already used by"):
        discover(tmp_path)


def test_discover_reports_the_malformed_skill_by_its_file(tmp_path: Path) -> None:
    cleaning_skill(tmp_path)
    bad = write_skill(tmp_path, "bad", "name: s")
    with pytest.raises(SkillError, match=str(bad / "SKILL.md")):
        discover(tmp_path)
