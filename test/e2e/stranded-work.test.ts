import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { ensureSchedules } from '../../worker/schedules';
import { workflowIdsFor } from '../../workflows/messages';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { upload, waitForImport } from '../support/ingestion';

// Work recorded by an API that died before starting its workflow (measured on npm start: a 032
// posted while the Temporal dev server was frozen, the API killed with -9 while its start waited,
// the dev server resumed: the event stayed `pending` with no workflow). Until 2026-11-25 only a
// later request for the same invoice (its 409) started it; a client that did not send one left it
// pending for good, and a DIAN import run so recorded stayed PENDING for ever. The
// resume-stranded-work schedule starts them, as the API would have, and never twice.
let world: DianWorld;
const ISSUER = { idType: '13', idNumber: '1020304050', firstName: 'Ana', familyName: 'Pérez', jobTitle: 'Contadora' };

const temporalOf = (of: DianWorld) => ({ client: of.api.temporal.client, taskQueue: of.api.config.temporal.taskQueue });

/** Runs every recurring job of the queue now, as their schedules would, and waits for them to end. */
async function runRecurringJobs(): Promise<void> {
  const temporal = temporalOf(world);
  for await (const listed of temporal.client.schedule.list()) {
    if (!listed.scheduleId.endsWith(`-${temporal.taskQueue}`)) continue;
    const schedule = temporal.client.schedule.getHandle(listed.scheduleId);
    const before = (await schedule.describe()).info.recentActions.length;
    await schedule.trigger();
    const action = await eventually(async () => (await schedule.describe()).info.recentActions[before], 30_000);
    await temporal.client.workflow.getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId).result();
  }
}

test.before(async () => {
  world = await startDianWorld();
});
test.after.always(async () => {
  await world?.close();
});

test.serial('a DIAN event and a DIAN import run recorded but never started are started by the resume, once, with no request', async (t) => {
  t.timeout(240_000);
  const cufe = createHash('sha384').update('stranded-work-event').digest('hex');
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'stranded.xml', bytes: demoInvoiceXml('FE-STRANDED-1', cufe, '800197268', '900108281') });
  const file = await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id);
  const invoice = file.documents[0];
  await eventually(() => world.simulator.catalog.documents.get(cufe));

  // What a killed API leaves: the rows, no workflow; made older than the resume's wait.
  const { repositories, db } = world.api.database;
  const event = await repositories.dianEvents.insert(world.company.id, invoice.id, '030', ISSUER, 'DIS');
  const run = await repositories.dianImports.insert({ company_id: world.company.id, source: 'dian_web_service', document_type: 'invoice', begin_date: '2026-11-01', end_date: '2026-11-30', requested_cufes: null });
  await db('dian_events').where({ id: event.id }).update({ created_at: db.raw("now() - interval '10 minutes'") });
  await db('dian_imports').where({ id: run.id }).update({ created_at: db.raw("now() - interval '10 minutes'") });

  const temporal = temporalOf(world);
  await ensureSchedules(temporal.client, temporal.taskQueue);
  await runRecurringJobs();

  // The event's own row first, then its webhook: on a loaded machine (the whole suite, a cluster
  // test beside it) the delivery's first attempt can miss its 10 s and come again a minute later.
  await eventually(async () => ((await db('dian_events').where({ id: event.id }).first())?.status === 'succeeded' ? true : undefined), 60_000);
  const completed = await eventually(() => world.events('dian_event.completed').find((item) => item.data.invoice_id === invoice.id), 100_000);
  t.like(completed.data, { invoice_id: invoice.id, event: '030', succeeded: true });
  t.like(await db('dian_events').where({ id: event.id }).first(), { status: 'succeeded' });
  t.is(world.simulator.events(cufe).length, 1, 'one event at DIAN');
  const finished = await eventually(async () => {
    const row = await db('dian_imports').where({ id: run.id }).first();
    return ['DONE', 'ERROR'].includes(row.status) ? row : undefined;
  }, 60_000);
  t.true(['DONE', 'ERROR'].includes(finished.status));
  const ids = workflowIdsFor(temporal.taskQueue);
  t.is((await temporal.client.workflow.getHandle(ids.dianEvent(Number(event.id))).describe()).status.name, 'COMPLETED');

  // Again: a record whose workflow ran is left alone, even were it still pending (the operators'
  // reconciliation settles those), and younger work is the API's own to start.
  await db('dian_events').where({ id: event.id }).update({ status: 'pending' });
  const young = await repositories.dianEvents.insert(world.company.id, invoice.id, '032', ISSUER, 'DIS');
  await runRecurringJobs();
  t.like(await db('dian_events').where({ id: young.id }).first(), { status: 'pending' });
  await t.throwsAsync(temporal.client.workflow.getHandle(ids.dianEvent(Number(young.id))).describe(), { name: 'WorkflowNotFoundError' });
  t.is((await temporal.client.workflow.getHandle(ids.dianEvent(Number(event.id))).describe()).status.name, 'COMPLETED');
  t.is(world.simulator.events(cufe).length, 1, 'nothing sent twice');
  await db('dian_events').whereIn('id', [event.id, young.id]).update({ status: 'failed' });
});

// An event whose workflow ran (it was signed) but which is still pending once Temporal has
// forgotten that workflow (past its retention) is not started again: it may be at DIAN already.
test.serial('the resume starts only work that never ran a step: a signed event is left to the operators', async (t) => {
  const cufe = createHash('sha384').update('stranded-work-signed').digest('hex');
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'signed.xml', bytes: demoInvoiceXml('FE-STRANDED-2', cufe, '800197268', '900108281') });
  const invoice = (await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id)).documents[0];
  const { repositories, db } = world.api.database;
  const event = await repositories.dianEvents.insert(world.company.id, invoice.id, '030', ISSUER, 'DIS');
  await db('dian_events').where({ id: event.id }).update({ created_at: db.raw("now() - interval '10 minutes'"), issued_at: db.raw("now() - interval '9 minutes'") });
  await runRecurringJobs();
  t.like(await db('dian_events').where({ id: event.id }).first(), { status: 'pending' });
  await t.throwsAsync(world.api.temporal.client.workflow.getHandle(workflowIdsFor(world.api.config.temporal.taskQueue).dianEvent(Number(event.id))).describe(), { name: 'WorkflowNotFoundError' });
  await db('dian_events').where({ id: event.id }).update({ status: 'failed' });
});

// Temporal slow or frozen: a start can fail (DEADLINE_EXCEEDED) and still take effect. The API
// failed such an event not_started and told the client to send it again, so a start that had
// taken effect sent it beside the client's new one (found by a review of the fault-injection fixes).
test.serial('an event whose workflow start failed stays pending: the retry (409) starts it, and DIAN gets it once', async (t) => {
  const cufe = createHash('sha384').update('stranded-work-start-failed').digest('hex');
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'start-failed.xml', bytes: demoInvoiceXml('FE-STRANDED-3', cufe, '800197268', '900108281') });
  const invoice = (await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id)).documents[0];
  await eventually(() => world.simulator.catalog.documents.get(cufe));
  const path = `/v1/companies/${world.company.id}/invoices/${invoice.id}/dian-events`;
  const body = { event: '030', issuer: { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' } };
  const workflows = world.api.temporal.client.workflow;
  const start = workflows.start;
  workflows.start = (async () => {
    throw new Error('4 DEADLINE_EXCEEDED: context deadline exceeded');
  }) as typeof workflows.start;
  let refused;
  try {
    refused = await world.call('POST', path, body);
  } finally {
    workflows.start = start;
  }
  t.true(refused.status >= 500, JSON.stringify(refused.body));
  const [row] = await world.api.database.db('dian_events').where({ document_id: invoice.id });
  t.like(row, { status: 'pending', error_code: null });
  const retried = await world.call('POST', path, body);
  t.is(retried.status, 409);
  t.is(retried.body.error.code, 'event_in_progress');
  const completed = await eventually(() => world.events('dian_event.completed').find((item) => item.data.invoice_id === invoice.id), 30_000);
  t.true(completed.data.succeeded);
  t.is(world.simulator.events(cufe).length, 1, 'one event at DIAN');
  t.is(await world.api.database.db('dian_events').where({ document_id: invoice.id }).count<{ count: string }[]>('* as count').then((rows) => Number(rows[0].count)), 1);
});
