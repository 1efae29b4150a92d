import type { Middleware } from 'koa';
import { z } from 'zod';
import { setVariables } from '../../config/set-variables';
import { MAX_FILE_BYTES } from '../../services/accept-file';
import { BudgetWaitTimedOut, FileMemoryBudget } from '../../services/file-memory-budget';
import { ApiError } from '../errors';

/**
 * How many bytes of multipart uploads one API process may hold at once. An upload is read whole
 * into memory (its file up to 20 MB) until it is stored; without a bound, concurrent large uploads
 * grew the API without limit (8 of 19.5 MB: 110 → 267 MB). An upload reserves its declared
 * Content-Length (the largest allowed body when it declares none) before its body is read; the
 * next waits, its body unread (TCP holds the client back), and after a while without room
 * (API_UPLOADS_WAIT_MS, default 15 s) is answered 503 service_unavailable with Retry-After. Small
 * uploads, nearly all, pass at once. API_UPLOADS_MEMORY_MB, default 128 (docs/operations.md).
 */
const settingsSchema = z.object({
  API_UPLOADS_MEMORY_MB: z.coerce.number().int().min(1).max(65_536).default(128),
  API_UPLOADS_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
});

/** The file plus its multipart framing and the few small fields beside it. */
const LARGEST_BODY_BYTES = MAX_FILE_BYTES + 64 * 1024;
const RETRY_AFTER_SECONDS = 5;

/** The rest of an upload route, run within `budget` (see above); waits at most `waitMs` for room. */
export function holdingUploadMemory(budget: FileMemoryBudget, waitMs: number): Middleware {
  return async (ctx, next) => {
    const declared = ctx.request.length;
    // A body declared larger than any upload can be is refused before a byte of it is read or any
    // room is held: read slowly, it held 20 MB of the budget for up to Node's 5-minute request
    // timeout, and six of them made every other client's upload wait and fail (503).
    if (declared !== undefined && declared > LARGEST_BODY_BYTES) {
      throw new ApiError(413, 'file_too_large', `Files are limited to ${MAX_FILE_BYTES / (1024 * 1024)} MB; this request declares ${declared} bytes.`);
    }
    const bytes = declared ?? LARGEST_BODY_BYTES;
    try {
      await budget.withBytesWithin(bytes, waitMs, next);
    } catch (error) {
      if (!(error instanceof BudgetWaitTimedOut)) throw error;
      throw new ApiError(
        503,
        'service_unavailable',
        `The service is receiving as many uploads as it can hold right now; nothing was stored. Retry in ${RETRY_AFTER_SECONDS} seconds.`,
        undefined,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
  };
}

let processHold: Middleware | null = null;

/**
 * The process's budget, sized from the environment once; called when the app is built, so a bad
 * API_UPLOADS_MEMORY_MB or API_UPLOADS_WAIT_MS stops the start, not the first upload.
 */
export function prepareUploadMemory(env: NodeJS.ProcessEnv = process.env): Middleware {
  const settings = settingsSchema.parse(setVariables(env));
  processHold ??= holdingUploadMemory(new FileMemoryBudget(settings.API_UPLOADS_MEMORY_MB * 1024 * 1024), settings.API_UPLOADS_WAIT_MS);
  return processHold;
}

/** holdingUploadMemory with the process's budget. */
export const withinUploadMemory: Middleware = (ctx, next) => (processHold ?? prepareUploadMemory())(ctx, next);
