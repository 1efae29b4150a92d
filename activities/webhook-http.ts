import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { withClientSpan } from '../integrations/outbound/client-span';
import { blockedTarget, outboundLookup } from '../integrations/outbound/public-targets';
import { storableText } from '../domain/storable-text';

export type PostOutcome = { statusCode: number | null; error: string | null; succeeded: boolean; durationMs: number };

const ERROR_BODY_BYTES = 1024;

/**
 * Connections to an endpoint are kept open and reused (keep-alive): a burst of deliveries to
 * one endpoint pays one TCP (and TLS) handshake per socket instead of one per delivery. An idle
 * socket is closed after 4 s, under the 5 s most servers (Node's default) keep one, so reuse
 * rarely meets a socket the server already closed; when it does, the POST is sent once more on
 * a new connection (the server never answered it). A pool per transport and per targeting rule:
 * a connection checked only under allowPrivateTargets is never reused without it.
 */
const KEEP_ALIVE = { keepAlive: true, timeout: 4_000, maxFreeSockets: 16, scheduling: 'lifo' } as const;
/**
 * A 2xx whose body has not ended within 1 s, or runs past 64 KB, loses its connection instead of
 * holding it: draining a receiver's endless body for the whole second cost the worker about 100 ms
 * of CPU per delivery (7 times a healthy one's), however many deliveries it answered so.
 */
const DRAIN_MS = 1_000;
const DRAIN_BYTES = 64 * 1024;
const AGENTS = {
  'http:': { privateAllowed: new http.Agent(KEEP_ALIVE), publicOnly: new http.Agent(KEEP_ALIVE) },
  'https:': { privateAllowed: new https.Agent(KEEP_ALIVE), publicOnly: new https.Agent(KEEP_ALIVE) },
};

function agentFor(target: URL, allowPrivateTargets: boolean): http.Agent {
  const agents = target.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'];
  return allowPrivateTargets ? agents.privateAllowed : agents.publicOnly;
}

/**
 * One POST of a webhook, with a hard limit on the whole exchange. Redirects are failures and
 * never followed; only the first KB of an error response is read, for last_error. Without
 * allowPrivateTargets, the address actually connected to must be public (DNS rebinding).
 * Traced as a client span whose traceparent the receiver gets.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivateTargets: boolean },
): Promise<PostOutcome> {
  const started = performance.now();
  const target = new URL(url);
  const blocked = blockedTarget(target, options.allowPrivateTargets);
  if (blocked) {
    return Promise.resolve({ statusCode: null, error: `ETARGETBLOCKED: the url points at ${blocked}`, succeeded: false, durationMs: 0 });
  }
  const transport = target.protocol === 'https:' ? https : http;
  const payload = Buffer.from(body, 'utf8');

  const send = (traceHeaders: Record<string, string>) => new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let request: http.ClientRequest;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      const succeeded = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
      resolve({ statusCode, error, succeeded, durationMs: performance.now() - started });
    };
    /** A 2xx: the body is drained, not read, and the socket goes back to the pool for the next delivery. */
    const succeed = (statusCode: number, response: http.IncomingMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      const drainLimit = setTimeout(() => response.destroy(), DRAIN_MS).unref();
      response.on('close', () => clearTimeout(drainLimit));
      let drained = 0;
      response.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > DRAIN_BYTES) response.destroy();
      });
      resolve({ statusCode, error: null, succeeded: true, durationMs: performance.now() - started });
    };

    const post = (reuse: boolean) => {
      request = transport.request(target, {
        method: 'POST',
        headers: { ...headers, ...traceHeaders, 'content-length': String(payload.length), 'user-agent': 'document-invoicing-webhooks/1' },
        lookup: outboundLookup(options.allowPrivateTargets),
        agent: reuse ? agentFor(target, options.allowPrivateTargets) : false,
      });
      request.on('error', (error: Error & { code?: string }) => {
        // A kept-alive socket the server closed meanwhile: the request never reached it.
        if (reuse && request.reusedSocket && error.code === 'ECONNRESET' && !settled) post(false);
        else finish(null, describeNetworkError(error));
      });
      request.on('response', onResponse);
      // Without a listener Node drops a 101's connection and tells no one: the attempt waited out its 10 s.
      request.on('upgrade', (response: http.IncomingMessage, socket: Duplex) => {
        socket.destroy();
        finish(response.statusCode ?? 101, `HTTP ${response.statusCode ?? 101}: switching protocols is refused`);
      });
      request.end(payload);
    };
    /** An error answer whose status and headers came but whose body has not ended: what it said so far. */
    let unfinishedErrorAnswer: (() => void) | null = null;
    const deadline = setTimeout(() => {
      // A 503 trickling its body still said 503 (and maybe Retry-After): kept rather than a bare timeout.
      if (unfinishedErrorAnswer) unfinishedErrorAnswer();
      else finish(null, `timed out after ${options.timeoutMs / 1000} s`);
    }, options.timeoutMs);

    const onResponse = (response: http.IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        succeed(status, response);
        return;
      }
      if (status >= 300 && status < 400) {
        // The receiver's Location is theirs to fill (up to Node's 16 KB of headers): kept like its words, to 1 KB.
        const location = response.headers.location ? ` (Location: ${storableText(response.headers.location, ERROR_BODY_BYTES)})` : '';
        finish(status, `HTTP ${status}: redirects are not followed${location}`);
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      const done = (unfinished = '') => {
        // The receiver's words for last_error, as storable plain text (a NUL cannot even be stored in Postgres' text).
        const text = storableText(Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_BYTES), ERROR_BODY_BYTES);
        finish(status, `HTTP ${status}${text ? `: ${text}` : ''}${unfinished}`);
      };
      unfinishedErrorAnswer = () => done(` (the answer's body did not end within ${options.timeoutMs / 1000} s)`);
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= ERROR_BODY_BYTES) done();
      });
      response.on('end', () => done());
      response.on('error', () => done());
    };
    post(true);
  });
  return withClientSpan({ method: 'POST', url: target, peer: 'webhook' }, send, (outcome) => ({ status: outcome.statusCode, error: outcome.error }));
}


function describeNetworkError(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
