import type { CompanyRow } from '../../../db/repositories/companies';

export type CompanyOut = {
  id: number;
  name: string;
  nit: string;
  dv: string;
  person_type: string;
  created_at: string;
};

export function presentCompany(row: CompanyRow): CompanyOut {
  return {
    id: row.id,
    name: row.name,
    nit: row.nit,
    dv: row.dv,
    person_type: row.person_type,
    created_at: row.created_at.toISOString(),
  };
}
