import type { Middleware } from 'koa';
import type { z } from 'zod';
import { ApiError, unknownParameters } from './errors';
import { NO_FIELDS } from './v1/openapi/common';

/** Validates a request body against a schema; the first problem becomes 400 invalid_parameter naming its field. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  if (body === undefined) throw new ApiError(400, 'invalid_parameter', 'This request needs a JSON body.');
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  throw invalidInput(result.error);
}

/**
 * For the routes whose operation declares emptyBody: no body, or `{}`; a field is refused like an
 * unknown field of any other body (400 naming it), never silently ignored.
 */
export const takesNoBody: Middleware = (ctx, next) => {
  if (ctx.request.body !== undefined) parseBody(NO_FIELDS, ctx.request.body);
  return next();
};

/**
 * Validates query parameters against a schema (the one the OpenAPI document shows): each may be
 * given once; parameters the schema does not name are ignored.
 */
export function parseQuery<Schema extends z.ZodObject>(schema: Schema, query: Record<string, unknown>): z.output<Schema> {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new ApiError(400, 'invalid_parameter', `${name} must be given once.`, name);
    picked[name] = value;
  }
  const result = schema.safeParse(picked, { reportInput: true });
  if (result.success) return result.data;
  throw invalidInput(result.error);
}

/** 400 invalid_parameter naming the query parameters a route does not know (Stripe: "Received unknown parameter"). */
export function rejectUnknownParameters(query: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw unknownParameters(unknown, known);
}

function invalidInput(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  // The field, not the list index: events.3 is events.
  const firstIndex = issue.path.findIndex((part) => typeof part === 'number');
  const named = firstIndex === -1 ? issue.path : issue.path.slice(0, firstIndex);
  const param = named.length > 0 ? named.join('.') : undefined;
  const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
  if (unknownKeys) {
    return unknownParameters(unknownKeys);
  }
  // A field left out is said to be required, whatever the schema says of a present value of the
  // wrong type: "number must be a string." for a body without number sent clients looking for a type error.
  if (param !== undefined && named.length === issue.path.length && isMissing(issue)) return new ApiError(400, 'invalid_parameter', `${param} is required.`, param);
  const ownSentence = /[.!?]$/.test(issue.message) && (!param || issue.message.startsWith(param.split('.')[0]));
  if (!ownSentence && issue.code === 'invalid_type') return new ApiError(400, 'invalid_parameter', wrongType(param, issue), param);
  // A shared rule worded for any field ("must be a positive integer id…", idParam) reads after its name, without a colon.
  const message = ownSentence ? issue.message : param && issue.message.startsWith('must ') ? `${param} ${issue.message}` : `${param ?? 'body'}: ${issue.message}`;
  return new ApiError(400, 'invalid_parameter', /[.!?]$/.test(message) ? message : `${message}.`, param);
}

/** A field absent from its object (reportInput gives the input: undefined only where nothing was sent). */
function isMissing(issue: z.core.$ZodIssue): boolean {
  return (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') && issue.input === undefined;
}

const TYPE_NAMES: Record<string, string> = { object: 'a JSON object', array: 'a list', string: 'a string', number: 'a number', int: 'an integer', boolean: 'true or false' };

/**
 * A field of the wrong type, or missing, where the schema gave no message of its own: said in our
 * words, as every other 400 is, not zod's ("credentials.secret: Invalid input: expected string,
 * received undefined.").
 */
function wrongType(param: string | undefined, issue: z.core.$ZodIssueInvalidType): string {
  if (param === undefined) return `The request body must be ${TYPE_NAMES[issue.expected] ?? issue.expected}.`;
  if (issue.input === undefined) return `${param} is required.`;
  return `${param} must be ${TYPE_NAMES[issue.expected] ?? issue.expected}.`;
}
