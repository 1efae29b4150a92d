import { createHash } from 'node:crypto';

/** The RFC 4122 name-based (version 5) namespace of the events this service publishes. */
const EVENT_NAMESPACE = Buffer.from('6f1c2a4e9b7d4c1a8e3f5d2b7a9c0e14', 'hex');

/**
 * The id of an event published by a workflow: derived from the workflow id, the event type and
 * the id of the record it is about, so that a workflow reset, re-run or settled by an operator
 * publishes the same event again under the same id — recorded and delivered once — instead of
 * a duplicate. A UUID (version 5), as the contract asks of event ids.
 */
export function publishedEventId(workflowId: string, type: string, subjectId: unknown): string {
  const name = `${workflowId}\n${type}\n${subjectId === undefined || subjectId === null ? '' : String(subjectId)}`;
  const hash = createHash('sha1').update(EVENT_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
