import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(__dirname, '../..');

/**
 * The layers point one way (docs/architecture.md): api → services → db/domain,
 * workflows → activities → services. Each folder lists the folders it may import at run time;
 * workflows may also import activity types (`import type`), never their code.
 */
const LOWER = ['db', 'domain', 'storage', 'integrations', 'temporal', 'config'];
const ALLOWED: Record<string, { runtime: string[]; typeOnly?: string[] }> = {
  domain: { runtime: [] },
  temporal: { runtime: [] },
  config: { runtime: ['domain', 'worker/task-queues'] },
  db: { runtime: ['domain', 'config'] },
  storage: { runtime: ['domain', 'config'] },
  integrations: { runtime: ['domain', 'config'] },
  workflows: { runtime: ['domain'], typeOnly: ['activities'] },
  services: { runtime: [...LOWER, 'workflows'] },
  activities: { runtime: [...LOWER, 'services', 'workflows'] },
  // start-api.ts runs the SMTP listener in the API process.
  api: { runtime: [...LOWER, 'services', 'workflows', 'intake/email-server'] },
  intake: { runtime: [...LOWER, 'services'] },
  admin: { runtime: [...LOWER] },
};

const IMPORT = /^\s*(import|export)\s+(type\s+)?([^'"]*?)\s*from\s*'(\.[^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Every relative import of the folder's files that its layer does not allow. */
function violations(folder: string, files = sourceFiles(folder).map((file) => ({ file, source: readFileSync(path.join(root, file), 'utf8') }))): string[] {
  const rule = ALLOWED[folder]!;
  const found: string[] = [];
  for (const { file, source } of files) {
    for (const match of source.matchAll(IMPORT)) {
      const target = path.relative(root, path.resolve(root, path.dirname(file), match[4]!));
      if (target.startsWith(`${folder}/`)) continue;
      const typeOnly = Boolean(match[2]) || /^\{\s*(type\s+[\w$]+\s*,?\s*)+\}$/.test(match[3]!);
      const allowed = [...rule.runtime, ...(typeOnly ? (rule.typeOnly ?? []) : [])];
      if (!allowed.some((prefix) => target === prefix || target.startsWith(`${prefix}/`))) found.push(`${file} → ${target}`);
    }
  }
  return found;
}

for (const folder of Object.keys(ALLOWED)) {
  test(`${folder}/ imports only the layers below it`, (t) => {
    t.deepEqual(violations(folder), []);
  });
}

test('the check finds an upward import, and lets workflows import activity types only', (t) => {
  t.deepEqual(violations('api', [{ file: 'api/v1/webhooks/routes.ts', source: "import { endPendingDeliveries } from '../../../activities/webhooks';" }]), [
    'api/v1/webhooks/routes.ts → activities/webhooks',
  ]);
  const workflow = (source: string) => violations('workflows', [{ file: 'workflows/x.ts', source }]);
  t.deepEqual(workflow("import type { createWebhookActivities } from '../activities/webhooks';"), []);
  t.deepEqual(workflow("import { type createWebhookActivities } from '../activities/webhooks';"), []);
  t.deepEqual(workflow("import { createWebhookActivities } from '../activities/webhooks';"), ['workflows/x.ts → activities/webhooks']);
});
