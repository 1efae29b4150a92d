import type { z } from 'zod';
import { ApiError, invalidParameter } from './errors';

/** Validates a request body against a schema; the first problem becomes 400 invalid_parameter naming its field. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  if (body === undefined) throw new ApiError(400, 'invalid_parameter', 'This request needs a JSON body.');
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue.path.length > 0 ? issue.path.join('.') : undefined;
  const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
  if (unknownKeys) {
    throw new ApiError(400, 'invalid_parameter', `Unknown parameter(s): ${unknownKeys.join(', ')}.`, unknownKeys[0]);
  }
  const message = /[.!?]$/.test(issue.message) ? issue.message : `${param ?? 'body'}: ${issue.message}.`;
  throw new ApiError(400, 'invalid_parameter', message, param);
}

/** One query-string parameter: undefined when absent or empty, 400 when given more than once. */
export function singleQueryValue(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be given once.`);
  return value;
}
