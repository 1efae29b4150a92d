import type { Logger } from 'pino';

/** Error codes of a connection or stream that failed on its own: one request's trouble, not the process's. */
const STREAM_ERROR_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);
/** busboy's parse errors (multipart bodies cut short or malformed), which carry no code. */
const BODY_PARSER_MESSAGES = /^(Unexpected end of (form|file)|Malformed (part header|urlencoded form))$/;

export function isStrayStreamError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && (STREAM_ERROR_CODES.has(code) || code.startsWith('HPE_'))) return true;
  return BODY_PARSER_MESSAGES.test(error.message);
}

/**
 * The last line of defence for long-running processes (the API, `npm start`): an `error` event
 * on a stream nobody listens to — a socket reset, a request body cut short — is logged with its
 * stack and the process keeps serving everyone else. Anything else (a TypeError, a failed
 * assertion: a bug) is logged as fatal and the process exits 1 as Node would, so a supervisor
 * restarts it and the bug is not hidden. Unhandled rejections reach this handler too (Node's
 * default `--unhandled-rejections=throw`).
 */
export function installProcessSafetyNet(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  process.on('uncaughtException', (error, origin) => {
    if (isStrayStreamError(error)) {
      logger.error({ err: error, origin }, 'stray stream error survived (no listener handled it); the process keeps running');
      return;
    }
    logger.fatal({ err: error, origin }, 'uncaught exception; exiting');
    exit(1);
  });
}
