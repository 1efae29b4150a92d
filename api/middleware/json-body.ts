import type { IncomingMessage } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { RouterContext } from '@koa/router';
import { ApiError } from '../errors';
import { watchBodyPace, type BodyPace } from '../body-pace';
import { continueIfAwaited } from '../expect-continue';
import { withinUploadMemory } from './upload-memory';

const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

declare module 'koa' {
  interface Request {
    /** The parsed JSON body; validate it with the route's schema before use. */
    body?: unknown;
  }
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
const MULTIPART = /^multipart\/form-data/i;

/**
 * Marks a route that reads a multipart/form-data body itself (uploads): put it in the route's
 * middleware list. jsonBody lets multipart through to these routes only, and a multipart request
 * runs the rest of the route within the API's memory budget for uploads (upload-memory.ts).
 */
export const acceptsMultipart: Middleware = (ctx, next) => (MULTIPART.test(ctx.get('Content-Type')) ? withinUploadMemory(ctx, next) : next());

/** Whether the matched route reads a multipart body itself (it is marked acceptsMultipart). */
export function routeAcceptsMultipart(ctx: Context): boolean {
  const matched = (ctx as unknown as RouterContext).matched ?? [];
  return matched.some((layer) => layer.methods.includes(ctx.method) && layer.stack.includes(acceptsMultipart));
}

/**
 * Reads a JSON request body, within a size limit and at the API's pace (api/body-pace.ts), into
 * ctx.request.body. Multipart bodies are left to the routes marked acceptsMultipart; any other
 * content type is refused with 415.
 */
export function jsonBody(limitBytes: number, pace: BodyPace): Middleware {
  return async (ctx, next) => {
    if (!METHODS_WITH_BODY.has(ctx.method)) return next();
    // Node keeps the first of several Content-Type headers and drops the others: the body would be
    // read as a type a proxy or WAF in front may not have seen.
    if ((ctx.req.headersDistinct['content-type']?.length ?? 0) > 1) {
      throw new ApiError(415, 'unsupported_media_type', 'Send one Content-Type header; this request has several.');
    }
    if (MULTIPART.test(ctx.get('Content-Type')) && routeAcceptsMultipart(ctx)) return next();
    const declaredLength = ctx.request.length;
    const hasBody = (declaredLength ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (!hasBody) {
      ctx.request.body = undefined;
      return next();
    }
    if (!JSON_CONTENT_TYPE.test(ctx.get('Content-Type'))) {
      throw new ApiError(
        415,
        'unsupported_media_type',
        routeAcceptsMultipart(ctx)
          ? 'Send the request body as multipart/form-data (or as JSON with Content-Type: application/json where the operation documents one).'
          : 'Send the request body as JSON with Content-Type: application/json.',
      );
    }
    refuseUnreadableRepresentation(ctx);
    if (declaredLength !== undefined && declaredLength > limitBytes) {
      throw tooLarge(limitBytes);
    }
    const text = decodeUtf8(await readBytes(ctx.req, limitBytes, pace));
    // Only an empty body is no body: whitespace alone is not a JSON text (RFC 8259), and taking it
    // for none let a schema-violating '\r' rotate a webhook secret (Schemathesis, ST201).
    if (text === '') {
      ctx.request.body = undefined;
      return next();
    }
    if (text.startsWith(BYTE_ORDER_MARK)) {
      // JSON.parse's own message quoted the invisible character itself.
      throw new ApiError(400, 'invalid_json', 'The request body starts with a byte order mark (U+FEFF); send JSON without one (RFC 8259 §8.1).');
    }
    try {
      ctx.request.body = JSON.parse(text) as unknown;
    } catch (error) {
      throw new ApiError(400, 'invalid_json', `The request body is not valid JSON: ${(error as Error).message}.`);
    }
    return next();
  };
}

// fatal: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD; ignoreBOM: a byte
// order mark stays in the text (and JSON.parse refuses it), as before.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The body as text. JSON is UTF-8 (RFC 8259 §8.1): bytes that are not (a Latin-1 "Pérez", a
 * cut multi-byte character) are 400 invalid_json. Decoded leniently they became U+FFFD, and the
 * request went on to store "P\uFFFDrez" with a 201, as if the client had sent it.
 */
function decodeUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid UTF-8; JSON is sent as UTF-8 (RFC 8259).');
  }
}

const CHARSET = /;\s*charset\s*=\s*"?([^";]*)"?/i;

/**
 * A body the API would misread is refused, not guessed at (415, RFC 9110 §15.5.16): a content
 * coding (gzip, br…; the body is read as it arrives, uncompressed), or a charset other than UTF-8
 * (JSON is UTF-8, RFC 8259 §8.1; a UTF-16 body read as UTF-8 was a confusing invalid_json).
 */
function refuseUnreadableRepresentation(ctx: Context): void {
  const coding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') {
    throw new ApiError(415, 'unsupported_media_type', `Content-Encoding ${coding} is not supported: send the body uncompressed.`);
  }
  const charset = CHARSET.exec(ctx.get('Content-Type'))?.[1]?.trim().toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(415, 'unsupported_media_type', 'JSON bodies are UTF-8: send charset=utf-8 or no charset.');
  }
}

function tooLarge(limitBytes: number) {
  return new ApiError(413, 'payload_too_large', `The request body is larger than the limit of ${limitBytes} bytes.`);
}

/** The client closed the connection before sending the whole body (nobody is left to read the answer). */
export const requestAborted = () =>
  new ApiError(400, 'request_aborted', 'The connection closed before the whole request body arrived.');

/**
 * Reads the body's bytes, refusing them as soon as they pass the limit or break the pace (408). A
 * body cut short by the client is a 400 (request_aborted), never an unhandled stream error. On
 * refusal the rest is discarded and the error answer closes the connection (errorHandler).
 */
function readBytes(request: IncomingMessage, limitBytes: number, pace: BodyPace): Promise<Buffer> {
  if (request.destroyed) return Promise.reject(requestAborted()); // gone while earlier middleware ran
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: ApiError | null) => {
      stopPace();
      request.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
      if (error) {
        if (!request.destroyed) request.resume();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks));
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) return finish(tooLarge(limitBytes));
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onClose = () => {
      if (!request.complete) finish(requestAborted());
    };
    request.on('data', onData).on('end', onEnd).on('error', onClose).on('close', onClose);
    const stopPace = watchBodyPace(request, pace, finish);
    continueIfAwaited(request);
  });
}
