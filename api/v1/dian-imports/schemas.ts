import { z } from 'zod';
import { calendarDate } from '../openapi/common';

const fields = {
  begin_date: calendarDate('begin_date'),
  end_date: calendarDate('end_date').meta({ description: 'Not before begin_date. Without a file (DIAN lists the range) at most 3,653 days (ten years), both days included.' }),
  document_type: z.enum(['invoice', 'credit_note', 'all'], { error: 'document_type must be invoice, credit_note or all.' }).default('all'),
};

/** POST /v1/companies/{company_id}/dian-imports (JSON, or the same fields as multipart text fields). */
export const dianImportIn = z
  .strictObject(fields)
  .refine((input) => input.begin_date <= input.end_date, { message: 'end_date must not be before begin_date.', path: ['end_date'] })
  .meta({ id: 'DianImportIn' });

/** The multipart form of the same request: the fields plus DIAN's "documentos recibidos" export. */
export const dianImportUpload = z
  .strictObject({ ...fields, file: z.string().min(1).meta({ format: 'binary', description: 'DIAN\'s "documentos recibidos" export, CSV or XLSX.' }) })
  .meta({ id: 'DianImportUpload' });
