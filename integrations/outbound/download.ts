import http from 'node:http';
import https from 'node:https';
import { blockedTarget, outboundLookup } from './public-targets';

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
  constructor(
    message: string,
    /** Network failures, timeouts and HTTP 5xx/429 may work later; a blocked target or 4xx will not. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * GET of a file at a URL a third party gave us (DIAN's bulk-download link), under the outbound
 * policy: without allowPrivateTargets the address actually connected to must be public (DNS
 * rebinding included), under OUTBOUND_ALLOW_ONLY_LOOPBACK only loopback. Redirects are not
 * followed; the body is limited to maxBytes and the whole exchange to timeoutMs.
 */
export function downloadOutbound(url: string, options: { allowPrivateTargets: boolean; timeoutMs: number; maxBytes: number }): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new DownloadError(`not a URL: ${url}`, false));
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return Promise.reject(new DownloadError(`unsupported protocol ${target.protocol}`, false));
  const blocked = blockedTarget(target, options.allowPrivateTargets);
  if (blocked) return Promise.reject(new DownloadError(`ETARGETBLOCKED: the link points at ${blocked}`, false));
  const transport = target.protocol === 'https:' ? https : http;

  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const finish = (error: DownloadError | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      if (error) reject(error);
      else resolve(body!);
    };
    const request = transport.get(target, { lookup: outboundLookup(options.allowPrivateTargets), agent: false, headers: { 'user-agent': 'document-invoicing/1' } });
    const deadline = setTimeout(() => finish(new DownloadError(`timed out after ${options.timeoutMs} ms`, true)), options.timeoutMs);
    request.on('error', (error: Error & { code?: string }) => finish(new DownloadError(`${error.code ?? 'error'}: ${error.message}`, error.code !== 'ETARGETBLOCKED')));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        finish(new DownloadError(`HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`, status >= 500 || status === 429));
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) finish(new DownloadError(`the file exceeds ${options.maxBytes} bytes`, false));
        else chunks.push(chunk);
      });
      response.on('end', () => finish(null, Buffer.concat(chunks)));
      response.on('error', (error) => finish(new DownloadError(error.message, true)));
    });
  });
}
