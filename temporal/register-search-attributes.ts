import type { Client } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { searchAttributes } from '../domain/search-attributes';

// temporal.api.enums.v1.IndexedValueType (the proto package is not a direct dependency).
const INDEXED_TYPE: Partial<Record<string, number>> = {
  [SearchAttributeType.KEYWORD]: 2, // INDEXED_VALUE_TYPE_KEYWORD
  [SearchAttributeType.INT]: 3, // INDEXED_VALUE_TYPE_INT
};
const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers the service's custom search attributes in the namespace (worker start: dev server,
 * cluster, compose). Idempotent: attributes already registered are left alone, and a concurrent
 * registration by another worker ("already exists") is not an error. Returns the names added.
 */
export async function registerSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(client, namespace);
  if (missing.length === 0) return [];
  const operator = client.connection.operatorService;
  const wanted = Object.fromEntries(missing.map((key) => [key.name, INDEXED_TYPE[key.type]!]));
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: wanted });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  return missing.map((key) => key.name);
}

/** The service's search attributes the namespace does not know. */
export async function missingSearchAttributes(client: Client, namespace: string) {
  const existing = await client.connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
  return Object.values(searchAttributes).filter((key) => !known.has(key.name));
}

function isAlreadyExists(error: unknown): boolean {
  const { code, message } = error as { code?: number; message?: string };
  return code === GRPC_ALREADY_EXISTS || /already exists/i.test(message ?? '');
}
