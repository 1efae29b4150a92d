import { createHash } from 'node:crypto';
import net from 'node:net';
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

async function intakeWith(quota: AppConfig['email']['dailyQuota'], limits: Partial<AppConfig['email']> = {}, logger = pino({ level: 'silent' })) {
  const intake = await startEmailIntake({
    repositories: api.dependencies.repositories,
    blobStore: api.dependencies.blobStore,
    temporal: { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue },
    logger,
    config: { ...api.config.email, host: '127.0.0.1', port: await freePort(), dailyQuota: quota, ...limits },
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

/** A raw SMTP connection on loopback: every line the server sent, and whether it closed. */
async function connectRaw(port: number, localAddress = '127.0.0.1') {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  const lines: string[] = [];
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\r\n');
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  const nextLine = async (after: number, within = 5_000) => {
    const deadline = Date.now() + within;
    while (lines.length <= after && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return lines[after];
  };
  return { socket, lines, closed, nextLine };
}

test('one address may hold only its share of the connections: the next is refused 421, and admitted once one closes', async (t) => {
  const intake = await intakeWith({ messages: 100, bytes: 100 * 1024 * 1024 }, { maxConnectionsPerAddress: 2 });
  const first = await connectRaw(intake.port);
  const second = await connectRaw(intake.port);
  t.regex(await first.nextLine(0), /^220 /);
  t.regex(await second.nextLine(0), /^220 /);
  const third = await connectRaw(intake.port);
  t.regex(await third.nextLine(0), /^421 4\.7\.0 Too many connections from your address/);
  await third.closed;
  // Another address is not affected.
  const elsewhere = await connectRaw(intake.port, '127.0.0.2');
  t.regex(await elsewhere.nextLine(0), /^220 /);
  elsewhere.socket.end('QUIT\r\n');
  first.socket.end('QUIT\r\n');
  await first.closed;
  const fourth = await connectRaw(intake.port);
  t.regex(await fourth.nextLine(0), /^220 /, 'the closed session gave its slot back');
  // A sending MTA gets the same 4xx, and retries later.
  const company = await inboxOf('Conexiones S.A.S.', '900000005');
  const whileFull = await send(intake.port, { to: company.inbox, attachments: [image(100)] });
  t.is(whileFull.ok ? 0 : whileFull.responseCode, 421);
  for (const open of [second, fourth]) open.socket.end('QUIT\r\n');
  await Promise.all([second.closed, fourth.closed]);
  t.true((await send(intake.port, { to: company.inbox, attachments: [image(100)] })).ok);
});

test('a session that keeps talking without sending mail is closed with 421 at its time limit, and its slot is freed', async (t) => {
  const intake = await intakeWith({ messages: 100, bytes: 100 * 1024 * 1024 }, { maxConnectionsPerAddress: 1, maxSessionMs: 1_500 });
  const client = await connectRaw(intake.port);
  t.regex(await client.nextLine(0), /^220 /);
  const started = Date.now();
  const noops = setInterval(() => client.socket.write('NOOP\r\n'), 200);
  try {
    await client.closed;
  } finally {
    clearInterval(noops);
  }
  const elapsed = Date.now() - started;
  t.true(elapsed >= 1_300 && elapsed < 4_000, `closed after ${elapsed} ms`);
  t.true(client.lines.filter((line) => line.startsWith('250 ')).length >= 3, 'its NOOPs were answered until then');
  t.regex(client.lines.at(-1) ?? '', /^421 4\.4\.2 Session time limit reached/);
  const next = await connectRaw(intake.port);
  t.regex(await next.nextLine(0), /^220 /);
  next.socket.end('QUIT\r\n');
  await next.closed;
});

test('a client that leaves in the middle of its DATA: nothing is stored, and it is logged as routine, not as an error', async (t) => {
  const logged: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const intake = await intakeWith({ messages: 100, bytes: 100 * 1024 * 1024 }, {}, logger);
  const company = await inboxOf('Se Fue S.A.S.', '900000006');
  const client = await connectRaw(intake.port);
  t.regex(await client.nextLine(0), /^220 /);
  const commands = ['EHLO cliente.example', 'MAIL FROM:<a@proveedor.example>', `RCPT TO:<${company.inbox}>`, 'DATA'];
  for (const command of commands) client.socket.write(`${command}\r\n`);
  while (!client.lines.some((line) => line.startsWith('354'))) {
    t.truthy(await client.nextLine(client.lines.length), `answers so far: ${client.lines.join(' | ')}`);
  }
  client.socket.write('Subject: a medias\r\n\r\n' + 'x'.repeat(50_000));
  await new Promise((resolve) => setTimeout(resolve, 100));
  client.socket.destroy();
  const deadline = Date.now() + 5_000;
  while (!logged.some((line) => /left before the end of its message/.test(line.msg)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const left = logged.find((line) => /left before the end of its message/.test(line.msg));
  t.is(left?.level, 30, 'info');
  t.deepEqual(logged.filter((line) => line.level >= 50), [], 'no error was logged');
  t.is((await api.dependencies.repositories.emailMessages.usageSince(company.id, new Date(0))).messages, 0);
  t.true((await send(intake.port, { to: company.inbox, attachments: [image(100)] })).ok, 'the listener goes on');
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
