import { randomBytes } from 'node:crypto';
import { chownSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { fixture, upload } from '../support/ingestion';
import { fillTheDisk, mountSmallFilesystem } from '../support/small-filesystem';

// Postgres out of disk: the uploaded files' table moved to a tablespace on a 1 MB tmpfs, which is
// then filled, so the real Postgres refuses the upload's INSERT with SQLSTATE 53100 ("could not
// extend file … No space left on device"). Until 2026-11-25 that was a 500 internal_error, and the
// worker counted it among an activity's own failures. Needs `mount` (root).
const disk = mountSmallFilesystem('postgres-full', '1m');
const faultTest = disk ? test : test.skip;
const TABLESPACE_DIR = disk?.directory ?? '';
const TABLESPACE = `full_${randomBytes(4).toString('hex')}`;
const FILLER = path.join(TABLESPACE_DIR, 'filler');
let api: TestApi;

async function adminQuery(sql: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
  await client.connect();
  try {
    const result = await client.query<Record<string, string>>(sql);
    return Object.values(result.rows[0] ?? {})[0];
  } finally {
    await client.end();
  }
}

test.before(async () => {
  if (!disk) return;
  api = await startTestApi();
  // A tablespace's folder must belong to the user the server runs as (whoever owns its data directory).
  const owner = statSync((await adminQuery('SHOW data_directory'))!);
  chownSync(TABLESPACE_DIR, owner.uid, owner.gid);
  await adminQuery(`CREATE TABLESPACE ${TABLESPACE} LOCATION '${TABLESPACE_DIR}'`);
  await api.database.db.raw(`ALTER TABLE uploaded_files SET TABLESPACE ${TABLESPACE}`);
});
test.after.always(async () => {
  await api?.close(); // drops the database, and with it the table in the tablespace
  if (disk) {
    await adminQuery(`DROP TABLESPACE IF EXISTS ${TABLESPACE}`).catch(() => undefined);
    disk.unmount();
  }
});

const blobFiles = () => {
  const directory = (api.config.blobStore as { directory: string }).directory;
  return readdirSync(directory, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && !entry.parentPath.endsWith('.tmp')).map((entry) => entry.name);
};

faultTest("Postgres's disk full: uploads answer 507 insufficient_storage naming the database, nothing is recorded; freed, the same Idempotency-Key is stored once", async (t) => {
  t.timeout(120_000);
  const company = await seedCompany(api.database, 'Base Llena S.A.S.', '900108281');
  const { key } = await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' });
  await fillTheDisk(FILLER);

  const file = { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') };
  const plain = await upload(api.url, key, company.id, file);
  t.is(plain.status, 507, JSON.stringify(plain.body));
  t.is(plain.body.error?.code, 'insufficient_storage');
  t.regex(plain.body.error?.message ?? '', /database is full/);
  t.deepEqual(blobFiles(), [], "a plain upload's stored file is removed when its row cannot be written");

  const idempotent = await upload(api.url, key, company.id, file, { idempotencyKey: 'pg-full-1' });
  t.is(idempotent.status, 507, JSON.stringify(idempotent.body));
  t.is(idempotent.body.error?.code, 'insufficient_storage');
  t.is((await api.database.db('uploaded_files').select('id')).length, 0, 'nothing recorded');
  t.is((await fetch(`${api.url}/healthz`)).status, 200, 'the API still answers, and its database still reads');

  rmSync(FILLER);
  const accepted = await upload(api.url, key, company.id, file, { idempotencyKey: 'pg-full-1' });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  const replayed = await upload(api.url, key, company.id, file, { idempotencyKey: 'pg-full-1' });
  t.is(replayed.status, 202);
  t.is(replayed.body.id, accepted.body.id);
  t.is((await api.database.db('uploaded_files').select('id')).length, 1, 'stored once');
  t.is(blobFiles().length, 1, 'one stored file, the retry reused the first attempt\'s');
});
