import pg from 'pg';
import { createCompany } from '../../admin/create-company';
import type { Repositories } from '../../db/repositories';
import { nitCheckDigit } from '../../domain/nit';

/**
 * Set-based seeding for bench/documents.ts: companies through admin/create-company.ts, a few
 * contacts per company, then the documents with one INSERT … SELECT FROM generate_series per
 * chunk, every column computed in SQL. One million rows take a couple of minutes on two cores
 * (the table keeps every index of the migrations while it fills, as in production).
 *
 * The shape of the data:
 * - company 1 (the "big" one) gets `bigCompanyDocuments` documents; the rest are spread at
 *   random over the other companies. The big company's rows are interleaved with everyone
 *   else's across the whole heap, as they would be after years of imports.
 * - document_type: 85 % electronic_invoice, 8 % credit_note, 4 % payment_claim_account,
 *   2 % foreign_invoice, 1 % debit_note.
 * - issued_at: a day in the two years before 2026-11-22, at a whole hour between 08:00 and
 *   18:00 Bogotá time for three documents in four (so a busy company has many exact ties, which
 *   keyset pagination must break by id) and at an arbitrary second for the rest.
 * - number per kind (FE…, NC…, CC-…, INV-…, ND…); a 96-hex-digit md5-based CUFE/CUDE on the
 *   electronic kinds, unique per company (documents_company_cufe); notes reference an invoice.
 * - numeric amounts with 19 % VAT (none on payment-claim accounts and foreign invoices, which
 *   are in USD); 2 % without contact; most with an original file (ZIP with or without a PDF
 *   inside, XML or PDF as the kind allows); a third synced and exported.
 */

export type SeedOptions = {
  companies: number;
  documents: number;
  bigCompanyDocuments: number;
  contactsPerCompany: number;
  log: (line: string) => void;
};

export type SeedResult = {
  companyIds: number[];
  bigCompanyId: number;
  /** electronic_invoice rows of the big company. */
  bigCompanyInvoices: number;
  seconds: { companies: number; documents: number; analyze: number; total: number };
  tableSize: string;
};

const CHUNK = 100_000;

const INSERT_DOCUMENTS_SQL = `
INSERT INTO documents (
  company_id, document_type, kind, number, cufe, issued_at, due_date, contact_id,
  sub_total, vat, total, currency, referenced_document_number, referenced_document_cufe,
  synced, synced_at, export_integration, export_external_id, export_external_number,
  export_external_name, exported_at, export_marked_manually,
  original_blob_key, original_file_name, original_extension, original_content_type,
  original_size, original_zip_pdf_entry, created_at, updated_at)
SELECT
  company_id, document_type, kind, number, cufe, issued_at,
  CASE WHEN document_type IN ('electronic_invoice', 'payment_claim_account')
       THEN (issued_at AT TIME ZONE 'America/Bogota')::date + 30 END,
  contact_id, sub_total, vat, sub_total + vat, currency,
  CASE WHEN is_note THEN 'FE' || (g - 1) END,
  CASE WHEN is_note THEN md5('cufe:' || (g - 1)) || md5('cufe2:' || (g - 1)) || md5('cufe3:' || (g - 1)) END,
  synced,
  CASE WHEN synced THEN issued_at + interval '2 days' END,
  CASE WHEN synced THEN (CASE WHEN r_sync < 0.2 THEN 'siigo' ELSE 'alegra' END) END,
  CASE WHEN synced THEN 'EXT-' || g END,
  CASE WHEN synced THEN 'FC-' || g END,
  CASE WHEN synced THEN 'Factura de compra FC-' || g END,
  CASE WHEN synced THEN issued_at + interval '2 days' END,
  CASE WHEN synced THEN r_sync < 0.02 END,
  CASE WHEN ext IS NOT NULL THEN 'companies/' || company_id || '/uploads/' || left(md5('blob:' || g), 16) || '-' || number || '.' || ext END,
  CASE WHEN ext IS NOT NULL THEN number || '.' || ext END,
  ext,
  CASE ext WHEN 'zip' THEN 'application/zip' WHEN 'xml' THEN 'application/xml' WHEN 'pdf' THEN 'application/pdf' END,
  CASE WHEN ext IS NOT NULL THEN 4000 + (g * 7919) % 400000 END,
  CASE WHEN zip_has_pdf THEN number || '.pdf' END,
  issued_at + interval '3 hours',
  issued_at + interval '3 hours'
FROM (
  SELECT
    g, company_id, document_type, kind, number, issued_at, contact_id, synced, r_sync, is_note,
    CASE WHEN document_type IN ('electronic_invoice', 'credit_note', 'debit_note')
         THEN md5('cufe:' || g) || md5('cufe2:' || g) || md5('cufe3:' || g) END AS cufe,
    CASE WHEN document_type = 'foreign_invoice' THEN 'USD' ELSE 'COP' END AS currency,
    CASE WHEN document_type = 'foreign_invoice' THEN round((20 + r_amount * 5000)::numeric, 2)
         ELSE round((50000 + r_amount * r_amount * 30000000)::numeric, 2) END AS sub_total,
    CASE WHEN document_type IN ('payment_claim_account', 'foreign_invoice') THEN 0.00
         ELSE round((50000 + r_amount * r_amount * 30000000)::numeric * 0.19, 2) END AS vat,
    CASE
      WHEN document_type = 'electronic_invoice' THEN
        CASE WHEN r_file < 0.55 THEN 'zip' WHEN r_file < 0.90 THEN 'xml' WHEN r_file < 0.95 THEN 'pdf' END
      WHEN is_note THEN
        CASE WHEN r_file < 0.60 THEN 'zip' WHEN r_file < 0.95 THEN 'xml' END
      ELSE CASE WHEN r_file < 0.85 THEN 'pdf' END
    END AS ext,
    (document_type = 'electronic_invoice' AND r_file < 0.45) OR (is_note AND r_file < 0.50) AS zip_has_pdf
  FROM (
    SELECT
      g, slot, r_sync, r_amount, r_file,
      ($1::bigint[])[slot] AS company_id,
      document_type,
      document_type IN ('credit_note', 'debit_note') AS is_note,
      CASE WHEN r_kind < 0.9 THEN 'purchase' ELSE 'sale' END AS kind,
      CASE document_type
        WHEN 'electronic_invoice' THEN 'FE' WHEN 'credit_note' THEN 'NC' WHEN 'payment_claim_account' THEN 'CC-'
        WHEN 'foreign_invoice' THEN 'INV-' ELSE 'ND' END || g AS number,
      timestamptz '2024-11-22 00:00:00-05'
        + floor(r_day * 730) * interval '1 day'
        + (8 + floor(r_hour * 11)) * interval '1 hour'
        + CASE WHEN r_fine < 0.25 THEN floor(r_fine * 4 * 3600) * interval '1 second' ELSE interval '0' END AS issued_at,
      CASE WHEN r_contact < 0.02 THEN NULL
           ELSE ($2::bigint[])[(slot - 1) * $3::int + 1 + floor(r_contact * $3::int)::int] END AS contact_id,
      r_sync < 0.35 AS synced
    FROM (
      SELECT
        g,
        CASE WHEN random() < $4::float8 THEN 1 ELSE 2 + floor(random() * ($5::int - 1))::int END AS slot,
        CASE WHEN r_type < 0.85 THEN 'electronic_invoice' WHEN r_type < 0.93 THEN 'credit_note'
             WHEN r_type < 0.97 THEN 'payment_claim_account' WHEN r_type < 0.99 THEN 'foreign_invoice'
             ELSE 'debit_note' END AS document_type,
        r_day, r_hour, r_fine, r_amount, r_contact, r_file, r_sync, r_kind
      FROM (
        SELECT g, random() AS r_type, random() AS r_day, random() AS r_hour, random() AS r_fine,
               random() AS r_amount, random() AS r_contact, random() AS r_file, random() AS r_sync,
               random() AS r_kind
        FROM generate_series($6::bigint, $7::bigint) AS g
      ) AS randoms
    ) AS assigned
  ) AS shaped
) AS computed`;

export async function seedDocuments(databaseUrl: string, repositories: Repositories, options: SeedOptions): Promise<SeedResult> {
  const { log } = options;
  const started = performance.now();

  const companyIds: number[] = [];
  for (let i = 1; i <= options.companies; i += 1) {
    const company = await createCompany(repositories, {
      name: i === 1 ? 'Bench Big Company S.A.S.' : `Bench Company ${i} S.A.S.`,
      nit: String(900_200_000 + i),
    });
    companyIds.push(company.id);
  }

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SET maintenance_work_mem = '256MB'");
    // Contacts: suppliers with a NIT, and one foreign supplier per company (id_number not all digits).
    const contactRows: (string | number | null)[][] = [];
    companyIds.forEach((companyId, index) => {
      for (let k = 1; k <= options.contactsPerCompany; k += 1) {
        const foreign = k === options.contactsPerCompany && k > 1;
        const idNumber = foreign ? `US-${companyId}-${k}` : String(800_000_000 + (index + 1) * 100 + k);
        contactRows.push([
          companyId,
          foreign ? '42' : '31',
          idNumber,
          foreign ? null : nitCheckDigit(idNumber),
          foreign ? `Foreign Supplier ${k} Inc.` : `Proveedor ${k} de la empresa ${companyId} S.A.S.`,
          `facturacion${k}@proveedor${companyId}.example`,
          foreign ? null : 'Bogotá',
          foreign ? 'US' : 'CO',
        ]);
      }
    });
    const contactIds: number[] = [];
    for (const row of contactRows) {
      const result = await client.query<{ id: string }>(
        'INSERT INTO contacts (company_id, id_type, id_number, dv, name, email, city, country_code) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id',
        row,
      );
      contactIds.push(Number(result.rows[0].id));
    }
    const companiesSeconds = (performance.now() - started) / 1000;
    log(`${options.companies} companies and ${contactIds.length} contacts in ${companiesSeconds.toFixed(1)} s`);

    const documentsStarted = performance.now();
    await client.query('SELECT setseed(0.4242)');
    const bigShare = options.bigCompanyDocuments / options.documents;
    for (let low = 1; low <= options.documents; low += CHUNK) {
      const high = Math.min(options.documents, low + CHUNK - 1);
      await client.query(INSERT_DOCUMENTS_SQL, [
        companyIds,
        contactIds,
        options.contactsPerCompany,
        bigShare,
        options.companies,
        low,
        high,
      ]);
      const elapsed = (performance.now() - documentsStarted) / 1000;
      log(`  ${high.toLocaleString('en-US')} / ${options.documents.toLocaleString('en-US')} documents (${elapsed.toFixed(1)} s)`);
    }
    const documentsSeconds = (performance.now() - documentsStarted) / 1000;

    // VACUUM as autovacuum would after a bulk load (visibility map, hint bits), then statistics;
    // done here so that neither runs in the background while we measure.
    const analyzeStarted = performance.now();
    await client.query('VACUUM (ANALYZE) documents');
    await client.query('ANALYZE contacts');
    await client.query('ANALYZE companies');
    const analyzeSeconds = (performance.now() - analyzeStarted) / 1000;

    const bigCompanyId = companyIds[0];
    const counted = await client.query<{ count: string }>(
      "SELECT count(*) AS count FROM documents WHERE company_id = $1 AND document_type = 'electronic_invoice'",
      [bigCompanyId],
    );
    const size = await client.query<{ size: string }>("SELECT pg_size_pretty(pg_total_relation_size('documents')) AS size");
    return {
      companyIds,
      bigCompanyId,
      bigCompanyInvoices: Number(counted.rows[0].count),
      seconds: {
        companies: companiesSeconds,
        documents: documentsSeconds,
        analyze: analyzeSeconds,
        total: (performance.now() - started) / 1000,
      },
      tableSize: size.rows[0].size,
    };
  } finally {
    await client.end();
  }
}
