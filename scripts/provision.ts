import { ensureTemporalCli } from './provision/temporal-cli';
import { ensureTestServer } from './provision/test-server';
import { ensureMinio } from './provision/minio';
import { ensureSchemathesis } from './provision/schemathesis';
import { ensureTemporalServer, ensureTemporalSqlTool, ensureTemporalUiServer } from './provision/temporal-server';

/** `npm run provision`: fetch/build the offline tools once; later runs return at once. */
async function main() {
  const log = (line: string) => console.log(`[provision] ${line}`);
  const cli = await ensureTemporalCli(log);
  log(`Temporal CLI: ${cli}`);
  const testServer = await ensureTestServer(log);
  log(`time-skipping test server: ${testServer}`);
  log(`MinIO (S3 tests): ${await ensureMinio(log)}`);
  log(`Schemathesis (fuzz test): ${await ensureSchemathesis(log)}`);
  log(`Temporal server (start:cluster, scale test): ${await ensureTemporalServer(log)}`);
  log(`temporal-sql-tool: ${await ensureTemporalSqlTool(log)}`);
  if (process.argv.includes('--ci')) return; // the UI server serves npm run start:cluster only
  log(`Temporal UI server (start:cluster): ${await ensureTemporalUiServer(log)}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
