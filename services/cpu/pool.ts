/**
 * The CPU pool: a Piscina worker-thread pool for parsing, ZIP inspection, PDF rendering and
 * PKCS#12 handling (services/cpu/tasks.ts), so that none of it runs on a serving event loop (the API's
 * HTTP server, the Temporal worker's activity loop, the SMTP intake). Created lazily, on the
 * first job, in whichever process needs it; idle threads exit after CPU_POOL_IDLE_MS.
 *
 * Each job has a time budget (CPU_JOB_TIMEOUT_MS, counted from when a thread starts it; the
 * thread is terminated when it runs out) and a memory budget (CPU_JOB_MAX_MEMORY_MB, the V8 heap
 * limit of each thread: a job that needs more kills its thread, not the process). Either ends
 * the job with CpuBudgetExceeded. Sizes and defaults: docs/operations.md.
 */
import os from 'node:os';
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import { z } from 'zod';
import { createLogger } from '../../config/logger';
import { logLevelSchema } from '../../config';
import { setVariables } from '../../config/set-variables';
import { countCpuJob } from '../../config/outcome-metrics';
import { watchCpuPool } from '../../config/pool-metrics';
import type { DocumentRow } from '../../db/repositories/documents';
import { CertificateError, type LoadedCertificate } from '../../domain/dian/certificate';
import type { ImportPlan, ImportStep, PdfKind } from '../../domain/ingestion/plan-import';
import { ReceivedExportError, type ReceivedExportFilter } from '../../domain/dian/received-export';
import type { CertificateJobResult, CpuJobs, JobEnvelope, ReceivedExportResult } from './tasks';

const settingsSchema = z.object({
  CPU_POOL_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  CPU_JOB_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  CPU_JOB_MAX_MEMORY_MB: z.coerce.number().int().min(32).default(256),
  CPU_POOL_IDLE_MS: z.coerce.number().int().min(0).default(30_000),
});

export type CpuPoolSettings = { threads: number; jobTimeoutMs: number; jobMaxMemoryMb: number; idleMs: number };

/** From the environment; threads default to one less than the cores (1 on 2 cores: the other core serves). */
export function cpuPoolSettings(env: NodeJS.ProcessEnv = process.env): CpuPoolSettings {
  const parsed = settingsSchema.parse(setVariables(env));
  return {
    threads: parsed.CPU_POOL_THREADS ?? Math.max(1, os.availableParallelism() - 1),
    jobTimeoutMs: parsed.CPU_JOB_TIMEOUT_MS,
    jobMaxMemoryMb: parsed.CPU_JOB_MAX_MEMORY_MB,
    idleMs: parsed.CPU_POOL_IDLE_MS,
  };
}

/**
 * CPU_JOB_TIMEOUT_MS alone, read per job (the threads and memory are fixed when the pool starts):
 * one variable, not a copy of the whole environment and a parse of every setting, which cost
 * 0.5 % of the worker's main thread in an upload burst (docs/performance.md).
 */
export function cpuJobTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.CPU_JOB_TIMEOUT_MS;
  return settingsSchema.shape.CPU_JOB_TIMEOUT_MS.parse(value === '' ? undefined : value);
}

/** A job ran out of its time or memory budget; its thread was terminated. */
export class CpuBudgetExceeded extends Error {
  readonly code = 'processing_limit_exceeded' as const;
  constructor(
    readonly budget: 'time' | 'memory',
    message: string,
  ) {
    super(message);
    this.name = 'CpuBudgetExceeded';
  }
}

let pool: { piscina: Piscina; settings: CpuPoolSettings } | null = null;
watchCpuPool(() => pool?.piscina ?? null);

function currentPool(): { piscina: Piscina; settings: CpuPoolSettings } {
  if (!pool) {
    const settings = cpuPoolSettings();
    const piscina = new Piscina({
      filename: path.join(__dirname, 'worker-entry.cjs'),
      // Piscina replaces a thread it terminated (a job over its time or memory budget, a crash)
      // only up to minThreads: with 0, the jobs queued behind such a job waited, thread-less,
      // until another job arrived (an upload burst behind one hostile file stayed PROCESSING
      // until the next upload). One thread stays once the pool exists; more exit when idle.
      minThreads: 1,
      maxThreads: settings.threads,
      idleTimeout: settings.idleMs,
      resourceLimits: { maxOldGenerationSizeMb: settings.jobMaxMemoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.ceil(settings.jobMaxMemoryMb / 4)) },
    });
    // Piscina reports a thread that fails while it runs no job as an 'error' event on the pool: a
    // thread whose job was stopped for its time budget can reach its memory budget before the
    // stop takes effect (a long native step, such as splitting a huge text, runs to its end
    // first). With no listener that event was an uncaught exception: on npm start, three GET …/pdf
    // of an invoice whose line description holds 3 million line breaks ended the API process and
    // every tenant's requests in it. The job was already answered (CpuBudgetExceeded) and Piscina
    // replaces the thread; only the log is left to do.
    piscina.on('error', (error: unknown) => {
      threadFailureLogger().warn({ err: error }, 'a CPU pool thread failed outside any job (after its job was stopped); it is replaced');
    });
    pool = { settings, piscina };
  }
  return pool;
}

let failureLogger: Logger | null = null;
function threadFailureLogger(): Logger {
  if (!failureLogger) {
    // Never throws: this runs in Piscina's error listener, where a throw would end the process.
    const level = logLevelSchema.safeParse(process.env.LOG_LEVEL);
    failureLogger = createLogger({ logLevel: level.success ? level.data : 'info' }, 'cpu-pool');
  }
  return failureLogger;
}

/** The pool's threads, none before its first job (tests and diagnostics: the pool itself is private). */
export function cpuPoolThreads(): readonly Worker[] {
  return pool?.piscina.threads ?? [];
}

/** Stops the pool's threads (process shutdown, tests); the next job starts a new pool. */
export async function closeCpuPool(): Promise<void> {
  const closing = pool;
  pool = null;
  await closing?.piscina.destroy();
}

type JobName = keyof CpuJobs;
type JobInput<N extends JobName> = Parameters<CpuJobs[N]>[0] extends JobEnvelope<infer I> ? I : never;
type JobOutput<N extends JobName> = Awaited<ReturnType<CpuJobs[N]>>;

/** Runs one job of services/cpu/tasks.ts in the pool, within its budgets; `onProgress` gets the job's steps. */
export async function runCpuJob<N extends JobName>(
  name: N,
  input: JobInput<N>,
  onProgress?: (step: ImportStep) => void,
  transfer: ArrayBuffer[] = [],
): Promise<JobOutput<N>> {
  const { piscina, settings } = currentPool();
  // Threads and memory are fixed when the pool starts; the time budget is read per job.
  const jobTimeoutMs = cpuJobTimeoutMs();
  const { port1, port2 } = new MessageChannel();
  const controller = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  const onMessage = (message: { started?: true; step?: ImportStep }) => {
    if (message.started) deadline ??= setTimeout(() => controller.abort(), jobTimeoutMs);
    else if (message.step) onProgress?.(message.step);
  };
  port1.on('message', onMessage);
  try {
    const output = (await piscina.run({ port: port2, input }, { name, signal: controller.signal, transferList: [port2, ...transfer] })) as JobOutput<N>;
    countCpuJob(name, 'completed');
    return output;
  } catch (error) {
    if (controller.signal.aborted) {
      countCpuJob(name, 'time_budget_exceeded');
      throw new CpuBudgetExceeded('time', `processing took longer than its budget of ${jobTimeoutMs / 1000} s and was stopped`);
    }
    if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      countCpuJob(name, 'memory_budget_exceeded');
      throw new CpuBudgetExceeded('memory', `processing needed more than its memory budget of ${settings.jobMaxMemoryMb} MB and was stopped`);
    }
    countCpuJob(name, 'failed');
    throw error;
  } finally {
    // The result comes back on Piscina's own port, which is not ordered with ours: the job's last
    // steps can still be queued here when it resolves. They were posted before the result, so they
    // are in the queue now; read them before closing, or the last document's step is lost.
    for (let queued = receiveMessageOnPort(port1); queued; queued = receiveMessageOnPort(port1)) onMessage(queued.message);
    clearTimeout(deadline);
    port1.close();
  }
}

const buffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/**
 * planImport in the pool; `onStep` runs per ZIP entry and per document (the import activity
 * heartbeats). When `bytes` owns its whole ArrayBuffer (a file read from the blob store) that
 * memory is moved to the thread, not copied, and `bytes` is empty afterwards.
 */
export function planImportInPool(
  bytes: Buffer,
  fileName: string,
  companyNit: string,
  pdfKind: PdfKind | null,
  onStep?: (step: ImportStep) => void,
): Promise<ImportPlan> {
  const movable = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  return runCpuJob('planImportJob', { bytes, fileName, companyNit, pdfKind }, onStep, movable ? [bytes.buffer as ArrayBuffer] : []);
}

/** producePdfFromOriginal in the pool (a PdfProducer for createDocumentFiles). */
export async function producePdfInPool(document: DocumentRow, original: Buffer): Promise<Buffer | null> {
  const { original_content_type, original_zip_pdf_entry, document_type, cufe, created_at } = document;
  const pdf = await runCpuJob('producePdfJob', { document: { original_content_type, original_zip_pdf_entry, document_type, cufe, created_at }, original });
  return pdf ? buffer(pdf) : null;
}

/**
 * cufesFromReceivedExport in the pool: a client's CSV or XLSX (a ZIP of XML parts) is parsed off
 * the serving event loop, within the pool's time and memory budgets. Throws ReceivedExportError
 * like cufesFromReceivedExport, or CpuBudgetExceeded.
 */
export async function cufesFromReceivedExportInPool(bytes: Buffer, filter: ReceivedExportFilter): Promise<string[]> {
  const result: ReceivedExportResult = await runCpuJob('receivedExportJob', { bytes, filter });
  if (!result.ok) throw new ReceivedExportError(result.message);
  return result.cufes;
}

/** loadPkcs12 in the pool: throws CertificateError like loadPkcs12, or CpuBudgetExceeded. */
export async function loadCertificateInPool(p12: Buffer, password: string): Promise<LoadedCertificate> {
  const result: CertificateJobResult = await runCpuJob('loadCertificateJob', { p12, password });
  if (!result.ok) throw new CertificateError(result.code as CertificateError['code'], result.message);
  return { ...result.certificate, certificateDer: buffer(result.certificate.certificateDer) };
}
