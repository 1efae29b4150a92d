/**
 * The CPU-heavy jobs of the service, run in the worker threads of services/cpu/pool.ts (never on a
 * serving event loop): planning an import (ZIP inspection, XML/UBL parsing), producing a
 * document's PDF (ZIP inspection, parsing, rendering) and opening a PKCS#12.
 *
 * Each job gets a MessagePort: it posts `{ started: true }` when a thread picks it up (the time
 * budget starts then, not while queued) and `{ step }` for progress (the import activity
 * heartbeats on each). Inputs and results cross the thread boundary by structured clone, so
 * Buffers arrive as Uint8Arrays: jobs wrap inputs again, services/cpu/pool.ts wraps results.
 */
import type { MessagePort } from 'node:worker_threads';
import type { LoadedCertificate } from '../../domain/dian/certificate';
import type { ImportPlan, ImportStep, PdfKind } from '../../domain/ingestion/plan-import';
import type { ReceivedExportFilter } from '../../domain/dian/received-export';
import type { PdfSource } from '../produce-document-pdf';

// Each job requires its modules on first use, so a thread that only ever opens certificates never
// loads the PDF renderer (a thread's cold start is mostly module loading).
const ingestion = () => require('../../domain/ingestion/plan-import') as typeof import('../../domain/ingestion/plan-import');
const pdf = () => require('../produce-document-pdf') as typeof import('../produce-document-pdf');
const certificates = () => require('../../domain/dian/certificate') as typeof import('../../domain/dian/certificate');
const receivedExports = () => require('../../domain/dian/received-export') as typeof import('../../domain/dian/received-export');

export type JobEnvelope<I> = { port: MessagePort; input: I };

const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function job<I, O>(run: (input: I, progress: (step: ImportStep) => void) => O | Promise<O>) {
  return async ({ port, input }: JobEnvelope<I>): Promise<O> => {
    port.postMessage({ started: true });
    try {
      return await run(input, (step) => port.postMessage({ step }));
    } finally {
      port.close();
    }
  };
}

export type PlanImportInput = { bytes: Uint8Array; fileName: string; companyNit: string; pdfKind: PdfKind | null };

export const planImportJob = job((input: PlanImportInput, progress): ImportPlan =>
  ingestion().planImport(buffer(input.bytes), input.fileName, input.companyNit, input.pdfKind, progress),
);

export type ProducePdfInput = { document: PdfSource; original: Uint8Array };

export const producePdfJob = job((input: ProducePdfInput) => pdf().producePdfFromOriginal(input.document, buffer(input.original)));

export type LoadCertificateInput = { p12: Uint8Array; password: string };

export type CertificateJobResult = { ok: true; certificate: LoadedCertificate } | { ok: false; code: string; message: string };

/** loadPkcs12; a CertificateError comes back as a value (error classes do not survive the thread boundary). */
export const loadCertificateJob = job((input: LoadCertificateInput): CertificateJobResult => {
  try {
    return { ok: true, certificate: certificates().loadPkcs12(buffer(input.p12), input.password) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return { ok: false, code, message: (error as Error).message };
    throw error;
  }
});

export type ReceivedExportInput = { bytes: Uint8Array; filter: ReceivedExportFilter };

export type ReceivedExportResult = { ok: true; cufes: string[] } | { ok: false; message: string };

/** cufesFromReceivedExport (a CSV or an XLSX a client sends); a ReceivedExportError comes back as a value. */
export const receivedExportJob = job((input: ReceivedExportInput): ReceivedExportResult => {
  const { cufesFromReceivedExport, ReceivedExportError } = receivedExports();
  try {
    return { ok: true, cufes: cufesFromReceivedExport(buffer(input.bytes), input.filter) };
  } catch (error) {
    if (error instanceof ReceivedExportError) return { ok: false, message: error.message };
    throw error;
  }
});

export type CpuJobs = { planImportJob: typeof planImportJob; producePdfJob: typeof producePdfJob; loadCertificateJob: typeof loadCertificateJob; receivedExportJob: typeof receivedExportJob };
