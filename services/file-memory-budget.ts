/**
 * How many bytes of uploaded files the imports of one process may hold in memory at once: an
 * import reads its whole file from the blob store and keeps it until the CPU pool has planned it.
 * Without a budget, as many files as the worker has activity slots could be in memory together
 * (20 files of up to 20 MiB: 400 MiB); with one, large files wait their turn while small ones (a few KiB
 * each, nearly every upload) pass at once. A file larger than the budget waits for all of it.
 * IMPORT_FILES_MEMORY_MB, default 64 (docs/operations.md).
 */
import { E_TIMEOUT, Semaphore, withTimeout } from 'async-mutex';
import { z } from 'zod';
import { setVariables } from '../config/set-variables';

const settingsSchema = z.object({ IMPORT_FILES_MEMORY_MB: z.coerce.number().int().min(1).max(65_536).default(64) });

export function fileMemoryBudgetBytes(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = settingsSchema.parse(setVariables(env));
  return parsed.IMPORT_FILES_MEMORY_MB * 1024 * 1024;
}

/**
 * The semaphore counts units of at least a KiB, never more than MAX_UNITS of them: async-mutex's
 * release walks every free unit (186 ms of a blocked event loop per release with 64 Mi units,
 * measured; 0.2 ms with 64 Ki, which was 3.5 % of the API's CPU in an upload burst and a release
 * per upload and per import). A budget of 128 MiB counts in 128 KiB units: a small file holds one.
 */
const MIN_UNIT_BYTES = 1024;
const MAX_UNITS = 1024;

export class BudgetWaitTimedOut extends Error {
  constructor(readonly waitedMs: number) {
    super(`no room in the memory budget within ${waitedMs / 1000} s`);
  }
}

export class FileMemoryBudget {
  private readonly semaphore: Semaphore;
  private readonly units: number;
  private readonly unitBytes: number;

  constructor(readonly bytes: number) {
    this.unitBytes = Math.max(MIN_UNIT_BYTES, Math.ceil(bytes / MAX_UNITS));
    this.units = Math.max(1, Math.ceil(bytes / this.unitBytes));
    this.semaphore = new Semaphore(this.units);
  }

  /**
   * Runs `use` once `size` bytes of the budget (at most all of it) are free, and frees them when
   * it ends. Waiters are served in arrival order. `whileWaiting` is called every `intervalMs`
   * until then (an activity's heartbeat, so a long wait is not taken for a lost worker).
   */
  async withBytes<T>(size: number, use: () => Promise<T>, whileWaiting?: () => void, intervalMs = 5_000): Promise<T> {
    const ticker = whileWaiting ? setInterval(whileWaiting, intervalMs) : undefined;
    const acquired = this.semaphore.acquire(this.weightOf(size));
    void acquired.finally(() => clearInterval(ticker)).catch(() => undefined);
    return this.holding(acquired, use);
  }

  /**
   * withBytes, waiting at most `timeoutMs` for the bytes: throws BudgetWaitTimedOut instead of
   * waiting longer (a request then answers 503 rather than hold its client indefinitely).
   */
  async withBytesWithin<T>(size: number, timeoutMs: number, use: () => Promise<T>): Promise<T> {
    const acquired = withTimeout(this.semaphore, timeoutMs)
      .acquire(this.weightOf(size))
      .catch((error: unknown) => {
        throw error === E_TIMEOUT ? new BudgetWaitTimedOut(timeoutMs) : error;
      });
    return this.holding(acquired, use);
  }

  /** Semaphore units for `size` bytes: at least one, at most the whole budget. */
  private weightOf(size: number): number {
    return Math.max(1, Math.min(Math.ceil(size / this.unitBytes), this.units));
  }

  /** Runs `use` once `acquired` grants the units, and gives them back when it ends. */
  private async holding<T>(acquired: Promise<[number, () => void]>, use: () => Promise<T>): Promise<T> {
    const [, release] = await acquired;
    try {
      return await use();
    } finally {
      release();
    }
  }

  /** Bytes free right now, in whole units (tests). */
  available(): number {
    return this.semaphore.getValue() * this.unitBytes;
  }
}

let processBudget: FileMemoryBudget | null = null;

/** The process's budget, sized from the environment on first use. */
export function importFilesMemoryBudget(): FileMemoryBudget {
  processBudget ??= new FileMemoryBudget(fileMemoryBudgetBytes());
  return processBudget;
}
