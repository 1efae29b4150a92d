import { ExportError } from './port';

/** Upper bound for a server-provided wait, so a hostile or broken header cannot park a job for days. */
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns milliseconds, or
 * undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/** Seconds-until-reset headers such as Alegra's X-Rate-Limit-Reset. */
export function parseResetSeconds(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  return Math.min(Math.ceil(Number(value.trim()) * 1000), MAX_RETRY_AFTER_MS);
}

export type ErrorAnswer = {
  status: number;
  /** Lower-case header lookup. */
  header: (name: string) => string | null;
  /** The provider's message, already extracted from the body (may be empty). */
  message: string;
  providerCode?: string;
  /** Set by the adapter when the body says "this document already exists". */
  duplicate?: boolean;
};

/**
 * The common HTTP status → ExportError mapping:
 * 401/403 → invalid_credentials; 400/422 → validation_failed (or duplicate_document when the
 * adapter recognised a duplicate); 409 → duplicate_document; 429 → rate_limited (Retry-After
 * honoured); 5xx → unavailable (Retry-After honoured when given); anything else
 * (3xx, 402, 404, ...) → unexpected_response.
 */
export function errorFromAnswer(provider: string, answer: ErrorAnswer, fallbackRetryAfterMs?: number): ExportError {
  const { status } = answer;
  const suffix = answer.message ? `: ${answer.message}` : '';
  const details = { status, providerCode: answer.providerCode };
  if (status === 401 || status === 403) {
    return new ExportError('invalid_credentials', `${provider} rejected the credentials (HTTP ${status})${suffix}`, details);
  }
  if (answer.duplicate || status === 409) {
    return new ExportError('duplicate_document', `${provider} already has this document (HTTP ${status})${suffix}`, details);
  }
  if (status === 400 || status === 422) {
    return new ExportError('validation_failed', `${provider} rejected the document (HTTP ${status})${suffix}`, details);
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(answer.header('retry-after')) ?? fallbackRetryAfterMs;
    return new ExportError('rate_limited', `${provider} rate limit reached (HTTP 429)${suffix}`, { ...details, retryAfterMs });
  }
  if (status >= 500 && status <= 599) {
    const retryAfterMs = parseRetryAfter(answer.header('retry-after'));
    return new ExportError('unavailable', `${provider} is unavailable (HTTP ${status})${suffix}`, { ...details, retryAfterMs });
  }
  return new ExportError('unexpected_response', `${provider} answered HTTP ${status}${suffix}`, details);
}

/** Short, single-line excerpt of a response body for messages (never the whole body). */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
