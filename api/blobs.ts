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
export function blobRoutes({ blobStore, logger }: ApiDependencies): Router {
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
    const size = query.size === undefined ? undefined : Number(query.size);
    if (size !== undefined && !Number.isSafeInteger(size)) throw new ApiError(403, 'invalid_signature', 'This download link is not valid.');
    let verdict: 'ok' | 'expired' | 'invalid';
    try {
      verdict = blobStore.verify({ key, expires, fileName, contentType, size }, signature);
    } catch {
      verdict = 'invalid';
    }
    if (verdict === 'invalid') throw new ApiError(403, 'invalid_signature', 'This download link is not valid.');
    if (verdict === 'expired') throw new ApiError(403, 'url_expired', 'This download link has expired; ask the API for a new one.');

    const stored = await blobStore.openStored(key);
    // A stored file gone or no longer whole (deleted or truncated on disk) is lost: answered as the
    // spec's file_not_available (retrying will not help) and logged as the data loss it is, never
    // served short as if it were the file (a truncated original was answered 200 with its remains).
    if (!stored || !stored.info.isFile() || (size !== undefined && stored.info.size !== size)) {
      await stored?.handle.close();
      const damaged = stored?.info.isFile() ?? false;
      logger.error({ key, expectedBytes: size ?? null, storedBytes: damaged ? stored!.info.size : null, requestId: ctx.state.requestId }, 'a stored file is missing or damaged in the file store');
      throw new ApiError(404, 'file_not_available', damaged ? 'The stored file is damaged (it no longer has its recorded size) and cannot be served; upload it again.' : 'The file is no longer in the file store; upload it again.');
    }
    const { handle, info } = stored;
    ctx.set('Content-Type', contentType);
    ctx.set('Content-Length', String(info.size));
    ctx.set('Content-Disposition', contentDisposition(fileName));
    ctx.set('Cache-Control', 'private, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = handle.createReadStream();
  });
  return router;
}
