/**
 * Files up to this size are imported as a local activity, inside the import workflow's first
 * task (decision 0019): a typical DIAN XML, ZIP or PDF is 5–300 KiB and imports in tens of
 * milliseconds. A larger file — whose read, parse and memory-budget wait may take seconds —
 * runs as an activity task of its own, heartbeating, so it never holds a workflow-task slot of
 * the worker that long.
 */
export const INLINE_IMPORT_MAX_BYTES = 512 * 1024;

/** Whether an upload of `sizeBytes` imports inline (a local activity); unknown sizes do not. */
export function importsInline(sizeBytes: number | undefined): boolean {
  return sizeBytes !== undefined && Number.isSafeInteger(sizeBytes) && sizeBytes >= 0 && sizeBytes <= INLINE_IMPORT_MAX_BYTES;
}
