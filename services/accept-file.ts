import { createHash, randomUUID } from 'node:crypto';
import { countUpload } from '../config/outcome-metrics';
import { isUniqueViolation } from '../db/errors';
import type { Repositories } from '../db/repositories';
import type { UploadedFileRow } from '../db/repositories/uploaded-files';
import { describeFileType } from '../domain/ingestion/plan-import';
import { detectFileType } from '../domain/files/detect';
import { keySegment, type BlobStore } from '../storage/blob-store';
import type { TemporalTarget } from '../temporal/start-workflow';
import { startImport, type FileToImport } from './start-import';

/** Largest accepted file (documented in docs/ingestion.md). */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

export type IntakeDependencies = {
  repositories: Repositories;
  blobStore: BlobStore;
  temporal: TemporalTarget;
};

export type IncomingFile = {
  companyId: number;
  type: UploadedFileRow['type'];
  fileName: string;
  bytes: Buffer;
  kindHint?: string | null;
  idempotencyKey?: string | null;
  dianImportationId?: number | null;
  sourceMessageKey?: string | null;
  /** false: only store the file; the caller runs importFileWorkflow itself (a DIAN import run awaits it as a child). */
  startImport?: boolean;
};

export class IntakeError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/**
 * How every file enters (API upload, e-mail, CLI, tax-authority import): the bytes are in the
 * blob store and the uploaded-file row exists before anything else happens, then the import
 * workflow starts. With an idempotency key, a repeated call returns the first file.
 */
export async function acceptFile(deps: IntakeDependencies, incoming: IncomingFile): Promise<{ file: UploadedFileRow; replayed: boolean }> {
  try {
    const accepted = await storeAndStartImport(deps, incoming);
    countUpload(incoming.type, accepted.replayed ? 'replayed' : 'accepted');
    return accepted;
  } catch (error) {
    // Infrastructure faults (storage, database, Temporal) are not an outcome of the file: the
    // caller answers 5xx and the client retries.
    if (error instanceof IntakeError) countUpload(incoming.type, 'rejected');
    throw error;
  }
}

async function storeAndStartImport(deps: IntakeDependencies, incoming: IncomingFile): Promise<{ file: UploadedFileRow; replayed: boolean }> {
  if (incoming.bytes.length === 0) throw new IntakeError(400, 'empty_file', 'The file is empty.');
  if (incoming.bytes.length > MAX_FILE_BYTES) {
    throw new IntakeError(413, 'file_too_large', `Files are limited to ${MAX_FILE_BYTES / (1024 * 1024)} MB.`);
  }
  const fileType = detectFileType(incoming.bytes);
  if (!fileType) throw new IntakeError(415, 'unsupported_file_type', 'Only XML, ZIP and PDF files are accepted (detected from the content, not the name).');
  const sha256 = createHash('sha256').update(incoming.bytes).digest('hex');
  const { extension, contentType } = describeFileType(fileType);
  const fileName = cleanFileName(incoming.fileName, extension);
  const request: UploadRequest = { sha256, fileName, kindHint: incoming.kindHint ?? null };

  if (incoming.idempotencyKey) {
    const earlier = await deps.repositories.uploadedFiles.findByIdempotencyKey(incoming.companyId, incoming.idempotencyKey);
    if (earlier) return { file: await replay(deps, earlier, request, incoming.startImport !== false), replayed: true };
  }

  const blobKey = blobKeyFor(incoming, fileName, sha256, extension);
  await deps.blobStore.put(blobKey, incoming.bytes, contentType);
  let file: UploadedFileRow;
  try {
    file = await deps.repositories.uploadedFiles.insert({
      company_id: incoming.companyId,
      type: incoming.type,
      file_name: fileName,
      extension,
      content_type: contentType,
      size: incoming.bytes.length,
      sha256,
      blob_key: blobKey,
      kind_hint: incoming.kindHint ?? null,
      idempotency_key: incoming.idempotencyKey ?? null,
      dian_importation_id: incoming.dianImportationId ?? null,
      source_message_key: incoming.sourceMessageKey ?? null,
    });
  } catch (error) {
    // Concurrent requests with one idempotency key: the first insert wins, the others answer like a
    // replay (or 409 for other bytes).
    const earlier =
      isUniqueViolation(error) && incoming.idempotencyKey
        ? await deps.repositories.uploadedFiles.findByIdempotencyKey(incoming.companyId, incoming.idempotencyKey)
        : undefined;
    // The blob just stored is nobody's when no row will point at it: a plain upload that was not
    // recorded, or an idempotent one that lost to other bytes. (An idempotent blob with the winner's
    // bytes is the winner's own; one left by another failure is what the client's retry reuses.)
    // Removing it is best effort: the answer is about the upload, not the cleanup.
    if (!incoming.idempotencyKey || (earlier && earlier.blob_key !== blobKey)) await deps.blobStore.delete(blobKey).catch(() => undefined);
    if (earlier) return { file: await replay(deps, earlier, request, incoming.startImport !== false), replayed: true };
    throw error;
  }
  if (incoming.startImport !== false) await startImport(deps, fileToImport(file));
  return { file, replayed: false };
}

/** The row's size is a bigint column, which pg returns as a string. */
function fileToImport(file: UploadedFileRow): FileToImport {
  return { fileId: file.id, companyId: file.company_id, sizeBytes: Number(file.size) };
}

/** What an idempotent upload must repeat exactly to be answered with the first one's file. */
type UploadRequest = { sha256: string; fileName: string; kindHint: string | null };

/**
 * The first request's file, when this one is the same request again (Stripe's rule: a key used
 * with other parameters is an error, never a silent answer about another request). A retry that
 * corrected the kind or the name would otherwise get the first file's document type back.
 */
async function replay(deps: IntakeDependencies, earlier: UploadedFileRow, request: UploadRequest, start: boolean): Promise<UploadedFileRow> {
  const differences = [
    earlier.sha256 !== request.sha256 ? 'the file' : null,
    earlier.file_name !== request.fileName ? `the file name (first ${JSON.stringify(earlier.file_name)})` : null,
    (earlier.kind_hint ?? null) !== request.kindHint ? `the kind (first ${earlier.kind_hint ?? 'none'})` : null,
  ].filter((difference) => difference !== null);
  if (differences.length > 0) {
    throw new IntakeError(409, 'idempotency_key_reused', `This Idempotency-Key was already used for a different request; what differs: ${differences.join(', ')}.`);
  }
  if (start) await startImport(deps, fileToImport(earlier)); // a first attempt may have stored the file but not started its import
  return earlier;
}

/**
 * Where the bytes go. A random key for a plain upload. With an idempotency key the name is derived
 * from the key and the content, so concurrent or retried requests with one key and one file (even
 * after a crash between storing and recording) write the same blob instead of one each.
 */
function blobKeyFor(incoming: IncomingFile, fileName: string, sha256: string, extension: string): string {
  const prefix = `companies/${incoming.companyId}/uploads`;
  if (!incoming.idempotencyKey) return `${prefix}/${randomUUID()}-${keySegment(fileName)}`;
  const keyDigest = createHash('sha256').update(incoming.idempotencyKey).digest('hex').slice(0, 32);
  return `${prefix}/idempotent-${keyDigest}-${sha256}.${extension}`;
}

/**
 * Keeps the name people gave the file, minus paths, control characters and bidirectional
 * controls (Unicode's Bidi_Control: "factura\u202Efdp.exe" displays as "facturaexe.pdf", an
 * extension spoof wherever the name is shown or saved), ending in the extension of what the file
 * is: a name that does not already (in any case) gets it added, so a download opens as what it is
 * (an XML sent as "factura.html" is kept as "factura.html.xml").
 */
function cleanFileName(name: string, extension: string): string {
  const base = name.split(/[\\/]/).pop()!.replace(/[\x00-\x1f\x7f-\x9f]|\p{Bidi_Control}/gu, '').trim().slice(0, 200);
  if (!base) return `file.${extension}`;
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`;
}
