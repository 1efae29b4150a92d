import { z } from 'zod';
import type { ContactRow } from '../../db/repositories/contacts';
import { id, timestamp } from './fields';

/** The full contact schema (GET /contacts/{id}; also the data of contact.created / contact.updated). */
export const contactOut = z
  .object({
    id,
    company_id: id,
    id_type: z.string().meta({ description: 'DIAN identification type code (31 = NIT).' }),
    id_number: z.string(),
    dv: z.string().nullable(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    address: z.string().nullable(),
    city: z.string().nullable(),
    country_code: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Contact' });

export type ContactOut = z.infer<typeof contactOut>;

export function presentContact(row: ContactRow): ContactOut {
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
