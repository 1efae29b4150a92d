import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { acceptsMultipart } from '../../middleware/json-body';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, notFound } from '../../errors';
import { buildPage, readPageRequest } from '../../pagination';
import { acceptFile, IntakeError, MAX_FILE_BYTES } from '../../../services/accept-file';
import { redirectToSignedUrl } from '../documents/routes';
import { readMultipartFile } from './multipart';
import { presentUploadedFile } from '../../../services/presenters/uploaded-file';
import { uploadFields } from './schemas';
import { parseBody } from '../../validation';
import { answerAccepted } from '../../accepted';

export const FILE_PAGE = { defaultLimit: 50, maxLimit: 200 };

/** The field an intake refusal is about: the file, or the key of a request that differs (as on a JSON POST's 409). */
const INTAKE_ERROR_PARAMS: Record<string, string> = { empty_file: 'file', idempotency_key_reused: 'Idempotency-Key' };

/**
 * Uploaded files: POST (multipart, field `file`, optional `kind`) answers 202 once the bytes
 * and the record are stored and the import has started; reads show the import's outcome.
 */
export function filesRoutes(deps: ApiDependencies): Router {
  const { repositories, cursorKey, config } = deps;
  const router = createRouter();
  const company = loadCompany(repositories.companies);
  const intake = { repositories, blobStore: deps.blobStore, temporal: { client: deps.temporal.client, taskQueue: config.temporal.taskQueue } };

  router.post('/companies/:company_id/files', requireScope('documents:write'), acceptsMultipart, company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    // Checked by the idempotent-requests middleware, which leaves an upload's key to this route.
    const sentKey = ctx.headers['idempotency-key'];
    const idempotencyKey = typeof sentKey === 'string' ? sentKey : null;
    const upload = await readMultipartFile(ctx.req, ctx.get('Content-Type'), MAX_FILE_BYTES, config.http.bodyPace);
    const kind = parseBody(uploadFields, upload.fields).kind ?? null;
    try {
      const { file, replayed } = await acceptFile(intake, {
        companyId: owner.id, type: 'API', fileName: upload.fileName, bytes: upload.bytes, kindHint: kind, idempotencyKey,
      });
      // A file stored just now has no documents yet; a replay shows what its import made.
      const documents = replayed ? ((await repositories.uploadedFiles.documentsOf([file.id])).get(file.id) ?? []) : [];
      answerAccepted(ctx, `/v1/companies/${owner.id}/files/${file.id}`, presentUploadedFile(file, documents));
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
    } catch (error) {
      if (error instanceof IntakeError) throw new ApiError(error.status, error.code, error.message, INTAKE_ERROR_PARAMS[error.code]);
      throw error;
    }
  });

  router.get('/companies/:company_id/files', requireScope('documents:read'), company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const scope = `files:${owner.id}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, FILE_PAGE);
    const rows = await repositories.uploadedFiles.listForCompany(owner.id, page.limit + 1, page.after?.[0] as number | undefined);
    const documents = await repositories.uploadedFiles.documentsOf(rows.map((row) => row.id));
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], (row) => presentUploadedFile(row, documents.get(row.id) ?? []));
  });

  router.get('/companies/:company_id/files/:file_id', requireScope('documents:read'), company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.file_id, 'file_id');
    const file = await repositories.uploadedFiles.find(owner.id, id);
    if (!file) throw notFound(`File ${id}`);
    ctx.body = presentUploadedFile(file, (await repositories.uploadedFiles.documentsOf([id])).get(id) ?? []);
  });

  router.get('/companies/:company_id/files/:file_id/content', requireScope('documents:read'), company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.file_id, 'file_id');
    const file = await repositories.uploadedFiles.find(owner.id, id);
    if (!file) throw notFound(`File ${id}`);
    redirectToSignedUrl(ctx, await deps.blobStore.signedDownloadUrl(file.blob_key, { fileName: file.file_name, contentType: file.content_type, size: Number(file.size) }));
  });

  return router;
}
