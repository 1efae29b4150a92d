import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createRouter } from '../../router';
import type { CompanyRow } from '../../../db/repositories/companies';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { acceptsMultipart } from '../../middleware/json-body';
import { onceIfIdempotent } from '../../middleware/idempotent-requests';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, invalidParameter, notFound } from '../../errors';
import { answerAccepted } from '../../accepted';
import { buildPage, readPageRequest } from '../../pagination';
import { parseBody } from '../../validation';
import { MAX_FILE_BYTES } from '../../../services/accept-file';
import { ReceivedExportError } from '../../../domain/dian/received-export';
import { CpuBudgetExceeded, cufesFromReceivedExportInPool } from '../../../services/cpu/pool';
import { daysInRange, LISTING_NOT_SUPPORTED_MESSAGE, MAX_LISTED_RANGE_DAYS } from '../../../domain/dian/listing-windows';
import { startWorkflow } from '../../../temporal/start-workflow';
import { dianImportStart } from '../../../services/work-starts';
import { dianImportWorkflow } from '../../../workflows/dian-import';
import { readMultipartFile } from '../files/multipart';
import { dianImportIn } from './schemas';
import { presentDianImport } from '../../../services/presenters/dian-import';

export const IMPORT_PAGE = { defaultLimit: 20, maxLimit: 100 };

/**
 * Tax-authority import runs (docs/dian.md): POST answers 202 with the record and starts
 * dianImportWorkflow; dian_import.completed or dian_import.failed tells the outcome.
 */
export function dianImportsRoutes(deps: ApiDependencies): Router {
  const { repositories, config, cursorKey } = deps;
  const router = createRouter();
  const company = loadCompany(repositories.companies);

  router.post('/companies/:company_id/dian-imports', requireScope('documents:write'), acceptsMultipart, company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    if (!/^multipart\/form-data/i.test(ctx.get('Content-Type'))) return requestRun(ctx, owner, ctx.request.body, null);
    const upload = await readMultipartFile(ctx.req, ctx.get('Content-Type'), MAX_FILE_BYTES, config.http.bodyPace);
    // Read after the Idempotency-Key middleware: the key's request is the fields and the file's digest.
    const request = () => ({ ...upload.fields, file_sha256: createHash('sha256').update(upload.bytes).digest('hex') });
    await onceIfIdempotent(ctx, request, () => requestRun(ctx, owner, upload.fields, upload.bytes));
  });

  /** Checks, records and starts one run; answers 202 with it. */
  async function requestRun(ctx: Context, owner: CompanyRow, body: unknown, cufesFromFile: Buffer | null): Promise<void> {
    const input = parseBody(dianImportIn, body);
    const days = daysInRange(input.begin_date, input.end_date);
    if (!cufesFromFile && days > MAX_LISTED_RANGE_DAYS) {
      throw invalidParameter(
        'end_date',
        `A run that lists DIAN covers at most ${MAX_LISTED_RANGE_DAYS} days; ${input.begin_date} to ${input.end_date} is ${days}. ` +
          'Split the range into several runs, or upload the "documentos recibidos" export as `file` (its range only filters the file).',
      );
    }
    const settings = await repositories.dianSettings.find(owner.id);
    if (!settings) {
      throw new ApiError(409, 'dian_settings_missing', "Configure the company's DIAN settings (PUT /v1/companies/{company_id}/dian-settings) first.");
    }
    let requested: string[] | null = null;
    if (cufesFromFile) {
      try {
        // Off the event loop: a hostile XLSX can be costly to read (services/cpu/pool.ts).
        requested = await cufesFromReceivedExportInPool(cufesFromFile, { documentType: input.document_type, beginDate: input.begin_date, endDate: input.end_date });
      } catch (error) {
        if (error instanceof ReceivedExportError) throw invalidParameter('file', error.message);
        if (error instanceof CpuBudgetExceeded) throw invalidParameter('file', `The file could not be read: ${error.message}.`);
        throw error;
      }
    } else if (settings.environment !== 'simulator' && !config.dian.bulkListing) {
      throw new ApiError(409, 'listing_not_supported', LISTING_NOT_SUPPORTED_MESSAGE);
    }
    const run = await repositories.dianImports.insert({
      company_id: owner.id,
      source: requested ? 'dian_export_file' : 'dian_web_service',
      document_type: input.document_type,
      begin_date: input.begin_date,
      end_date: input.end_date,
      requested_cufes: requested,
    });
    try {
      await startWorkflow({ client: deps.temporal.client, taskQueue: config.temporal.taskQueue }, dianImportWorkflow, dianImportStart(config.temporal.taskQueue, { companyId: owner.id, importId: run.id }));
    } catch (error) {
      await repositories.dianImports.fail(run.id, 'not_started', 'The run could not be queued; start it again.');
      throw error;
    }
    answerAccepted(ctx, `/v1/companies/${owner.id}/dian-imports/${run.id}`, presentDianImport(run));
  }

  router.get('/companies/:company_id/dian-imports', requireScope('documents:read'), company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const scope = `dian-imports:${owner.id}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, IMPORT_PAGE);
    const rows = await repositories.dianImports.listForCompany(owner.id, page.limit + 1, page.after?.[0] as number | undefined);
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], presentDianImport);
  });

  router.get('/companies/:company_id/dian-imports/:import_id', requireScope('documents:read'), company, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.import_id, 'import_id');
    const run = await repositories.dianImports.find(owner.id, id);
    if (!run) throw notFound(`DIAN import ${id}`);
    ctx.body = presentDianImport(run);
  });

  return router;
}
