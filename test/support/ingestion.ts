import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { workflowIdsFor } from '../../workflows/messages';
import { bearer } from './api';

/**
 * The shared real DIAN documents: DIAN_FIXTURES_DIR, else the nearest `shared/fixtures/dian` above
 * the repository (a checkout at /work/main and a worktree at /work/wt/<name> both find /work/shared).
 */
function sharedFixturesDir(): string {
  if (process.env.DIAN_FIXTURES_DIR) return path.resolve(process.env.DIAN_FIXTURES_DIR);
  for (let dir = path.resolve(__dirname, '../..'); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared/fixtures/dian');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return path.resolve(__dirname, '../../../shared/fixtures/dian');
  }
}

export const FIXTURES = sharedFixturesDir();

/** Fixtures written for this repository's tests (test/fixtures/dian: POS, support document, withholdings). */
export const OWN_FIXTURES = path.resolve(__dirname, '../fixtures/dian');

/**
 * Real documents of the fixtures whose totals do not add up as written, with the warnings they
 * get (decision 0029): apidian-go's habilitación invoice has no TaxTotal at all, yet a
 * TaxInclusiveAmount 41,610.00 above its lines (its IVA).
 */
export const INCONSISTENT_FIXTURES: Record<string, string[]> = { 'apidian-go-cedula-supplier.xml': ['tax_inclusive_mismatch'] };

export function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

/** The same XML document behind a comment after its declaration that takes it to `targetBytes` or more (a large valid file). */
export function paddedXml(xml: Buffer, targetBytes: number): Buffer {
  const text = xml.toString('utf8');
  const declarationEnd = text.indexOf('?>') + 2;
  const padding = 'padding '.repeat(Math.ceil(targetBytes / 8));
  return Buffer.from(`${text.slice(0, declarationEnd)}\n<!-- ${padding} -->${text.slice(declarationEnd)}`);
}

/** POST /v1/companies/{id}/files as multipart, the way a client would. */
export async function upload(
  apiUrl: string,
  key: string,
  companyId: number,
  file: { name: string; bytes: Buffer; type?: string },
  extra: { kind?: string; idempotencyKey?: string } = {},
) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.name);
  if (extra.kind) form.append('kind', extra.kind);
  const response = await fetch(`${apiUrl}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), ...(extra.idempotencyKey ? { 'Idempotency-Key': extra.idempotencyKey } : {}) },
    body: form,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

/** Polls the file until its import has finished (DONE or ERROR). */
export async function waitForImport(apiUrl: string, key: string, companyId: number, fileId: number, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${apiUrl}/v1/companies/${companyId}/files/${fileId}`, { headers: bearer(key) });
    const body = (await response.json()) as Record<string, any>;
    if (body.status === 'DONE' || body.status === 'ERROR') return body;
    if (Date.now() > deadline) throw new Error(`file ${fileId} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * How an upload's import ran, from its history: the activity types it scheduled as tasks, those
 * it ran as local activities (from their markers), in order, and its workflow tasks.
 */
export async function importSteps(client: Client, taskQueue: string, fileId: number) {
  const handle = client.workflow.getHandle(workflowIdsFor(taskQueue).importFile(fileId));
  await handle.result();
  const events = (await handle.fetchHistory()).events ?? [];
  const tasks = events.flatMap((event) => (event.activityTaskScheduledEventAttributes?.activityType?.name ? [event.activityTaskScheduledEventAttributes.activityType.name] : []));
  const local = events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    return [data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string }).activity_type : '?'];
  });
  return { tasks, local, workflowTasks: events.filter((event) => event.workflowTaskCompletedEventAttributes).length };
}
