import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { createApiKey } from '../admin/api-keys';
import { freePort } from '../scripts/embedded/ports';
import {
  cursorPosition,
  FETCH_ROWS,
  FIRST_PAGE_SQL,
  KEYSET_PAGE_SQL,
  LISTED_TYPE,
  OFFSET_PAGE_SQL,
  PAGE_SIZE,
} from './documents/list-sql';
import { seedDocuments } from './documents/seed';
import { startChildProcess, type ChildProcessHandle } from './support/child-process';
import { CleanupStack } from './support/cleanup';
import { durationSecondsFromEnv, parseShortAndJson, runMain, warnIfBusy } from './support/cli';
import { metricsPortsEnv, startSeededPostgres } from './support/environment';
import { loadOnce, summarise, type LoadSample, type LoadSummary } from './support/load';
import { fixed, markdownTable } from './support/report';

/**
 * `npm run bench:documents [-- --short] [-- --json PATH]`: does a deep page of a documents list
 * cost what the first page costs? The API pages with a keyset (issued_at, id) on
 * documents_company_type_page; this measures GET /v1/companies/{id}/invoices?limit=50 on page 1
 * and on page 1000 of a company with ~60,000 invoices in a 1,000,000-document table, and the
 * same pages on a bare node:http + pg server (bench/documents/baseline-server.ts) by keyset and
 * by OFFSET. Starts its own throwaway Postgres, needs no network and no Temporal.
 *
 * Short mode (--short or BENCH_SHORT=1): 100,000 documents, 20 companies, page 200, 3 s per cell.
 * BENCH_DURATION_SECONDS sets the seconds per measured cell (default 10, short 3).
 * Exit code: 0 when every request succeeded (also when the 1.5× requirement FAILs: this is a
 * report), 1 on any error, non-2xx answer, timeout or crash. See docs/performance.md.
 */

const CONNECTIONS = 10;
const DATABASE_POOL_MAX = 10; // the API's default; the baseline's pg.Pool gets the same
const REQUIRED_RATIO = 1.5; // deep-page p50 within 1.5× of first-page p50
const DATABASE = 'invoicing_bench_documents';

type Mode = {
  short: boolean;
  companies: number;
  documents: number;
  bigCompanyDocuments: number;
  deepPage: number;
  durationSeconds: number;
  warmupSeconds: number;
  jsonPath: string | null;
};

type CellName = 'api-first' | 'api-deep' | 'baseline-keyset-first' | 'baseline-keyset-deep' | 'baseline-offset-deep';

type Cell = { name: CellName; label: string; page: number; url: string; headers: Record<string, string>; result?: LoadSummary };

type PlanSummary = { label: string; executionMs: number; sharedHit: number; sharedRead: number; plan: string };

const log = (line: string) => console.error(`[bench:documents] ${line}`);

function parseMode(argv: string[], env: NodeJS.ProcessEnv): Mode {
  const { short, jsonPath } = parseShortAndJson(argv, env);
  const durationSeconds = durationSecondsFromEnv(env, short ? 3 : 10);
  return short
    ? { short, companies: 20, documents: 100_000, bigCompanyDocuments: 12_500, deepPage: 200, durationSeconds, warmupSeconds: 1, jsonPath }
    : { short, companies: 100, documents: 1_000_000, bigCompanyDocuments: 71_000, deepPage: 1000, durationSeconds, warmupSeconds: 2, jsonPath };
}

type ListPage = { data: { id: number }[]; next_cursor: string | null; has_more: boolean };

async function getPage(url: string, headers: Record<string, string>): Promise<{ page: ListPage; body: unknown }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as unknown;
  return { page: body as ListPage, body };
}

async function main(): Promise<number> {
  const mode = parseMode(process.argv.slice(2), process.env);
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  const problems: string[] = [];
  const children: ChildProcessHandle[] = [];
  const loadAverageAtStart = warnIfBusy(log, 0.5);
  try {
    // --- Postgres, migrations, data ------------------------------------------------------------
    const {
      workDir,
      databaseUrl,
      seeded: { seed, authorization },
    } = await startSeededPostgres({
      cleanup,
      log,
      database: DATABASE,
      workDirPrefix: 'invoicing-bench-documents-',
      seed: async ({ repositories, databaseUrl: url }) => {
        log(
          `seeding ${mode.documents.toLocaleString('en-US')} documents across ${mode.companies} companies ` +
            `(~${mode.bigCompanyDocuments.toLocaleString('en-US')} in the big one)…`,
        );
        const seedResult = await seedDocuments(url, repositories, {
          companies: mode.companies,
          documents: mode.documents,
          bigCompanyDocuments: mode.bigCompanyDocuments,
          contactsPerCompany: 5,
          log,
        });
        const { fullKey } = await createApiKey(repositories, {
          prefix: 'inv',
          name: 'bench documents reader',
          scopes: ['documents:read'],
          role: 'member',
          companyIds: [seedResult.bigCompanyId],
        });
        return { seed: seedResult, authorization: `Bearer ${fullKey}` };
      },
    });
    log(
      `seeded in ${seed.seconds.total.toFixed(1)} s (documents ${seed.seconds.documents.toFixed(1)} s, VACUUM ANALYZE ` +
        `${seed.seconds.analyze.toFixed(1)} s); documents table with indexes ${seed.tableSize}; company ${seed.bigCompanyId} ` +
        `has ${seed.bigCompanyInvoices.toLocaleString('en-US')} invoices`,
    );
    const availablePages = Math.ceil(seed.bigCompanyInvoices / PAGE_SIZE);
    const deepPage = Math.min(mode.deepPage, availablePages);
    if (deepPage < mode.deepPage) log(`warning: only ${availablePages} pages exist; measuring page ${deepPage} instead of ${mode.deepPage}`);

    // --- The API and the baseline, each in its own process --------------------------------------
    const secretsKey = randomBytes(32).toString('base64');
    const [apiPort, baselinePort, unusedTemporalPort] = [await freePort(), await freePort(), await freePort()];
    const common = { NODE_ENV: 'production', DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: String(DATABASE_POOL_MAX), HOST: '127.0.0.1', SECRETS_ENCRYPTION_KEY: secretsKey };
    const started = await Promise.allSettled([
      startChildProcess({
        name: 'api',
        part: 'api',
        port: apiPort,
        readiness: 'http-any', // /healthz answers 503 "degraded" without Temporal: any answer will do
        readyPath: '/healthz',
        env: {
          ...common,
          PORT: String(apiPort),
          ...(await metricsPortsEnv()), // beside a running npm start, not on its metrics port
          TEMPORAL_ADDRESS: `127.0.0.1:${unusedTemporalPort}`, // nothing listens; the lists never call Temporal
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_SECOND: '0', // no rate limiting: we want the server's own latency
          SMTP_PORT: '0',
          DATA_DIR: path.join(workDir, 'api-data'),
          BLOB_DIR: path.join(workDir, 'blobs'),
        },
      }),
      startChildProcess({
        name: 'baseline',
        script: 'bench/documents/baseline-server.ts',
        port: baselinePort,
        readiness: 'http-any',
        readyPath: '/healthz',
        env: { ...common, PORT: String(baselinePort), COMPANY_ID: String(seed.bigCompanyId) },
      }),
    ]);
    for (const outcome of started) {
      if (outcome.status === 'fulfilled') {
        children.push(outcome.value);
        cleanup.push(`stop the ${outcome.value.name}`, () => outcome.value.stop());
      }
    }
    const failedStart = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failedStart) throw failedStart.reason;
    const [api, baseline] = children;
    log(`API (pid ${api.pid}) on ${api.url}, baseline (pid ${baseline.pid}) on ${baseline.url}`);

    // --- Walk the cursor to the deep page, checking the pages as we go ---------------------------
    const apiHeaders = { Authorization: authorization };
    const listUrl = `${api.url}/v1/companies/${seed.bigCompanyId}/invoices?limit=${PAGE_SIZE}`;
    const first = await getPage(listUrl, apiHeaders);
    if (first.page.data.length !== PAGE_SIZE || !first.page.has_more) throw new Error('the first page is not a full page with more to come');
    const seen = new Set<number>();
    let current = first;
    let deepCursor: string | null = null; // the next_cursor of the page before the deep one
    const walkStarted = performance.now();
    for (let pageNumber = 1; pageNumber < deepPage; pageNumber += 1) {
      for (const document of current.page.data) {
        if (seen.has(document.id)) throw new Error(`document ${document.id} appeared twice while paging (page ${pageNumber})`);
        seen.add(document.id);
      }
      deepCursor = current.page.next_cursor;
      if (!deepCursor) throw new Error(`page ${pageNumber} has no next_cursor`);
      current = await getPage(`${listUrl}&cursor=${encodeURIComponent(deepCursor)}`, apiHeaders);
    }
    const walkSeconds = (performance.now() - walkStarted) / 1000;
    const deepApiUrl = deepCursor ? `${listUrl}&cursor=${encodeURIComponent(deepCursor)}` : listUrl;
    const afterPosition = deepCursor ? cursorPosition(deepCursor) : null;
    const deepOffset = (deepPage - 1) * PAGE_SIZE;
    log(
      `walked ${deepPage - 1} pages through the API in ${walkSeconds.toFixed(1)} s ` +
        `(${((walkSeconds * 1000) / Math.max(1, deepPage - 1)).toFixed(2)} ms a page, one request at a time); ` +
        `page ${deepPage} starts after ${afterPosition ? afterPosition.join(',') : '(start)'}`,
    );

    // --- The baseline must give exactly the API's pages ----------------------------------------
    const baselineFirstUrl = `${baseline.url}/keyset`;
    const baselineDeepUrl = afterPosition ? `${baseline.url}/keyset?after=${encodeURIComponent(afterPosition.join(','))}` : baselineFirstUrl;
    const baselineOffsetUrl = `${baseline.url}/offset?offset=${deepOffset}`;
    const answers = {
      apiFirst: first.body,
      apiDeep: (await getPage(deepApiUrl, apiHeaders)).body,
      baselineFirst: (await getPage(baselineFirstUrl, {})).body,
      baselineDeep: (await getPage(baselineDeepUrl, {})).body,
      baselineOffset: (await getPage(baselineOffsetUrl, {})).body,
    };
    if (!isDeepStrictEqual(answers.apiFirst, answers.baselineFirst)) throw new Error('baseline keyset first page differs from the API first page');
    if (!isDeepStrictEqual(answers.apiDeep, answers.baselineDeep)) throw new Error(`baseline keyset page ${deepPage} differs from the API's`);
    if (!isDeepStrictEqual(answers.apiDeep, answers.baselineOffset)) throw new Error(`baseline OFFSET ${deepOffset} page differs from the API's page ${deepPage}`);
    const deepData = (answers.apiDeep as ListPage).data;
    if (deepData.some((document) => seen.has(document.id))) throw new Error(`page ${deepPage} repeats a document of an earlier page`);
    log(`API, baseline keyset and baseline OFFSET give identical pages 1 and ${deepPage} (${deepData.length} documents)`);

    // --- What Postgres alone spends on each query -----------------------------------------------
    const plans = await explainQueries(databaseUrl, seed.bigCompanyId, afterPosition, deepOffset, deepPage);

    // --- Load ------------------------------------------------------------------------------------
    const cells: Cell[] = [
      { name: 'api-first', label: 'API first page', page: 1, url: listUrl, headers: apiHeaders },
      { name: 'api-deep', label: 'API deep page (keyset)', page: deepPage, url: deepApiUrl, headers: apiHeaders },
      { name: 'baseline-keyset-first', label: 'baseline keyset first', page: 1, url: baselineFirstUrl, headers: {} },
      { name: 'baseline-keyset-deep', label: 'baseline keyset deep', page: deepPage, url: baselineDeepUrl, headers: {} },
      { name: 'baseline-offset-deep', label: 'baseline OFFSET deep', page: deepPage, url: baselineOffsetUrl, headers: {} },
    ];
    // First and deep page of the same server alternate A-B-B-A in halves, so a neighbour's burst
    // of CPU or a drift in the machine's speed weighs on both alike; OFFSET runs on its own.
    const byName = (name: CellName) => cells.find((cell) => cell.name === name) as Cell;
    const schedules: Cell[][] = [
      [byName('api-first'), byName('api-deep')],
      [byName('baseline-keyset-first'), byName('baseline-keyset-deep')],
      [byName('baseline-offset-deep')],
    ];
    for (const group of schedules) {
      for (const cell of group) {
        const warmup = await loadOnce({ url: cell.url, connections: CONNECTIONS, durationSeconds: mode.warmupSeconds, headers: cell.headers });
        checkLoad(`${cell.label} warm-up`, summarise([warmup]), problems);
      }
      const order = group.length === 2 ? [group[0], group[1], group[1], group[0]] : group;
      const part = group.length === 2 ? mode.durationSeconds / 2 : mode.durationSeconds;
      const samples = new Map<Cell, LoadSample[]>();
      for (const cell of order) {
        log(`${cell.label} (page ${cell.page}): ${part} s at ${CONNECTIONS} connections…`);
        const sample = await loadOnce({ url: cell.url, connections: CONNECTIONS, durationSeconds: part, headers: cell.headers });
        samples.set(cell, [...(samples.get(cell) ?? []), sample]);
      }
      for (const cell of group) {
        cell.result = summarise(samples.get(cell) ?? []);
        checkLoad(cell.label, cell.result, problems);
        log(`  ${cell.label}: ${fixed(cell.result.requestsPerSecond, 0)} req/s, p50 ${fixed(cell.result.latencyMs.p50, 2)} ms, p99 ${fixed(cell.result.latencyMs.p99, 2)} ms`);
      }
    }
    for (const child of children) {
      if (!child.alive()) problems.push(`${child.name} exited during the run:\n${child.outputTail()}`);
    }

    // --- Report ----------------------------------------------------------------------------------
    const result = (name: CellName) => {
      const found = cells.find((cell) => cell.name === name)?.result;
      if (!found) throw new Error(`no result for ${name}`);
      return found;
    };
    const ratio = result('api-deep').latencyMs.p50 / result('api-first').latencyMs.p50;
    const verdict = ratio <= REQUIRED_RATIO ? 'PASS' : 'FAIL';
    const offsetOverKeyset = result('baseline-offset-deep').latencyMs.p50 / result('baseline-keyset-deep').latencyMs.p50;
    const date = new Date().toISOString();
    const cpus = os.cpus();

    console.log(
      `\nDocuments list, keyset vs OFFSET — ${date}, ${mode.short ? 'short' : 'default'} mode, ` +
        `${mode.documents.toLocaleString('en-US')} documents / ${mode.companies} companies, company ${seed.bigCompanyId} with ` +
        `${seed.bigCompanyInvoices.toLocaleString('en-US')} invoices (${availablePages} pages of ${PAGE_SIZE}), ` +
        `${CONNECTIONS} connections, ${mode.durationSeconds} s per cell, ${cpus.length} cores, Node ${process.version}, ` +
        `1-min load average ${loadAverageAtStart.toFixed(2)} at start\n`,
    );
    console.log(renderLoadTable(cells));
    console.log(
      `\nAPI deep p50 / API first p50 = ${fixed(ratio, 2)} (required ≤ ${REQUIRED_RATIO}): ${verdict}` +
        `\nbaseline OFFSET deep p50 / baseline keyset deep p50 = ${fixed(offsetOverKeyset, 1)}\n`,
    );
    console.log(renderPlanTable(plans));
    console.log(
      `\nSeeding: ${seed.seconds.total.toFixed(0)} s (companies and contacts ${seed.seconds.companies.toFixed(1)} s, ` +
        `documents ${seed.seconds.documents.toFixed(0)} s, VACUUM ANALYZE ${seed.seconds.analyze.toFixed(0)} s); ` +
        `documents table with its indexes: ${seed.tableSize}. Cursor walk to page ${deepPage}: ` +
        `${walkSeconds.toFixed(1)} s (${((walkSeconds * 1000) / Math.max(1, deepPage - 1)).toFixed(2)} ms a page, sequential).`,
    );

    if (mode.jsonPath) {
      const report = {
        date,
        mode: mode.short ? 'short' : 'default',
        machine: { cpus: cpus.length, cpuModel: cpus[0]?.model ?? 'unknown', memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverageAtStart },
        data: { documents: mode.documents, companies: mode.companies, bigCompanyId: seed.bigCompanyId, bigCompanyInvoices: seed.bigCompanyInvoices, tableSize: seed.tableSize },
        seedingSeconds: seed.seconds,
        deepPage,
        deepOffset,
        walkSeconds,
        connections: CONNECTIONS,
        durationSeconds: mode.durationSeconds,
        cells: cells.map(({ name, label, page, result: measured }) => ({ name, label, page, ...measured })),
        ratio,
        requiredRatio: REQUIRED_RATIO,
        verdict,
        plans,
        problems,
      };
      await writeFile(mode.jsonPath, `${JSON.stringify(report, null, 2)}\n`);
      log(`JSON written to ${mode.jsonPath}`);
    }
    if (problems.length > 0) {
      const tails = children.map((child) => `--- ${child.name} output (last lines) ---\n${child.outputTail() || '(none)'}`);
      log(`FAILED: not every request succeeded:\n  ${problems.join('\n  ')}\n${tails.join('\n')}`);
    }
  } catch (error) {
    problems.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    log(`FAILED: ${problems[problems.length - 1]}`);
    for (const child of children) log(`--- ${child.name} output (last lines) ---\n${child.outputTail() || '(none)'}`);
  } finally {
    log('cleaning up…');
    await cleanup.runAll();
  }
  return problems.length === 0 ? 0 : 1;
}

function checkLoad(label: string, result: LoadSummary, problems: string[]): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result.requests === 0) {
    problems.push(
      `${label}: ${result.requests} responses, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `(status codes ${JSON.stringify(result.statusCodes)})`,
    );
  }
}

/** EXPLAIN (ANALYZE, BUFFERS) of each list query, five runs each on a warm cache, the median kept. */
async function explainQueries(
  databaseUrl: string,
  companyId: number,
  after: [string, number] | null,
  offset: number,
  deepPage: number,
): Promise<PlanSummary[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const queries: { label: string; sql: string; values: unknown[] }[] = [
      { label: 'keyset first page', sql: FIRST_PAGE_SQL, values: [companyId, LISTED_TYPE, FETCH_ROWS] },
      ...(after ? [{ label: `keyset page ${deepPage}`, sql: KEYSET_PAGE_SQL, values: [companyId, LISTED_TYPE, after[0], after[1], FETCH_ROWS] }] : []),
      { label: `OFFSET ${offset} (page ${deepPage})`, sql: OFFSET_PAGE_SQL, values: [companyId, LISTED_TYPE, FETCH_ROWS, offset] },
    ];
    const summaries: PlanSummary[] = [];
    for (const query of queries) {
      const runs: PlanSummary[] = [];
      for (let run = 0; run < 5; run += 1) {
        const result = await client.query<{ 'QUERY PLAN': ExplainOutput }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query.sql}`, query.values);
        const [explained] = result.rows[0]['QUERY PLAN'];
        runs.push({
          label: query.label,
          executionMs: explained['Execution Time'],
          sharedHit: explained.Plan['Shared Hit Blocks'] ?? 0,
          sharedRead: explained.Plan['Shared Read Blocks'] ?? 0,
          plan: scansOf(explained.Plan).join(', '),
        });
      }
      runs.sort((a, b) => a.executionMs - b.executionMs);
      summaries.push(runs[Math.floor(runs.length / 2)]);
    }
    return summaries;
  } finally {
    await client.end();
  }
}

type PlanNode = {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Sort Method'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
};
type ExplainOutput = { Plan: PlanNode; 'Execution Time': number }[];

/** The plan's scans and sorts, outermost first: "Index Scan documents_company_type_page", "Sort (top-N heapsort)". */
function scansOf(node: PlanNode): string[] {
  const target = node['Index Name'] ?? node['Relation Name'];
  const own = target ? [`${node['Node Type']} ${target}`] : node['Node Type'] === 'Sort' ? [`Sort (${node['Sort Method'] ?? '?'})`] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

function renderLoadTable(cells: Cell[]): string {
  const header = ['measured', 'page', 'req/s', 'p50 ms', 'p99 ms'];
  const rows = cells.map((cell) => [
    cell.label,
    String(cell.page),
    fixed(cell.result?.requestsPerSecond ?? Number.NaN, 0),
    fixed(cell.result?.latencyMs.p50 ?? Number.NaN, 2),
    fixed(cell.result?.latencyMs.p99 ?? Number.NaN, 2),
  ]);
  return markdownTable(header, rows, [false, true, true, true, true]);
}

function renderPlanTable(plans: PlanSummary[]): string {
  const header = ['Postgres alone (EXPLAIN ANALYZE, median of 5)', 'execution ms', 'buffers hit', 'buffers read', 'scans and sorts'];
  const rows = plans.map((plan) => [plan.label, fixed(plan.executionMs, 3), String(plan.sharedHit), String(plan.sharedRead), plan.plan]);
  return markdownTable(header, rows, [false, true, true, true, false]);
}

runMain(main);
