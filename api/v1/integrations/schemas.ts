import { z } from 'zod';
import { SECRET_PREFIX } from '../../../domain/webhooks/signature';
import { id, text, timestamp } from '../openapi/common';
import { clientUrl } from '../webhooks/schemas';

/** The name of an integration, as exports refer to it. */
export const integrationName = text('integration', 100).meta({ description: "The name of one of the company's integrations." });

const name = z
  .string({ error: 'name must be a string.' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$/, 'name must be 1 to 100 letters, digits, spaces, dots, dashes and underscores, starting with a letter or digit.')
  .trim()
  .meta({ description: 'Unique per company; exports name the integration by it.' });

/**
 * Per provider, exactly the fields integrations/accounting/registry.ts requires (it checks them
 * again, with the deployment's url policy, before anything is stored).
 */
const alegra = z.strictObject({
  name,
  provider: z.literal('alegra'),
  credentials: z.strictObject({
    email: z.string().regex(z.regexes.email, 'credentials.email must be an e-mail address.').max(254).meta({ description: 'E-mail of the Alegra user the API token belongs to.' }),
    token: text('credentials.token', 500).meta({ description: 'Alegra API token of that user.' }),
  }),
  settings: z.strictObject({
    category_id: z.string().regex(/^[0-9]{1,18}$/, 'settings.category_id must be an Alegra id (digits).').meta({ description: 'Id of the Alegra expense category purchase lines are booked to.' }),
  }),
});

const genericHttp = z.strictObject({
  name,
  provider: z.literal('generic_http'),
  credentials: z.strictObject({
    secret: z
      .string()
      .regex(new RegExp(`^${SECRET_PREFIX}(?=.{24,}$)[A-Za-z0-9+/]+={0,2}$`), `credentials.secret must be ${SECRET_PREFIX} followed by a base64 key of at least 18 bytes.`)
      .meta({ description: 'Requests are signed with it like our webhooks (Standard Webhooks).' }),
  }),
  settings: z.strictObject({ url: clientUrl('settings.url').meta({ description: 'Receives one signed POST per purchase and answers { id, number, name? }.' }) }),
});

/** POST /v1/companies/{company_id}/integrations. Credentials are sealed at rest and never shown again. */
export const integrationIn = z.discriminatedUnion('provider', [alegra, genericHttp], { error: 'provider must be alegra or generic_http.' }).meta({ id: 'IntegrationIn' });

/** An integration as the API shows it: never its credentials. */
export const integrationOut = z
  .object({
    id,
    company_id: id,
    name: z.string(),
    provider: z.string(),
    settings: z.record(z.string(), z.string()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Integration' });

export type IntegrationOut = z.infer<typeof integrationOut>;
