import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import Busboy from 'busboy';
import { ApiError, invalidParameter } from '../../errors';
import { requestAborted } from '../../middleware/json-body';
import { watchBodyPace, type BodyPace } from '../../body-pace';
import { continueIfAwaited } from '../../expect-continue';
import { multipartFileName } from '../../../domain/files/multipart-file-name';

export type MultipartUpload = { fileName: string; bytes: Buffer; fields: Record<string, string> };

const malformed = (error: Error) => new ApiError(400, 'invalid_multipart', `The multipart body is malformed: ${error.message}.`);

/**
 * Reads one file (field `file`) and small text fields from a multipart/form-data body, refusing
 * anything over the size limit as soon as it is exceeded, and a body that arrives slower than the
 * API's pace (408 request_timeout, api/body-pace.ts) as soon as it falls behind.
 *
 * Every way the body can go wrong settles the promise exactly once: a malformed or truncated body
 * (busboy's error, on itself or on the file stream), a client that disconnects mid-upload (the
 * request closes before it is complete), a file over the limit and a body too slow. On failure
 * the parser is destroyed, the request is unpiped and drained (the error answer closes the
 * connection, see errorHandler), and the bytes read so far are dropped: nothing has been stored yet.
 */
export function readMultipartFile(request: IncomingMessage, contentType: string, maxBytes: number, pace: BodyPace): Promise<MultipartUpload> {
  if (!/^multipart\/form-data/i.test(contentType)) {
    return Promise.reject(new ApiError(415, 'unsupported_media_type', 'Upload files as multipart/form-data with the file in the field "file".'));
  }
  if (request.destroyed) return Promise.reject(requestAborted()); // gone while earlier middleware ran
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      // defParamCharset latin1: filename="…"'s bytes as they came, one character each, for
      // multipartFileName to read as UTF-8 (curl, browsers) or, when they are not, as Latin-1.
      busboy = Busboy({ headers: request.headers, defParamCharset: 'latin1', limits: { files: 1, fileSize: maxBytes, fields: 10, fieldSize: 1024 } });
    } catch (error) {
      request.resume();
      reject(malformed(error as Error));
      return;
    }
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const streams = new Set<Readable>();
    let chunks: Buffer[] = [];
    let file: { fileName: string; bytes: Buffer } | null = null;
    let settled = false;

    const settle = (error: ApiError | null) => {
      if (settled) return;
      settled = true;
      stopPace();
      request.off('close', onRequestClose);
      request.off('error', onRequestClose);
      if (error) {
        request.unpipe(busboy);
        chunks = [];
        // Not from inside busboy's own event (it still touches its file stream after emitting 'limit').
        setImmediate(() => {
          for (const stream of streams) stream.destroy();
          busboy.destroy();
        });
        if (!request.destroyed) request.resume(); // discard the rest; the answer closes the connection
        reject(error);
        return;
      }
      if (!file) return reject(new ApiError(400, 'invalid_parameter', 'Send the file in the multipart field "file".', 'file'));
      resolve({ ...file, fields });
    };
    // The request can end (complete) or close early (client gone); only the latter is a failure.
    const onRequestClose = () => {
      if (!request.complete) settle(requestAborted());
    };

    // busboy calls these from inside its parser: a throw here would escape every handler and end
    // the process, so every shape a part can have (no name at all included) is answered here.
    busboy.on('field', (name: string | undefined, value) => {
      if (name === undefined) {
        settle(new ApiError(400, 'invalid_multipart', 'The multipart body is malformed: a part has no name (Content-Disposition: form-data; name="…").'));
        return;
      }
      // As for a repeated query parameter: which of two values was meant is not ours to guess.
      const param = name.slice(0, 40);
      if (Object.hasOwn(fields, name)) settle(invalidParameter(param, `${param} must be given once.`));
      else fields[name] = value;
    });
    busboy.on('file', (name, stream, info) => {
      streams.add(stream);
      // Errors on the file stream (a body cut before its boundary) are also busboy's errors:
      // this listener only keeps them from being unhandled.
      stream.on('error', (error: Error) => settle(malformed(error)));
      if (name !== 'file' || file !== null) {
        stream.resume();
        return;
      }
      stream.on('data', (chunk: Buffer) => {
        if (!settled) chunks.push(chunk);
      });
      stream.on('limit', () => settle(new ApiError(413, 'file_too_large', `Files are limited to ${maxBytes / (1024 * 1024)} MB.`)));
      const fileName = multipartFileName(info.filename ?? '');
      if (fileName === null) {
        settle(invalidParameter('file', "The file name's bytes are not valid in the charset its filename* declares; send it as UTF-8."));
        return;
      }
      stream.on('end', () => {
        if (!settled) file = { fileName: fileName || 'upload', bytes: Buffer.concat(chunks) };
        chunks = [];
      });
    });
    // A second file part: which one was meant is not ours to guess either (busboy reads one).
    busboy.on('filesLimit', () => settle(invalidParameter('file', 'Send one file per request, in the field "file".')));
    busboy.on('error', (error: Error) => settle(malformed(error)));
    busboy.on('close', () => settle(null));
    request.on('close', onRequestClose);
    request.on('error', onRequestClose);
    request.pipe(busboy);
    const stopPace = watchBodyPace(request, pace, settle);
    continueIfAwaited(request);
  });
}
