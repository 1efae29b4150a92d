import { z } from 'zod';
import { ROLES, SCOPES } from '../../../domain/scopes';
import { timestamp } from '../openapi/common';
import { companyOut } from '../../../services/presenters/company';

/** GET /v1/me: the key making the request. */
export const currentKeyOut = z
  .object({
    id: z.string().meta({ description: 'The key_id part of the key.' }),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    role: z.enum(ROLES),
    all_companies: z.boolean().meta({ description: 'True when the key is not restricted to a list of companies.' }),
    created_at: timestamp,
    companies: z.array(companyOut),
  })
  .meta({ id: 'CurrentKey' });

export type CurrentKeyOut = z.infer<typeof currentKeyOut>;
