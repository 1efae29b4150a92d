import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { createApp } from '../../api/server';
import { buildApiDependencies } from '../../api/app-context';
import { freePort } from '../../scripts/embedded/ports';
import { startTestApi } from '../support/api';

test('health is degraded (503) when Temporal cannot be reached, and says which check failed', async (t) => {
  const api = await startTestApi();
  const deadConnection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
  const { app } = createApp(
    buildApiDependencies(api.config, api.database.db, { connection: deadConnection, client: new Client({ connection: deadConnection }) }, pino({ level: 'silent' }), () => ''),
  );
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const started = Date.now();
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
    const body = (await response.json()) as { status: string; checks: Record<string, { status: string; error?: string }> };
    t.is(response.status, 503);
    t.is(body.status, 'degraded');
    t.is(body.checks.postgres.status, 'ok');
    t.is(body.checks.temporal.status, 'unavailable');
    t.truthy(body.checks.temporal.error);
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
