import { performance } from 'node:perf_hooks';
import type { BenchFile } from './inputs';

export type UploadedFile = { fileId: number; startedAt: number; answeredAt: number };

/** POST /v1/companies/{id}/files as multipart (field `file`, optional `kind`); anything but 202 throws. */
export async function uploadFile(apiUrl: string, authorization: string, companyId: number, file: BenchFile): Promise<UploadedFile> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.contentType }), file.name);
  if (file.kind) form.append('kind', file.kind);
  const startedAt = performance.now();
  const response = await fetch(`${apiUrl}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { authorization },
    body: form,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  const answeredAt = performance.now();
  if (response.status !== 202) throw new Error(`upload of ${file.name} answered ${response.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { id?: unknown };
  if (typeof body.id !== 'number') throw new Error(`upload of ${file.name} answered 202 without a numeric id: ${text.slice(0, 500)}`);
  return { fileId: body.id, startedAt, answeredAt };
}

/**
 * Uploads every file with at most `concurrency` requests in flight (each worker takes the next
 * file as soon as its previous upload is answered). The first failure stops new uploads and
 * is rethrown once the in-flight ones have settled.
 */
export async function uploadAll(
  files: readonly BenchFile[],
  concurrency: number,
  upload: (file: BenchFile) => Promise<UploadedFile>,
): Promise<UploadedFile[]> {
  const results: UploadedFile[] = new Array(files.length);
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < files.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await upload(files[index]);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  if (failure !== undefined) throw failure;
  return results;
}
