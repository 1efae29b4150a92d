import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): the client waits for "100 Continue" before it sends
 * the body, so that a request refused on its headers costs no upload. Node sends the 100 as soon
 * as the headers arrive, before any check: an unauthenticated 5 MB upload was told to continue and
 * sent about 2.4 MB before its 401. For a body over unread-body.ts's small size (api/http-server.ts
 * decides) the API sends it when a body reader starts (after the key, the rate limit and, for
 * uploads, the scope and the upload memory budget); an answer given before that closes the
 * connection, as it does for any large body left unread.
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
