import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { Context } from 'koa';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, notFound } from '../../errors';
import { buildPage, readPageRequest } from '../../pagination';
import { COLLECTIONS, DOCUMENT_TYPES, type DocumentType } from '../../../domain/documents/collections';
import { documentFilterQuery, readDocumentFilters } from './filters';
import { presentDocument } from './present';

export const DOCUMENT_PAGE = { defaultLimit: 50, maxLimit: 200 };

export const fileNotAvailable = () =>
  new ApiError(404, 'file_not_available', 'This file variant does not exist for the document (or could not be produced); retrying will not help.');

/**
 * Answers with a redirect to a signed URL that must not be cached or stored. No body: Koa's
 * "Redirecting to …" text or HTML would be the API's only non-JSON answer; Location says it all.
 */
export function redirectToSignedUrl(ctx: Context, url: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(url);
  // (null would turn the status into 204.)
  ctx.body = '';
  ctx.remove('Content-Type');
}

/**
 * The document collections (spec rule 1): for each kind, list, read, original and pdf, under
 * /companies/{company_id}/<collection>. Scope documents:read.
 */
export function documentsRoutes(deps: ApiDependencies): Router {
  const { repositories, cursorKey, documentFiles } = deps;
  const router = createRouter();
  const guard = [requireScope('documents:read'), loadCompany(repositories.companies)];

  const loadDocument = async (ctx: Context, type: DocumentType) => {
    const { company } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.document_id, 'document_id');
    const document = await repositories.documents.find(company.id, type, id);
    if (!document) throw notFound(`Document ${id}`);
    return document;
  };

  for (const type of DOCUMENT_TYPES) {
    const base = `/companies/:company_id/${COLLECTIONS[type]}`;

    router.get(base, ...guard, async (ctx) => {
      const { company } = ctx.state as CompanyState;
      const { filters, canonical } = readDocumentFilters(ctx.query);
      const scope = `documents:${company.id}:${type}:${canonical}`;
      const page = readPageRequest(ctx.query, cursorKey, scope, DOCUMENT_PAGE, documentFilterQuery);
      const after = page.after ? ([String(page.after[0]), Number(page.after[1])] as [string, number]) : undefined;
      const rows = await repositories.documents.list(company.id, type, filters, page.limit + 1, after);
      ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.issued_at_key, row.id], presentDocument);
    });

    router.get(`${base}/:document_id`, ...guard, async (ctx) => {
      ctx.body = presentDocument(await loadDocument(ctx, type));
    });

    router.get(`${base}/:document_id/original`, ...guard, async (ctx) => {
      const url = await documentFiles.originalUrl(await loadDocument(ctx, type));
      if (!url) throw fileNotAvailable();
      redirectToSignedUrl(ctx, url);
    });

    router.get(`${base}/:document_id/pdf`, ...guard, async (ctx) => {
      const url = await documentFiles.pdfUrl(await loadDocument(ctx, type));
      if (!url) throw fileNotAvailable();
      redirectToSignedUrl(ctx, url);
    });
  }

  return router;
}
