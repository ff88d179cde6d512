"""Chat: the facade a notebook user touches — an engine, its widget, and where the conversation is kept."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

from ..engine import EngineEvent, EngineState, Message, MessageEngine, Plugin, ProviderError
from ..engine.conversation import awaiting_calls
from ..engine.notices import Notice, say
from ..persistence import (
    ConversationAutosave,
    ConversationStore,
    MemoryStore,
)
from ..persistence.approval_ledger import ApprovalLedger, default_ledger_path
from ..persistence.blobs import pack
from ..persistence.chat_entry import parse_entry
from ..persistence.conversation_list import ConversationList
from ..persistence.errors import PersistenceError, StoreError
from ..persistence.loading import load_chat, read_entry
from ..persistence.notebook_store import NO_REVISION, REVISION, NotebookMetadataStore
from ..plugins import (
    TOOL_REJECT,
    TOOL_RESUME,
    TURN_CONTINUE,
    ContinuationPlugin,
    LengthPlugin,
    SkillPlugin,
    ThinkingPlugin,
    Tool,
    ToolPlugin,
)
from ..plugins.mentions import MentionPlugin
from ..plugins.skills import SkillMode, SkillSource
from ..providers import DemoModel
from ..tools.mention_source import NamespaceMentions
from ..tools.namespace import default_namespace
from . import recovery
from .chat_conversations import ConversationsMixin
from .chat_widget import ChatWidget
from .kernel_context import current_cell_id
from .message_views import MessageViews
from .registry import note_displayed
from .sync_run import run_sync
from .view_model import conversation_view, message_view, skills_view, tool_results

DEFAULT_MODEL = "gpt-4o-mini"
BUILTIN_COMMANDS = frozenset({"continue", "retry", "new", "clear", "stop", "help"})
"""The widget's own "/" commands (js/widget/src/slash_commands.js); a plugin can't take these names."""


def default_provider(model: str | None) -> Any:
    """OpenAI (or a compatible server) when an API key or a base URL is configured, else the offline DemoModel.

    ``OPENAI_BASE_URL`` alone is a server that needs no key (llama.cpp, vLLM, Ollama): it is used, with no key."""
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        from ..providers.openai_chat import OpenAIChat  # here: the openai SDK is a large import the demo never needs

        return OpenAIChat(model or os.environ.get("NOTEBOOK_CHAT_MODEL") or DEFAULT_MODEL)
    return DemoModel()


def approval_ledger() -> ApprovalLedger | None:
    """This user's approval ledger in the Jupyter data directory (None when it can't be opened)."""
    try:
        from jupyter_core.paths import jupyter_data_dir

        data_dir: str | None = jupyter_data_dir()
    except ImportError:
        data_dir = None  # the ledger module's own answer ($JUPYTER_DATA_DIR or the platform default)
    try:
        return ApprovalLedger(default_ledger_path(data_dir))
    except OSError:
        return None


def provider_label(provider: Any) -> str:
    label = getattr(provider, "label", None)
    return str(label) if label else type(provider).__name__


@runtime_checkable
class HoldsConnections(Protocol):
    """A plugin with something to close when the chat closes (an MCP server's connection)."""

    async def aclose(self) -> None: ...


class Chat(ConversationsMixin):
    """``Chat()`` as the last line of a cell shows the chat; ``await chat.send("...")`` drives it from code.

    One chat holds many conversations (``new_conversation``, ``switch``, ``conversations``, ``rename``, ``delete``,
    ``clear``, ``export_markdown``: see ``chat_conversations``); everything else acts on the active one."""

    def __init__(
        self,
        provider: Any = None,
        *,
        model: str | None = None,
        tools: Iterable[Tool | Callable[..., Any] | Plugin] = (),
        system: str | None = None,
        key: str | None = None,
        store: ConversationStore | None = None,
        plugins: Iterable[Plugin] = (),
        auto_continue_length: bool = False,
        restore_timeout: float = 2.0,
        namespace: dict[str, Any] | None = None,
        skills: Iterable[SkillSource] = (),
        skill_mode: SkillMode = "manual",
        approve_skill_reads: bool = False,
        locale: str | None = None,
        prompts: Iterable[str] = (),
        fresh: bool = False,
    ) -> None:
        self.fresh = fresh
        """Start over on every run of the cell: what the store or the notebook keeps under ``key`` is not restored
        and the first write replaces it (examples and demos that should give the same transcript on every Run All;
        the list does not grow). A stored chat whose active conversation can't be read is still never written over."""
        self.provider = provider if provider is not None else default_provider(model)
        self.locale = locale
        """The language of the widget and its notices ("en", "zh-CN"); None: the page's (JupyterLab's) language,
        which each view reports when it is drawn (``page_locale``)."""
        self.prompts = _prompts(prompts)
        """Suggested first messages, shown as chips while the conversation is empty."""
        self.skills = SkillPlugin(skills, mode=skill_mode, approve_reads=approve_skill_reads)
        """The skills: ``.available``, ``.active``, ``.select(*names)``, ``.deselect(*names)``."""
        given = list(tools)
        self._tools = [item for item in given if not isinstance(item, Plugin)]
        self._system = system
        self._user_plugins = [item for item in given if isinstance(item, Plugin)] + list(plugins)  # mcp(...)
        self.mentions = MentionPlugin(NamespaceMentions(namespace if namespace is not None else default_namespace))
        self._auto_continue_length = auto_continue_length
        home = current_cell_id()
        self.key = key or home or "default"
        self.store: ConversationStore | None = store
        self._write_failure: str | None = None
        self.page_locale: str | None = None
        """The language the page showing the widget reported (JupyterLab's language setting), None until then."""
        self._subscribers: list[Callable[[Any], None]] = []
        self._message_views = MessageViews()
        """The view's messages, kept from one snapshot to the next (built from what changed)."""
        self._autosave: ConversationAutosave | None = None
        self._restored = False
        self._record_refused = False
        self.restore_timeout = restore_timeout
        self._displayed = False
        self._front_end_answered = asyncio.Event()
        if store is not None and fresh:
            with contextlib.suppress(StoreError):  # a store that can't be read is refused below, untouched
                store.delete(self.key)  # start over: the first save writes this run's conversation alone
        loaded = load_chat(store, self.key) if store is not None else None
        if loaded is not None and loaded.refused:
            self._record_refused = True
        self._conversations = loaded.conversations if loaded is not None else ConversationList()
        self.engine = self._build_engine()
        if loaded is not None and loaded.record is not None:
            self.engine.load(loaded.record)
        if loaded is not None and (loaded.refused or loaded.notice):
            notice = Notice("notice.refused_in_store", reason=loaded.refused) if loaded.refused else loaded.notice
            self.engine.set_notice(notice)
        self.widget = ChatWidget(self, header=provider_label(self.provider), key=self.key, locale=locale or "",
                                 home=home or "")
        if store is not None and not self._record_refused:
            self._start_autosave(store, write_now=False)

    # -- construction ------------------------------------------------------------------------------------------
    def _build_engine(self) -> MessageEngine:
        """The one engine of this chat (a stored conversation is loaded into it, never into a second one)."""
        tools = ToolPlugin(self._tools, ledger=approval_ledger())
        defaults: list[Plugin] = [tools, ContinuationPlugin(), self.mentions, self.skills, ThinkingPlugin(),
                                  LengthPlugin(auto_continue=self._auto_continue_length)]
        replaced = {plugin.name for plugin in self._user_plugins}
        plugins = [plugin for plugin in defaults if plugin.name not in replaced] + self._user_plugins
        system: list[Message] = [{"role": "system", "content": self._system}] if self._system else []
        engine = MessageEngine(self.provider, plugins=plugins, initial_messages=system)
        taken = sorted(BUILTIN_COMMANDS.intersection(engine.user_commands.names()))
        if taken:
            raise ValueError(Notice("chat.builtin_command", name=taken[0],
                                    builtin=", ".join(sorted(BUILTIN_COMMANDS))))
        engine.subscribe(self._forward)
        return engine

    def _forward(self, event: EngineEvent) -> None:
        for callback in list(self._subscribers):
            callback(event)

    def _start_autosave(self, store: ConversationStore, *, write_now: bool) -> None:
        """Save on every change from now on; ``write_now`` only when the store lacks what this kernel holds (a
        record just read from it is never written back unchanged: stored bytes stay as they were)."""
        self._follow(store, write_now=write_now)

    def _follow(self, store: ConversationStore, *, write_now: bool) -> None:
        """Save the active conversation on every change from now on (at once when ``write_now``)."""
        if self._autosave is not None:
            self._autosave.close()
        self._autosave = ConversationAutosave(self.engine, store, self.key, on_error=self._save_failed,
                                              conversation_id=self._conversations.active)
        if write_now:
            self._autosave.save_now()

    def _save_failed(self, error: Exception) -> None:
        self.engine.set_notice(Notice("notice.save_failed", error=error))

    def persisted(self, key: str, ok: bool, error: str | None, *, stale: bool = False) -> None:
        """The browser's answer to a metadata write: a failure is shown (and autosave writes only at turn
        boundaries) until a later write succeeds. A patch refused because the browser's copy is at another revision
        (``stale``) is no failure: the whole record goes at once."""
        if key != self.key or not isinstance(self.store, NotebookMetadataStore):
            return
        if not ok:
            self.store.forget_front_end_copy(key)
        if stale and not ok:
            if self._autosave is not None:
                self._autosave.save_now()
            return
        if ok:
            if self._write_failure is not None and self.engine.state.notice == self._write_failure:
                self.engine.set_notice(None)
            self._write_failure = None
        else:
            reason = error.strip()[:300] if error and error.strip() else Notice("chat.no_browser_reason")
            self._write_failure = Notice("notice.write_failed", error=reason)
            self.engine.set_notice(self._write_failure)
        if self._autosave is not None:
            self._autosave.boundaries_only = not ok

    # -- display -----------------------------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        self._displayed = True
        note_displayed(self)
        return self.widget._repr_mimebundle_(**kwargs)

    async def _await_front_end(self) -> None:
        """A chat just displayed (Restart Kernel → Run All) first hears what the notebook stores for it, so a
        command in the next cell continues the stored conversation instead of overwriting it. Without a front end
        (nbclient, a script) this waits ``restore_timeout`` once."""
        if not self._displayed or self._front_end_answered.is_set() or self.restore_timeout <= 0:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._front_end_answered.wait(), self.restore_timeout)
        self._front_end_answered.set()

    # -- reading -----------------------------------------------------------------------------------------------
    @property
    def state(self) -> EngineState:
        return self.engine.state

    @property
    def messages(self) -> list[Message]:
        """The conversation as the engine holds it (plain dicts, OpenAI Chat shape plus engine fields)."""
        return self.engine.messages

    @property
    def reply(self) -> str | None:
        """The text of the latest assistant message."""
        for message in reversed(self.engine.messages):
            if message.get("role") == "assistant" and message.get("content"):
                return str(message["content"])
        return None

    @property
    def pending_approvals(self) -> list[dict[str, Any]]:
        """Tool calls waiting for Approve / Deny: ``{"tool_call_id", "name", "arguments"}``."""
        return [{"tool_call_id": call["id"], "name": call["function"]["name"],
                 "arguments": call["function"]["arguments"]} for _, call in awaiting_calls(self.engine.messages)]

    # -- the controller protocol (the widget calls these) --------------------------------------------------------
    def view_state(self) -> dict[str, Any]:
        tools = self.engine.plugin("tools")
        summaries = tools.tool_summaries() if isinstance(tools, ToolPlugin) else {}
        view = conversation_view(self.engine, summaries, self._message_views)
        view["skills"] = skills_view(self.skills)
        view["prompts"] = self.prompts
        view["conversations"] = self.conversations_view()
        view["commands"] = self.engine.user_commands.listing(self.notice_locale)
        if view["notice"] is not None:
            view["notice"] = say(view["notice"], self.notice_locale)
        return view

    @property
    def notice_locale(self) -> str | None:
        """The language of the notices: ``Chat(locale=...)``, else the page's (JupyterLab's) language."""
        return self.locale or self.page_locale

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def message_view(self, message_id: str) -> dict[str, Any] | None:
        """One message's view (the view stream reads a streaming message's texts from it at every flush): its
        cards hold the results that came after it, so the cost does not grow with the messages before it."""
        messages = self.engine.messages
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if message.get("id") == message_id:
                return message_view(message, tool_results(messages[index + 1:]) if message.get("tool_calls") else {})
        return None

    async def send(self, text: str, *, temp_mentions: bool = False) -> None:
        """Send a user message and wait until the turn completes, pauses for approval, stops or fails.

        A provider failure does not raise: it ends the turn in ``error`` (see ``chat.state.error``) and Continue is
        offered. Sending while a turn runs or waits for an approval raises ``ValueError``. ``@name`` mentions a
        variable (``@error``: the last exception) and puts its description into the turn (kept in the history, or
        only for this turn with ``temp_mentions=True``); an unknown name raises ``ValueError`` before sending.
        """
        if not text.strip():
            raise ValueError(Notice("chat.empty_message"))
        mentions = self.mentions.prepare(text, temp=temp_mentions)
        await self._await_front_end()
        if not self.engine.state.can_start_turn:
            raise ValueError(Notice("chat.turn_paused" if self.engine.state.is_paused else "chat.turn_running"))
        with contextlib.suppress(ProviderError):
            await self.engine.send_message(text, **({"mentions": mentions} if mentions else {}))

    async def stop(self) -> None:
        await self.engine.abort()

    async def approve(self, tool_call_id: str, arguments: str | dict[str, Any] | None = None, *,
                      by: str = "code") -> dict[str, Any]:
        """``by``: who decided, shown on the card ("user" from the widget's button, "code" from a cell)."""
        payload: dict[str, Any] = {"tool_call_id": tool_call_id, "by": by}
        if arguments is not None:
            payload["arguments"] = arguments
        return await self._decide(TOOL_RESUME, payload)

    async def deny(self, tool_call_id: str, reason: str | None = None, *, by: str = "code") -> dict[str, Any]:
        return await self._decide(TOOL_REJECT, {"tool_call_id": tool_call_id, "reason": reason, "by": by})

    async def continue_turn(self, instruction: str | None = None) -> dict[str, Any]:
        result = await self._decide(TURN_CONTINUE, {"instruction": instruction})
        if result.get("status") == "refused":
            raise ValueError(Notice("chat.continue_refused", reason=result["reason"]))
        return result

    async def run_command(self, name: str, argument: str = "") -> str | None:
        """Run a plugin's "/" command (``UserCommandProvider``) with the text typed after its name; returns what the
        widget's status line says (never a chat message). An unknown name raises ``ValueError`` saying so."""
        if self.engine.user_commands.get(name) is None:
            raise ValueError(Notice("command.unknown", name=f"/{name}"))
        return await self.engine.user_commands.run(name, argument)

    async def set_skill(self, name: str, active: bool) -> list[str]:
        """The widget's skill chip: turn ``name`` on or off; returns the active skills."""
        return self.skills.select(name) if active else self.skills.deselect(name)

    # -- recovery after a failed turn (see .recovery) -------------------------------------------------------------
    async def retry(self, shorter: bool = False) -> dict[str, Any]:
        """Send the failed turn's request again; ``shorter=True`` halves the context budget first, leaving out
        older whole turns. Raises ``ValueError`` when the latest turn did not fail or a turn runs."""
        await self._await_front_end()
        with contextlib.suppress(ProviderError):
            return await recovery.retry(self.engine, shorter=bool(shorter))
        return {"status": "error", "error": self.engine.state.error}

    def remove_message(self, message_id: str) -> dict[str, Any]:
        """Remove a message you sent and what answered it (e.g. one the server rejected as too long)."""
        return recovery.remove_message(self.engine, message_id)

    async def edit_and_resend(self, message_id: str, text: str) -> dict[str, Any]:
        """Replace the last message you sent (and what followed it) with ``text`` and send it."""
        await self._await_front_end()
        with contextlib.suppress(ProviderError):
            return await recovery.edit_and_resend(self.engine, message_id, text)
        return {"status": "error", "error": self.engine.state.error}

    async def _decide(self, command: str, payload: dict[str, Any]) -> dict[str, Any]:
        await self._await_front_end()
        try:
            result = await self.engine.dispatch_command(command, payload)
        except ProviderError:
            return {"status": "error", "error": self.engine.state.error}
        if result.get("status") in ("missing", "unavailable", "invalid-arguments"):
            call = payload.get("tool_call_id")
            raise ValueError(result.get("error") or Notice("chat.not_waiting", call=call))
        return result

    async def restore(self, record: dict[str, Any] | None, info: dict[str, Any]) -> None:
        """The browser rendered the widget and handed over what the notebook stores under our key.

        The one place where the kernel's live conversation beats the notebook's copy: once this chat has turns (or
        was restored), a record handed over by a re-rendered view is ignored."""
        try:
            self._restore(record, info)
        finally:
            self._front_end_answered.set()

    def _restore(self, record: dict[str, Any] | None, info: dict[str, Any]) -> None:
        if isinstance(info.get("locale"), str) and info["locale"]:
            self.page_locale = info["locale"]
        if not info.get("notebook"):
            if isinstance(self.store, NotebookMetadataStore):
                return  # a view without a notebook (a console) beside the notebook that keeps the chat
            if self.store is None:
                self.store = MemoryStore()
                self._start_autosave(self.store, write_now=True)
            self.engine.set_notice(Notice("notice.no_notebook", store=type(self.store).__name__))
            return
        if self.store is not None and not isinstance(self.store, NotebookMetadataStore):
            return  # the store the user chose wins
        live = self._restored or len(self.engine.turns) > 0 or self._conversations.changed
        store = self.store if isinstance(self.store, NotebookMetadataStore) else NotebookMetadataStore(
            self.widget.persist)
        if not live and isinstance(info.get("record_error"), str):
            self._record_refused = True  # what the notebook holds can't be read: never write over it
            self.engine.set_notice(info["record_error"])
        elif not live and record is not None:
            loaded = read_entry(record)
            if loaded.refused:
                self._record_refused = True
                self.engine.set_notice(Notice("notice.refused_in_notebook", reason=loaded.refused))
                return
            if not self.fresh:  # fresh: not restored, the first write replaces the whole entry (no image of it)
                self._conversations = loaded.conversations
                if loaded.record is not None:
                    # the notebook holds it: nothing is written back
                    store.adopt(self.key, record, record.get(REVISION), loaded.size)
                    self.engine.load(loaded.record)
                if loaded.notice:
                    self.engine.set_notice(loaded.notice)
        elif live and store.load_entry(self.key) is None:
            self._join(store, record)
        elif live and (record is None or record.get(REVISION, NO_REVISION) != store.revision(self.key)):
            store.forget_front_end_copy(self.key)  # the view's copy is not the one this kernel wrote last
        self._restored = True
        if not self._record_refused:
            self.store = store
            self._start_autosave(store, write_now=live)

    def _join(self, store: NotebookMetadataStore, stored: Any) -> None:
        """The first write of a chat that was used before it was shown (conversations made or turns run): what the
        notebook holds under the key is kept, except where this kernel's conversations replace it (live beats
        metadata); a conversation of this kernel without any turn never replaces a stored one of the same id."""
        entry = None
        if isinstance(stored, dict) and not self.fresh:
            try:
                entry = parse_entry(stored, "the stored chat")
            except StoreError:
                entry = None
        mine = self._conversations.inactive_ids()
        if entry is not None:
            store.adopt(self.key, stored, stored.get(REVISION))
            for conversation_id, kept in entry["items"].items():
                if conversation_id not in self._conversations:
                    self._conversations.park(conversation_id, kept)
        for conversation_id in mine:
            held = self._conversations.record(conversation_id)
            if entry is not None and conversation_id in entry["items"] and not held.get("turns"):
                self._conversations.park(conversation_id, entry["items"][conversation_id])
                continue
            try:
                store.save(self.key, held, conversation_id)
            except (PersistenceError, ValueError, TypeError) as error:
                self._save_failed(error)
        try:
            store.save(self.key, pack(self.engine.export_record()), self.conversation_id, active=True)
        except (PersistenceError, ValueError, TypeError) as error:
            self._save_failed(error)

    def complete_mentions(self, prefix: str) -> list[dict[str, Any]]:
        """The composer's ``@`` autocomplete: the variables whose names start with ``prefix``, DataFrames first."""
        source = self.mentions.source
        return source.options(prefix) if isinstance(source, NamespaceMentions) else []

    async def aclose(self) -> None:
        """Stop a running turn, close the widget and what the chat's plugins hold open (MCP connections)."""
        if self.engine.state.is_processing:
            await self.engine.abort("disposed")
        for plugin in self.engine.plugins:
            if isinstance(plugin, HoldsConnections):
                await plugin.aclose()
        if self._autosave is not None:
            self._autosave.close()
        self.widget.close()

    def close(self) -> asyncio.Task[None]:
        """``aclose()`` as a task on the running loop (from a cell: returns at once)."""
        return asyncio.get_running_loop().create_task(self.aclose())

    # -- conveniences for scripts and tutorials -------------------------------------------------------------------
    def submit(self, text: str) -> asyncio.Task[None]:
        """Start a turn as a task on the running loop and return at once (the widget keeps working)."""
        return asyncio.get_running_loop().create_task(self.send(text))

    def ask(self, text: str) -> str | list[dict[str, Any]] | None:
        """Send synchronously (tutorials, scripts): the reply text, or the pending approvals if the turn paused.

        Inside a running loop (a notebook cell) this drives that loop re-entrantly with nest_asyncio2, which patches
        the loop for the rest of the kernel's life (see ``sync_run``); it never waits for a click — use the widget
        or ``await chat.approve(...)`` for that.
        """
        run_sync(self.send(text))
        return self.pending_approvals if self.engine.state.is_paused else self.reply


MAX_PROMPTS = 12
MAX_PROMPT_LENGTH = 2_000


def _prompts(prompts: Iterable[str]) -> list[str]:
    items = [prompts] if isinstance(prompts, str) else list(prompts)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ValueError(Notice("chat.bad_prompt", item=item))
        if len(item) > MAX_PROMPT_LENGTH:
            raise ValueError(Notice("chat.prompt_too_long", limit=MAX_PROMPT_LENGTH))
    if len(items) > MAX_PROMPTS:
        raise ValueError(Notice("chat.too_many_prompts", limit=MAX_PROMPTS, n=len(items)))
    return [item.strip() for item in items]
