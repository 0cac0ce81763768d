// Cancelled commands: the daemon sends {type: 'cancel', data: {requestId}} when the caller gave up
// on a call (MCP notifications/cancelled, POST /api/calls/<id>/cancel, the CLI's Ctrl-C). The
// daemon has already answered the caller; here the command stops: one still queued behind its tab
// never runs, and one that waits (wait_for) sees its signal aborted and ends at its next check.
// The command still answers with a command_result (status error, "cancelled ...").
import { CommandError } from './errors.js';

const running = new Map(); // requestId -> AbortController of a queued or running command
const early = new Set();   // cancelled before the command arrived (a race): it is aborted at once
const EARLY_MAX = 256;

// The signal a command (requestId) runs under; call done(requestId) when it has answered.
export function cancelSignal(requestId) {
  const c = new AbortController();
  if (early.delete(requestId)) c.abort();
  running.set(requestId, c);
  return c.signal;
}

// The command answered: forget it.
export function done(requestId) {
  running.delete(requestId);
}

// The daemon's cancel message.
export function cancelCommand(requestId) {
  if (typeof requestId !== 'string') return;
  const c = running.get(requestId);
  if (c) { c.abort(); return; }
  early.add(requestId);
  if (early.size > EARLY_MAX) early.delete(early.values().next().value);
}

// Throw the error a cancelled command answers with, if signal was aborted.
export function throwIfCancelled(signal) {
  if (signal?.aborted) throw new CommandError('cancelled: the caller gave up on this call', { noPage: true });
}
