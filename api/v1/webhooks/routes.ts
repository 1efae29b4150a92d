import type Router from '@koa/router';
import { createRouter } from '../../router';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Middleware } from 'koa';
import type { ApiDependencies } from '../../app-context';
import { requireRole, requireScope, type AuthState } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, invalidParameter, notFound } from '../../errors';
import { answerAccepted } from '../../accepted';
import { buildPage, readPageRequest } from '../../pagination';
import { parseBody, takesNoBody } from '../../validation';
import { answerCreated } from '../../created';
import { emitEvent } from '../../publish-event';
import { endPendingDeliveries } from '../../../services/end-pending-deliveries';
import type { WebhookEndpointRow } from '../../../db/repositories/webhook-endpoints';
import { newSealedSecret, rotateSecrets } from '../../../domain/webhooks/endpoint-secrets';
import { parseWebhookUrl, TargetNotAllowedError } from '../../../domain/webhooks/target-address';
import { resolvesToNonPublic, RESOLVES_TO_NON_PUBLIC } from '../../../integrations/outbound/public-targets';
import { endpointDeletedSignal, endpointReenabledSignal, workflowIdsFor } from '../../../workflows/messages';
import { signalWithStartWorkflow } from '../../../temporal/start-workflow';
import { webhookEndpointWorkflow } from '../../../workflows/webhook-endpoint';
import { resendFailedDeliveries } from '../../../services/webhook-resends';
import { endpointIn, endpointPatch, recoverIn } from './schemas';
import { presentDelivery, presentDeliveryDetail, presentEndpoint } from './present';
import { deliveryFilterQuery, parseSince, readDeliveryFilters } from './delivery-filters';
import { creationRequestLine } from '../../middleware/idempotent-requests';

type EndpointState = AuthState & { endpoint: WebhookEndpointRow };

export const MAX_ENDPOINTS_PER_COMPANY = 50;
export const ENDPOINT_PAGE = { defaultLimit: 20, maxLimit: 100 };
export const DELIVERY_PAGE = { defaultLimit: 25, maxLimit: 100 };

/**
 * Webhook endpoints (spec: Webhook endpoint, Events). Every route needs the scope
 * webhooks:manage and the admin role, and is confined to the key's companies.
 */
export function webhooksRoutes(deps: ApiDependencies): Router {
  const { repositories, config, secretBox, cursorKey } = deps;
  const temporal = { client: deps.temporal.client, taskQueue: config.temporal.taskQueue };
  const router = createRouter();
  const manage = [requireScope('webhooks:manage'), requireRole('admin')];

  const loadEndpoint: Middleware = async (ctx, next) => {
    const state = ctx.state as EndpointState;
    const id = parseIdParam(ctx.params?.webhook_id, 'webhook_id');
    const endpoint = await repositories.webhookEndpoints.findVisible(state.apiKey.access, id);
    if (!endpoint) throw notFound(`Webhook endpoint ${id}`);
    state.endpoint = endpoint;
    await next();
  };

  /** A write that found nothing: the endpoint was deleted after loadEndpoint read it. */
  const stillThere = (row: WebhookEndpointRow | undefined, id: number): WebhookEndpointRow => {
    if (!row) throw notFound(`Webhook endpoint ${id}`);
    return row;
  };

  const endpointDisabled = () => new ApiError(409, 'endpoint_disabled', 'This endpoint is disabled; re-enable it with PATCH {"enabled": true} first.');
  const requireEnabled = (endpoint: WebhookEndpointRow) => {
    if (!endpoint.enabled) throw endpointDisabled();
  };

  const loadDelivery = async (endpoint: WebhookEndpointRow, param: string | undefined) => {
    const id = parseIdParam(param, 'delivery_id');
    const delivery = await repositories.webhookDeliveries.findForEndpoint(endpoint.id, id);
    if (!delivery) throw notFound(`Delivery ${id}`);
    return delivery;
  };

  const checkedUrl = async (value: string) => {
    let url: URL;
    try {
      url = parseWebhookUrl(value, config.webhooks);
    } catch (error) {
      if (error instanceof TargetNotAllowedError) throw invalidParameter('url', error.message);
      throw error;
    }
    if (!config.webhooks.allowPrivateTargets && (await resolvesToNonPublic(url))) throw invalidParameter('url', RESOLVES_TO_NON_PUBLIC('url'));
    return url.toString();
  };

  router.post('/companies/:company_id/webhooks', ...manage, loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const input = parseBody(endpointIn, ctx.request.body);
    const url = await checkedUrl(input.url);
    const { secret, stored } = newSealedSecret(secretBox, new Date());
    const endpoint = await repositories.webhookEndpoints.insertWithinLimit(company.id, MAX_ENDPOINTS_PER_COMPANY, url, input.events, stored);
    if (!endpoint) {
      throw new ApiError(409, 'endpoint_limit_reached', `A company can have at most ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints.`);
    }
    answerCreated(ctx, `/v1/webhooks/${endpoint.id}`, presentEndpoint(endpoint, secret));
  });

  router.get('/companies/:company_id/webhooks', ...manage, loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const scope = `webhooks:${company.id}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, ENDPOINT_PAGE);
    const rows = await repositories.webhookEndpoints.listForCompany(company.id, page.limit + 1, page.after?.[0] as number | undefined);
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], (row) => presentEndpoint(row));
  });

  router.get('/webhooks/:webhook_id', ...manage, loadEndpoint, (ctx) => {
    ctx.body = presentEndpoint((ctx.state as EndpointState).endpoint);
  });

  router.patch('/webhooks/:webhook_id', ...manage, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    const patch = parseBody(endpointPatch, ctx.request.body);
    let updated = endpoint;
    if (patch.url !== undefined || patch.events !== undefined) {
      const changes = {
        ...(patch.url !== undefined ? { url: await checkedUrl(patch.url) } : {}),
        ...(patch.events !== undefined ? { events: patch.events } : {}),
      };
      updated = stillThere(await repositories.webhookEndpoints.update(endpoint.company_id, endpoint.id, changes), endpoint.id);
    }
    if (patch.enabled === true && !endpoint.enabled) {
      // The entity workflow owns the counter; tell it to start again from zero *before* the
      // endpoint is enabled: if the signal fails, the endpoint stays disabled and a retried
      // PATCH signals again (a reset is idempotent). The other order could leave an enabled
      // endpoint whose entity still counts it as disabled, with no retry that would fix it.
      await signalWithStartWorkflow(temporal, webhookEndpointWorkflow, {
        workflowId: workflowIdsFor(temporal.taskQueue).endpoint(endpoint.id),
        subject: { companyId: endpoint.company_id, endpointId: endpoint.id },
        args: [{ endpointId: endpoint.id }],
        signal: endpointReenabledSignal,
        signalArgs: [],
      });
      updated = stillThere(await repositories.webhookEndpoints.setEnabled(endpoint.company_id, endpoint.id, true), endpoint.id);
    } else if (patch.enabled === false && endpoint.enabled) {
      updated = stillThere(await repositories.webhookEndpoints.setEnabled(endpoint.company_id, endpoint.id, false), endpoint.id);
      await endPendingDeliveries({ repositories, temporal }, endpoint.id, 'endpoint disabled by the API');
    }
    ctx.body = presentEndpoint(updated);
  });

  router.delete('/webhooks/:webhook_id', ...manage, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    // One transaction: deleted but still remembered, a retry of its creation would answer with an endpoint that is gone.
    await repositories.inTransaction(async (transaction) => {
      await transaction.webhookEndpoints.softDelete(endpoint.company_id, endpoint.id);
      await transaction.idempotentRequests.forgetCreation(creationRequestLine(`/companies/${endpoint.company_id}/webhooks`), String(endpoint.id));
    });
    await endPendingDeliveries({ repositories, temporal }, endpoint.id, 'endpoint deleted');
    try {
      await deps.temporal.client.workflow.getHandle(workflowIdsFor(temporal.taskQueue).endpoint(endpoint.id)).signal(endpointDeletedSignal);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
    ctx.status = 204;
  });

  router.post('/webhooks/:webhook_id/test', ...manage, takesNoBody, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    requireEnabled(endpoint);
    const event = await emitEvent(
      { repositories, temporal, logger: deps.logger },
      { companyId: endpoint.company_id, type: 'webhook.test', data: { message: `Test event for webhook endpoint ${endpoint.id}.` } },
      endpoint.id,
    );
    // No delivery: the endpoint was disabled (or deleted) between the check above and the insert.
    const [deliveryId] = event.deliveryIds;
    if (deliveryId === undefined) throw endpointDisabled();
    answerAccepted(ctx, `/v1/webhooks/${endpoint.id}/deliveries/${deliveryId}`, { event_id: event.id, type: 'webhook.test', delivery_id: deliveryId });
  });

  router.post('/webhooks/:webhook_id/rotate-secret', ...manage, takesNoBody, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    const rotated = await repositories.webhookEndpoints.changeSecrets(endpoint.company_id, endpoint.id, (current) => {
      const rotation = rotateSecrets(secretBox, current, new Date());
      return { stored: rotation.stored, result: rotation.secret };
    });
    if (!rotated) throw notFound(`Webhook endpoint ${endpoint.id}`);
    ctx.body = presentEndpoint(rotated.row, rotated.result);
  });

  router.get('/webhooks/:webhook_id/deliveries', ...manage, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    const { filters, canonical } = readDeliveryFilters(ctx.query);
    const scope = `deliveries:${endpoint.id}:${canonical}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, DELIVERY_PAGE, deliveryFilterQuery);
    const rows = await repositories.webhookDeliveries.listForEndpoint(endpoint.id, page.limit + 1, page.after?.[0] as number | undefined, filters);
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], presentDelivery);
  });

  router.get('/webhooks/:webhook_id/deliveries/:delivery_id', ...manage, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    const delivery = await loadDelivery(endpoint, ctx.params.delivery_id);
    ctx.body = presentDeliveryDetail(delivery, await repositories.webhookDeliveries.attemptsOf(delivery.id));
  });

  // Resend one failed delivery now, as a new delivery of the same event (services/webhook-resends.ts).
  // Asking again answers the same resend.
  router.post('/webhooks/:webhook_id/deliveries/:delivery_id/retry', ...manage, takesNoBody, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    const delivery = await loadDelivery(endpoint, ctx.params.delivery_id);
    requireEnabled(endpoint);
    if (delivery.status !== 'failed') {
      throw new ApiError(409, 'delivery_not_failed', `Delivery ${delivery.id} is ${delivery.status}; only a failed delivery can be resent.`);
    }
    await resendFailedDeliveries({ repositories, temporal }, endpoint, { deliveryId: delivery.id });
    const resentAs = (await repositories.webhookDeliveries.findForEndpoint(endpoint.id, delivery.id))?.resent_as;
    const resend = resentAs ? await repositories.webhookDeliveries.findForEndpoint(endpoint.id, resentAs) : undefined;
    if (!resend) throw new Error(`delivery ${delivery.id} was not resent`);
    answerAccepted(ctx, `/v1/webhooks/${endpoint.id}/deliveries/${resend.id}`, presentDelivery(resend));
  });

  // Resend every delivery that failed since a time (at most the 30-day history), once each.
  router.post('/webhooks/:webhook_id/recover', ...manage, loadEndpoint, async (ctx) => {
    const { endpoint } = ctx.state as EndpointState;
    const input = parseBody(recoverIn, ctx.request.body);
    const since = parseSince(input.since);
    requireEnabled(endpoint);
    const resends = await resendFailedDeliveries({ repositories, temporal }, endpoint, { since });
    ctx.status = 202;
    ctx.body = { since: since.toISOString(), resending: resends.length };
  });

  return router;
}
