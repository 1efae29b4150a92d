import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { S3Client } from '@aws-sdk/client-s3';
import { mapError } from '../../api/errors';
import { freePort } from '../../scripts/embedded/ports';
import { BlobNotFoundError, BlobStoreFullError, BlobStoreUnavailableError, type BlobStore } from '../../storage/blob-store';
import { FilesystemBlobStore, STALE_TEMPORARY_MS, TEMPORARY_FOLDER } from '../../storage/filesystem-blob-store';
import { S3BlobStore } from '../../storage/s3-blob-store';

// What the blob stores report when the store itself fails, and what the API answers for it: a
// store that cannot be used is 503 service_unavailable naming the file store (was 500
// internal_error, or for S3's ECONNREFUSED "cannot reach its database"); a full one 507.

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('a blob store that cannot be used is 503 service_unavailable naming the file store, with Retry-After; a full one 507', (t) => {
  const unavailable = mapError(new BlobStoreUnavailableError('The file store cannot be used right now (EROFS).', { cause: withCode('EROFS: read-only file system', 'EROFS') }));
  t.like(unavailable, { status: 503, body: { error: { code: 'service_unavailable' } }, unexpected: false });
  t.regex(unavailable.body.error.message, /file store.*nothing was stored/);
  t.is(unavailable.headers['Retry-After'], '5');
  t.like(mapError(new BlobStoreFullError('full', { cause: withCode('ENOSPC', 'ENOSPC') })), { status: 507, body: { error: { code: 'insufficient_storage' } } });
  // Out of descriptors wherever it shows (a database connection too): a fault of load, not a bug.
  t.like(mapError(withCode('connect EMFILE 127.0.0.1:5432 - Local (undefined:undefined)', 'EMFILE')), { status: 503, body: { error: { code: 'service_unavailable' } }, unexpected: false });
});

test('the filesystem store: a missing key is not found, not an outage', async (t) => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'blob-faults-'));
  try {
    const store = new FilesystemBlobStore(directory, Buffer.alloc(32), () => 'http://x');
    await t.throwsAsync(store.get('companies/2/uploads/none.xml'), { instanceOf: BlobNotFoundError });
    t.false(await store.exists('companies/2/uploads/none.xml'));
    await store.delete('companies/2/uploads/none.xml');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('filesystem writes go through one temporary folder, and a dead process’s temporary files are swept by a later write', async (t) => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'blob-sweep-'));
  try {
    const store: BlobStore = new FilesystemBlobStore(directory, Buffer.alloc(32), () => 'http://x');
    // What `kill -9` mid-write left: a partial temporary file an hour and more old, and one of a write under way now.
    await mkdir(path.join(directory, TEMPORARY_FOLDER), { recursive: true });
    const stale = path.join(directory, TEMPORARY_FOLDER, 'dead-process.tmp');
    const fresh = path.join(directory, TEMPORARY_FOLDER, 'write-under-way.tmp');
    await writeFile(stale, Buffer.alloc(1024));
    await writeFile(fresh, Buffer.alloc(1024));
    const old = (Date.now() - STALE_TEMPORARY_MS - 60_000) / 1000;
    await utimes(stale, old, old);

    await store.put('companies/1/uploads/a.xml', Buffer.from('<a/>'), 'application/xml');
    t.deepEqual(await store.get('companies/1/uploads/a.xml'), Buffer.from('<a/>'));
    // Nothing is written beside the key any more: a temporary file there would never be found again.
    t.deepEqual(await readdir(path.join(directory, 'companies/1/uploads')), ['a.xml']);
    for (let waited = 0; waited < 2_000 && (await readdir(path.join(directory, TEMPORARY_FOLDER))).includes('dead-process.tmp'); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.deepEqual(await readdir(path.join(directory, TEMPORARY_FOLDER)), ['write-under-way.tmp'], 'the stale one is gone, the fresh one kept');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('filesystem folders are made when a write finds them missing: a new company, a temporary folder removed meanwhile', async (t) => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'blob-folders-'));
  try {
    const store: BlobStore = new FilesystemBlobStore(directory, Buffer.alloc(32), () => 'http://x');
    await store.put('companies/1/uploads/a.xml', Buffer.from('<a/>'), 'application/xml');
    // An operator cleaned up: the temporary folder and a company's folder are gone.
    await rm(path.join(directory, TEMPORARY_FOLDER), { recursive: true });
    await rm(path.join(directory, 'companies/1'), { recursive: true });
    await store.put('companies/1/uploads/b.xml', Buffer.from('<b/>'), 'application/xml');
    await store.put('companies/2/documents/7/representation.pdf', Buffer.from('%PDF'), 'application/pdf');
    t.deepEqual(await store.get('companies/1/uploads/b.xml'), Buffer.from('<b/>'));
    t.deepEqual(await store.get('companies/2/documents/7/representation.pdf'), Buffer.from('%PDF'));
    t.deepEqual(await readdir(path.join(directory, TEMPORARY_FOLDER)), [], 'no temporary file left behind');
    // A folder that cannot be made (a file in its place) is the store's error, and leaves nothing behind.
    await writeFile(path.join(directory, 'companies/3'), 'not a folder');
    await t.throwsAsync(store.put('companies/3/uploads/c.xml', Buffer.from('<c/>'), 'application/xml'));
    t.deepEqual(await readdir(path.join(directory, TEMPORARY_FOLDER)), []);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

/** An S3 store with one attempt per call (the SDK's retries are not what is tested) against `endpoint`. */
function s3Store(endpoint: string): S3BlobStore {
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, maxAttempts: 1, credentials: { accessKeyId: 'k', secretAccessKey: 's' } });
  return new S3BlobStore({ bucket: 'invoicing', region: 'us-east-1', endpoint, forcePathStyle: true, deadlines: { connectMs: 2_000, idleMs: 2_000, operationMs: 20_000, minBytesPerSecond: 128 * 1024 } }, client);
}

/** A stand-in object store answering every request with `status` and an S3 error document of `code`. */
async function answeringS3(status: number, code: string) {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'Content-Type': 'application/xml' });
      response.end(request.method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message><Resource>/invoicing/x</Resource><RequestId>1</RequestId></Error>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('the S3 store reports an unreachable, failing or refusing object store as unavailable, a full MinIO as full, a missing key as not found', async (t) => {
  const unreachable = s3Store(`http://127.0.0.1:${await freePort()}`);
  const put = await t.throwsAsync(unreachable.put('companies/1/uploads/a.xml', Buffer.from('<a/>'), 'application/xml'), { instanceOf: BlobStoreUnavailableError });
  t.regex(put.message, /ECONNREFUSED/);
  // Was answered "The service cannot reach its database right now".
  t.regex(mapError(put).body.error.message, /file store/);
  await t.throwsAsync(unreachable.get('companies/1/uploads/a.xml'), { instanceOf: BlobStoreUnavailableError });

  for (const [status, code, expected] of [
    [503, 'SlowDown', BlobStoreUnavailableError],
    [500, 'InternalError', BlobStoreUnavailableError],
    [403, 'AccessDenied', BlobStoreUnavailableError],
    [507, 'XMinioStorageFull', BlobStoreFullError],
    [404, 'NoSuchKey', BlobNotFoundError],
  ] as const) {
    const server = await answeringS3(status, code);
    try {
      const store = s3Store(server.url);
      const operation = code === 'NoSuchKey' ? store.get('companies/1/uploads/a.xml') : store.put('companies/1/uploads/a.xml', Buffer.from('<a/>'), 'application/xml');
      await t.throwsAsync(operation, { instanceOf: expected as typeof Error }, `${status} ${code}`);
    } finally {
      await server.close();
    }
  }
});
