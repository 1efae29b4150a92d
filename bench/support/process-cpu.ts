import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * CPU time (user + system) of processes, read from /proc: unlike wall-clock figures it barely
 * moves with the machine's load, so "CPU ms per file" of each process compares runs made under
 * different load. Linux only; elsewhere every reading is null.
 */

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the project runs on

type StatFields = { ppid: number; comm: string; ownTicks: number; reapedChildrenTicks: number };

async function readStat(pid: number): Promise<StatFields | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime/stime 14/15, cutime/cstime 16/17.
    return {
      ppid: Number(fields[1]),
      comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
      ownTicks: Number(fields[11]) + Number(fields[12]),
      reapedChildrenTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null;
  }
}

/** CPU ms of one process (all its threads), or null when it cannot be read. */
export async function processCpuMs(pid: number): Promise<number | null> {
  const stat = await readStat(pid);
  return stat ? (stat.ownTicks * 1000) / TICKS_PER_SECOND : null;
}

/**
 * CPU ms of a process and its direct children, plus the children it has already reaped (a
 * Postgres postmaster and its backends, including those that ended), or null.
 */
export async function processTreeCpuMs(pid: number): Promise<number | null> {
  const parent = await readStat(pid);
  if (!parent) return null;
  let ticks = parent.ownTicks + parent.reapedChildrenTicks;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = await readStat(Number(entry));
    if (child?.ppid === pid) ticks += child.ownTicks;
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

export type CpuSource = { name: string; read: () => Promise<number | null> };

/** CPU ms each source used between start() and the returned function's call. */
export async function startCpuWindow(sources: CpuSource[]): Promise<() => Promise<Map<string, number | null>>> {
  const before = await Promise.all(sources.map((source) => source.read()));
  return async () => {
    const after = await Promise.all(sources.map((source) => source.read()));
    return new Map(sources.map((source, i) => [source.name, before[i] === null || after[i] === null ? null : after[i]! - before[i]!]));
  };
}

/**
 * The sources every pipeline benchmark reports beside its own children: the Temporal dev server,
 * Postgres (postmaster and backends; its pid from `<workDir>/postgres/postmaster.pid`) and this
 * process. A source that cannot be found reads as unknown (null).
 */
export async function sharedCpuSources(environment: { workDir: string; temporalPid?: number }): Promise<CpuSource[]> {
  const pidFile = path.join(environment.workDir, 'postgres', 'postmaster.pid');
  const postmasterPid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  const { temporalPid } = environment;
  const unknown = async () => null;
  return [
    { name: 'temporal', read: temporalPid ? () => processCpuMs(temporalPid) : unknown },
    { name: 'postgres', read: postmasterPid > 0 ? () => processTreeCpuMs(postmasterPid) : unknown },
    { name: 'bench', read: () => processCpuMs(process.pid) },
  ];
}

/** A CPU window's milliseconds per unit of work (null stays null: a source that could not be read). */
export function cpuMsPerUnitOf(used: Map<string, number | null>, units: number): Map<string, number | null> {
  return new Map([...used].map(([name, ms]) => [name, ms === null ? null : ms / units]));
}

/** The sum of per-source figures, or null when any is unknown. */
export function totalCpuMs(values: Iterable<number | null>): number | null {
  let total = 0;
  for (const value of values) {
    if (value === null) return null;
    total += value;
  }
  return total;
}

/**
 * CPU ms of each thread of a process, summed by thread name (`comm`): the main thread is
 * "main"; Node's worker_threads keep the name "node"; tokio, V8 and libuv pools have their own.
 */
export async function threadCpuMsByName(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  let threads: string[];
  try {
    threads = await readdir(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of threads) {
    try {
      const text = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

/** What each thread name used between two threadCpuMsByName readings (threads that ended are not counted). */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([name, ms]) => [name, ms - (before.get(name) ?? 0)] as [string, number]).sort((a, b) => b[1] - a[1]));
}

/**
 * Starts a window over one process's threads: the function it returns gives the CPU ms each
 * thread name used since, plus "ended threads": what threads that ended within the window used
 * (the process's total minus its live threads), e.g. the watchdog thread Node starts for every
 * vm.runInContext call with a timeout, which the SDK makes for each call into a workflow.
 */
export async function startThreadCpuWindow(pid: number): Promise<() => Promise<Map<string, number>>> {
  const [threadsBefore, processBefore] = [await threadCpuMsByName(pid), await processCpuMs(pid)];
  return async () => {
    const [threadsAfter, processAfter] = [await threadCpuMsByName(pid), await processCpuMs(pid)];
    const used = threadCpuDelta(threadsBefore, threadsAfter);
    if (processBefore !== null && processAfter !== null) {
      const live = totalCpuMs(used.values()) ?? 0;
      used.set('ended threads', Math.max(0, processAfter - processBefore - live));
    }
    return used;
  };
}

/** A thread window's figures per unit of work, for a log line: "node 7.06, main 5.02, …" (threads that used nothing left out). */
export function formatThreadCpu(used: Map<string, number>, units: number, digits: number): string {
  return [...used]
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${(ms / units).toFixed(digits)}`)
    .join(', ');
}

/** CPU seconds by part of a benchmark (Postgres, Temporal, the API, the worker, the benchmark's own process). */
export type CpuByPart = Record<string, number>;

async function commandLineOf(pid: number): Promise<string> {
  return readFile(`/proc/${pid}/cmdline`, 'utf8').then((line) => line.replaceAll('\0', ' '), () => '');
}

/**
 * CPU seconds used so far by this process and its descendants, grouped: the named pids (e.g.
 * the API and worker children) by their name, the rest by their command (`temporal`), and this
 * process as `benchmark` (with the DIAN simulator, which runs in-process). Daemonised servers
 * (the embedded Postgres, started by pg_ctl) are found by `detached`: a part's name and a text
 * of its root process's command line (its data directory); the root's descendants count too,
 * and the children it reaped. The difference of two readings is what a phase cost.
 */
export async function cpuSecondsByPart(named: Record<string, number | undefined>, detached: Record<string, string> = {}): Promise<CpuByPart> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const stats = (await Promise.all(pids.map(async (pid) => ({ pid, stat: await readStat(pid) })))).filter(
    (entry): entry is { pid: number; stat: StatFields } => entry.stat !== null,
  );
  const byPid = new Map(stats.map((entry) => [entry.pid, entry]));
  const nameOf = new Map(Object.entries(named).filter(([, pid]) => pid !== undefined).map(([name, pid]) => [pid!, name]));
  const descends = (ppid: number, root: (pid: number) => boolean): boolean => {
    for (let parent = byPid.get(ppid); parent; parent = byPid.get(parent.stat.ppid)) if (root(parent.pid)) return true;
    return false;
  };
  const detachedRoots = new Map<number, string>();
  for (const { pid, stat } of stats) {
    if (detachedRoots.size === Object.keys(detached).length) break;
    const line = await commandLineOf(pid);
    const part = Object.entries(detached).find(([, marker]) => line.includes(marker) && !detachedRoots.has(stat.ppid))?.[0];
    if (part && !descends(stat.ppid, (candidate) => candidate === process.pid)) detachedRoots.set(pid, part);
  }
  const { user, system } = process.cpuUsage();
  const parts: CpuByPart = { benchmark: (user + system) / 1e6 };
  for (const { pid, stat } of stats) {
    let part: string | undefined;
    if (descends(stat.ppid, (candidate) => candidate === process.pid)) part = nameOf.get(pid) ?? stat.comm;
    else if (detachedRoots.has(pid)) part = detachedRoots.get(pid);
    else {
      for (let parent = byPid.get(stat.ppid); parent && !part; parent = byPid.get(parent.stat.ppid)) part = detachedRoots.get(parent.pid);
    }
    if (part) parts[part] = (parts[part] ?? 0) + (stat.ownTicks + stat.reapedChildrenTicks) / TICKS_PER_SECOND;
  }
  return parts;
}

/** after − before per part, in CPU milliseconds per unit. */
export function cpuMsPerUnit(before: CpuByPart, after: CpuByPart, units: number): CpuByPart {
  const result: CpuByPart = {};
  for (const part of Object.keys(after)) result[part] = ((after[part] ?? 0) - (before[part] ?? 0)) * 1000 / units;
  return result;
}
