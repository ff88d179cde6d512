"""The @tool decorator, Tool.schema() and Tool.invoke()."""

from __future__ import annotations

import asyncio
import enum
import threading
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional

import pydantic
import pytest
from typing_extensions import TypedDict

from notebook_chat.plugins.tool_definition import Tool, ToolResult, as_tool, parse_docstring, tool


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Point(pydantic.BaseModel):
    x: int
    y: int


class Window(TypedDict):
    start: int
    end: int


@dataclass
class Pair:
    left: int
    right: str


@tool
def get_weather(city: str, days: int = 1, unit: Unit = Unit.CELSIUS) -> dict[str, Any]:
    """Get the current weather
    for a city.

    Reads a made-up forecast.

    Args:
        city (str): The city,
            e.g. Paris.
        days: How many days ahead.
    """
    return {"city": city, "days": days, "unit": unit}


def test_bare_decorator_names_the_tool_after_the_function() -> None:
    assert isinstance(get_weather, Tool)
    assert get_weather.name == "get_weather"
    assert get_weather.approval is False


def test_decorator_with_options_sets_name_description_and_approval() -> None:
    @tool(name="wipe", description="Delete everything.", approval=True)
    def delete_all() -> None:
        """Ignored docstring."""

    assert delete_all.name == "wipe"
    assert delete_all.description == "Delete everything."
    assert delete_all.approval is True


def test_decorator_with_empty_parentheses_builds_a_tool() -> None:
    @tool()
    def ping() -> str:
        return "pong"

    assert isinstance(ping, Tool)
    assert ping.name == "ping"


def test_decorated_function_is_still_callable_like_the_original() -> None:
    assert get_weather("Rome", days=2) == {"city": "Rome", "days": 2, "unit": Unit.CELSIUS}


def test_schema_is_an_openai_function_definition() -> None:
    assert get_weather.schema() == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": get_weather.parameters,
        },
    }


def test_parameters_list_required_arguments_and_defaults_without_titles() -> None:
    assert get_weather.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city, e.g. Paris."},
            "days": {"type": "integer", "default": 1, "description": "How many days ahead."},
            "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
        },
        "required": ["city"],
        "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "additionalProperties": False,
    }


def test_a_parameter_named_title_survives_title_stripping() -> None:
    @tool
    def rename(title: str) -> str:
        return title

    assert rename.parameters["properties"] == {"title": {"type": "string"}}


def test_schema_covers_optional_literal_list_dict_model_and_typed_dict() -> None:
    @tool
    def plot(
        mode: Literal["line", "bar"],
        tags: list[str],
        options: dict[str, float],
        origin: Point,
        window: Window,
        label: Optional[str] = None,  # noqa: UP045 -- Optional is what this test is about
    ) -> None:
        """Plot something."""

    properties = plot.parameters["properties"]
    assert properties["mode"] == {"type": "string", "enum": ["line", "bar"]}
    assert properties["tags"] == {"type": "array", "items": {"type": "string"}}
    assert properties["options"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert properties["origin"] == {"$ref": "#/$defs/Point"}
    assert properties["window"] == {"$ref": "#/$defs/Window"}
    assert properties["label"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert plot.parameters["required"] == ["mode", "tags", "options", "origin", "window"]
    point = plot.parameters["$defs"]["Point"]
    assert point["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer"}}
    assert plot.parameters["$defs"]["Window"]["required"] == ["start", "end"]


def test_a_function_without_parameters_has_an_empty_object_schema() -> None:
    @tool
    def now() -> str:
        return "noon"

    empty = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert now.parameters == empty


def test_annotated_field_description_is_kept_when_the_docstring_is_silent() -> None:
    @tool
    def scale(factor: Annotated[float, pydantic.Field(description="Multiply by this.")]) -> float:
        return factor

    assert scale.parameters["properties"]["factor"] == {"type": "number", "description": "Multiply by this."}


def test_description_is_the_docstring_first_paragraph_joined_on_one_line() -> None:
    assert get_weather.description == "Get the current weather for a city."


def test_description_stops_at_an_args_section_without_a_blank_line() -> None:
    assert parse_docstring("Do it.\nArgs:\n    x: the x")[0] == "Do it."


def test_rest_param_fields_describe_parameters() -> None:
    docstring = "Do it.\n\n:param str city: The city\n    to look up.\n:param days: Days ahead.\n:returns: x"
    assert parse_docstring(docstring) == ("Do it.", {"city": "The city to look up.", "days": "Days ahead."})


def test_numpy_parameters_section_describes_parameters() -> None:
    docstring = (
        "Do it.\n\nParameters\n----------\ncity : str\n    The city\n    to look up.\n"
        "days\n    Days ahead.\n\nReturns\n-------\nstr\n    The forecast."
    )
    assert parse_docstring(docstring) == ("Do it.", {"city": "The city to look up.", "days": "Days ahead."})


def test_google_section_ends_at_the_next_section() -> None:
    docstring = "Do it.\n\nArgs:\n    city: The city.\n\nReturns:\n    result: not a parameter."
    assert parse_docstring(docstring)[1] == {"city": "The city."}


def test_google_keyword_args_describe_parameters_too() -> None:
    docstring = "Do it.\n\nArgs:\n    city: The city.\n\nKeyword Args:\n    days (int): Days\n        ahead."
    assert parse_docstring(docstring)[1] == {"city": "The city.", "days": "Days ahead."}


def test_a_summary_wrapped_over_two_lines_is_one_line() -> None:
    assert parse_docstring("Get the current\n    weather.\n\n    Args:\n        city: C.") == (
        "Get the current weather.", {"city": "C."})


async def test_invoke_accepts_arguments_as_a_json_string() -> None:
    result = await get_weather.invoke('{"city": "Paris", "days": 3}')
    assert result == ToolResult(content='{"city": "Paris", "days": 3, "unit": "Unit.CELSIUS"}')


async def test_invoke_coerces_arguments_to_the_annotated_types() -> None:
    received: list[Any] = []

    @tool
    def record(count: int, unit: Unit, origin: Point) -> None:
        received.extend([count, unit, origin])

    result = await record.invoke({"count": "2", "unit": "fahrenheit", "origin": {"x": 1, "y": "2"}})
    assert result.ok
    assert received == [2, Unit.FAHRENHEIT, Point(x=1, y=2)]


async def test_invoke_with_invalid_json_fails_without_calling_the_function() -> None:
    calls: list[str] = []

    @tool
    def echo(text: str) -> str:
        calls.append(text)
        return text

    result = await echo.invoke('{"text": "hi"')
    assert (result.ok, calls) == (False, [])
    assert result.content.startswith("Error: the arguments are not valid JSON")


async def test_invoke_with_a_json_array_fails_with_a_clear_message() -> None:
    result = await get_weather.invoke("[1, 2]")
    assert result == ToolResult.failure("the arguments must be a JSON object, got list")


async def test_invoke_with_an_empty_string_calls_a_tool_without_parameters() -> None:
    @tool
    def now() -> str:
        return "noon"

    assert await now.invoke("") == ToolResult(content="noon")


async def test_invalid_argument_is_named_in_the_failure_and_nothing_runs() -> None:
    calls: list[int] = []

    @tool
    def repeat(times: int) -> None:
        calls.append(times)

    result = await repeat.invoke({"times": "many"})
    assert calls == []
    assert result.ok is False
    assert result.error is not None
    assert result.error.startswith("invalid arguments for repeat: times: Input should be a valid integer")


async def test_missing_and_unknown_arguments_are_both_reported() -> None:
    result = await get_weather.invoke({"town": "Paris"})
    assert result.error == (
        "invalid arguments for get_weather: city: Field required; town: Extra inputs are not permitted"
    )


async def test_extra_arguments_reach_a_function_that_takes_keyword_arguments() -> None:
    @tool
    def collect(first: str, **rest: Any) -> dict[str, Any]:
        return {"first": first, **rest}

    result = await collect.invoke({"first": "a", "second": 2})
    assert result.content == '{"first": "a", "second": 2}'


async def test_positional_only_parameters_are_passed_positionally() -> None:
    @tool
    def divide(a: float, b: float, /) -> float:
        return a / b

    assert (await divide.invoke({"a": 6, "b": 4})).content == "1.5"


async def test_async_functions_are_awaited() -> None:
    @tool
    async def slow_double(value: int) -> int:
        await asyncio.sleep(0)
        return value * 2

    assert await slow_double.invoke({"value": 21}) == ToolResult(content="42")


async def test_sync_functions_run_inline_on_the_event_loop_thread() -> None:
    seen: list[Any] = []

    @tool
    def where() -> None:
        seen.append((threading.get_ident(), asyncio.get_running_loop()))

    await where.invoke({})
    assert seen == [(threading.get_ident(), asyncio.get_running_loop())]


@pytest.mark.parametrize(
    ("value", "content"),
    [
        ("plain text", "plain text"),
        ({"a": 1, "when": Unit.CELSIUS}, '{"a": 1, "when": "Unit.CELSIUS"}'),
        ([1, "two"], '[1, "two"]'),
        (None, "Done."),
        (7, "7"),
        (True, "true"),
        (Point(x=1, y=2), '{"x":1,"y":2}'),
        (Pair(1, "b"), '{"left": 1, "right": "b"}'),
        (Unit.CELSIUS, "<Unit.CELSIUS: 'celsius'>"),
        ({1, 2}, "{1, 2}"),
    ],
)
async def test_return_values_become_the_text_the_model_sees(value: Any, content: str) -> None:
    @tool
    def give() -> Any:
        return value

    assert await give.invoke({}) == ToolResult(content=content)


async def test_a_tool_result_returned_by_the_function_is_used_as_is() -> None:
    rich = ToolResult(content="a chart", display={"text/html": "<b>chart</b>"})

    @tool
    def chart() -> ToolResult:
        return rich

    assert await chart.invoke({}) is rich


async def test_an_exception_becomes_a_failed_result_with_its_type_and_message() -> None:
    @tool
    def explode(city: str) -> str:
        raise ValueError(f"no such city: {city}")

    result = await explode.invoke({"city": "Atlantis"})
    error = "ValueError: no such city: Atlantis"
    assert result == ToolResult(content=f"Error: {error}", ok=False, error=error)


async def test_an_exception_without_a_message_is_named_by_its_type() -> None:
    @tool
    async def fail() -> None:
        raise KeyError

    assert (await fail.invoke({})).error == "KeyError"


async def test_cancellation_propagates_out_of_invoke() -> None:
    started = asyncio.Event()

    @tool
    async def wait_forever() -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(wait_forever.invoke({}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_as_tool_wraps_a_plain_function_with_the_defaults() -> None:
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    wrapped = as_tool(shout)
    assert (wrapped.name, wrapped.description, wrapped.approval) == ("shout", "Upper-case the text.", False)
    assert wrapped("hi") == "HI"


def test_as_tool_returns_a_tool_unchanged() -> None:
    assert as_tool(get_weather) is get_weather


def test_as_tool_rejects_something_that_is_not_callable() -> None:
    with pytest.raises(TypeError, match="Expected a function or a Tool, got int"):
        as_tool(3)  # type: ignore[arg-type]


def test_a_lambda_needs_an_explicit_name() -> None:
    with pytest.raises(ValueError, match=r"Tool name '<lambda>' is not valid.*pass name="):
        tool(lambda: None)


def test_a_lambda_with_a_name_is_a_tool() -> None:
    assert tool(name="noop")(lambda: None).name == "noop"


async def test_a_tool_built_by_hand_still_validates_against_the_signature() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    added = Tool(name="add", description="Add.", parameters=schema, function=add)
    assert await added.invoke({"a": "2", "b": 3}) == ToolResult(content="5")
    assert (await added.invoke({"a": "x", "b": 3})).ok is False


def test_tools_are_hashable_by_name_and_function() -> None:
    assert len({get_weather, as_tool(get_weather)}) == 1
