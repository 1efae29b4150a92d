import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/server';
import { buildApiDependencies } from '../../api/app-context';
import { freePort } from '../../scripts/embedded/ports';
import { HEALTH_FAILURE_MESSAGES } from '../../api/health-failures';
import { capturingLogger, startTestApi } from '../support/api';

test('health is degraded (503) when Temporal cannot be reached, says which check failed with a code, and logs the address only', async (t) => {
  const api = await startTestApi();
  const deadPort = await freePort();
  const deadConnection = Connection.lazy({ address: `127.0.0.1:${deadPort}` });
  const { logger, lines } = capturingLogger();
  const { app } = createApp(
    buildApiDependencies(api.config, api.database.db, { connection: deadConnection, client: new Client({ connection: deadConnection }) }, logger, () => ''),
  );
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const started = Date.now();
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
    const text = await response.text();
    const body = JSON.parse(text) as { status: string; checks: Record<string, { status: string; error?: { code: 'timeout' | 'unreachable'; message: string } }> };
    t.is(response.status, 503);
    t.is(body.status, 'degraded');
    t.is(body.checks.postgres.status, 'ok');
    t.is(body.checks.temporal.status, 'unavailable');
    // A code and its fixed sentence: the raw error (the address, the gRPC detail) was the answer before 2026-11-25.
    const code = body.checks.temporal.error?.code;
    t.true(code === 'unreachable' || code === 'timeout', text);
    t.is(body.checks.temporal.error?.message, HEALTH_FAILURE_MESSAGES[code!]);
    t.false(text.includes(String(deadPort)), text);
    const logged = lines.filter((line) => line.check === 'temporal');
    t.is(logged.length, 1);
    t.like(logged[0], { level: 50, code });
    t.truthy(logged[0].err, 'the error, whole, is in the log');
    t.true(Date.now() - started < 5000, 'a dead dependency does not hang the health check');
  } finally {
    server.close();
    await api.close();
  }
});

test('a flood of GET /healthz shares its checks: 200 concurrent probes run Postgres\' check a few times, not 200', async (t) => {
  const api = await startTestApi();
  try {
    let checks = 0;
    const countCheck = (query: { sql: string }) => {
      if (query.sql.trim().toLowerCase() === 'select 1') checks += 1;
    };
    api.dependencies.db.on('query', countCheck);
    const answers = await Promise.all(Array.from({ length: 200 }, () => fetch(`${api.url}/healthz`).then(async (response) => ({ status: response.status, body: (await response.json()) as { checks: Record<string, { status: string }> } }))));
    api.dependencies.db.off('query', countCheck);
    t.deepEqual([...new Set(answers.map((answer) => answer.status))], [200]);
    t.true(answers.every((answer) => answer.body.checks.postgres.status === 'ok' && answer.body.checks.temporal.status === 'ok'));
    t.true(checks >= 1 && checks <= 5, `Postgres checked ${checks} times for 200 probes`);
  } finally {
    await api.close();
  }
});
