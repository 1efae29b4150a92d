/**
 * Generic HTTP integration for in-house ERPs: one signed JSON POST per purchase.
 *
 * Request: POST <url>, body `{ "idempotency_key", "document", "supplier" }` (document and
 * supplier exactly as in ExportInput), signed like our webhooks (Standard Webhooks):
 * webhook-id = the idempotency key (stable across retries, so the receiver can deduplicate),
 * webhook-timestamp = now in seconds, webhook-signature = v1,HMAC-SHA256 with the whsec_ secret.
 * Expected answer: 2xx with JSON `{ "id", "number", "name"? }`.
 *
 * The target is customer-configured, so like webhook deliveries it is only allowed to connect
 * to public addresses (checked on the address actually connected to) unless the deployment
 * allows private targets. Redirects are never followed; the whole exchange has one deadline
 * and the answer is read up to 64 KB.
 */
import http from 'node:http';
import https from 'node:https';
import { webhookHeaders } from '../../domain/webhooks/signature';
import { withClientSpan } from '../outbound/client-span';
import { blockedTarget, outboundLookup } from '../outbound/public-targets';
import { errorFromAnswer, excerpt } from './http-errors';
import { storableText } from '../../domain/storable-text';
import { ExportError, type AccountingIntegration, type ExportInput, type ExportResult } from './port';

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export type GenericHttpSettings = {
  url: string;
  /** whsec_… (base64 key), the same format as webhook endpoint secrets. */
  secret: string;
  timeoutMs?: number;
  /** Allow loopback/private/link-local targets (development and tests only). Default false. */
  allowPrivateTargets?: boolean;
};

export function createGenericHttpIntegration(settings: GenericHttpSettings): AccountingIntegration {
  const target = new URL(settings.url);
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error('The generic integration url must be http(s).');
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const allowPrivateTargets = settings.allowPrivateTargets ?? false;

  return {
    provider: 'generic_http',
    async exportPurchase(input: ExportInput, options: { idempotencyKey: string }): Promise<ExportResult> {
      const body = JSON.stringify({ idempotency_key: options.idempotencyKey, document: input.document, supplier: input.supplier });
      const headers = webhookHeaders([settings.secret], options.idempotencyKey, Math.floor(Date.now() / 1000), body);
      const answer = await post(target, { ...headers, accept: 'application/json', 'user-agent': 'document-invoicing-exports/1' }, body, {
        timeoutMs,
        allowPrivateTargets,
      });

      if (answer.status < 200 || answer.status > 299) {
        const parsed = parseJson(answer.text) as { message?: unknown; error?: unknown; code?: unknown } | undefined;
        const raw = parsed && typeof parsed === 'object' ? (parsed.message ?? parsed.error) : undefined;
        const message = typeof raw === 'string' ? raw : excerpt(answer.text);
        const providerCode = parsed && typeof parsed === 'object' && parsed.code !== undefined && parsed.code !== null ? String(parsed.code) : undefined;
        throw errorFromAnswer('The ERP', { status: answer.status, header: answer.header, message, providerCode });
      }
      const parsed = parseJson(answer.text) as { id?: unknown; number?: unknown; name?: unknown } | undefined;
      const id = scalar(parsed?.id);
      const number = scalar(parsed?.number);
      if (!parsed || typeof parsed !== 'object' || id === null || number === null) {
        throw new ExportError('unexpected_response', `The ERP answered HTTP ${answer.status} without { id, number }: ${excerpt(answer.text, 120)}`, {
          status: answer.status,
        });
      }
      const name = parsed.name === undefined || parsed.name === null ? null : scalar(parsed.name);
      return { externalId: id, externalNumber: number, externalName: name };
    },
  };
}

/** A usable id, number or name: a number, or a string with printable text (not blanks or control characters alone). */
function scalar(value: unknown): string | null {
  if (typeof value === 'string' && storableText(value, 1) !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

type Answer = { status: number; header: (name: string) => string | null; text: string };

function post(target: URL, headers: Record<string, string>, body: string, options: { timeoutMs: number; allowPrivateTargets: boolean }): Promise<Answer> {
  const blocked = blockedTarget(target, options.allowPrivateTargets);
  if (blocked) {
    return Promise.reject(new ExportError('validation_failed', `The ERP url points at ${blocked}.`));
  }
  const transport = target.protocol === 'https:' ? https : http;
  const payload = Buffer.from(body, 'utf8');

  const send = (traceHeaders: Record<string, string>) => new Promise<Answer>((resolve, reject) => {
    let settled = false;
    const finish = (error: ExportError | null, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const request = transport.request(target, {
      method: 'POST',
      headers: { ...headers, ...traceHeaders, 'content-length': String(payload.length) },
      lookup: outboundLookup(options.allowPrivateTargets),
      agent: false,
    });
    const deadline = setTimeout(
      () => finish(new ExportError('timeout', `The ERP did not answer within ${options.timeoutMs} ms.`)),
      options.timeoutMs,
    );
    request.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ETARGETBLOCKED') finish(new ExportError('validation_failed', error.message, { cause: error }));
      else finish(new ExportError('unavailable', `Could not reach the ERP: ${error.code ?? error.message}`, { cause: error }));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const header = (name: string) => {
        const value = response.headers[name.toLowerCase()];
        return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
      };
      if (status >= 300 && status < 400) {
        finish(new ExportError('unexpected_response', `The ERP answered HTTP ${status}; redirects are not followed.`, { status }));
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) {
          if (status >= 200 && status < 300) {
            finish(new ExportError('unexpected_response', `The ERP answer exceeds ${MAX_RESPONSE_BYTES} bytes.`, { status }));
          } else {
            finish(null, { status, header, text: Buffer.concat(chunks).toString('utf8') });
          }
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => finish(null, { status, header, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => finish(new ExportError('unavailable', `The ERP connection failed mid-answer: ${error.message}`, { cause: error })));
    });
    request.end(payload);
  });
  return withClientSpan({ method: 'POST', url: target, peer: 'accounting' }, send, (answer) => ({ status: answer.status }));
}

