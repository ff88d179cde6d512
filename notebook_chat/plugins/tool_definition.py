"""Tools the model may call: the ``@tool`` decorator, the :class:`Tool` value and its :class:`ToolResult`.

``@tool`` reads a function's signature and docstring once, at decoration time:

- the JSON schema of the arguments comes from the type hints (pydantic: str, int, float, bool, list, dict,
  Optional, Literal, Enum, pydantic models, TypedDict, ...); parameters with a default are not required;
- the description is the docstring's first paragraph; parameter descriptions come from a Google (``Args:``),
  reST (``:param x:``) or numpy (``Parameters`` / ``----------``) section.

:meth:`Tool.invoke` never raises for a bad call: invalid JSON, arguments that do not validate and
exceptions raised by the function all become a failed :class:`ToolResult` the model can read
(``asyncio.CancelledError`` still propagates). A synchronous function runs inline on the event loop, in the
kernel's thread, so it sees and may change the user's namespace as a cell would (a slow synchronous tool
blocks the loop meanwhile: make it ``async`` to avoid that). An async function is awaited.

Return values become the text the model sees: a ``str`` as is; ``None`` as ``"Done."`` (a non-empty result
every provider accepts); dicts, lists, numbers and booleans as JSON (``json.dumps(..., default=str)``);
pydantic models and dataclasses as JSON; anything else as ``repr(value)``. A function may also return a
:class:`ToolResult`.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

import pydantic

if TYPE_CHECKING:
    import docstring_parser.google

_PARAMETER_KINDS = ("param", "parameter", "arg", "argument", "key", "keyword")
"""docstring_parser's first word of a parameter entry (``:param x:``, ``Args:``, ``Keyword Args:``, numpy
``Parameters``)."""


@functools.cache
def _google_with_keywords() -> docstring_parser.google.GoogleParser:
    """Google style that also reads "Keyword Args" sections (built with the first tool: not on import)."""
    import docstring_parser.google

    return docstring_parser.google.GoogleParser([
        *docstring_parser.google.DEFAULT_SECTIONS,
        *(docstring_parser.google.Section(title, "keyword", docstring_parser.google.SectionType.MULTIPLE)
          for title in ("Keyword Args", "Keyword Arguments", "Kwargs")),
    ])

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call."""

    content: str
    """What the model sees."""
    ok: bool = True
    error: str | None = None
    """``"ExceptionType: message"`` (or a validation message) when ``ok`` is false."""
    display: dict[str, Any] | None = None
    """An optional rich mime bundle for the UI (``{"text/html": ..., "image/png": <base64>}``)."""

    @classmethod
    def failure(cls, error: str) -> ToolResult:
        return cls(content=f"Error: {error}", ok=False, error=error)


@dataclass(frozen=True)
class Tool:
    """A function the model may call, with the JSON schema of its arguments.

    Calling a ``Tool`` calls the function unchanged, so a decorated function can still be tested directly.
    """

    name: str
    description: str
    parameters: dict[str, Any] = field(hash=False)
    """A JSON schema object: ``{"type": "object", "properties": {...}, "required": [...]}``."""
    function: Callable[..., Any]
    approval: bool = False
    """Whether each call waits for the user to approve it."""
    unavailable: Callable[[str], str | None] | None = field(default=None, compare=False, hash=False, repr=False)
    """Why an approved call (its raw JSON arguments) can't run in this kernel, or None when it can (e.g. a restored
    call that names a resource that no longer exists). Checked before an approval runs the tool."""
    _arguments: type[pydantic.BaseModel] = field(init=False, repr=False, compare=False, hash=False)
    _signature: inspect.Signature = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not _NAME_PATTERN.match(self.name):
            raise ValueError(
                f"Tool name {self.name!r} is not valid: use 1-64 letters, digits, '_' or '-' "
                "(pass name=... to @tool)."
            )
        if not callable(self.function):
            kind = type(self.function).__name__
            raise TypeError(f"Tool {self.name!r}: function must be callable, got {kind}")
        signature = inspect.signature(self.function)
        object.__setattr__(self, "_signature", signature)
        object.__setattr__(self, "_arguments", _arguments_model(self.function, signature, {}, self.name))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def schema(self) -> dict[str, Any]:
        """The OpenAI Chat Completions tool definition."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    async def invoke(self, arguments: dict[str, Any] | str) -> ToolResult:
        """Validate ``arguments`` (a dict or a JSON string), call the function and describe its outcome."""
        parsed = _parse_arguments(arguments)
        if isinstance(parsed, ToolResult):
            return parsed
        try:
            validated = self._arguments.model_validate(parsed)
        except pydantic.ValidationError as exc:
            return ToolResult.failure(_describe_validation_error(self.name, exc))
        args, kwargs = self._call_arguments(validated)
        try:
            value = self.function(*args, **kwargs)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # the model reads the failure; CancelledError (a BaseException) propagates
            return ToolResult.failure(_describe_exception(exc))
        if isinstance(value, ToolResult):
            return value
        return ToolResult(content=render_return_value(value))

    def _call_arguments(self, validated: pydantic.BaseModel) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        values = {name: getattr(validated, name) for name in type(validated).model_fields}
        for index, parameter in enumerate(_schema_parameters(self._signature)):
            value = values[f"p{index}"]
            if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[parameter.name] = value
        kwargs.update(validated.model_extra or {})
        return args, kwargs


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    fn: None = None, /, *, name: str | None = None, description: str | None = None, approval: bool = False
) -> Callable[[Callable[..., Any]], Tool]: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    approval: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a :class:`Tool`: ``@tool``, ``@tool()`` or ``@tool(approval=True, name=...)``."""

    def decorate(function: Callable[..., Any]) -> Tool:
        return _build_tool(function, name=name, description=description, approval=approval)

    return decorate if fn is None else decorate(fn)


def as_tool(obj: Tool | Callable[..., Any]) -> Tool:
    """A :class:`Tool` as is, or a plain function wrapped with the defaults of ``@tool``."""
    if isinstance(obj, Tool):
        return obj
    if callable(obj):
        return tool(obj)
    raise TypeError(f"Expected a function or a Tool, got {type(obj).__name__}: {obj!r}")


def render_return_value(value: Any) -> str:
    """The text the model sees for a tool's return value (see the module docstring)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "Done."
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json.dumps(dataclasses.asdict(value), default=str)
    if isinstance(value, (dict, list, tuple, int, float, bool)) and not isinstance(value, enum.Enum):
        return json.dumps(value, default=str)
    return repr(value)


def _build_tool(
    function: Callable[..., Any], *, name: str | None, description: str | None, approval: bool
) -> Tool:
    if isinstance(function, Tool):
        function = function.function
    if not callable(function):
        raise TypeError(f"@tool needs a function, got {type(function).__name__}")
    tool_name = name or str(getattr(function, "__name__", ""))
    docstring = inspect.getdoc(function) or ""
    summary, parameter_docs = parse_docstring(docstring)
    model = _arguments_model(function, inspect.signature(function), parameter_docs, tool_name)
    try:
        parameters = _clean_schema(model.model_json_schema())
    except pydantic.PydanticUserError as exc:
        raise TypeError(f"Tool {tool_name!r}: cannot describe its parameters as JSON schema: {exc}") from exc
    return Tool(
        name=tool_name,
        description=summary if description is None else description,
        parameters=parameters,
        function=function,
        approval=approval,
    )


def _schema_parameters(signature: inspect.Signature) -> list[inspect.Parameter]:
    skipped = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [parameter for parameter in signature.parameters.values() if parameter.kind not in skipped]


def _arguments_model(
    function: Callable[..., Any], signature: inspect.Signature, docs: dict[str, str], tool_name: str
) -> type[pydantic.BaseModel]:
    """A pydantic model of the arguments; fields are ``p0, p1, ...`` aliased to the parameter names."""
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to the raw annotations
        hints = {}
    fields: dict[str, Any] = {}
    for index, parameter in enumerate(_schema_parameters(signature)):
        annotation = hints.get(parameter.name, parameter.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        # no description=None when undocumented: it would hide an Annotated[..., Field(description=...)]
        if parameter.name in docs:
            info = pydantic.Field(default, alias=parameter.name, description=docs[parameter.name])
        else:
            info = pydantic.Field(default, alias=parameter.name)
        fields[f"p{index}"] = (annotation, info)
    accepts_extra = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    config = pydantic.ConfigDict(extra="allow" if accepts_extra else "forbid", arbitrary_types_allowed=True)
    try:
        return pydantic.create_model(f"{tool_name or 'tool'}_arguments", __config__=config, **fields)
    except (pydantic.PydanticUserError, TypeError, NameError) as exc:
        message = f"Tool {tool_name!r}: cannot build an argument validator from its signature: {exc}"
        raise TypeError(message) from exc


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles and make sure ``properties`` and ``required`` are present."""
    cleaned = _strip_titles(schema)
    cleaned.setdefault("properties", {})
    cleaned.setdefault("required", [])
    ordered = {"type": "object", "properties": cleaned.pop("properties"), "required": cleaned.pop("required")}
    cleaned.pop("type", None)
    return {**ordered, **cleaned}


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strip_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
            result[key] = {name: _strip_titles(sub) for name, sub in value.items()}
        elif key in ("default", "enum", "const", "examples"):
            result[key] = value
        else:
            result[key] = _strip_titles(value)
    return result


def _parse_arguments(arguments: dict[str, Any] | str) -> dict[str, Any] | ToolResult:
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return ToolResult.failure(f"the arguments are not valid JSON ({exc.msg} at position {exc.pos})")
    if not isinstance(arguments, dict):
        return ToolResult.failure(f"the arguments must be a JSON object, got {type(arguments).__name__}")
    return arguments


def _describe_validation_error(tool_name: str, exc: pydantic.ValidationError) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        location = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{location}: {error['msg']}")
    return f"invalid arguments for {tool_name}: " + "; ".join(problems)


def _describe_exception(exc: Exception) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def parse_docstring(docstring: str) -> tuple[str, dict[str, str]]:
    """The first paragraph and the parameter descriptions of a Google, reST or numpy style docstring, each on one
    line (``docstring_parser`` reads the styles)."""
    import docstring_parser

    text = inspect.cleandoc(docstring or "")
    try:
        parsed = max((docstring_parser.parse(text), _google_with_keywords().parse(text)),
                     key=lambda d: len(d.params))
    except docstring_parser.ParseError:
        return _one_line(text.split("\n\n", 1)[0]), {}
    summary = parsed.short_description or ""
    if parsed.long_description and not parsed.blank_after_short_description:
        summary += " " + parsed.long_description.split("\n\n", 1)[0]
    parameters = {
        param.arg_name.lstrip("*"): _one_line(param.description)
        for param in parsed.params
        if param.args and param.args[0] in _PARAMETER_KINDS and param.description
    }
    return _one_line(summary), parameters


def _one_line(text: str) -> str:
    return " ".join(text.split())
