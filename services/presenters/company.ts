import type { CompanyRow } from '../../db/repositories/companies';
import { inboxAddress } from '../../domain/email-address';

export type CompanyOut = {
  id: number;
  name: string;
  nit: string;
  dv: string;
  person_type: string;
  /** Where the company's suppliers can e-mail documents (docs/email-intake.md). */
  inbox_email: string;
  created_at: string;
};

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
