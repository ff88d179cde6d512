// Slash commands in the composer: "/" at the start opens a menu of the commands available now, filtered as you
// type (ArrowUp/Down, Enter or Tab to choose, Esc to close). Sending a text that starts with "/" runs the command
// instead of sending a message ("//" sends one literal "/"); what a command did is said in the status line, never
// as a chat message. A command whose kernel action is missing from the action table (ACTIONS) is not offered.
// Plugins add commands through the kernel's view (`commands`: names on the engine's command bus).
import { ACTIONS } from "./actions.js";
import { t } from "./i18n.js";
import { PopupListbox } from "./listbox.js";

const TYPING = /^\/([\w.-]*)$/;
const COMMAND = /^\/([\w.-]+)(?:\s+([\s\S]*))?$/;

/**
 * What the commands need from the chat view.
 * @typedef {{running: () => boolean, paused: () => boolean, continueOffered: () => boolean,
 *   send: (msg: {kind: string} & Record<string, any>, onError?: (error: string) => void,
 *     onDone?: (message: string|null) => void) => unknown,
 *   stop: () => void, help: () => void, note: (text: string, survives?: string | null) => void, submit: () => void,
 *   pluginCommands: () => {name: string, description?: string}[]}} Host
 * @typedef {{name: string, argument?: string, description: string, action?: string, plugin?: boolean,
 *   run: (host: Host, argument: string) => void}} Command
 */

/** An action with every field but the given ones null (the kernel's table decides which fields exist). */
function action(/** @type {string} */ kind, /** @type {Record<string, any>} */ fields = {}) {
  return { kind, ...Object.fromEntries((ACTIONS[kind] ?? []).map((name) => [name, null])), ...fields };
}

/** @param {Host} host @param {string} name @returns {boolean} refused because a turn runs */
function refusedWhileRunning(host, name) {
  if (!host.running() && !host.paused()) return false;
  host.note(t("slash.busy", { name }));
  return true;
}

/**
 * @param {Host} host @param {string} done said in the status line once the kernel took the action
 * @param {string | null} [survives] a request state the action leads to, which keeps the note (see ChatView.note)
 */
function reporter(host, done, survives = null) {
  host.note(done, survives);
  return (/** @type {string} */ error) => host.note(t("slash.failed", { error }));
}

/** @type {Command[]} */
const BUILTIN = [
  {
    name: "continue", argument: "instruction", description: "slash.continue", action: "continue",
    run(host, argument) {
      if (refusedWhileRunning(host, "/continue")) return;
      if (!host.continueOffered()) return host.note(t("slash.nothing_to_continue"));
      host.send(action("continue", { instruction: argument === "" ? null : argument }),
        reporter(host, t("slash.continuing")));
    },
  },
  {
    name: "retry", description: "slash.retry", action: "retry",
    run(host) {
      if (refusedWhileRunning(host, "/retry")) return;
      host.send(action("retry", { shorter: false }), reporter(host, t("slash.retrying")));
    },
  },
  {
    name: "new", description: "slash.new", action: "new_conversation",
    run(host) {
      // a conversation waiting for an approval stays paused in the list: only a reply being written refuses
      if (host.running()) return host.note(t("slash.busy", { name: "/new" }));
      host.send(action("new_conversation"), reporter(host, t("slash.new_done"), "idle"));
    },
  },
  {
    name: "clear", description: "slash.clear", action: "clear_conversation",
    run(host) {
      if (refusedWhileRunning(host, "/clear")) return;
      host.send(action("clear_conversation"), reporter(host, t("slash.clear_done"), "idle"));
    },
  },
  {
    name: "stop", description: "slash.stop", action: "stop",
    run(host) {
      if (!host.running() && !host.paused()) return host.note(t("slash.nothing_to_stop"));
      host.stop();
    },
  },
  {
    name: "help", description: "slash.help",
    run(host) {
      host.help();
      host.note(t("slash.help_shown"));
    },
  },
];

export class SlashCommands {
  /** @param {HTMLTextAreaElement} input @param {Host} host */
  constructor(input, host) {
    this.input = input;
    this.host = host;
    this.menu = new PopupListbox(input, {
      label: t("slash.menu"),
      className: "nbc-slash-menu",
      onPick: (option) => this.complete(option.value),
    });
    this.el = this.menu.el;
  }

  /** Every command that exists here (its action is in the kernel's table), built-in first. @returns {Command[]} */
  commands() {
    const builtin = BUILTIN.filter((c) => c.action === undefined || c.action in ACTIONS);
    if (!("command" in ACTIONS)) return builtin;
    const taken = new Set(builtin.map((c) => c.name));
    const plugins = this.host.pluginCommands()
      .filter((c) => typeof c?.name === "string" && !taken.has(c.name))
      .map((c) => /** @type {Command} */ ({
        name: c.name,
        argument: "text",
        description: typeof c.description === "string" ? c.description : "",
        plugin: true,
        run: (host, argument) => {
          host.note(t("slash.running", { name: `/${c.name}` }));
          host.send(action("command", { name: c.name, argument: argument === "" ? null : argument }),
            (error) => host.note(t("slash.failed", { error })),
            (message) => host.note(message ?? t("slash.ran", { name: `/${c.name}` })));
        },
      }));
    return [...builtin, ...plugins];
  }

  /** The commands the menu offers now (/continue only when Continue is offered). */
  offered() {
    return this.commands().filter((c) => c.name !== "continue" || this.host.continueOffered());
  }

  /** The composer's text changed: open, filter or close the menu. */
  typed() {
    const match = TYPING.exec(this.input.value);
    if (!match) return this.menu.close();
    const prefix = match[1].toLowerCase();
    this.menu.show(this.offered()
      .filter((c) => c.name.toLowerCase().startsWith(prefix))
      .map((c) => ({
        value: c.name,
        label: `/${c.name}${c.argument ? ` [${t(`slash.argument.${c.argument}`)}]` : ""}`,
        detail: describe(c),
      })));
  }

  /** What the menu offers changed (the kernel's view: plugin commands, Continue): an open menu shows it now. */
  refresh() {
    if (this.menu.open) this.typed();
  }

  /** @param {KeyboardEvent} e @returns {boolean} the menu used the key */
  key(e) {
    return this.menu.key(e);
  }

  /** A command was chosen in the menu: one with an argument waits for it, the others run at once. @param {string} name */
  complete(name) {
    const command = this.commands().find((c) => c.name === name);
    this.input.value = `/${name}${command?.argument ? " " : ""}`;
    this.input.dispatchEvent(new Event("input")); // the draft keeps it
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
    if (command && !command.argument) this.host.submit();
  }

  /**
   * The composer sends `text`. Returns null when it is a message, else what the composer should keep ("" after a
   * command ran, the text itself when the command is unknown, so it can be corrected).
   * @param {string} text @returns {{message: string}|{keep: string}}
   */
  run(text) {
    if (text.startsWith("//")) return { message: text.slice(1) };
    const match = COMMAND.exec(text.trim());
    if (!text.startsWith("/") || !match) return { message: text };
    this.menu.close();
    const name = match[1];
    const command = this.commands().find((c) => c.name === name);
    if (!command) {
      this.host.note(t("slash.unknown", { name: `/${name}` }));
      return { keep: text };
    }
    command.run(this.host, (match[2] ?? "").trim());
    return { keep: "" };
  }
}

/** What the menu and the "?" panel say a command does: a built-in one's from the table, a plugin's as it wrote it. */
export function describe(/** @type {Command} */ command) {
  return command.plugin ? command.description : t(command.description);
}

/** The /help text and the "?" panel: every shortcut and the commands available here. @returns {[string, string][]} */
export function shortcutList() {
  return [
    ["Enter", t("help.enter")],
    ["Shift+Enter", t("help.shift_enter")],
    ["Esc", t("help.escape")],
    ["Tab / Shift+Tab", t("help.tab")],
    ["Enter / Space", t("help.buttons")],
    ["/", t("help.slash")],
    ["↑ ↓ Enter Esc", t("help.menu")],
    ["Ctrl+S", t("help.save")],
  ];
}
