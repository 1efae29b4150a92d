import type { Knex } from 'knex';
import { Gauge, register } from 'prom-client';

/**
 * Gauges read at scrape time from the pools a process holds: the Postgres connection pools
 * (knex's tarn pool) and the CPU worker-thread pool (Piscina). Pools are held weakly: one
 * destroyed or collected (tests open many databases) drops out of the sums.
 */

const databasePools = new Set<WeakRef<Knex>>();

type TarnPool = { numUsed(): number; numFree(): number; numPendingAcquires(): number; numPendingCreates(): number };

function sumOverDatabasePools(read: (pool: TarnPool) => number): number {
  let total = 0;
  for (const reference of databasePools) {
    const db = reference.deref();
    const pool = db?.client.pool as TarnPool | undefined;
    if (!db) databasePools.delete(reference);
    else if (pool) total += read(pool);
  }
  return total;
}

new Gauge({
  name: 'invoicing_db_pool_connections',
  help: 'Postgres connections of this process by state: used (checked out by a query), free (idle in the pool), pending (queries waiting for one).',
  labelNames: ['state'] as const,
  registers: [register],
  collect() {
    this.set({ state: 'used' }, sumOverDatabasePools((pool) => pool.numUsed()));
    this.set({ state: 'free' }, sumOverDatabasePools((pool) => pool.numFree()));
    this.set({ state: 'pending' }, sumOverDatabasePools((pool) => pool.numPendingAcquires()));
  },
});

/** Adds a knex instance to the pool gauges (db/connection.ts, for every connection it opens). */
export function watchDatabasePool(db: Knex): void {
  databasePools.add(new WeakRef(db));
}

type CpuPoolView = { queueSize: number; utilization: number; threads: unknown[] };
let cpuPool: (() => CpuPoolView | null) | null = null;

new Gauge({
  name: 'invoicing_cpu_pool_queue_size',
  help: 'CPU pool jobs waiting for a thread.',
  registers: [register],
  collect() {
    this.set(cpuPool?.()?.queueSize ?? 0);
  },
});

new Gauge({
  name: 'invoicing_cpu_pool_utilization_ratio',
  help: "CPU pool utilisation since it started (Piscina's utilization: run time over capacity, 0 to 1).",
  registers: [register],
  collect() {
    this.set(cpuPool?.()?.utilization ?? 0);
  },
});

new Gauge({
  name: 'invoicing_cpu_pool_threads',
  help: 'CPU pool threads alive (idle ones exit after CPU_POOL_IDLE_MS).',
  registers: [register],
  collect() {
    this.set(cpuPool?.()?.threads.length ?? 0);
  },
});

/** How the CPU pool gauges find the current pool (services/cpu/pool.ts; null while none runs). */
export function watchCpuPool(current: () => CpuPoolView | null): void {
  cpuPool = current;
}
