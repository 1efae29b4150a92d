/**
 * The short form of a document inside other records and their events: an uploaded file's
 * `documents` (document.imported) and an export's `document` (export.succeeded/failed).
 * `kind` is the collection's type (electronic_invoice, credit_note, …, as in the spec);
 * `document_type` and `code_scheme` say what the document is for DIAN (null for a bare PDF);
 * `dian_environment` which DIAN environment validated it, so a habilitación (testing) document is
 * told apart where it is first listed (docs/decisions/0022); `warnings` what is wrong with its
 * totals as written (docs/decisions/0029), so a client learns it from document.imported without
 * reading the document (null: never checked).
 */
import { knownDianEnvironment, type DianEnvironment } from '../dian/catalogue';
import type { TotalsWarning } from '../ubl/totals-consistency';

export type DocumentEntry = {
  kind: string;
  id: number;
  cufe: string | null;
  document_type: string | null;
  code_scheme: string | null;
  dian_environment: DianEnvironment | null;
  warnings: TotalsWarning[] | null;
};

/** From a documents row (or a join selecting the same columns). */
export function documentEntry(row: {
  id: number;
  document_type: string;
  cufe: string | null;
  dian_document_type: string | null;
  code_scheme: string | null;
  dian_environment: string | null;
  warnings: TotalsWarning[] | null;
}): DocumentEntry {
  return {
    kind: row.document_type,
    id: row.id,
    cufe: row.cufe,
    document_type: row.dian_document_type,
    code_scheme: row.code_scheme,
    dian_environment: knownDianEnvironment(row.dian_environment),
    warnings: row.warnings,
  };
}
