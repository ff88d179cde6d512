// The page's idle time, where the browser has idle callbacks; the next task where it has not.

/** Run `fn` when the page is next idle (with its IdleDeadline; without idle callbacks: in the next task, with none).
 * @type {(fn: (deadline?: IdleDeadline) => void) => unknown} */
export const whenIdle = globalThis.requestIdleCallback ?? ((fn) => setTimeout(fn, 0));
