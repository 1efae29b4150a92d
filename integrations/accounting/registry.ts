/**
 * Builds an AccountingIntegration from what a company configured: credentials (secrets, stored
 * encrypted) and settings (plain). Field names are snake_case, as in the API.
 */
import { z } from 'zod';
import { SECRET_PREFIX } from '../../domain/webhooks/signature';
import { parseWebhookUrl, TargetNotAllowedError } from '../../domain/webhooks/target-address';
import { ALEGRA_DEFAULT_BASE_URL, createAlegraIntegration } from './alegra';
import { createGenericHttpIntegration } from './generic-http';
import type { AccountingIntegration } from './port';

export type IntegrationProvider = 'alegra' | 'generic_http';

type FieldSpec = { readonly name: string; readonly description: string };
type ProviderSpec = { readonly label: string; readonly credentials: readonly FieldSpec[]; readonly settings: readonly FieldSpec[] };

/** What each provider needs, for API validation messages and documentation. All fields are required. */
export const INTEGRATION_PROVIDERS = {
  alegra: {
    label: 'Alegra',
    credentials: [
      { name: 'email', description: 'E-mail of the Alegra user the API token belongs to (Configuración > API - Integraciones).' },
      { name: 'token', description: 'Alegra API token of that user.' },
    ],
    settings: [{ name: 'category_id', description: 'Id of the Alegra expense category (ledger account) purchase lines are booked to.' }],
  },
  generic_http: {
    label: 'Generic HTTP (in-house ERP)',
    credentials: [{ name: 'secret', description: 'whsec_… signing secret; requests are signed like our webhooks (Standard Webhooks).' }],
    settings: [{ name: 'url', description: 'https URL that receives one signed POST per purchase and answers { id, number, name? }.' }],
  },
} as const satisfies Record<IntegrationProvider, ProviderSpec>;

export const INTEGRATION_PROVIDER_NAMES = Object.keys(INTEGRATION_PROVIDERS) as IntegrationProvider[];

export type ConfigIssue = { field: string; message: string };

export class IntegrationConfigError extends Error {
  readonly code = 'invalid_integration_config' as const;
  constructor(
    readonly provider: string,
    readonly issues: ConfigIssue[],
  ) {
    super(`Invalid ${provider} integration configuration: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`);
    this.name = 'IntegrationConfigError';
  }
}

export type RegistryOptions = {
  /** Deployment policy for generic_http targets (same as webhooks). Default false. */
  allowPrivateTargets?: boolean;
  /** Require https for generic_http targets. Default: true unless private targets are allowed. */
  requireHttps?: boolean;
  /** Overrides Alegra's API root (tests). Never taken from company settings. */
  alegraBaseUrl?: string;
  timeoutMs?: number;
};

const nonEmpty = z.string().trim().min(1, 'is required').max(500, 'is too long');

const schemas = {
  alegra: {
    credentials: z.strictObject({ email: z.email('must be an e-mail address'), token: nonEmpty }),
    settings: z.strictObject({ category_id: z.string().trim().regex(/^\d{1,18}$/, 'must be an Alegra id (digits)') }),
  },
  generic_http: {
    credentials: z.strictObject({
      secret: z
        .string()
        .startsWith(SECRET_PREFIX, `must start with ${SECRET_PREFIX}`)
        .refine((value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value.slice(SECRET_PREFIX.length)) && value.length - SECRET_PREFIX.length >= 24, {
          message: 'must be whsec_ followed by a base64 key of at least 18 bytes',
        }),
    }),
    settings: z.strictObject({ url: z.string().trim().min(1, 'is required').max(2048, 'is too long') }),
  },
} as const;

function validate<T>(provider: string, group: 'credentials' | 'settings', schema: z.ZodType<T>, value: unknown): { data?: T; issues: ConfigIssue[] } {
  const result = schema.safeParse(value ?? {});
  if (result.success) return { data: result.data, issues: [] };
  // One message per field (the first), so a field is not listed twice.
  const byField = new Map<string, string>();
  for (const issue of result.error.issues) {
    const field = [group, ...issue.path.map(String)].join('.');
    if (!byField.has(field)) {
      byField.set(field, issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')} for ${provider}` : issue.message);
    }
  }
  return { issues: [...byField].map(([field, message]) => ({ field, message })) };
}

/** Validates the configuration and builds the integration; throws IntegrationConfigError listing every problem. */
export function createIntegration(
  provider: IntegrationProvider,
  credentials: Record<string, string>,
  settings: Record<string, string>,
  options: RegistryOptions = {},
): AccountingIntegration {
  if (!Object.hasOwn(INTEGRATION_PROVIDERS, provider)) {
    throw new IntegrationConfigError(String(provider), [{ field: 'provider', message: `must be one of ${INTEGRATION_PROVIDER_NAMES.join(', ')}` }]);
  }
  if (provider === 'alegra') {
    const creds = validate(provider, 'credentials', schemas.alegra.credentials, credentials);
    const sets = validate(provider, 'settings', schemas.alegra.settings, settings);
    const issues = [...creds.issues, ...sets.issues];
    if (issues.length > 0 || !creds.data || !sets.data) throw new IntegrationConfigError(provider, issues);
    return createAlegraIntegration({
      baseUrl: options.alegraBaseUrl ?? ALEGRA_DEFAULT_BASE_URL,
      email: creds.data.email,
      token: creds.data.token,
      categoryId: sets.data.category_id,
      timeoutMs: options.timeoutMs,
    });
  }

  const creds = validate(provider, 'credentials', schemas.generic_http.credentials, credentials);
  const sets = validate(provider, 'settings', schemas.generic_http.settings, settings);
  const issues = [...creds.issues, ...sets.issues];
  const allowPrivateTargets = options.allowPrivateTargets ?? false;
  if (sets.data) {
    try {
      parseWebhookUrl(sets.data.url, { allowPrivateTargets, requireHttps: options.requireHttps ?? !allowPrivateTargets });
    } catch (error) {
      if (!(error instanceof TargetNotAllowedError)) throw error;
      issues.push({ field: 'settings.url', message: error.message.replace(/^url /, '') });
    }
  }
  if (issues.length > 0 || !creds.data || !sets.data) throw new IntegrationConfigError(provider, issues);
  return createGenericHttpIntegration({ url: sets.data.url, secret: creds.data.secret, timeoutMs: options.timeoutMs, allowPrivateTargets });
}
