import type { ContactRow } from '../../db/repositories/contacts';

/** The full contact schema (GET /contacts/{id}; also the data of contact.created / contact.updated). */
export function presentContact(row: ContactRow) {
  return {
    id: row.id,
    company_id: row.company_id,
    id_type: row.id_type,
    id_number: row.id_number,
    dv: row.dv,
    name: row.name,
    email: row.email,
    phone: row.phone,
    address: row.address,
    city: row.city,
    country_code: row.country_code,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
