import type { IncomingMessage } from 'node:http';
import Busboy from 'busboy';
import { ApiError } from '../../errors';

export type MultipartUpload = { fileName: string; bytes: Buffer; fields: Record<string, string> };

/**
 * Reads one file (field `file`) and small text fields from a multipart/form-data body, refusing
 * anything over the size limit as soon as it is exceeded.
 */
export function readMultipartFile(request: IncomingMessage, contentType: string, maxBytes: number): Promise<MultipartUpload> {
  if (!/^multipart\/form-data/i.test(contentType)) {
    return Promise.reject(new ApiError(415, 'unsupported_media_type', 'Upload files as multipart/form-data with the file in the field "file".'));
  }
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: request.headers, limits: { files: 1, fileSize: maxBytes, fields: 10, fieldSize: 1024 } });
    } catch (error) {
      reject(new ApiError(400, 'invalid_multipart', `The multipart body is malformed: ${(error as Error).message}.`));
      return;
    }
    const fields: Record<string, string> = {};
    let file: { fileName: string; bytes: Buffer } | null = null;
    let failure: ApiError | null = null;

    busboy.on('field', (name, value) => {
      fields[name] = value;
    });
    busboy.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        failure = new ApiError(413, 'file_too_large', `Files are limited to ${maxBytes / (1024 * 1024)} MB.`);
      });
      stream.on('end', () => {
        file = { fileName: info.filename || 'upload', bytes: Buffer.concat(chunks) };
      });
    });
    busboy.on('error', (error: Error) => reject(new ApiError(400, 'invalid_multipart', `The multipart body is malformed: ${error.message}.`)));
    busboy.on('close', () => {
      if (failure) return reject(failure);
      if (!file) return reject(new ApiError(400, 'invalid_parameter', 'Send the file in the multipart field "file".', 'file'));
      resolve({ ...file, fields });
    });
    request.pipe(busboy);
  });
}
