import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseUbl } from '../../domain/ubl/parse';
import { seedCompany, serviceEnvironment, startTestApi, type TestApi } from '../support/api';
import { OWN_FIXTURES } from '../support/ingestion';

// `invoicing documents reclassify [--company ID]` as an operator runs it: a real process on the
// service's database and blob store, re-deriving the DIAN type of rows imported before it was recorded.
const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../bin/invoicing');

let api: TestApi;
test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => {
  await api?.close();
});

async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run(CLI, args, { env: serviceEnvironment(api) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

/** A POS ticket stored as migration 20261123080000 left rows imported before it: an electronic invoice with a CUFE. */
async function legacyPosTicket(companyId: number): Promise<number> {
  const bytes = readFileSync(path.join(OWN_FIXTURES, 'pos-equivalent.xml'));
  const { document } = parseUbl(bytes);
  const blobKey = `companies/${companyId}/originals/legacy-pos.xml`;
  await api.dependencies.blobStore.put(blobKey, bytes, 'application/xml');
  const [row] = await api.database.db('documents')
    .insert({
      company_id: companyId, document_type: 'electronic_invoice', kind: 'purchase', number: document.number, cufe: document.cufe.toLowerCase(),
      issued_at: new Date(), original_blob_key: blobKey, original_content_type: 'application/xml',
      dian_document_type: 'electronic_invoice', code_scheme: 'CUFE', dian_type_code: null,
    })
    .returning('id');
  return row.id as number;
}

test('reclassify --company re-reads only that company\'s stored originals, once', async (t) => {
  const buyer = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  const other = await seedCompany(api.database, 'Otra S.A.S.', '900373115');
  const id = await legacyPosTicket(buyer.id);

  const elsewhere = await cli('documents', 'reclassify', '--company', String(other.id));
  t.is(elsewhere.code, 0, elsewhere.stderr);
  t.deepEqual(JSON.parse(elsewhere.stdout), { examined: 0, updated: 0, unreadable: [] });

  const first = await cli('documents', 'reclassify', '--company', String(buyer.id));
  t.is(first.code, 0, first.stderr);
  t.deepEqual(JSON.parse(first.stdout), { examined: 1, updated: 1, unreadable: [] });
  t.like(await api.database.db('documents').where({ id }).first(), { dian_document_type: 'pos_equivalent', dian_type_code: '20', code_scheme: 'CUDE' });

  const again = await cli('documents', 'reclassify');
  t.is(again.code, 0, again.stderr);
  t.deepEqual(JSON.parse(again.stdout), { examined: 0, updated: 0, unreadable: [] }, 'idempotent');
});

test('reclassify refuses a malformed or unknown company id', async (t) => {
  const malformed = await cli('documents', 'reclassify', '--company', 'abc');
  t.not(malformed.code, 0);
  t.regex(JSON.parse(malformed.stderr).error.message, /--company takes company ids/);
  const unknown = await cli('documents', 'reclassify', '--company', '999999');
  t.not(unknown.code, 0);
  t.regex(JSON.parse(unknown.stderr).error.message, /No company with id 999999/);
});
