import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { demoInvoiceXml, seedDemoDocuments } from '../../admin/demo-documents';
import { partNodeArguments } from '../../scripts/build-parts';
import { freePort } from '../../scripts/embedded/ports';
import type { FilesystemBlobStore } from '../../storage/filesystem-blob-store';
import { bearer, seedCompany, seedKey, serviceEnvironment, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { upload } from '../support/ingestion';
import { filesUnder } from '../support/raw-http';

// Faults of the filesystem blob store under a running API: its directory made unwritable, the
// process out of file descriptors, a stored original deleted or truncated on disk. Uploads are
// refused 503 service_unavailable naming the file store (with Retry-After), nothing half-written
// is kept, and they are accepted again once the fault is gone; a damaged file is never served.
let api: TestApi;
let key: string;
let companyId: number;
let demo: Awaited<ReturnType<typeof seedDemoDocuments>>;

test.before(async () => {
  api = await startTestApi();
  const company = await seedCompany(api.database, 'Disco Roto S.A.S.', '900108281');
  companyId = company.id;
  demo = await seedDemoDocuments({ repositories: api.database.repositories, blobStore: api.dependencies.blobStore }, company);
  key = (await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' })).key;
});
test.after.always(async () => api?.close());

const blobDir = () => (api.config.blobStore as { directory: string }).directory;
const invoiceXml = (label: string) => demoInvoiceXml(`FE-${label}`, createHash('sha384').update(label).digest('hex'), '800197268', '900108281');
const uploadedCount = async () => Number((await api.database.db('uploaded_files').count<{ count: number }[]>('* as count'))[0].count);

/** GET with the key, not following redirects. */
const get = (pathname: string) => fetch(`${api.url}${pathname}`, { headers: bearer(key), redirect: 'manual' });

function expectFileStoreUnavailable(t: { is(a: unknown, b: unknown, m?: string): void; regex(a: string, r: RegExp, m?: string): void }, answer: { status: number; headers: Headers; body: any }, what: string) {
  t.is(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  t.is(answer.body.error?.code, 'service_unavailable', what);
  t.regex(answer.body.error?.message ?? '', /file store/, what);
  t.is(answer.headers.get('retry-after'), '5', what);
}

/** Whether `mount` works here (root in a sandbox that allows it), for the read-only remount. */
const canMount = (() => {
  try {
    execFileSync('mount', ['--version'], { stdio: 'ignore' });
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
})();

(canMount ? test.serial : test.serial.skip)('the blob directory made read-only (EROFS) while running: uploads and PDFs are 503 naming the file store, nothing is kept; writable again, they work', async (t) => {
  t.timeout(60_000);
  // chmod 000 stops no root process (CAP_DAC_OVERRIDE); a read-only bind mount stops every writer,
  // as chmod 000 stops the image's `node` user (EACCES): both are the same 503 now (were 500).
  const directory = blobDir();
  execFileSync('mount', ['--bind', directory, directory]);
  let mounted = true;
  try {
    execFileSync('mount', ['-o', 'remount,ro,bind', directory]);
    const filesBefore = (await filesUnder(directory)).sort();
    const rowsBefore = await uploadedCount();

    expectFileStoreUnavailable(t, await upload(api.url, key, companyId, { name: 'FE-RO.xml', bytes: invoiceXml('ro') }), 'an upload');
    expectFileStoreUnavailable(t, await upload(api.url, key, companyId, { name: 'FE-RO-2.xml', bytes: invoiceXml('ro-2') }, { idempotencyKey: 'ro-2' }), 'an idempotent upload');
    // The on-demand PDF is produced and stored on its first request.
    const pdf = await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromXml}/pdf`);
    expectFileStoreUnavailable(t, { status: pdf.status, headers: pdf.headers, body: await pdf.json() }, 'an on-demand PDF');
    // What is stored can still be read.
    const original = await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromXml}/original`);
    t.is((await fetch(original.headers.get('location')!)).status, 200);

    t.is(await uploadedCount(), rowsBefore, 'no row for a refused upload');
    t.deepEqual((await filesUnder(directory)).sort(), filesBefore, 'no file, half-written or whole');

    execFileSync('umount', [directory]);
    mounted = false;
    t.is((await upload(api.url, key, companyId, { name: 'FE-RO.xml', bytes: invoiceXml('ro') })).status, 202, 'accepted again once writable');
    t.is((await upload(api.url, key, companyId, { name: 'FE-RO-2.xml', bytes: invoiceXml('ro-2') }, { idempotencyKey: 'ro-2' })).status, 202);
    t.is((await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromXml}/pdf`)).status, 302);
  } finally {
    if (mounted) execFileSync('umount', [directory]);
  }
});

test.serial('a stored original deleted or truncated on disk is 404 file_not_available at download, never served short', async (t) => {
  const store = api.dependencies.blobStore as FilesystemBlobStore;
  const locationOf = async (pathname: string) => {
    const redirect = await get(pathname);
    t.is(redirect.status, 302, pathname);
    return redirect.headers.get('location')!;
  };
  const invoice = (await (await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromZip}`)).json()) as { imported_file_id: number; files: { original: { size: number } } };
  const originalUrl = await locationOf(`/v1/companies/${companyId}/invoices/${demo.invoiceFromZip}/original`);
  const contentUrl = await locationOf(`/v1/companies/${companyId}/files/${invoice.imported_file_id}/content`);
  const whole = await fetch(originalUrl);
  t.is(whole.status, 200);
  t.is((await whole.arrayBuffer()).byteLength, invoice.files.original.size);

  const file = store.pathOf(new URL(originalUrl).pathname.replace('/blobs/', ''));
  truncateSync(file, 100);
  for (const url of [originalUrl, contentUrl, await locationOf(`/v1/companies/${companyId}/invoices/${demo.invoiceFromZip}/original`)]) {
    const answer = await fetch(url);
    const body = (await answer.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
    // Was 200 with the 100 bytes left, Content-Length 100, as if they were the file.
    t.is(answer.status, 404);
    t.is(body?.error?.code, 'file_not_available');
    t.regex(body?.error?.message ?? '', /damaged/);
  }
  rmSync(file);
  const gone = await fetch(originalUrl);
  t.is(gone.status, 404);
  t.like(await gone.json(), { error: { code: 'file_not_available' } });
});

test.serial('the blob directory removed while running is made again by the next upload; made a file, uploads and PDFs are 503 naming the file store, /healthz says misconfigured; a folder again, they work', async (t) => {
  t.timeout(60_000);
  const directory = blobDir();
  const aside = `${directory}.aside`;
  const health = async () => {
    const answer = await fetch(`${api.url}/healthz`);
    return { status: answer.status, body: (await answer.json()) as { checks: { blob_store: { error?: { code: string } } } } };
  };
  renameSync(directory, aside);
  try {
    // Folders are made when a write finds them missing (the directory itself included).
    t.is((await upload(api.url, key, companyId, { name: 'FE-GONE.xml', bytes: invoiceXml('gone') }, { idempotencyKey: 'gone' })).status, 202, 'the directory made again');
    rmSync(directory, { recursive: true, force: true });

    writeFileSync(directory, 'not a folder');
    const rowsBefore = await uploadedCount();
    // Each was 500 internal_error (ENOTDIR, unclassified).
    expectFileStoreUnavailable(t, await upload(api.url, key, companyId, { name: 'FE-FILE.xml', bytes: invoiceXml('file') }), 'an upload');
    expectFileStoreUnavailable(t, await upload(api.url, key, companyId, { name: 'FE-FILE-2.xml', bytes: invoiceXml('file-2') }, { idempotencyKey: 'file-2' }), 'an idempotent upload');
    // The on-demand PDF not produced yet (an earlier test may have): produced on this request.
    await api.database.db('documents').where({ id: demo.invoiceFromXml }).update({ pdf_blob_key: null });
    const pdf = await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromXml}/pdf`);
    expectFileStoreUnavailable(t, { status: pdf.status, headers: pdf.headers, body: await pdf.json() }, 'an on-demand PDF');
    t.is(await uploadedCount(), rowsBefore, 'no row for a refused upload');
    // A download meanwhile: the store is misconfigured, the file is not lost (was 404 file_not_available, "upload it again").
    const original = await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromXml}/original`);
    t.is(original.status, 302);
    const download = await fetch(original.headers.get('location')!);
    expectFileStoreUnavailable(t, { status: download.status, headers: download.headers, body: await download.json() }, 'a download');
    const broken = await health();
    t.is(broken.status, 503);
    t.is(broken.body.checks.blob_store.error?.code, 'misconfigured');
  } finally {
    rmSync(directory, { recursive: true, force: true });
    renameSync(aside, directory);
  }
  t.is((await upload(api.url, key, companyId, { name: 'FE-FILE-2.xml', bytes: invoiceXml('file-2') }, { idempotencyKey: 'file-2' })).status, 202, 'accepted again once a folder');
  t.is((await get(`/v1/companies/${companyId}/invoices/${demo.invoiceFromXml}/pdf`)).status, 302);
  t.is((await health()).status, 200);
});

const hasPrlimit = (() => {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

(hasPrlimit ? test.serial : test.serial.skip)('the API process out of file descriptors (EMFILE): uploads are 503, never 500; once descriptors free up they are accepted', async (t) => {
  t.timeout(60_000);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, partNodeArguments('api'), {
    cwd: path.resolve(__dirname, '../..'),
    env: serviceEnvironment(api, { PORT: String(port), HOST: '127.0.0.1', SMTP_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0' }),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await eventually(async () => ((await fetch(`${url}/healthz`).catch(() => null))?.status === 200 ? true : undefined), 60_000);
    for (let i = 0; i < 3; i += 1) t.is((await upload(url, key, companyId, { name: `FE-FD-warm-${i}.xml`, bytes: invoiceXml(`fd-warm-${i}`) })).status, 202);
    const rowsBefore = await uploadedCount();
    // No descriptor left once the uploads' keep-alive connection (opened by the warm-up) is
    // counted: the next upload on it cannot open its temporary file. Only the soft limit is
    // lowered, so it can be raised again (raising the hard one needs CAP_SYS_RESOURCE).
    const hard = execFileSync('prlimit', ['--pid', String(child.pid), '--nofile', '--output=HARD', '--noheadings']).toString().trim();
    // The limit caps descriptor numbers, and a new one takes the lowest free number: the limit is that number.
    const used = new Set(readdirSync(`/proc/${child.pid}/fd`).map(Number));
    let open = 0;
    while (used.has(open)) open += 1;
    execFileSync('prlimit', ['--pid', String(child.pid), `--nofile=${open}:${hard}`]);
    const answers: string[] = [];
    try {
      for (let i = 0; i < 4; i += 1) {
        const answer = await upload(url, key, companyId, { name: `FE-FD-${i}.xml`, bytes: invoiceXml(`fd-${i}`) }).catch((error: Error) => ({ status: 0, headers: new Headers(), body: { error: { code: String((error.cause as { code?: string })?.code ?? error.message) } } }));
        answers.push(`${answer.status} ${answer.body.error?.code ?? ''} ${answer.headers.get('retry-after') ?? ''}`.trim());
      }
    } finally {
      execFileSync('prlimit', ['--pid', String(child.pid), `--nofile=${hard}:${hard}`]);
    }
    t.log(`uploads with ${open} descriptors: ${answers.join(', ')}`);
    // Was 500 internal_error ("EMFILE: too many open files, open '…/blobs/….tmp'").
    t.deepEqual(answers, Array(4).fill('503 service_unavailable 5'));
    t.is(await uploadedCount(), rowsBefore, 'no row for a refused upload');
    for (let i = 0; i < 3; i += 1) t.is((await upload(url, key, companyId, { name: `FE-FD-after-${i}.xml`, bytes: invoiceXml(`fd-after-${i}`) })).status, 202, 'accepted again');
    t.is(child.exitCode, null, 'the process never crashed');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

test.serial('the API process killed with -9 mid-burst of large uploads: no partial file becomes a document, the retries complete', async (t) => {
  t.timeout(60_000);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const launch = () => {
    const child = spawn(process.execPath, partNodeArguments('api'), {
      cwd: path.resolve(__dirname, '../..'),
      env: serviceEnvironment(api, { PORT: String(port), HOST: '127.0.0.1', SMTP_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0' }),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
  };
  const up = () => eventually(async () => ((await fetch(`${url}/healthz`).catch(() => null))?.status === 200 ? true : undefined), 60_000);
  let api1 = launch();
  try {
    await up();
    const files = Array.from({ length: 8 }, (_, i) => ({ name: `FE-KILL-${i}.xml`, bytes: Buffer.concat([invoiceXml(`kill-${i}`), Buffer.from(`<!--${'k'.repeat(12 * 1024 * 1024)}-->`)]) }));
    const first = Promise.all(files.map((file, i) => upload(url, key, companyId, file, { idempotencyKey: `kill-${i}` }).catch(() => null)));
    await new Promise((resolve) => setTimeout(resolve, 600));
    api1.child.kill('SIGKILL');
    await api1.exited;
    const answered = (await first).filter((answer) => answer?.status === 202).length;
    api1 = launch(); // the supervisor's restart
    await up();
    const retried = await Promise.all(files.map((file, i) => upload(url, key, companyId, file, { idempotencyKey: `kill-${i}` })));
    t.log(`8 uploads of 12 MB: ${answered} answered 202 before the kill; after the restart ${retried.filter((answer) => answer.status === 202).length} of 8 with their keys`);
    t.deepEqual(retried.map((answer) => answer.status), Array(8).fill(202));
    const rows = await api.database.db('uploaded_files').where('idempotency_key', 'like', 'kill-%').select('blob_key', 'size');
    t.is(rows.length, 8, 'one row per upload');
    // Every file outside the temporary folder is a recorded blob, whole; partial writes can only be temporary files.
    const directory = blobDir();
    const kept = new Map((await api.database.db('uploaded_files').select('blob_key', 'size')).map((row) => [path.join(directory, ...String(row.blob_key).split('/')), Number(row.size)]));
    const documents = (await api.database.db('documents').whereNotNull('pdf_blob_key').pluck('pdf_blob_key')).map((blobKey: string) => path.join(directory, ...blobKey.split('/')));
    const strays = (await filesUnder(directory)).filter((file) => !file.includes(`${path.sep}.tmp${path.sep}`) && !kept.has(file) && !documents.includes(file));
    t.deepEqual(strays, [], 'no partial or unrecorded file beside the blobs');
    for (const row of rows) t.is(statSync(path.join(directory, ...String(row.blob_key).split('/'))).size, Number(row.size));
    const partial = (await filesUnder(directory)).filter((file) => file.includes(`${path.sep}.tmp${path.sep}`));
    t.log(`partial writes left in the temporary folder (swept after an hour): ${partial.length}`);
  } finally {
    api1.child.kill('SIGKILL');
    await api1.exited;
  }
});
