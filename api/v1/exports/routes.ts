import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, notFound } from '../../errors';
import { answerAccepted } from '../../accepted';
import { buildPage, readPageRequest } from '../../pagination';
import { parseBody } from '../../validation';
import type { CompanyRow } from '../../../db/repositories/companies';
import { ExportInProgressError, type ExportRow } from '../../../db/repositories/exports';
import { startIfNeverStarted, startWorkflow } from '../../../temporal/start-workflow';
import { exportStart } from '../../../services/work-starts';
import { exportDocumentWorkflowV2 } from '../../../workflows/export-document';
import { presentDocument } from '../documents/present';
import { bulkExportIn, exportIn, manualExportIn } from './schemas';
import { presentExport } from '../../../services/presenters/export';

export const EXPORT_PAGE = { defaultLimit: 50, maxLimit: 200 };

/**
 * Exports of electronic invoices to the company's accounting integrations (docs/exports.md).
 * Writes need documents:write, reads documents:read. A requested export answers 202 with its
 * record (pending); the workflow posts it and emits export.succeeded or export.failed.
 */
export function exportsRoutes(deps: ApiDependencies): Router {
  const { repositories, config, cursorKey } = deps;
  const router = createRouter();
  const company = loadCompany(repositories.companies);
  const write = [requireScope('documents:write'), company];
  const read = [requireScope('documents:read'), company];
  const temporal = { client: deps.temporal.client, taskQueue: config.temporal.taskQueue };

  const requireIntegration = async (companyId: number, name: string) => {
    const integration = await repositories.integrations.findByName(companyId, name);
    if (!integration) throw new ApiError(404, 'not_found', `The company has no integration named ${JSON.stringify(name)}.`, 'integration');
    return integration;
  };

  /**
   * The pending export in the way was recorded but perhaps never started (the API died between
   * the insert and the start): its workflow is started now, unless one ever ran, so the document
   * is not blocked for good and the export ends with its event.
   */
  async function resumeStrandedExport(companyId: number, documentId: number): Promise<void> {
    const pendingId = await repositories.exports.pendingIdForDocument(companyId, documentId);
    if (pendingId !== undefined) await startIfNeverStarted(temporal, exportDocumentWorkflowV2, exportStart(temporal.taskQueue, { companyId, documentId, exportId: pendingId }));
  }

  /** Checks, records and starts one export; throws ApiError for a refused one. */
  async function requestExport(owner: CompanyRow, documentId: number, integration: string, force: boolean): Promise<ExportRow> {
    const document = await repositories.documents.find(owner.id, 'electronic_invoice', documentId);
    if (!document) throw notFound(`Document ${documentId}`);
    if (document.export_integration && !force) {
      throw new ApiError(409, 'already_exported', `Document ${documentId} was already exported to ${document.export_integration}; send force: true to export it again.`);
    }
    let row: ExportRow;
    try {
      row = await repositories.exports.insertPending({ companyId: owner.id, documentId, integration, forced: force });
    } catch (error) {
      if (error instanceof ExportInProgressError) {
        await resumeStrandedExport(owner.id, documentId);
        throw new ApiError(409, 'export_in_progress', `Document ${documentId} already has an export in progress.`);
      }
      throw error;
    }
    // A start that failed may still have taken effect: the row stays pending, never discarded, so
    // the purchase is posted at most once (its idempotency key is the export's id). The client's
    // retry (409 export_in_progress) or the resume-stranded-work schedule starts it if it never
    // started; until 2026-11-25 it was deleted, and a retry posted under a new export id.
    await startWorkflow(temporal, exportDocumentWorkflowV2, exportStart(temporal.taskQueue, { companyId: owner.id, documentId, exportId: row.id }));
    return row;
  }

  router.post('/companies/:company_id/invoices/:document_id/export', ...write, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const documentId = parseIdParam(ctx.params.document_id, 'document_id');
    const input = parseBody(exportIn, ctx.request.body);
    await requireIntegration(owner.id, input.integration);
    const row = await requestExport(owner, documentId, input.integration, input.force);
    answerAccepted(ctx, `/v1/companies/${owner.id}/exports/${row.id}`, presentExport(row));
  });

  router.post('/companies/:company_id/exports', ...write, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const input = parseBody(bulkExportIn, ctx.request.body);
    await requireIntegration(owner.id, input.integration);
    const data: ReturnType<typeof presentExport>[] = [];
    const errors: { document_id: number; code: string; message: string }[] = [];
    for (const documentId of input.document_ids) {
      try {
        data.push(presentExport(await requestExport(owner, documentId, input.integration, input.force)));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        errors.push({ document_id: documentId, code: error.code, message: error.message });
      }
    }
    ctx.status = 202;
    ctx.body = { data, errors };
  });

  router.post('/companies/:company_id/invoices/:document_id/export/manual', ...write, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const documentId = parseIdParam(ctx.params.document_id, 'document_id');
    const input = parseBody(manualExportIn, ctx.request.body);
    await requireIntegration(owner.id, input.integration);
    const document = await repositories.documents.find(owner.id, 'electronic_invoice', documentId);
    if (!document) throw notFound(`Document ${documentId}`);
    const outcome = await repositories.exports.markDocumentExportedManually(
      owner.id,
      documentId,
      { integration: input.integration, externalId: input.external_id, externalNumber: input.external_number, externalName: input.external_name ?? null },
      input.force,
    );
    if (outcome === 'export_in_progress') {
      await resumeStrandedExport(owner.id, documentId);
      throw new ApiError(409, 'export_in_progress', `Document ${documentId} has an export in progress; mark it by hand once that one has ended.`);
    }
    if (outcome === 'already_exported') {
      throw new ApiError(409, 'already_exported', `Document ${documentId} was already exported to ${document.export_integration ?? "an integration"}; send force: true to replace its reference.`);
    }
    ctx.body = presentDocument((await repositories.documents.find(owner.id, 'electronic_invoice', documentId))!);
  });

  router.get('/companies/:company_id/exports', ...read, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const scope = `exports:${owner.id}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, EXPORT_PAGE);
    const rows = await repositories.exports.listForCompany(owner.id, page.limit + 1, page.after?.[0] as number | undefined);
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], presentExport);
  });

  router.get('/companies/:company_id/exports/:export_id', ...read, async (ctx) => {
    const { company: owner } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.export_id, 'export_id');
    const row = await repositories.exports.find(owner.id, id);
    if (!row) throw notFound(`Export ${id}`);
    ctx.body = presentExport(row);
  });

  return router;
}
