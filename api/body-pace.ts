import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../config';
import { ApiError } from './errors';

/**
 * How fast a request body must arrive once the API reads it (docs/operations.md, Limits;
 * docs/decisions/0023-request-body-pace.md). Node alone only bounds the whole request (5 minutes):
 * an upload that declared up to 20 MB and then sent a few bytes a second held its share of the
 * upload memory budget that long, and six of them made every other upload wait 15 s and fail 503.
 *
 * - idleMs: no byte of the body for this long (nginx's client_body_timeout);
 * - after graceMs, the body's average rate must be at least minBytesPerSecond (Apache's
 *   mod_reqtimeout MinRate), and at least the rate that brings a declared length whole within
 *   wholeWithinMs (the request timeout): a 20 MB body needs 70 KB/s, which Node would otherwise
 *   refuse only at the timeout, after holding its memory for all of it.
 */
export type BodyPace = AppConfig['http']['bodyPace'];

/** How often the pace is looked at: a refusal comes at most this much after it is due. */
const CHECK_EVERY_MS = 250;

const requestTimeout = (message: string) => new ApiError(408, 'request_timeout', message);

/**
 * Watches `request`'s body from now on (call it when reading starts: time spent waiting for the
 * upload memory budget, with the body unread, is not the client's) and calls `tooSlow` once with a
 * 408 request_timeout if it breaks the pace. Returns a function that stops watching; watching also
 * stops when the body ends or the request closes.
 */
export function watchBodyPace(request: IncomingMessage, pace: BodyPace, tooSlow: (error: ApiError) => void): () => void {
  const started = Date.now();
  let lastByteAt = started;
  let received = 0;
  const declared = Number(request.headers['content-length']);
  const neededPerSecond = Math.max(pace.minBytesPerSecond, Number.isFinite(declared) ? declared / (pace.wholeWithinMs / 1000) : 0);

  const onData = (chunk: Buffer) => {
    received += chunk.length;
    lastByteAt = Date.now();
  };
  const check = () => {
    const now = Date.now();
    if (now - lastByteAt >= pace.idleMs) {
      return refuse(`No byte of the request body arrived for ${pace.idleMs / 1000} s; nothing was stored.`);
    }
    const seconds = (now - started) / 1000;
    if (now - started >= pace.graceMs && received / seconds < neededPerSecond) {
      return refuse(
        `The request body arrived at ${Math.floor(received / seconds)} bytes a second; this request needs at least ` +
          `${Math.ceil(neededPerSecond)} (all of it within ${pace.wholeWithinMs / 1000} s); nothing was stored.`,
      );
    }
  };
  const timer = setInterval(check, CHECK_EVERY_MS);
  const stop = () => {
    clearInterval(timer);
    request.off('data', onData).off('end', stop).off('close', stop);
  };
  const refuse = (message: string) => {
    stop();
    tooSlow(requestTimeout(message));
  };
  request.on('data', onData).once('end', stop).once('close', stop);
  return stop;
}
