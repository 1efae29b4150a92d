import { z } from 'zod';
import type { CompanyRow } from '../../db/repositories/companies';
import { inboxAddress } from '../../domain/email-address';
import { id, timestamp } from './fields';

/** The Company object (GET /v1/companies, /v1/companies/{company_id}, /v1/me). */
export const companyOut = z
  .object({
    id,
    name: z.string(),
    nit: z.string().meta({ description: 'Tax id without check digit.' }),
    dv: z.string().meta({ description: 'DIAN check digit.' }),
    person_type: z.string().meta({ examples: ['LEGAL'] }),
    inbox_email: z.string().meta({
      format: 'email',
      description:
        "The company's inbox: e-mail sent here has its XML, ZIP and PDF attachments imported as uploaded files of type EMAIL. Scheme `<inbox_token>@<INBOX_DOMAIN>`; see docs/email-intake.md.",
    }),
    created_at: timestamp,
  })
  .meta({ id: 'Company' });

export type CompanyOut = z.infer<typeof companyOut>;

/** The Company object; `inboxDomain` is config.email.domain (INBOX_DOMAIN). */
export function presentCompany(row: CompanyRow, inboxDomain: string): CompanyOut {
  return {
    id: row.id,
    name: row.name,
    nit: row.nit,
    dv: row.dv,
    person_type: row.person_type,
    inbox_email: inboxAddress(row.inbox_token, inboxDomain),
    created_at: row.created_at.toISOString(),
  };
}
