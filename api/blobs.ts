import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type Router from '@koa/router';
import { createRouter } from './router';
import type { ApiDependencies } from './app-context';
import { ApiError } from './errors';
import { contentDisposition } from '../storage/blob-store';
import { FilesystemBlobStore } from '../storage/filesystem-blob-store';

/**
 * GET /blobs/<key>: the filesystem blob store's downloads. No Authorization: the URL's HMAC
 * signature (key, expiry, name, type) is the credential, valid for one hour.
 */
export function blobRoutes({ blobStore }: ApiDependencies): Router {
  const router = createRouter();
  router.get('/blobs/*key', async (ctx) => {
    if (!(blobStore instanceof FilesystemBlobStore)) throw new ApiError(404, 'not_found', 'Files are served by object storage.');
    const key = String(ctx.params.key ?? '');
    const query = ctx.query;
    const expires = Number(query.expires);
    const [fileName, contentType, signature] = [query.name, query.type, query.signature];
    if (typeof fileName !== 'string' || typeof contentType !== 'string' || typeof signature !== 'string' || !Number.isInteger(expires)) {
      throw new ApiError(403, 'invalid_signature', 'This download link is incomplete.');
    }
    let verdict: 'ok' | 'expired' | 'invalid';
    try {
      verdict = blobStore.verify({ key, expires, fileName, contentType }, signature);
    } catch {
      verdict = 'invalid';
    }
    if (verdict === 'invalid') throw new ApiError(403, 'invalid_signature', 'This download link is not valid.');
    if (verdict === 'expired') throw new ApiError(403, 'url_expired', 'This download link has expired; ask the API for a new one.');

    const file = blobStore.pathOf(key);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new ApiError(404, 'not_found', 'The file no longer exists.');
    ctx.set('Content-Type', contentType);
    ctx.set('Content-Length', String(info.size));
    ctx.set('Content-Disposition', contentDisposition(fileName));
    ctx.set('Cache-Control', 'private, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = createReadStream(file);
  });
  return router;
}
