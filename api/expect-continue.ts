import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): the client waits for "100 Continue" before it sends
 * the body, so that a request refused on its headers costs no upload. Node sends the 100 as soon
 * as the headers arrive, before any check: an unauthenticated 5 MB upload was told to continue and
 * sent about 2.4 MB before its 401. The API sends it when it starts reading the body (after the
 * key, the scope, the rate limit and the upload memory budget); an answer given before that
 * closes the connection (api/middleware/unread-body.ts) instead of waiting for a body the client
 * holds back.
 */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/** Notes a request whose client waits for 100 Continue (the server's `checkContinue` event). */
export function withholdContinue(request: IncomingMessage, response: ServerResponse): void {
  awaitingContinue.set(request, response);
}

/** Called when the API starts reading a body: a client waiting for 100 Continue is told to send it. */
export function continueIfAwaited(request: IncomingMessage): void {
  const response = awaitingContinue.get(request);
  if (!response) return;
  awaitingContinue.delete(request);
  if (!response.headersSent && !response.writableEnded) response.writeContinue();
}

/** Whether the client of `request` still waits for a 100 Continue it was never sent. */
export function continueWithheld(request: IncomingMessage): boolean {
  return awaitingContinue.has(request);
}
