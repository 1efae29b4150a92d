import http from 'node:http';
import https from 'node:https';
import { withClientSpan } from '../integrations/outbound/client-span';
import { blockedTarget, outboundLookup } from '../integrations/outbound/public-targets';

export type PostOutcome = { statusCode: number | null; error: string | null; succeeded: boolean; durationMs: number };

const ERROR_BODY_BYTES = 1024;

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
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      const succeeded = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
      resolve({ statusCode, error, succeeded, durationMs: performance.now() - started });
    };

    const request = transport.request(target, {
      method: 'POST',
      headers: { ...headers, ...traceHeaders, 'content-length': String(payload.length), 'user-agent': 'document-invoicing-webhooks/1' },
      lookup: outboundLookup(options.allowPrivateTargets),
      agent: false,
    });
    const deadline = setTimeout(() => finish(null, `timed out after ${options.timeoutMs / 1000} s`), options.timeoutMs);

    request.on('error', (error) => finish(null, describeNetworkError(error)));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        finish(status, null);
        return;
      }
      if (status >= 300 && status < 400) {
        finish(status, `HTTP ${status}: redirects are not followed${response.headers.location ? ` (Location: ${response.headers.location})` : ''}`);
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      const done = () => {
        const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_BYTES).replace(/\s+/g, ' ').trim();
        finish(status, text ? `HTTP ${status}: ${text}` : `HTTP ${status}`);
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= ERROR_BODY_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(payload);
  });
  return withClientSpan({ method: 'POST', url: target, peer: 'webhook' }, send, (outcome) => ({ status: outcome.statusCode, error: outcome.error }));
}


function describeNetworkError(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
