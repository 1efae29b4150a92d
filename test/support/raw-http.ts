import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export type RawAnswer = { status: number; headers: Record<string, string>; body: any };

/**
 * One HTTP/1.1 exchange written byte for byte on a fresh socket (what fetch will not send:
 * truncated bodies, lying lengths, odd methods, huge headers). Resolves with the parsed answer,
 * or null when the server closed without one. The request should say `Connection: close`.
 */
export function rawExchange(url: string, request: string | Buffer): Promise<RawAnswer | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => undefined); // the server may reset after answering
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(received)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(request); // no half-close: Node's server would drop the exchange unanswered
  });
}

/**
 * A slow client: writes `head`, then `chunk` every `everyMs` (nothing more when chunk is null) until
 * the server closes the connection; resolves with its answer (null: none), how long until the
 * server closed (ms) and until the answer's first byte arrived (answeredMs; null: none).
 * After `giveUpMs` the client closes itself.
 */
export function dripRequest(
  url: string,
  head: string,
  chunk: Buffer | null,
  options: { everyMs?: number; giveUpMs: number },
): Promise<{ answer: RawAnswer | null; ms: number; answeredMs: number | null }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  let answeredMs: number | null = null;
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on('data', (data) => {
      answeredMs ??= Date.now() - started;
      received.push(data);
    });
    socket.on('error', () => undefined);
    const trickle = chunk ? setInterval(() => socket.writable && socket.write(chunk), options.everyMs ?? 1_000) : undefined;
    const giveUp = setTimeout(() => socket.destroy(), options.giveUpMs);
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      resolve({ answer: parseAnswer(Buffer.concat(received)), ms: Date.now() - started, answeredMs });
    });
    socket.write(head);
  });
}

/** Sends the head and `sentBytes` of a body announced as larger, then drops the connection. */
export function abortedUpload(url: string, head: (contentLength: number) => string, announced: number, sentBytes: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.write(head(announced));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < sentBytes) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      socket.destroy();
    };
    pump();
  });
}

function parseAnswer(raw: Buffer): RawAnswer | null {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return null;
  const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body: string = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    // not JSON: keep the text
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsed };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** Every file under a directory (none when it does not exist). */
export async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}
