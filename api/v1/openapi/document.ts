import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const openApiPath = path.resolve(__dirname, '../../../docs/openapi.yaml');

export type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, unknown>> };

/** docs/openapi.yaml is the single source; it is parsed once at start-up. */
export function loadOpenApiDocument(): OpenApiDocument {
  return parse(readFileSync(openApiPath, 'utf8')) as OpenApiDocument;
}
