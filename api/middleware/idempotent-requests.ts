import { createHmac } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { IDEMPOTENCY_WINDOW, type HeldClaim, type IdempotentRequestsRepository } from '../../db/repositories/idempotent-requests';
import type { SecretBox } from '../../domain/secret-box';
import { ApiError } from '../errors';
import { IDEMPOTENCY_KEY } from '../v1/openapi/common';
import type { AuthState } from './authenticate';
import { routeAcceptsMultipart } from './json-body';

const MULTIPART = /^multipart\/form-data/i;

/** What is kept of a first answer, sealed: some carry secrets (a new endpoint's signing secret). */
type StoredAnswer = { body: unknown; location?: string };

/**
 * Stripe's idempotent requests, for every POST sent with an `Idempotency-Key` (docs/api.md):
 * the first request with a key runs and its 2xx answer is kept for 24 hours, per API key; the
 * same request again gets that answer (`Idempotent-Replayed: true`) without acting twice, so a
 * client can retry a POST whose answer it lost. The same key with another request (path or
 * body) is 409 idempotency_key_reused; while the first still runs, 409 idempotency_key_in_use.
 * A request that fails (4xx, 5xx, a lost dependency) keeps nothing: a retry runs it again.
 * Uploads (multipart) hold their key with the file itself (api/v1/files/routes.ts); another
 * route reading a multipart body runs it through onceIfIdempotent once it has read it.
 */
export function idempotentRequests(
  deps: {
    requests: IdempotentRequestsRepository;
    /** Seals the kept answers. */
    secretBox: SecretBox;
    /** Keys the fingerprints (HMAC): a body's hash kept in the clear would let guesses of its secrets be checked. */
    fingerprintKey: Buffer;
    logger: Logger;
  },
  options: { renewEveryMs?: number } = {},
): Middleware {
  const { requests, secretBox, fingerprintKey, logger } = deps;
  const renewEveryMs = options.renewEveryMs ?? IDEMPOTENCY_WINDOW.renewEverySeconds * 1000;
  return async (ctx, next) => {
    const sent = ctx.headers['idempotency-key'];
    if (ctx.method !== 'POST' || sent === undefined) return next();
    if (typeof sent !== 'string' || !IDEMPOTENCY_KEY.test(sent)) {
      throw new ApiError(400, 'invalid_parameter', 'Idempotency-Key must be given once, as 1 to 255 printable ASCII characters.', 'Idempotency-Key');
    }
    // A multipart body is read by its route, after this middleware: the route runs its request
    // through runOnce with what it read (an upload holds its key with the file instead).
    if (MULTIPART.test(ctx.get('Content-Type')) && routeAcceptsMultipart(ctx)) {
      (ctx.state as IdempotencyState).idempotentOnce = (request, work) => runOnce(ctx, sent, request, work);
      return next();
    }
    return runOnce(ctx, sent, ctx.request.body ?? {}, next);
  };

  /** Runs `work` once per key: the first time, or never again while its answer is kept (see above). */
  async function runOnce(ctx: Context, sent: string, request: unknown, work: () => Promise<unknown>): Promise<void> {
    const apiKeyId = (ctx.state as AuthState).apiKey.id;
    // No POST takes a query string (refused before this: api/middleware/declared-query.ts), and the router takes a trailing slash: it makes no other request.
    const requestLine = `POST ${ctx.path.replace(/(.)\/+$/, '$1')}`;
    const fingerprint = createHmac('sha256', fingerprintKey).update(`${requestLine}\n${canonicalJson(request)}`).digest('hex');

    const claim = await requests.claim(apiKeyId, sent, fingerprint, requestLine);
    let held: HeldClaim;
    if (claim.claimed) {
      held = claim;
    } else {
      const { existing } = claim;
      if (existing.fingerprint !== fingerprint) {
        const what = existing.request_line === requestLine ? 'with other parameters' : `for ${existing.request_line}`;
        throw new ApiError(409, 'idempotency_key_reused', `This Idempotency-Key was used ${what}; send a new key for a new request.`, 'Idempotency-Key');
      }
      if (existing.response_status !== null && existing.response_sealed !== null) {
        const answer = JSON.parse(secretBox.open(existing.response_sealed)) as StoredAnswer;
        ctx.status = existing.response_status;
        ctx.body = answer.body;
        if (answer.location) ctx.set('Location', answer.location);
        ctx.set('Idempotent-Replayed', 'true');
        return;
      }
      const taken = await requests.takeOverAbandoned(apiKeyId, existing.id);
      if (!taken) {
        throw new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has answered.', 'Idempotency-Key', { 'Retry-After': '1' });
      }
      held = taken;
    }

    // While the request runs its claim is renewed, so that only a claim whose process died is taken
    // over: a request held for over a minute (Temporal or Postgres stalled) was run a second time
    // by a retry that took its claim over, and both acted (two events for one webhook test).
    // The claim's token keeps a process that was frozen past the limit from renewing (or answering
    // for, or releasing) a claim another request has taken over since.
    const renewal = setInterval(() => void requests.renew(apiKeyId, held).catch(() => undefined), renewEveryMs);
    renewal.unref();
    let kept = false;
    let keptLater: Promise<void> | null = null;
    try {
      await work();
      const body: unknown = ctx.body;
      if (ctx.status >= 200 && ctx.status < 300 && isJsonValue(body)) {
        const answer: StoredAnswer = { body: body ?? null, ...(ctx.response.get('Location') ? { location: ctx.response.get('Location') } : {}) };
        kept = true;
        const keep = async () => {
          if (!(await requests.complete(apiKeyId, held, ctx.status, secretBox.seal(JSON.stringify(answer)), createdIdOf(ctx.status, body)))) {
            logger.warn({ requestId: ctx.state.requestId, path: ctx.path }, 'an idempotent request answered after its claim was taken over (its process was held past the limit); the answer of the request that took it over is the one kept');
          }
        };
        try {
          await keep();
        } catch (error) {
          // The request has acted: its answer goes out all the same, and is kept once Postgres
          // answers again; meanwhile the claim is still renewed, so a retry is told the key is in
          // use instead of taking the claim over and acting twice.
          logger.warn({ err: error, requestId: ctx.state.requestId, path: ctx.path }, 'the answer to an idempotent request could not be kept yet; retrying');
          keptLater = keepWithRetries(keep).catch((lasting: unknown) =>
            logger.error({ err: lasting, requestId: ctx.state.requestId, path: ctx.path }, 'the answer to an idempotent request could not be kept; its key is taken over after a minute'),
          );
        }
      }
    } finally {
      if (keptLater) void keptLater.finally(() => clearInterval(renewal));
      else clearInterval(renewal);
      // Nothing to replay: a retry with the key runs the request again.
      if (!kept) await requests.release(apiKeyId, held).catch(() => undefined);
    }
  }
}

/**
 * What a route that reads its own multipart body finds in ctx.state when the request carries an
 * Idempotency-Key: it runs the rest of the request through it, with what it read as the request
 * (its fields, and a digest of its file), so that a retry replays the first answer.
 */
export type IdempotencyState = { idempotentOnce?: (request: unknown, work: () => Promise<unknown>) => Promise<void> };

/**
 * Runs `work` through the request's Idempotency-Key when it carries one (IdempotencyState), else as
 * it is. `request` is only made when there is a key (it may digest a whole file).
 */
export async function onceIfIdempotent(ctx: Context, request: () => unknown, work: () => Promise<unknown>): Promise<void> {
  const once = (ctx.state as IdempotencyState).idempotentOnce;
  if (once) await once(request(), work);
  else await work();
}

/** Keeping an answer after a failure: 1 s doubling to 30 s, for about 10 minutes. */
async function keepWithRetries(keep: () => Promise<void>): Promise<void> {
  for (let delayMs = 1_000, waited = 0; ; waited += delayMs, delayMs = Math.min(30_000, delayMs * 2)) {
    await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    try {
      return await keep();
    } catch (error) {
      if (waited >= 600_000) throw error;
    }
  }
}

/** The request line of a creation in a collection (its kept answers are forgotten when what it created is deleted). */
export function creationRequestLine(collectionPath: string): string {
  return `POST /v1${collectionPath}`;
}

/** The id a 201 answer's body names: what the request created. */
function createdIdOf(status: number, body: unknown): string | null {
  if (status !== 201 || body === null || typeof body !== 'object') return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
}

/** JSON with object keys in order, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A body the API answers as JSON (not a stream or a buffer), or none. */
function isJsonValue(body: unknown): boolean {
  return body === undefined || body === null || (typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function');
}
