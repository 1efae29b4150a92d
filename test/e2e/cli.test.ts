import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { useApiAndWorker } from '../support/api-and-worker';
import { bearer, seedKey, serviceEnvironment } from '../support/api';
import { FIXTURES, waitForImport } from '../support/ingestion';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../bin/invoicing');

const world = useApiAndWorker(test);

async function cli(...args: string[]) {
  const env = serviceEnvironment(world.api);
  try {
    const { stdout, stderr } = await run(CLI, args, { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

test('company create computes the check digit; key create prints a working key once; key revoke stops it', async (t) => {
  const company = await cli('company', 'create', '--name', 'Ópticas del Valle S.A.S.', '--nit', '860034313');
  t.is(company.code, 0, company.stderr);
  const created = JSON.parse(company.stdout);
  t.like(created, { name: 'Ópticas del Valle S.A.S.', nit: '860034313', dv: '7', person_type: 'LEGAL' });

  const keyResult = await cli('key', 'create', '--scopes', 'documents:read,webhooks:manage', '--companies', String(created.id), '--role', 'admin', '--name', 'ERP');
  t.is(keyResult.code, 0, keyResult.stderr);
  const key = JSON.parse(keyResult.stdout);
  t.regex(key.key, new RegExp(`^inv_live_${key.id}_[0-9A-Za-z]{43}$`));
  t.deepEqual(key.scopes, ['documents:read', 'webhooks:manage']);
  t.is(key.role, 'admin');
  t.deepEqual(key.companies, [created.id]);

  const me = await fetch(`${world.api.url}/v1/me`, { headers: bearer(key.key) });
  t.is(me.status, 200);
  t.deepEqual(((await me.json()) as { companies: { id: number }[] }).companies.map((c) => c.id), [created.id]);

  const revoked = await cli('key', 'revoke', key.id);
  t.is(revoked.code, 0, revoked.stderr);
  t.truthy(JSON.parse(revoked.stdout).revoked_at);
  t.is((await fetch(`${world.api.url}/v1/me`, { headers: bearer(key.key) })).status, 401);
});

test('bad input is a JSON error on stderr with a non-zero exit', async (t) => {
  const cases: [string[], RegExp][] = [
    [['company', 'create', '--name', 'X'], /--nit/],
    [['company', 'create', '--name', 'X', '--nit', '12-3'], /digits/],
    [['key', 'create', '--scopes', 'documents:read,everything'], /everything/],
    [['key', 'create', '--scopes', 'documents:read', '--role', 'owner'], /admin or member/],
    [['key', 'create', '--scopes', 'documents:read', '--companies', '987654'], /987654/],
    [['key', 'revoke', 'nosuchkey'], /nosuchkey/],
    [['frobnicate'], /Unknown command/],
  ];
  for (const [args, message] of cases) {
    const result = await cli(...args);
    t.not(result.code, 0, args.join(' '));
    const error = JSON.parse(result.stderr.trim().split('\n')[0]);
    t.regex(error.error.code, /^[a-z_]+$/);
    t.regex(error.error.message, message);
  }
});

test('a second company with the same NIT is refused', async (t) => {
  t.is((await cli('company', 'create', '--name', 'Uno', '--nit', '890903938')).code, 0);
  const again = await cli('company', 'create', '--name', 'Dos', '--nit', '890903938');
  t.is(again.code, 1);
  t.is(JSON.parse(again.stderr).error.code, 'already_exists');
});

test('import sends files through the same path as an upload', async (t) => {
  const company = JSON.parse((await cli('company', 'create', '--name', 'Opticas GMO', '--nit', '900108281')).stdout);
  const result = await cli('import', String(company.id), path.join(FIXTURES, 'invoice-signed-setp.xml'), path.join(FIXTURES, 'debitnote.xml'));
  t.is(result.code, 0, result.stderr);
  const files = JSON.parse(result.stdout) as { id: number; type: string; status: string }[];
  t.is(files.length, 2);
  t.true(files.every((file) => file.type === 'UPLOAD'));
  const { key } = await seedKey(world.api.database, { scopes: ['documents:read'] });
  for (const file of files) {
    const imported = await waitForImport(world.api.url, key, company.id, file.id);
    t.is(imported.status, 'DONE', JSON.stringify(imported));
    t.is(imported.documents.length, 1);
  }
  const missing = await cli('import', String(company.id), '/nonexistent/file.xml');
  t.is(missing.code, 2);
  t.regex(JSON.parse(missing.stderr).error.message, /Cannot read/);
});
