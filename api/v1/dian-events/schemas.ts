import { z } from 'zod';

const text = (field: string, max = 100) =>
  z.string({ error: `${field} must be a string.` }).trim().min(1, `${field} is required.`).max(max, `${field} must be at most ${max} characters.`);

/** The person who issues the event (cac:IssuerParty/cac:Person); DIAN requires it for 030 and 032. */
export const issuerIn = z.strictObject({
  id_type: z.string({ error: 'issuer.id_type must be a string.' }).regex(/^[0-9]{2}$/, 'issuer.id_type must be a DIAN identification type code such as 13 or 31.'),
  id_number: z.string({ error: 'issuer.id_number must be a string.' }).regex(/^[0-9A-Za-z-]{3,20}$/, 'issuer.id_number must be 3 to 20 letters, digits or dashes.'),
  first_name: text('issuer.first_name'),
  family_name: text('issuer.family_name'),
  job_title: text('issuer.job_title'),
  department: text('issuer.department').optional(),
});

/** POST /v1/companies/{company_id}/invoices/{document_id}/dian-events */
export const dianEventIn = z.strictObject({
  event: z.enum(['030', '032', '033'], { error: 'event must be "030", "032" or "033".' }),
  issuer: issuerIn.optional(),
});

export type DianEventIn = z.output<typeof dianEventIn>;
