/** Runs `fn` when the browser is idle (at once, on a timer, where it cannot say when it is). */
export function whenIdle(fn: () => void): void {
  (window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 1)))(fn);
}
