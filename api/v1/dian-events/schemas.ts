import { z } from 'zod';
import { id, nullableTimestamp, text, timestamp } from '../openapi/common';

/**
 * DIAN's identification types (Anexo técnico 1.9, table 13.2.1): registro civil, tarjeta de
 * identidad, cédula de ciudadanía, tarjeta and cédula de extranjería, NIT, pasaporte, foreign
 * document, PEP, PPT, foreign NIT, NUIP. Any other code makes an ApplicationResponse DIAN refuses.
 */
export const DIAN_ID_TYPES = ['11', '12', '13', '21', '22', '31', '41', '42', '47', '48', '50', '91'] as const;

/** The person who issues the event (cac:IssuerParty/cac:Person); DIAN requires it for 030 and 032. */
export const issuerIn = z
  .strictObject({
    id_type: z.enum(DIAN_ID_TYPES, { error: `issuer.id_type must be a DIAN identification type code: ${DIAN_ID_TYPES.join(', ')} (13 cédula, 31 NIT).` }),
    id_number: z.string({ error: 'issuer.id_number must be a string.' }).regex(/^[0-9A-Za-z-]{3,20}$/, 'issuer.id_number must be 3 to 20 letters, digits or dashes.'),
    first_name: text('issuer.first_name'),
    family_name: text('issuer.family_name'),
    job_title: text('issuer.job_title'),
    department: text('issuer.department').optional(),
  })
  .meta({ id: 'DianEventIssuer' });

/** POST /v1/companies/{company_id}/invoices/{document_id}/dian-events: 030 and 032 name their issuer. */
export const dianEventIn = z
  .discriminatedUnion(
    'event',
    [
      z.strictObject({ event: z.enum(['030', '032']), issuer: issuerIn }),
      z.strictObject({ event: z.literal('033'), issuer: issuerIn.optional() }),
    ],
    { error: 'event must be "030", "032" or "033"; 030 and 032 need issuer {id_type, id_number, first_name, family_name, job_title, department?}.' },
  )
  .meta({ id: 'DianEventIn' });

export type DianEventIn = z.output<typeof dianEventIn>;

export const dianEventOut = z
  .object({
    id,
    invoice_id: id,
    cufe: z.string(),
    event: z.enum(['030', '032', '033']),
    status: z.enum(['pending', 'succeeded', 'failed']),
    succeeded: z.boolean(),
    number: z.string().nullable().meta({ description: 'The event number (cbc:ID) sent to DIAN; for an event that adopted an earlier attempt DIAN already held, that attempt\'s number.' }),
    cude: z.string().nullable(),
    files: z
      .object({ application_response: z.string().nullable(), dian_response: z.string().nullable() })
      .meta({ description: 'API paths redirecting to signed downloads; null until the file exists.' }),
    error: z.object({ code: z.string(), message: z.string() }).optional().meta({ description: "Only when status is failed; DIAN's StatusCode for a rejection, or one of docs/dian.md." }),
    created_at: timestamp,
    completed_at: nullableTimestamp,
  })
  .meta({ id: 'DianEvent' });

export type DianEventOut = z.infer<typeof dianEventOut>;
