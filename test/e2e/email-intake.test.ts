import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import pino from 'pino';
import { simplePdf } from '../../admin/demo-documents';
import type { AppConfig } from '../../config';
import { inboxTokenOf } from '../../domain/email-address';
import { selectAttachments, startEmailIntake, type RunningEmailIntake } from '../../intake/email-server';
import type { BlobStore } from '../../storage/blob-store';
import { freePort } from '../../scripts/embedded/ports';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { fixture, waitForImport } from '../support/ingestion';
import { startTestWorker, type TestWorker } from '../support/worker';

// Real mail over loopback: nodemailer → the SMTP intake → acceptFile → the import workflow on
// the Temporal dev server, with the real DIAN sample documents.
let api: TestApi;
let worker: TestWorker;
let intake: RunningEmailIntake;
let key: string;
let buyer: { id: number };
let inbox: string;

const PNG = Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001080600000000', 'hex');

function intakeDependencies(config: Partial<AppConfig['email']> & { port: number }, blobStore: BlobStore = api.dependencies.blobStore) {
  return {
    repositories: api.dependencies.repositories,
    blobStore,
    temporal: { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue },
    logger: pino({ level: 'silent' }),
    config: { ...api.config.email, host: '127.0.0.1', ...config },
  };
}

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config);
  buyer = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read'], role: 'admin' })).key;
  intake = await startEmailIntake(intakeDependencies({ port: await freePort() }));
  inbox = (await getJson(`/v1/companies/${buyer.id}`)).inbox_email;
});
test.after.always(async () => {
  await intake?.close();
  await worker?.stop();
  await api?.close();
});

async function getJson(url: string) {
  return (await (await fetch(`${api.url}${url}`, { headers: bearer(key) })).json()) as Record<string, any>;
}

async function fileIds(companyId: number): Promise<number[]> {
  const page = await getJson(`/v1/companies/${companyId}/files?limit=200`);
  return (page.data as { id: number }[]).map((file) => file.id);
}

async function send(port: number, message: Mail.Options) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail({ from: 'facturacion@proveedor.example', ...message });
  } finally {
    transport.close();
  }
}

/** Sends, then returns the uploaded files the message created (all exist once the 250 is in). */
async function sendAndCollect(message: Mail.Options, port = intake.port) {
  const before = new Set(await fileIds(buyer.id));
  const info = await send(port, message);
  const created = (await fileIds(buyer.id)).filter((id) => !before.has(id)).sort((a, b) => a - b);
  return { info, created };
}

async function smtpFailure(promise: Promise<unknown>): Promise<{ responseCode?: number; response?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { responseCode?: number; response?: string };
  }
  throw new Error('the SMTP transaction succeeded');
}

async function mailBlobs(companyId: number): Promise<string[]> {
  if (api.config.blobStore.driver !== 'filesystem') return [];
  try {
    return await readdir(path.join(api.config.blobStore.directory, 'companies', String(companyId), 'mail'));
  } catch {
    return [];
  }
}

test('inbox addresses: token@domain, case-insensitive, +tag ignored, other domains refused', (t) => {
  const domain = 'inbox.localhost';
  t.is(inboxTokenOf('3f9a1c0d7e2b4a6c8e10@inbox.localhost', domain), '3f9a1c0d7e2b4a6c8e10');
  t.is(inboxTokenOf('3F9A1C0D7E2B4A6C8E10@INBOX.LOCALHOST', domain), '3f9a1c0d7e2b4a6c8e10');
  t.is(inboxTokenOf('3f9a1c0d7e2b4a6c8e10+proveedores@inbox.localhost', domain), '3f9a1c0d7e2b4a6c8e10');
  t.is(inboxTokenOf('<3f9a1c0d7e2b4a6c8e10@inbox.localhost.>', domain), '3f9a1c0d7e2b4a6c8e10');
  t.is(inboxTokenOf('3f9a1c0d7e2b4a6c8e10@example.com', domain), null);
  t.is(inboxTokenOf('3f9a1c0d7e2b4a6c8e10@sub.inbox.localhost', domain), null);
  t.is(inboxTokenOf('no-such.thing@inbox.localhost', domain), null);
  t.is(inboxTokenOf('@inbox.localhost', domain), null);
  t.is(inboxTokenOf('inbox.localhost', domain), null);
});

test('attachment selection: by content, and a PDF named like an XML or ZIP of the message is paired, not imported', (t) => {
  const xml = Buffer.from('<?xml version="1.0"?><Invoice/>');
  const pdf = Buffer.from('%PDF-1.4\n');
  const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]);
  const attachment = (filename: string | null, content: Buffer, mimeType = 'application/octet-stream') => ({ filename, content, mimeType, disposition: 'attachment' as const });
  const { importable, ignored, paired } = selectAttachments({
    attachments: [
      attachment('FE123.XML', xml),
      attachment('fe123.pdf', pdf),
      attachment('NC9.zip', zip),
      attachment('NC9.pdf', pdf),
      attachment('cuenta-cobro.pdf', pdf),
      attachment('logo.png', PNG, 'image/png'),
      attachment(null, xml, 'text/xml'),
      attachment('looks-like.pdf', Buffer.from('not a pdf')),
    ],
  });
  t.deepEqual(importable.map((file) => [file.fileName, file.type]), [['FE123.XML', 'xml'], ['NC9.zip', 'zip'], ['cuenta-cobro.pdf', 'pdf'], ['attachment-7.xml', 'xml']]);
  t.deepEqual(paired, ['fe123.pdf', 'NC9.pdf']);
  t.deepEqual(ignored, ['logo.png', 'looks-like.pdf']);
});

test.serial('the inbox address is on the Company object: GET /v1/companies, /v1/companies/{id} and /v1/me', async (t) => {
  t.regex(inbox, /^[0-9a-f]{20}@inbox\.localhost$/);
  const companies = (await getJson('/v1/companies')) as unknown as { id: number; inbox_email: string }[];
  t.is(companies.find((company) => company.id === buyer.id)?.inbox_email, inbox);
  const me = await getJson('/v1/me');
  t.is(me.companies.find((company: { id: number }) => company.id === buyer.id)?.inbox_email, inbox);
  const other = await seedCompany(api.database, 'Otra S.A.S.', '860007738');
  const otherInbox = (await getJson(`/v1/companies/${other.id}`)).inbox_email;
  t.not(otherInbox, inbox, 'every company has its own inbox');
});

test.serial('an invoice XML with its PDF: one EMAIL file, imported into one invoice, with the raw message kept', async (t) => {
  const subject = `Factura SETP990000002 ${Date.now()}`;
  const { info, created } = await sendAndCollect({
    to: inbox,
    subject,
    text: 'Adjuntamos la factura electrónica.',
    attachments: [
      { filename: 'invoice-signed-setp.xml', content: fixture('invoice-signed-setp.xml'), contentType: 'application/xml' },
      { filename: 'invoice-signed-setp.pdf', content: await simplePdf('Representación gráfica SETP990000002'), contentType: 'application/pdf' },
    ],
  });
  t.deepEqual(info.accepted, [inbox]);
  t.regex(info.response, /^250 /);
  t.is(created.length, 1, 'the PDF of the same name is not a document of its own');

  const file = await waitForImport(api.url, key, buyer.id, created[0]);
  t.like(file, { status: 'DONE', type: 'EMAIL', file_name: 'invoice-signed-setp.xml', content_type: 'application/xml' });
  t.is(file.documents.length, 1);
  t.like(file.documents[0], { kind: 'electronic_invoice', cufe: '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694' });
  const invoice = await getJson(`/v1/companies/${buyer.id}/invoices/${file.documents[0].id}`);
  t.like(invoice, { number: 'SETP990000002', kind: 'purchase', total: '14024.07', imported_file_id: file.id });

  const row = await api.database.db('uploaded_files').where({ id: file.id }).first('source_message_key', 'type');
  t.regex(row.source_message_key, new RegExp(`^companies/${buyer.id}/mail/[0-9a-f-]{36}\\.eml$`));
  t.true(await api.dependencies.blobStore.exists(row.source_message_key));
  const raw = (await api.dependencies.blobStore.get(row.source_message_key)).toString('utf8');
  t.true(raw.includes(`Subject: ${subject}`));
  t.true(raw.includes('invoice-signed-setp.pdf'), 'the whole message, PDF included, is kept');
  t.regex(raw, /^Return-Path: <facturacion@proveedor\.example>\r\nReceived: from /);
});

test.serial('two documents in one message: two files, two documents (address in upper case)', async (t) => {
  const { info, created } = await sendAndCollect({
    to: inbox.toUpperCase(),
    subject: 'Notas crédito y débito',
    attachments: [
      { filename: 'creditnote-usd.xml', content: fixture('creditnote-usd.xml') },
      { filename: 'debitnote.xml', content: fixture('debitnote.xml') },
      { filename: 'firma.png', content: PNG, contentType: 'image/png', cid: 'firma' },
    ],
  });
  t.regex(info.response, /^250 /);
  t.is(created.length, 2);
  const files = await Promise.all(created.map((id) => waitForImport(api.url, key, buyer.id, id)));
  t.deepEqual(files.map((file) => [file.type, file.status, file.file_name]), [['EMAIL', 'DONE', 'creditnote-usd.xml'], ['EMAIL', 'DONE', 'debitnote.xml']]);
  t.deepEqual(files.map((file) => file.documents.map((document: { kind: string }) => document.kind)), [['credit_note'], ['debit_note']]);
  const keys = await api.database.db('uploaded_files').whereIn('id', created).distinct('source_message_key');
  t.is(keys.length, 1, 'both files point at the same raw message');
});

test.serial('a message forwarded as an attachment: its attachments are imported, with the pairing rule', async (t) => {
  const original = await new MailComposer({
    from: 'facturacion@otro.example',
    to: 'contabilidad@opticas.example',
    subject: 'Factura SETP990000001',
    attachments: [
      { filename: 'ad0900108281.xml', content: fixture('toolbox-excluded-vat.xml') },
      { filename: 'ad0900108281.pdf', content: await simplePdf('SETP990000001') },
    ],
  }).compile().build();
  const { created } = await sendAndCollect({
    to: inbox,
    subject: 'Fwd: Factura SETP990000001',
    text: 'Reenvío la factura.',
    attachments: [{ filename: 'factura.eml', content: original, contentType: 'message/rfc822', contentDisposition: 'attachment' }],
  });
  t.is(created.length, 1);
  const file = await waitForImport(api.url, key, buyer.id, created[0]);
  t.like(file, { status: 'DONE', type: 'EMAIL', file_name: 'ad0900108281.xml' });
  t.is(file.documents[0]?.kind, 'electronic_invoice');
});

test.serial('an unknown inbox is refused with 550 and nothing is stored', async (t) => {
  const before = await fileIds(buyer.id);
  const cases = ['0000000000000000dead@inbox.localhost', `${inbox.split('@')[0]}@example.com`, 'postmaster@inbox.localhost'];
  for (const to of cases) {
    const error = await smtpFailure(send(intake.port, { to, subject: 'x', attachments: [{ filename: 'debitnote.xml', content: fixture('debitnote.xml') }] }));
    t.is(error.responseCode, 550, to);
    t.regex(error.response ?? '', /no such inbox/i, to);
  }
  t.deepEqual(await fileIds(buyer.id), before);
});

test.serial('a known and an unknown recipient: the message is delivered to the known one only', async (t) => {
  const { info, created } = await sendAndCollect({
    to: [inbox, 'ffffffffffffffffffff@inbox.localhost'],
    subject: 'Factura',
    attachments: [{ filename: 'cuenta-cobro-9.pdf', content: await simplePdf('Cuenta de cobro 9') }],
  });
  t.deepEqual(info.accepted, [inbox]);
  t.deepEqual(info.rejected, ['ffffffffffffffffffff@inbox.localhost']);
  t.is(created.length, 1);
  const file = await waitForImport(api.url, key, buyer.id, created[0]);
  t.like(file, { type: 'EMAIL', file_name: 'cuenta-cobro-9.pdf', content_type: 'application/pdf' });
});

test.serial('a message over the size limit is refused with 552', async (t) => {
  const small = await startEmailIntake(intakeDependencies({ port: await freePort(), maxMessageBytes: 64 * 1024 }));
  try {
    const before = await fileIds(buyer.id);
    const mailBefore = await mailBlobs(buyer.id);
    const big = Buffer.concat([fixture('debitnote.xml'), Buffer.from(`<!-- ${'x'.repeat(200 * 1024)} -->`)]);
    const error = await smtpFailure(send(small.port, { to: inbox, subject: 'grande', attachments: [{ filename: 'debitnote.xml', content: big }] }));
    t.is(error.responseCode, 552);
    t.deepEqual(await fileIds(buyer.id), before);
    t.deepEqual(await mailBlobs(buyer.id), mailBefore, 'an oversized message is not kept');
    // Under the limit, the same listener accepts.
    const ok = await send(small.port, { to: inbox, subject: 'pequeño', text: 'sin adjuntos' });
    t.regex(ok.response, /^250 /);
  } finally {
    await small.close();
  }
});

test.serial('a message with only an image is accepted (250) and kept, and creates no file', async (t) => {
  const mailBefore = await mailBlobs(buyer.id);
  const { info, created } = await sendAndCollect({
    to: inbox,
    subject: 'Solo el logo',
    html: '<p>Gracias</p><img src="cid:logo">',
    attachments: [{ filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo' }, { filename: 'foto.jpg', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) }],
  });
  t.regex(info.response, /^250 /);
  t.deepEqual(created, []);
  if (api.config.blobStore.driver === 'filesystem') t.is((await mailBlobs(buyer.id)).length, mailBefore.length + 1);
});

test.serial('a storage failure answers 451 so the sender retries; the retry imports once, a repeat replays', async (t) => {
  const real = api.dependencies.blobStore;
  const broken: BlobStore = {
    driver: real.driver,
    put: async () => {
      throw new Error('disk full');
    },
    putFile: async () => {
      throw new Error('disk full');
    },
    get: (blobKey) => real.get(blobKey),
    check: (timeoutMs) => real.check(timeoutMs),
    exists: (blobKey) => real.exists(blobKey),
    delete: (blobKey) => real.delete(blobKey),
    signedDownloadUrl: (blobKey, options) => real.signedDownloadUrl(blobKey, options),
  };
  const failing = await startEmailIntake(intakeDependencies({ port: await freePort() }, broken));
  const raw = Buffer.from(
    [
      'From: facturacion@proveedor.example',
      `To: ${inbox}`,
      'Subject: Reintento',
      'Message-ID: <retry-1@proveedor.example>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Adjunto.',
      '--b',
      'Content-Type: application/pdf; name="cuenta-cobro-11.pdf"',
      'Content-Disposition: attachment; filename="cuenta-cobro-11.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      (await simplePdf('Cuenta de cobro 11')).toString('base64').replace(/.{76}/g, '$&\r\n'),
      '--b--',
      '',
    ].join('\r\n'),
  );
  const envelope = { from: 'facturacion@proveedor.example', to: [inbox] };
  try {
    const before = await fileIds(buyer.id);
    const error = await smtpFailure(send(failing.port, { envelope, raw }));
    t.is(error.responseCode, 451);
    t.deepEqual(await fileIds(buyer.id), before);
  } finally {
    await failing.close();
  }
  const retried = await sendAndCollect({ envelope, raw });
  t.is(retried.created.length, 1);
  const again = await sendAndCollect({ envelope, raw });
  t.deepEqual(again.created, [], 'the same bytes again do not import the file twice');
});
