import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { filesUnder } from '../support/raw-http';

// Issue 9: ten simultaneous uploads with one Idempotency-Key store one file and one blob.

let api: TestApi;
let key: string;
let companyId: number;

test.before(async () => {
  api = await startTestApi();
  companyId = (await seedCompany(api.database)).id;
  key = (await seedKey(api.database, { scopes: ['documents:write', 'documents:read'] })).key;
});
test.after.always(async () => api?.close());

const pdf = (text: string) => new Blob([`%PDF-1.4\n% ${text}\n%%EOF\n`]);

async function upload(idempotencyKey: string, content: Blob, { name = 'factura.pdf', kind }: { name?: string; kind?: string } = {}) {
  const form = new FormData();
  if (kind) form.append('kind', kind);
  form.append('file', content, name);
  const response = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), 'Idempotency-Key': idempotencyKey },
    body: form,
  });
  const body = (await response.json()) as { id?: string; error?: { code: string; param?: string; message: string } };
  return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', id: body.id, code: body.error?.code, param: body.error?.param, message: body.error?.message };
}

async function stored(idempotencyKey: string) {
  const rows = await api.database.db('uploaded_files').where({ company_id: companyId, idempotency_key: idempotencyKey }).select('blob_key');
  const blobs = api.config.blobStore.driver === 'filesystem' ? await filesUnder(api.config.blobStore.directory) : [];
  return { rows, blobs };
}

test.serial('ten concurrent uploads with one key and one file: one uploaded file, one blob, nine replays', async (t) => {
  const blobsBefore = (await stored('-')).blobs.length;
  const answers = await Promise.all(Array.from({ length: 10 }, () => upload('concurrent-1', pdf('one'))));
  t.deepEqual(answers.map((answer) => answer.status), Array(10).fill(202));
  t.is(new Set(answers.map((answer) => answer.id)).size, 1);
  t.is(answers.filter((answer) => answer.replayed).length, 9);
  const { rows, blobs } = await stored('concurrent-1');
  t.is(rows.length, 1);
  t.is(blobs.length, blobsBefore + 1, blobs.join('\n'));
  t.true(blobs.some((blob) => blob.endsWith(rows[0].blob_key.split('/').pop())));
});

test.serial('ten concurrent uploads with one key and two different files: one file, one blob, the other bytes get 409', async (t) => {
  const blobsBefore = (await stored('-')).blobs.length;
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => upload('concurrent-2', pdf(i % 2 ? 'odd' : 'even'))));
  const { rows, blobs } = await stored('concurrent-2');
  t.is(rows.length, 1);
  t.is(blobs.length, blobsBefore + 1, blobs.join('\n'));
  const accepted = answers.filter((answer) => answer.status === 202);
  const refused = answers.filter((answer) => answer.status === 409);
  t.is(accepted.length, 5);
  t.is(refused.length, 5);
  t.true(refused.every((answer) => answer.code === 'idempotency_key_reused'));
  t.is(new Set(accepted.map((answer) => answer.id)).size, 1);
});

test.serial('a later retry with the same key and file replays without storing again', async (t) => {
  const before = await stored('concurrent-1');
  const again = await upload('concurrent-1', pdf('one'));
  t.is(again.status, 202);
  t.true(again.replayed);
  t.deepEqual(await stored('concurrent-1'), before);
});

test.serial('the same key and bytes with another kind or file name is 409 idempotency_key_reused naming what differs, not a replay of the first', async (t) => {
  const first = await upload('corrected-kind', pdf('claim'), { kind: 'payment_claim_account' });
  t.is(first.status, 202);
  const otherKind = await upload('corrected-kind', pdf('claim'), { kind: 'foreign_invoice' });
  // param names the header, as the same 409 on a JSON POST does (api/middleware/idempotent-requests.ts); the upload's had none.
  t.like(otherKind, { status: 409, code: 'idempotency_key_reused', param: 'Idempotency-Key', replayed: false });
  t.regex(otherKind.message!, /the kind \(first payment_claim_account\)/);
  const otherName = await upload('corrected-kind', pdf('claim'), { kind: 'payment_claim_account', name: 'other-name.pdf' });
  t.like(otherName, { status: 409, code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  t.regex(otherName.message!, /the file name \(first "factura\.pdf"\)/);
  const same = await upload('corrected-kind', pdf('claim'), { kind: 'payment_claim_account' });
  t.like(same, { status: 202, replayed: true, id: first.id });
  t.is((await stored('corrected-kind')).rows.length, 1);
});

test.serial('a key that is not 1 to 255 printable ASCII characters is refused with 400 naming Idempotency-Key, nothing stored', async (t) => {
  const filesBefore = await api.database.db('uploaded_files').where({ company_id: companyId }).count({ n: '*' }).first();
  // An empty header is a bad key, not an absent one (the fuzzer's ST201 finding, seed 1786281779).
  for (const badKey of ['', 'two words', 'x'.repeat(256), 'cl\u00e9']) {
    const answer = await upload(badKey, pdf('bad key'));
    t.is(answer.status, 400, JSON.stringify(badKey));
    t.is(answer.code, 'invalid_parameter');
    t.is(answer.param, 'Idempotency-Key');
  }
  const filesAfter = await api.database.db('uploaded_files').where({ company_id: companyId }).count({ n: '*' }).first();
  t.deepEqual(filesAfter, filesBefore);
});

test.serial('surrounding spaces are not part of the key (HTTP drops them), so they replay the same upload', async (t) => {
  const first = await upload('padded-1', pdf('padded'));
  const padded = await upload('padded-1  ', pdf('padded'));
  t.is(first.status, 202);
  t.is(padded.status, 202);
  t.true(padded.replayed);
  t.is(padded.id, first.id);
});
