import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { ApiDependencies } from '../../app-context';
import { requireRole, requireScope } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, notFound } from '../../errors';
import { buildPage, readPageRequest } from '../../pagination';
import { parseBody } from '../../validation';
import { answerCreated } from '../../created';
import { IntegrationNameTakenError } from '../../../db/repositories/integrations';
import { createIntegration, IntegrationConfigError, type IntegrationProvider } from '../../../integrations/accounting/registry';
import { resolvesToNonPublic, RESOLVES_TO_NON_PUBLIC } from '../../../integrations/outbound/public-targets';
import { integrationIn } from './schemas';
import { presentIntegration } from './present';
import { creationRequestLine } from '../../middleware/idempotent-requests';

export const INTEGRATION_PAGE = { defaultLimit: 20, maxLimit: 100 };

/**
 * Accounting integrations of a company (docs/exports.md). Reading needs documents:read;
 * creating and deleting need documents:write and the admin role. Credentials are sealed at
 * rest and never shown again.
 */
export function integrationsRoutes(deps: ApiDependencies): Router {
  const { repositories, config, secretBox, cursorKey } = deps;
  const router = createRouter();
  const company = loadCompany(repositories.companies);
  const manage = [requireScope('documents:write'), requireRole('admin'), company];

  router.post('/companies/:company_id/integrations', ...manage, async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const input = parseBody(integrationIn, ctx.request.body);
    try {
      // Builds the adapter once only to validate: nothing is contacted.
      createIntegration(input.provider as IntegrationProvider, input.credentials, input.settings, {
        allowPrivateTargets: config.webhooks.allowPrivateTargets,
        requireHttps: config.webhooks.requireHttps,
      });
    } catch (error) {
      if (!(error instanceof IntegrationConfigError)) throw error;
      const message = error.issues.map((issue) => `${issue.field} ${issue.message}`).join('; ');
      throw new ApiError(400, 'invalid_parameter', `Invalid ${input.provider} configuration: ${message}.`, error.issues[0]?.field);
    }
    if (input.provider === 'generic_http' && !config.webhooks.allowPrivateTargets && (await resolvesToNonPublic(new URL(input.settings.url)))) {
      throw new ApiError(400, 'invalid_parameter', RESOLVES_TO_NON_PUBLIC('settings.url'), 'settings.url');
    }
    try {
      const row = await repositories.integrations.insert({
        companyId: company.id,
        name: input.name,
        provider: input.provider,
        sealedCredentials: secretBox.seal(JSON.stringify(input.credentials)),
        settings: input.settings,
      });
      answerCreated(ctx, `/v1/companies/${company.id}/integrations/${row.id}`, presentIntegration(row));
    } catch (error) {
      if (error instanceof IntegrationNameTakenError) {
        throw new ApiError(409, 'integration_name_taken', `The company already has an integration named ${JSON.stringify(input.name)}.`, 'name');
      }
      throw error;
    }
  });

  router.get('/companies/:company_id/integrations', requireScope('documents:read'), company, async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const scope = `integrations:${company.id}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, INTEGRATION_PAGE);
    const rows = await repositories.integrations.listForCompany(company.id, page.limit + 1, page.after?.[0] as number | undefined);
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], presentIntegration);
  });

  // The Location of its creation: until 2026-11-25 it named this path, which had only DELETE (405).
  router.get('/companies/:company_id/integrations/:integration_id', requireScope('documents:read'), company, async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.integration_id, 'integration_id');
    const row = await repositories.integrations.find(company.id, id);
    if (!row) throw notFound(`Integration ${id}`);
    ctx.body = presentIntegration(row);
  });

  router.delete('/companies/:company_id/integrations/:integration_id', ...manage, async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const id = parseIdParam(ctx.params.integration_id, 'integration_id');
    // One transaction: deleted but still remembered, a retry of its creation would answer with an integration that is gone.
    const deleted = await repositories.inTransaction(async (transaction) => {
      if (!(await transaction.integrations.delete(company.id, id))) return false;
      await transaction.idempotentRequests.forgetCreation(creationRequestLine(`/companies/${company.id}/integrations`), String(id));
      return true;
    });
    if (!deleted) throw notFound(`Integration ${id}`);
    ctx.status = 204;
  });

  return router;
}
