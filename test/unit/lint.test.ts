import path from 'node:path';
import test from 'ava';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** The rule ids ESLint reports for `code` as if it were the file at `file` (repository-relative). */
async function ruleIdsFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

// eslint.config.mjs: no floating promises, no Node built-ins or I/O clients in workflows/,
// and the layers pointing one way (docs/architecture.md).
test('the whole project lints without errors', async (t) => {
  t.timeout(10 * 60_000); // type-aware rules: about 20 s of CPU, longer on a busy machine
  const results = await eslint.lintFiles(['.']);
  const errors = results.flatMap((result) =>
    result.messages.filter((message) => message.severity === 2).map((message) => `${path.relative(root, result.filePath)}:${message.line} ${message.ruleId}: ${message.message}`),
  );
  t.deepEqual(errors, []);
});

const restricted = '@typescript-eslint/no-restricted-imports';

test('workflows may not import Node built-ins, I/O clients or activity code; activity types are fine', async (t) => {
  const workflow = (code: string) => ruleIdsFor('workflows/system-check.ts', code);
  for (const source of ['node:fs', 'fs', 'crypto', 'pg', 'knex', '@temporalio/client', '../db/connection', '../activities/webhooks', '../services/accept-file']) {
    t.deepEqual(await workflow(`import * as x from '${source}';\nexport const y = x;\n`), [restricted], source);
  }
  t.deepEqual(await workflow("import type { createWebhookActivities } from '../activities/webhooks';\nexport type A = typeof createWebhookActivities;\n"), []);
  t.deepEqual(await workflow("import { proxyActivities } from '@temporalio/workflow';\nimport { MAX_ATTEMPTS } from '../domain/webhooks/retry-schedule';\nexport const x = [proxyActivities, MAX_ATTEMPTS];\n"), []);
});

test('api and activities do not import each other; services import neither', async (t) => {
  const code = (source: string) => `import * as x from '${source}';\nexport const y = x;\n`;
  t.deepEqual(await ruleIdsFor('api/v1/webhooks/routes.ts', code('../../../activities/webhooks')), [restricted]);
  t.deepEqual(await ruleIdsFor('activities/ingestion.ts', code('../api/v1/documents/present')), [restricted]);
  t.deepEqual(await ruleIdsFor('services/accept-file.ts', code('../api/errors')), [restricted]);
  t.deepEqual(await ruleIdsFor('services/accept-file.ts', code('../activities/webhooks')), [restricted]);
  t.deepEqual(await ruleIdsFor('domain/nit.ts', code('../db/connection')), [restricted]);
  t.deepEqual(await ruleIdsFor('api/v1/webhooks/routes.ts', code('../../../services/end-pending-deliveries')), []);
});

test('a promise nobody awaits is an error', async (t) => {
  const ids = await ruleIdsFor('services/start-import.ts', "export async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n");
  t.deepEqual(ids, ['@typescript-eslint/no-floating-promises']);
});
