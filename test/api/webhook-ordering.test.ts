import test from 'ava';
import { MAX_ENDPOINTS_PER_COMPANY } from '../../api/v1/webhooks/routes';
import { workflowIdsFor } from '../../workflows/messages';
import { startTestApi, type TestApi } from '../support/api';
import { webhookAdmin } from '../support/webhook-api';

// Regression tests for two ordering bugs of the webhook endpoint API.
let api: TestApi;

test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => api?.close());

const receiverUrl = 'http://127.0.0.1:9/hooks';

test.serial('a re-enable whose signal fails leaves the endpoint disabled, and the retried PATCH resets the entity', async (t) => {
  const admin = await webhookAdmin(api.database, api.url);
  const endpoint = await admin.createEndpoint(receiverUrl);
  t.is((await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: false })).status, 200);

  const workflows = api.temporal.client.workflow;
  const signalWithStart = workflows.signalWithStart.bind(workflows);
  workflows.signalWithStart = async () => {
    throw new Error('Temporal is unavailable');
  };
  let failed;
  try {
    failed = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: true });
  } finally {
    workflows.signalWithStart = signalWithStart;
  }
  t.is(failed.status, 500);
  t.like((await admin.call('GET', `/v1/webhooks/${endpoint.id}`)).body, { enabled: false }, 'not enabled while its entity was not told');

  const retried = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: true });
  t.is(retried.status, 200);
  t.like(retried.body, { enabled: true, consecutive_failures: 0 });
  const history = await workflows.getHandle(workflowIdsFor(api.config.temporal.taskQueue).endpoint(endpoint.id)).fetchHistory();
  const signals = (history.events ?? []).map((event) => event.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean);
  t.deepEqual(signals, ['endpointReenabled'], 'the retried PATCH told the entity');
});

test.serial('concurrent creates cannot pass the per-company endpoint limit together', async (t) => {
  const admin = await webhookAdmin(api.database, api.url);
  const below = MAX_ENDPOINTS_PER_COMPANY - 3;
  for (let i = 0; i < below; i += 1) await admin.createEndpoint(receiverUrl);

  const answers = await Promise.all(
    Array.from({ length: 10 }, () => admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url: receiverUrl })),
  );
  const statuses = answers.map((answer) => answer.status).sort();
  t.deepEqual(statuses, [...Array(3).fill(201), ...Array(7).fill(409)]);
  const live = await api.database.db('webhook_endpoints').where({ company_id: admin.company.id }).whereNull('deleted_at').count<{ count: string }[]>({ count: '*' });
  t.is(Number(live[0]!.count), MAX_ENDPOINTS_PER_COMPANY);
});
