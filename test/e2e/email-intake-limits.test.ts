import { createHash } from 'node:crypto';
import test from 'ava';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import pino from 'pino';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { createMailActivities } from '../../activities/mail';
import type { AppConfig } from '../../config';
import { presentCompany } from '../../services/presenters/company';
import { startEmailIntake, ByteBudget, type RunningEmailIntake } from '../../intake/email-server';
import { freePort } from '../../scripts/embedded/ports';
import { MAX_ATTACHMENTS_PER_MESSAGE } from '../../intake/mime-extract';
import { seedCompany, startTestApi, type TestApi } from '../support/api';

// The SMTP intake's limits over real SMTP on loopback: the per-company quota (452, so the
// sending MTA retries later), and the retention of messages nothing was imported from.
let api: TestApi;
const intakes: RunningEmailIntake[] = [];

test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => {
  for (const intake of intakes) await intake.close();
  await api?.close();
});

async function intakeWith(quota: AppConfig['email']['dailyQuota']) {
  const intake = await startEmailIntake({
    repositories: api.dependencies.repositories,
    blobStore: api.dependencies.blobStore,
    temporal: { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue },
    logger: pino({ level: 'silent' }),
    config: { ...api.config.email, host: '127.0.0.1', port: await freePort(), dailyQuota: quota },
  });
  intakes.push(intake);
  return intake;
}

async function inboxOf(name: string, nit: string) {
  const company = await seedCompany(api.database, name, nit);
  return { id: company.id, inbox: presentCompany(company, api.config.email.domain).inbox_email };
}

async function send(port: number, message: Mail.Options): Promise<{ ok: true; response: string } | { ok: false; responseCode?: number; response?: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ from: 'facturacion@proveedor.example', subject: 'x', ...message });
    return { ok: true, response: info.response };
  } catch (error) {
    const { responseCode, response } = error as { responseCode?: number; response?: string };
    return { ok: false, responseCode, response };
  } finally {
    transport.close();
  }
}

const image = (bytes: number) => ({ filename: 'logo.png', content: Buffer.alloc(bytes, 7), contentType: 'image/png' });

test('the daily message quota: the recipient is deferred with 452 once it is reached', async (t) => {
  const intake = await intakeWith({ messages: 2, bytes: 100 * 1024 * 1024 });
  const company = await inboxOf('Cuota Mensajes S.A.S.', '900000001');
  t.true((await send(intake.port, { to: company.inbox, attachments: [image(1000)] })).ok);
  t.true((await send(intake.port, { to: company.inbox, attachments: [image(1000)] })).ok);
  const third = await send(intake.port, { to: company.inbox, attachments: [image(1000)] });
  t.false(third.ok);
  t.is(third.ok ? 0 : third.responseCode, 452);
  t.regex(third.ok ? '' : third.response ?? '', /daily quota/);
  t.is((await api.dependencies.repositories.emailMessages.usageSince(company.id, new Date(0))).messages, 2, 'nothing of the third is stored');
});

test(`more than ${MAX_ATTACHMENTS_PER_MESSAGE} attachments in one message, forwarded ones counted, is refused 552 and nothing of it is stored`, async (t) => {
  const intake = await intakeWith({ messages: 100, bytes: 100 * 1024 * 1024 });
  const company = await inboxOf('Muchos Adjuntos S.A.S.', '900000004');
  const tiny = (n: number) => ({ filename: `FE-${n}.xml`, content: `<Invoice><ID>${n}</ID></Invoice>`, contentType: 'application/xml' });
  const allowed = await send(intake.port, { to: company.inbox, attachments: Array.from({ length: MAX_ATTACHMENTS_PER_MESSAGE }, (_, n) => tiny(n)) });
  t.true(allowed.ok, JSON.stringify(allowed));
  // 3 forwards of 80 each (243 attachments in all, the forwarded messages counted).
  const forward = async (from: number) => {
    const built = await new Promise<Buffer>((resolve, reject) =>
      nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail(
        { from: 'a@proveedor.example', to: 'b@proveedor.example', subject: 'fwd', attachments: Array.from({ length: 80 }, (_, n) => tiny(from + n)) },
        (error, info) => (error ? reject(error) : resolve(info.message as Buffer)),
      ),
    );
    return { filename: 'reenviado.eml', content: built, contentType: 'message/rfc822' };
  };
  const refused = await send(intake.port, { to: company.inbox, attachments: [await forward(0), await forward(100), await forward(200)] });
  t.false(refused.ok);
  t.is(refused.ok ? 0 : refused.responseCode, 552);
  t.regex(refused.ok ? '' : refused.response ?? '', /more than 200 attachments/);
  t.is((await api.dependencies.repositories.emailMessages.usageSince(company.id, new Date(0))).messages, 1, 'only the allowed message is stored');
});

test('the daily byte quota: a message that would pass it is answered 452 after DATA, and nothing of it is stored', async (t) => {
  const intake = await intakeWith({ messages: 100, bytes: 300 * 1024 });
  const company = await inboxOf('Cuota Bytes S.A.S.', '900000002');
  t.true((await send(intake.port, { to: company.inbox, attachments: [image(150 * 1024)] })).ok);
  const second = await send(intake.port, { to: company.inbox, attachments: [image(150 * 1024)] });
  t.false(second.ok);
  t.is(second.ok ? 0 : second.responseCode, 452);
  const usage = await api.dependencies.repositories.emailMessages.usageSince(company.id, new Date(0));
  t.is(usage.messages, 1);
  // Another company is not affected by the first one's quota.
  const other = await inboxOf('Otra S.A.S.', '900000003');
  t.true((await send(intake.port, { to: other.inbox, attachments: [image(150 * 1024)] })).ok);
});

test('retention: a message nothing was imported from is deleted after 30 days; one with files stays', async (t) => {
  const intake = await intakeWith({ messages: 100, bytes: 100 * 1024 * 1024 });
  const company = await inboxOf('Retencion S.A.S.', '900108281');
  t.true((await send(intake.port, { to: company.inbox, attachments: [image(2000)] })).ok);
  const cufe = createHash('sha384').update('retention-1').digest('hex');
  const withInvoice = await send(intake.port, { to: company.inbox, attachments: [{ filename: 'FE-RET-1.xml', content: demoInvoiceXml('FE-RET-1', cufe, '800197268', '900108281') }] });
  t.true(withInvoice.ok && /1 file\(s\) accepted/.test(withInvoice.response));
  const rows = await api.database.db('email_messages').where({ company_id: company.id }).orderBy('id');
  t.deepEqual(rows.map((row) => row.files), [0, 1]);
  for (const row of rows) t.true(await api.dependencies.blobStore.exists(row.blob_key));

  const purge = createMailActivities(api.dependencies).purgeUnimportableMail;
  t.deepEqual(await purge(), { messages: 0 }, 'nothing is old enough yet');
  await api.database.db('email_messages').where({ company_id: company.id }).update({ received_at: api.database.db.raw("now() - interval '31 days'") });
  t.deepEqual(await purge(), { messages: 1 });
  t.false(await api.dependencies.blobStore.exists(rows[0].blob_key), 'the unimportable message is gone');
  t.true(await api.dependencies.blobStore.exists(rows[1].blob_key), 'the message with a file stays (it is the file’s source)');
  t.deepEqual((await api.database.db('email_messages').where({ company_id: company.id })).map((row) => row.id), [rows[1].id]);
});

test('the parse budget: bytes beyond it wait, first come first served', async (t) => {
  const budget = new ByteBudget(100);
  const order: string[] = [];
  const a = await budget.acquire(60);
  const b = budget.acquire(60).then((release) => (order.push('b'), release));
  const c = budget.acquire(30).then((release) => (order.push('c'), release));
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.deepEqual(order, [], 'c waits behind b even though it would fit');
  a();
  const releaseB = await b;
  const releaseC = await c;
  t.deepEqual(order, ['b', 'c']);
  releaseB();
  releaseC();
  const huge = await budget.acquire(1_000);
  huge();
});
