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

test.before(async () => {
  world = await startDianWorld();
});
test.after.always(async () => {
  await world?.close();
});

test('a DIAN event and a DIAN import run recorded but never started are started by the resume, once, with no request', async (t) => {
  t.timeout(120_000);
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

  const temporal = { client: world.api.temporal.client, taskQueue: world.api.config.temporal.taskQueue };
  await ensureSchedules(temporal.client, temporal.taskQueue);
  /** Runs every recurring job of the queue now, as their schedules would, and waits for them to end. */
  const runRecurringJobs = async () => {
    for await (const listed of temporal.client.schedule.list()) {
      if (!listed.scheduleId.endsWith(`-${temporal.taskQueue}`)) continue;
      const schedule = temporal.client.schedule.getHandle(listed.scheduleId);
      const before = (await schedule.describe()).info.recentActions.length;
      await schedule.trigger();
      const action = await eventually(async () => (await schedule.describe()).info.recentActions[before], 30_000);
      await temporal.client.workflow.getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId).result();
    }
  };
  await runRecurringJobs();

  const completed = await eventually(() => world.events('dian_event.completed').find((item) => item.data.invoice_id === invoice.id), 30_000);
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
