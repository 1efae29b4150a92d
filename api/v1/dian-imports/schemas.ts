import { z } from 'zod';

const date = (field: string) =>
  z
    .string({ error: `${field} must be a date (YYYY-MM-DD).` })
    .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, `${field} must be a date (YYYY-MM-DD).`)
    .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), `${field} is not a calendar date.`);

/** POST /v1/companies/{company_id}/dian-imports (JSON, or the same fields as multipart text fields). */
export const dianImportIn = z
  .strictObject({
    begin_date: date('begin_date'),
    end_date: date('end_date'),
    document_type: z.enum(['invoice', 'credit_note', 'all'], { error: 'document_type must be invoice, credit_note or all.' }).default('all'),
  })
  .refine((input) => input.begin_date <= input.end_date, { message: 'end_date must not be before begin_date.', path: ['end_date'] });
