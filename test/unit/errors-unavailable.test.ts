import { createServer, type Socket } from 'node:net';
import test from 'ava';
import { KnexTimeoutError } from 'knex';
import { mapError } from '../../api/errors';
import { connectDatabase } from '../../db/connection';
import { isDependencyFault } from '../../services/dependency-faults';

// Infrastructure faults the client can retry: 503 service_unavailable with Retry-After, and a
// full file store: 507 insufficient_storage. A bug stays a 500.

const withCode = (message: string, code: string | number, name = 'Error') => Object.assign(new Error(message), { code, name });

test('an unreachable database is 503 service_unavailable with Retry-After', (t) => {
  const faults = [
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    // The embedded cluster's Unix socket, gone while Postgres is stopped.
    Object.assign(withCode('connect ENOENT /srv/app/.data/postgres/.s.PGSQL.54329', 'ENOENT'), { address: '/srv/app/.data/postgres/.s.PGSQL.54329' }),
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is starting up', '57P03'),
    withCode('sorry, too many clients already', '53300'),
    withCode('connection failure', '08006'),
    new Error('Connection terminated unexpectedly'),
    new Error('select * from "companies" where "id" = $1 limit $2 - Connection terminated unexpectedly'),
    new Error('insert into "uploaded_files" ("company_id") values ($1) - Client has encountered a connection error and is not queryable'),
    new KnexTimeoutError('Knex: Timeout acquiring a connection. The pool is probably full.'),
  ];
  for (const fault of faults) {
    const mapped = mapError(fault);
    t.is(mapped.status, 503, fault.message);
    t.is(mapped.body.error.code, 'service_unavailable');
    t.is(mapped.headers['Retry-After'], '5');
    t.false(mapped.unexpected);
  }
});

test('a Postgres that accepts connections and never answers (frozen, black-holed): every query is 503, whichever deadline ends it first', async (t) => {
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  // The API's settings: pg's connect deadline and knex's acquire deadline are the same, so either
  // ends a query (knex's KnexTimeoutError, or pg's bare "timeout expired", which was a 500).
  const db = connectDatabase(`postgres://user:secret@127.0.0.1:${port}/invoicing`, 2, { acquireTimeoutMs: 200 });
  try {
    const messages = new Set<string>();
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const error = await db.raw('select 1').then(() => null, (failure: unknown) => failure as Error);
      if (!error) return t.fail('a silent server answered a query');
      messages.add(error.message);
      t.like(mapError(error), { status: 503, body: { error: { code: 'service_unavailable' } }, unexpected: false }, error.message);
    }
    t.log(`errors met: ${[...messages].join(' | ')}`);
  } finally {
    await db.destroy();
    for (const socket of held) socket.destroy();
    silent.close();
  }
});

test('an unreachable Temporal frontend (gRPC UNAVAILABLE) is 503 service_unavailable', (t) => {
  const grpc = withCode('14 UNAVAILABLE: No connection established', 14);
  const mapped = mapError(Object.assign(new Error('Failed to start workflow'), { name: 'ServiceError', cause: grpc }));
  t.is(mapped.status, 503);
  t.is(mapped.headers['Retry-After'], '5');
});

test('Temporal not answering in time (gRPC DEADLINE_EXCEEDED) is 503 service_unavailable, and a dependency fault for activities', (t) => {
  // What the API got for an upload when the dev server was resumed after a 40 s SIGSTOP (npm start,
  // 2026-11-25): the server answered the waiting StartWorkflowExecution so; it was a 500 internal_error.
  const grpc = Object.assign(withCode('4 DEADLINE_EXCEEDED: context deadline exceeded', 4), { details: 'context deadline exceeded', metadata: {} });
  const error = Object.assign(new Error('Failed to start Workflow: 4 DEADLINE_EXCEEDED: context deadline exceeded'), { name: 'ServiceError', cause: grpc });
  t.like(mapError(error), { status: 503, body: { error: { code: 'service_unavailable' } }, unexpected: false });
  t.is(mapError(error).headers['Retry-After'], '5');
  t.true(isDependencyFault(error));
  // A code 4 that is no gRPC status stays a bug.
  t.like(mapError(withCode('something', 4)), { status: 500, unexpected: true });
});

test('a full disk is 507 insufficient_storage; anything else stays a 500', (t) => {
  t.like(mapError(withCode('ENOSPC: no space left on device, write', 'ENOSPC')), { status: 507, body: { error: { code: 'insufficient_storage' } }, unexpected: false });
  t.like(mapError(withCode('EDQUOT: disk quota exceeded', 'EDQUOT')), { status: 507 });
  t.like(mapError(new TypeError('x is undefined')), { status: 500, unexpected: true });
  t.like(mapError(withCode('duplicate key', '23505')), { status: 500 });
  // A missing file is not a database outage.
  t.like(mapError(withCode("ENOENT: no such file or directory, open '/srv/app/.data/blobs/x'", 'ENOENT')), { status: 500, unexpected: true });
});

test("Postgres's disk full (SQLSTATE 53100) is 507 insufficient_storage naming the database, and a dependency fault for activities", (t) => {
  const full = withCode('insert into "uploaded_files" … - could not extend file "pg_tblspc/16384/PG_16_202307071/16385/16999": No space left on device', '53100');
  t.like(mapError(full), { status: 507, body: { error: { code: 'insufficient_storage' } }, unexpected: false });
  t.regex(mapError(full).body.error.message, /database is full/);
  t.true(isDependencyFault(full));
  t.false(isDependencyFault(withCode('value too long', '22001')));
});
