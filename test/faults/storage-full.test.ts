import { createHash } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { presentCompany } from '../../services/presenters/company';
import { startEmailIntake } from '../../intake/email-server';
import { freePort } from '../../scripts/embedded/ports';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { upload } from '../support/ingestion';
import { mountSmallFilesystem } from '../support/small-filesystem';

// The blob directory on a 1 MB tmpfs, filled by a burst of uploads: every upload is either
// accepted (202, its file complete on disk) or refused 507 insufficient_storage with nothing
// kept (no row, no half-written file); e-mail is deferred with 451. Needs `mount` (root).
const disk = mountSmallFilesystem('storage-full', '1m');
const faultTest = disk ? test : test.skip;
const BLOB_DIR = disk?.directory ?? '';

let api: TestApi;
test.before(async () => {
  if (disk) api = await startTestApi({ BLOB_DIR });
});
test.after.always(async () => {
  await api?.close();
  disk?.unmount();
});

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** A valid invoice padded with a comment to about `bytes`. */
function paddedInvoice(i: number, bytes: number): Buffer {
  const xml = demoInvoiceXml(`FE-FULL-${i}`, createHash('sha384').update(`full-${i}`).digest('hex'), '800197268', '900108281');
  return Buffer.concat([xml, Buffer.from(`<!--${'x'.repeat(Math.max(0, bytes - xml.length - 7))}-->`)]);
}

faultTest('a full blob directory: uploads answer 507 insufficient_storage, e-mail 451, and nothing is half-written', async (t) => {
  t.timeout(120_000);
  const company = await seedCompany(api.database, 'Disco Lleno S.A.S.', '900108281');
  const { key } = await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' });

  const accepted: number[] = [];
  const wrong: string[] = [];
  let insufficient = 0;
  for (let i = 0; i < 20; i += 1) {
    const answer = await upload(api.url, key, company.id, { name: `FE-FULL-${i}.xml`, bytes: paddedInvoice(i, 150 * 1024) });
    if (answer.status === 202) accepted.push(answer.body.id as number);
    else if (answer.status === 507 && answer.body.error?.code === 'insufficient_storage') insufficient += 1;
    else wrong.push(`${answer.status} ${JSON.stringify(answer.body)}`);
  }

  // E-mail while the disk is full: deferred (451), so the sending MTA retries later.
  const intake = await startEmailIntake({
    repositories: api.dependencies.repositories,
    blobStore: api.dependencies.blobStore,
    temporal: { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue },
    logger: pino({ level: 'silent' }),
    config: { ...api.config.email, host: '127.0.0.1', port: await freePort() },
  });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: intake.port, secure: false, ignoreTLS: true });
  const mailed = await transport
    .sendMail({ from: 'a@proveedor.example', to: presentCompany(company, api.config.email.domain).inbox_email, subject: 'x', attachments: [{ filename: 'FE-MAIL.xml', content: paddedInvoice(99, 400 * 1024) }] })
    .then(() => 250, (error: { responseCode?: number }) => error.responseCode);
  transport.close();
  await intake.close();

  // Kept = a row whose blob is complete on disk; nothing else is on disk.
  const rows = await api.database.db('uploaded_files').where({ company_id: company.id }).select('id', 'blob_key', 'size');
  const onDisk = filesUnder(BLOB_DIR);
  const kept = rows.filter((row) => {
    const file = path.join(BLOB_DIR, ...String(row.blob_key).split('/'));
    return onDisk.includes(file) && statSync(file).size === Number(row.size);
  });
  const line = `storage full: accepted ${accepted.length} / completed ${kept.length} / lost ${accepted.length - kept.length} (507 insufficient_storage answers: ${insufficient}; e-mail answered ${mailed})`;
  t.log(line);
  console.log(`[faults] ${line}`);

  t.deepEqual(wrong, [], 'every answer was 202 or 507 insufficient_storage');
  t.true(accepted.length > 0 && insufficient > 0, 'the disk filled up mid-burst');
  t.is(mailed, 451);
  t.deepEqual(rows.map((row) => row.id).sort(), [...accepted].sort(), 'a row for every accepted upload and for nothing else');
  t.is(kept.length, accepted.length, 'lost = 0');
  t.deepEqual(onDisk.filter((file) => !kept.some((row) => file.endsWith(String(row.blob_key).split('/').join(path.sep)))), [], 'no half-written or orphaned file');

  // Space freed: uploads are accepted again.
  for (const row of kept.slice(0, 3)) rmSync(path.join(BLOB_DIR, ...String(row.blob_key).split('/')));
  t.is((await upload(api.url, key, company.id, { name: 'FE-FULL-after.xml', bytes: paddedInvoice(100, 10 * 1024) })).status, 202);
});
