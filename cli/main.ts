import path from 'node:path';
import { parseArgs } from 'node:util';
import { databaseUrlOf, EMBEDDED_DATABASE_NAME, loadConfig, type AppConfig } from '../config';
import { connectDatabase, migrateToLatest, type Database } from '../db/connection';
import { createRepositories, type Repositories } from '../db/repositories';
import { isUniqueViolation } from '../db/errors';
import { AdminInputError, createCompany } from '../admin/create-company';
import { createApiKey, presentApiKey, revokeApiKey } from '../admin/api-keys';
import { presentCompany } from '../services/presenters/company';
import { createDatabaseIfMissing, startEmbeddedPostgres } from '../scripts/embedded/postgres';
import { importFiles } from './import-files';
import { withTemporal } from './temporal';
import { reconcileStoppedWork } from '../services/reconcile-stopped-work';
import { reclassifyFromOriginals } from '../services/reclassify-documents';
import { createBlobStore } from '../storage/create-blob-store';
import { loadMasterKey } from '../config/master-key';

const USAGE = `usage:
  invoicing company create --name NAME --nit NIT
  invoicing company list
  invoicing key create --scopes S1,S2 [--companies 1,2] [--role admin|member] [--name NAME]
  invoicing key revoke KEY_ID
  invoicing import COMPANY_ID FILE... [--kind payment_claim_account|foreign_invoice]
  invoicing documents reclassify [--company ID]
  invoicing operations reconcile [--older-than SECONDS] [--limit N] [--dry-run]

Talks to DATABASE_URL, or to the embedded Postgres of \`npm start\` (started for the
command if it is not running). import also needs Temporal (TEMPORAL_ADDRESS, or the dev
server of \`npm start\`) and stores files where the service does (BLOB_STORE). documents
reclassify re-reads the stored originals of documents imported before their DIAN type and
accounting fields were recorded (docs/ingestion.md), of one company with --company. operations
reconcile settles deliveries, exports, DIAN events and DIAN imports left unfinished by a workflow
that ended without an outcome, e.g. terminated (docs/operations.md). Prints JSON on
stdout; errors as JSON on stderr.`;

class UsageError extends Error {}

type Command = (repositories: Repositories, args: string[], config: AppConfig) => Promise<unknown>;

const COMMANDS: Record<string, Command> = {
  'company create': async (repositories, args, config) => {
    const { values } = parseArgs({ args, options: { name: { type: 'string' }, nit: { type: 'string' } } });
    if (!values.name || !values.nit) throw new UsageError('company create needs --name and --nit.');
    return presentCompany(await createCompany(repositories, { name: values.name, nit: values.nit }), config.email.domain);
  },
  'company list': async (repositories, _args, config) =>
    (await repositories.companies.listVisible({ allCompanies: true })).map((company) => presentCompany(company, config.email.domain)),
  'key create': async (repositories, args, config) => {
    const { values } = parseArgs({
      args,
      options: {
        scopes: { type: 'string' },
        companies: { type: 'string' },
        role: { type: 'string' },
        name: { type: 'string' },
      },
    });
    if (values.scopes === undefined) throw new UsageError('key create needs --scopes (comma-separated, may be empty).');
    const created = await createApiKey(repositories, {
      prefix: config.apiKeyPrefix,
      name: values.name,
      scopes: splitList(values.scopes),
      role: values.role,
      companyIds: values.companies === undefined ? null : splitList(values.companies).map((id) => parseCompanyId(id)),
    });
    return { ...presentApiKey(created.record), key: created.fullKey };
  },
  import: async (repositories, args, config) => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { kind: { type: 'string' } } });
    if (positionals.length < 2) throw new UsageError('import needs a COMPANY_ID and at least one FILE.');
    const companyId = parseCompanyId(positionals[0]);
    if (!(await repositories.companies.findVisible({ allCompanies: true }, companyId))) throw new AdminInputError(`No company with id ${companyId}.`);
    return importFiles(repositories, config, companyId, positionals.slice(1), values.kind ?? null);
  },
  'documents reclassify': async (repositories, args, config) => {
    const { values } = parseArgs({ args, options: { company: { type: 'string' } } });
    const companyId = values.company === undefined ? undefined : parseCompanyId(values.company, '--company');
    if (companyId !== undefined && !(await repositories.companies.findVisible({ allCompanies: true }, companyId))) {
      throw new AdminInputError(`No company with id ${companyId}.`);
    }
    return reclassifyFromOriginals({ repositories, blobStore: createBlobStore(config, loadMasterKey(config), () => '') }, { companyId });
  },
  'operations reconcile': async (repositories, args, config) => {
    const { values } = parseArgs({
      args,
      options: { 'older-than': { type: 'string' }, limit: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    });
    const olderThanSeconds = values['older-than'] === undefined ? undefined : parseCount('--older-than', values['older-than']);
    const limit = values.limit === undefined ? undefined : parseCount('--limit', values.limit);
    return withTemporal(config, (temporal) => reconcileStoppedWork({ repositories, temporal }, { olderThanSeconds, limit, dryRun: values['dry-run'] }));
  },
  'key revoke': async (repositories, args) => {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    if (positionals.length !== 1) throw new UsageError('key revoke takes exactly one KEY_ID.');
    return presentApiKey(await revokeApiKey(repositories, positionals[0]));
  },
};

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    console.log(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const command = COMMANDS[`${argv[0]} ${argv[1] ?? ''}`.trim()] ?? COMMANDS[argv[0]];
  if (!command) return fail('invalid_command', `Unknown command "${argv.slice(0, 2).join(' ')}".\n${USAGE}`, 2);

  const config = loadConfig();
  const session = await openDatabase(config);
  try {
    const result = await command(createRepositories(session.db), argv.slice(COMMANDS[argv[0]] ? 1 : 2), config);
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail('invalid_arguments', `${error.message}\n${USAGE}`, 2);
    if (error instanceof AdminInputError) return fail('invalid_arguments', error.message, 2);
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      return fail('invalid_arguments', error.message, 2);
    }
    if (isUniqueViolation(error)) return fail('already_exists', 'A company with this NIT already exists.', 1);
    throw error;
  } finally {
    await session.close();
  }
}

/** The database of `npm start`: DATABASE_URL, or the embedded cluster, started just for this command if needed. */
async function openDatabase(config: AppConfig): Promise<{ db: Database; close(): Promise<void> }> {
  let stopPostgres = async () => undefined as void;
  let url = databaseUrlOf(config);
  if (!config.databaseUrl) {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(config.dataDir, 'postgres'),
      port: config.embeddedPostgresPort,
    });
    if (postgres.startedHere) stopPostgres = () => postgres.stop();
    await createDatabaseIfMissing(postgres.url(), EMBEDDED_DATABASE_NAME);
    url = postgres.url(EMBEDDED_DATABASE_NAME);
  }
  const db = connectDatabase(url, 2);
  await migrateToLatest(db);
  return {
    db,
    async close() {
      await db.destroy();
      await stopPostgres();
    },
  };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function parseCompanyId(value: string, option = '--companies'): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value)) throw new UsageError(`${option} takes company ids, got "${value}".`);
  return Number(value);
}

function parseCount(option: string, value: string): number {
  if (!/^[0-9]{1,9}$/.test(value)) throw new UsageError(`${option} takes a whole number, got "${value}".`);
  return Number(value);
}

function fail(code: string, message: string, exitCode: number): number {
  console.error(JSON.stringify({ error: { code, message } }));
  return exitCode;
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(JSON.stringify({ error: { code: 'internal_error', message: (error as Error).message } }));
    process.exit(1);
  });
