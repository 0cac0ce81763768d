// "The DOM went quiet": no mutation for `quietMs`, capped at `capMs`.
import { allRoots } from './dom.js';

let observer = null;
let lastMutation = 0;
let startedAt = 0;

export function startObserving() {
  stopObserving();
  lastMutation = startedAt = performance.now();
  observer = new MutationObserver(() => { lastMutation = performance.now(); });
  for (const r of allRoots()) {
    try { observer.observe(r, { subtree: true, childList: true, attributes: true, characterData: true }); } catch { /* ignore */ }
  }
}

export function stopObserving() {
  if (observer) observer.disconnect();
  observer = null;
}

export async function waitQuiet(quietMs = 250, capMs = 3000) {
  if (!observer) startObserving();
  const t0 = performance.now();
  for (;;) {
    const now = performance.now();
    if (now - lastMutation >= quietMs && now - startedAt >= quietMs) break;
    if (now - t0 >= capMs) break;
    await new Promise((r) => setTimeout(r, Math.min(50, quietMs)));
  }
  const waited = Math.round(performance.now() - t0);
  stopObserving();
  return { waited };
}
