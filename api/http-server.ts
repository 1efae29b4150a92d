import http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import type { ErrorBody } from './errors';
import { newRequestId } from './middleware/request-id';
import { withholdContinue } from './expect-continue';
import { isSmallDeclaredBody } from './middleware/unread-body';

/** What Node's parser refuses before Koa sees a request, answered with the JSON error body. */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'headers_too_large',
    message: 'The request headers are larger than the server accepts (16 KiB in all).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'request_timeout',
    message: 'The request did not arrive in time.',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    reason: 'Payload Too Large',
    code: 'payload_too_large',
    message: 'The chunk extensions are larger than the server accepts.',
  },
};
const MALFORMED = { status: 400, reason: 'Bad Request', code: 'malformed_request', message: 'The request is not valid HTTP/1.1.' };
const URI_TOO_LONG = {
  status: 414,
  reason: 'URI Too Long',
  code: 'uri_too_long',
  message: 'The request line (method and URL) is longer than the server accepts (16 KiB with the headers).',
};

/**
 * Whether a header overflow is the request line's (414) rather than the headers' (431). Node
 * hands over the chunk being parsed (rawPacket) and where in it the parser stopped (bytesParsed):
 * the end of the part whose bytes went over maxHeaderSize. When the URL went over, the request
 * line's version follows there (" HTTP/"), wherever the request starts in the chunk (after a
 * pipelined request, or a head's earlier pieces); a header went over at its CRLF or colon. The
 * chunk can end first (a URL still arriving when the limit passed): then the line overflowed when
 * the chunk is a request's start without a line end (a method and a space: how clients write a
 * head, at once). Anything else stays 431: a URL trickling in small pieces, the limit passing
 * inside one that does not end it, cannot be told from a long header (Node hands the bytes to
 * its parser directly, so nothing else sees them).
 */
export function requestLineOverflowed(rawPacket: Buffer | undefined, bytesParsed: number | undefined, maxHeaderSize: number): boolean {
  if (!rawPacket) return false;
  if (bytesParsed !== undefined && rawPacket.toString('latin1', bytesParsed, bytesParsed + VERSION_AFTER_URL.length) === VERSION_AFTER_URL) return true;
  const space = rawPacket.indexOf(0x20);
  if (space <= 0 || !http.METHODS.includes(rawPacket.toString('latin1', 0, space))) return false;
  const lineEnd = rawPacket.indexOf('\r\n');
  return lineEnd === -1 || lineEnd > maxHeaderSize;
}

/** What follows the URL on a request line. */
const VERSION_AFTER_URL = ' HTTP/';

/** How long a refused CONNECT's socket stays, for its client to read the answer. */
export const CONNECT_LINGER_MS = 2_000;
const NO_TUNNEL = {
  status: 405,
  reason: 'Method Not Allowed',
  code: 'method_not_allowed',
  message: 'CONNECT is not supported: this server is an API, not a proxy.',
};

/** The error body of an answer given outside the app (docs/errors.md). */
const errorJson = (answer: { code: string; message: string }) => JSON.stringify({ error: { code: answer.code, message: answer.message } } satisfies ErrorBody);

/** An error answer written on the socket itself (no ServerResponse exists); the connection closes. */
function rawAnswer(answer: { status: number; reason: string; code: string; message: string }, requestId: string, headers: Record<string, string> = {}): string {
  const json = errorJson(answer);
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return (
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\n${extra}` +
    `X-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`
  );
}

const MISSING_HOST = { status: 400, code: 'malformed_request', message: 'An HTTP/1.1 request must carry a Host header.' };
const AMBIGUOUS_HOST = { status: 400, code: 'malformed_request', message: 'A request must carry at most one Host header, whose value is a host name or address and an optional port.' };

/**
 * RFC 9112 §3.2: a server MUST answer 400 to a request with more than one Host header line or an
 * invalid Host value (uri-host [":" port], RFC 3986; empty is allowed). Node keeps the first of
 * two Host lines and takes any value: a proxy that routes by the last one and this server would
 * read one request as addressed to two hosts, the ambiguity request smuggling is built on.
 */
// An IP literal in brackets may carry a zone (RFC 6874, `[fe80::1%25eth0]`) or be IPvFuture (`[v1.x]`).
const HOST_VALUE = /^(\[[0-9A-Za-z:.%~_+!$&'()*,;=-]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(:[0-9]*)?$/;
function hostIsAmbiguous(request: http.IncomingMessage): boolean {
  const hosts = request.headersDistinct.host ?? [];
  return hosts.length > 1 || (hosts.length === 1 && !HOST_VALUE.test(hosts[0]));
}
const UNSUPPORTED_EXPECTATION = { status: 417, code: 'expectation_failed', message: 'The Expect header can only be 100-continue.' };

/** An error answered before the app (which would add the request id and the body itself); the connection closes. */
function answerBeforeTheApp(response: http.ServerResponse, answer: { status: number; code: string; message: string }): void {
  const json = errorJson(answer);
  response.writeHead(answer.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': newRequestId(),
    'Content-Length': Buffer.byteLength(json),
    Connection: 'close',
  });
  response.end(json);
}

/**
 * Node's deadlines for a request, from the configuration: its headers within headersMs (Node's
 * default, 60 s, let a client dripping header bytes hold a socket a minute), the whole request
 * within requestMs. Node looks for expired requests every connectionsCheckingInterval (30 s by
 * default, so a deadline could pass by up to 30 s); once a second here.
 */
export function httpServerTimeouts(timeouts: AppConfig['http']['timeouts']): http.ServerOptions {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
  };
}

/**
 * The API's HTTP server: the Koa app, plus a `clientError` handler so a request Node's parser
 * refuses (a request line over 16 KiB, headers over 16 KiB, a garbled request line or header, a
 * body framing error) gets the JSON error body and its status (414, 431, 400, 408) rather than
 * Node's bare reply, then the connection closes.
 */
export function createHttpServer(app: Koa, logger: Logger, options: http.ServerOptions = {}): http.Server {
  const handle = app.callback();
  // Node answers an HTTP/1.1 request without Host, and an Expect it does not know, itself, with
  // an empty body: both are answered here with the JSON error body instead.
  const dispatch = (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      answerBeforeTheApp(response, MISSING_HOST);
      return;
    }
    if (hostIsAmbiguous(request)) {
      answerBeforeTheApp(response, AMBIGUOUS_HOST);
      return;
    }
    void handle(request, response);
  };
  const server = http.createServer({ ...options, requireHostHeader: false }, dispatch);
  // With this listener Node no longer answers 100 Continue by itself. A large body's 100 waits for
  // its reader (api/expect-continue.ts), after the request's checks; a small one's goes at once, as
  // Node sent it: an early answer drains a small body (unread-body.ts), and closing instead would
  // risk a reset eating the answer of a client that sent its body without waiting.
  server.on('checkContinue', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (isSmallDeclaredBody(request)) response.writeContinue();
    else withholdContinue(request, response);
    dispatch(request, response);
  });
  server.on('checkExpectation', (_request: http.IncomingMessage, response: http.ServerResponse) => answerBeforeTheApp(response, UNSUPPORTED_EXPECTATION));
  // Node gives CONNECT to a 'connect' listener and, with none, destroys the socket: the client
  // got no answer at all. The API is no proxy: CONNECT is refused like any method it lacks.
  // The socket leaves the server's timeouts with the CONNECT, and end() only half-closes it: a
  // client that never closed its side held the descriptor for ever. What it sends is dropped, and
  // the socket destroyed once it has had time to read the answer.
  server.on('connect', (_request: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    if (!socket.writable) return void socket.destroy();
    socket.resume();
    socket.end(rawAnswer(NO_TUNNEL, newRequestId(), { Allow: '' }));
    setTimeout(() => socket.destroy(), CONNECT_LINGER_MS).unref();
  });
  const maxHeaderSize = options.maxHeaderSize ?? http.maxHeaderSize;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nobody to answer (the peer reset), or an answer is already under way: just close.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: http.ServerResponse })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const overflow = error.code === 'HPE_HEADER_OVERFLOW';
    const { rawPacket, bytesParsed } = error as { rawPacket?: Buffer; bytesParsed?: number };
    const answer = overflow && requestLineOverflowed(rawPacket, bytesParsed, maxHeaderSize)
      ? URI_TOO_LONG
      : (CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED);
    // Every error carries a request id (docs/errors.md), these too: the parser never read one from the request.
    const requestId = newRequestId();
    logger.debug({ code: error.code, status: answer.status, requestId }, 'refused unparseable request');
    socket.end(rawAnswer(answer, requestId));
  });
  return server;
}
