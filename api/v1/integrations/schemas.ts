import { z } from 'zod';
import { INTEGRATION_PROVIDER_NAMES } from '../../../integrations/accounting/registry';

export const integrationName = z
  .string({ error: 'integration must be the name of one of the company\'s integrations.' })
  .trim()
  .min(1, 'name is required.')
  .max(100, 'name must be at most 100 characters.');

const fields = (what: string) =>
  z.record(z.string(), z.string({ error: `${what} values must be strings.` }), { error: `${what} must be an object of strings.` });

/** POST /v1/companies/{company_id}/integrations. Credentials and settings are checked per provider by createIntegration. */
export const integrationIn = z.strictObject({
  name: integrationName.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'name may contain letters, digits, spaces, dots, dashes and underscores.'),
  provider: z.enum(INTEGRATION_PROVIDER_NAMES as [string, ...string[]], { error: `provider must be one of ${INTEGRATION_PROVIDER_NAMES.join(', ')}.` }),
  credentials: fields('credentials'),
  settings: fields('settings').default({}),
});
