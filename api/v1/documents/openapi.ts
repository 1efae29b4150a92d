import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { COLLECTIONS, DOCUMENT_TYPES, type DocumentType } from '../../../domain/documents/collections';
import { linksTo, operation, pageOf, pageQuery, pathIds, signedRedirect } from '../openapi/common';
import { documentFilterQuery } from './filters';
import { paymentClaimIn } from './payment-claims';
import { DOCUMENT_PAGE } from './routes';
import { documentOut } from './schemas';

const tags = ['Documents'];

/** Operation id stems: listInvoices, getInvoice, getInvoiceOriginal, getInvoicePdf, ... */
const NAMES: Record<DocumentType, { one: string; many: string; label: string }> = {
  electronic_invoice: { one: 'Invoice', many: 'Invoices', label: 'electronic invoice' },
  credit_note: { one: 'CreditNote', many: 'CreditNotes', label: 'credit note' },
  payment_claim_account: { one: 'PaymentClaimAccount', many: 'PaymentClaimAccounts', label: 'payment-claim account (cuenta de cobro)' },
  foreign_invoice: { one: 'ForeignInvoice', many: 'ForeignInvoices', label: 'foreign invoice' },
  debit_note: { one: 'DebitNote', many: 'DebitNotes', label: 'debit note' },
};

const fileErrors = { 404: 'not_found (no such document) or file_not_available (the variant does not exist or could not be produced; retrying will not help).' };

/** What a document of each type leads to besides itself, its original and its PDF: an invoice's DIAN events and exports. */
const INVOICE_OPERATIONS = ['listDianEvents', 'sendDianEvent', 'syncDianEvents', 'exportInvoice', 'markInvoiceExported'];

/** Links from an answer holding a document (`field`) to every operation on that document. */
function documentLinks(type: DocumentType, field: string): ReturnType<typeof linksTo> {
  const { one } = NAMES[type];
  const operations = [`get${one}`, `get${one}Original`, `get${one}Pdf`, ...(type === 'electronic_invoice' ? INVOICE_OPERATIONS : [])];
  return linksTo('document_id', field, operations, { company_id: '$request.path.company_id' });
}

function collectionPaths(type: DocumentType): ZodOpenApiPathsObject {
  const base = `/v1/companies/{company_id}/${COLLECTIONS[type]}`;
  const { one, many, label } = NAMES[type];
  const document = pathIds('company_id', 'document_id');
  return {
    [base]: {
      get: operation({
        operationId: `list${many}`,
        summary: `The company's ${label}s, newest issue first (scope documents:read)`,
        tags,
        restricted: true,
        path: pathIds('company_id'),
        query: pageQuery(DOCUMENT_PAGE).extend(documentFilterQuery.shape),
        success: { status: 200, description: `A page of ${label}s.`, schema: pageOf(documentOut), links: documentLinks(type, 'data/0/id') },
      }),
    },
    [`${base}/{document_id}`]: {
      get: operation({ operationId: `get${one}`, summary: `One ${label}`, tags, restricted: true, path: document, success: { status: 200, description: `The ${label}.`, schema: documentOut } }),
    },
    [`${base}/{document_id}/original`]: {
      get: operation({ operationId: `get${one}Original`, summary: `The original file of a ${label}`, tags, restricted: true, path: document, success: signedRedirect('The original file.'), errors: fileErrors }),
    },
    [`${base}/{document_id}/pdf`]: {
      get: operation({ operationId: `get${one}Pdf`, summary: `The PDF of a ${label} (the original, or one the service renders)`, tags, restricted: true, path: document, success: signedRedirect('The PDF.'), errors: fileErrors }),
    },
  };
}

const paymentClaimsBase = '/v1/companies/{company_id}/payment-claim-accounts';
const collections = Object.assign({}, ...DOCUMENT_TYPES.map(collectionPaths)) as ZodOpenApiPathsObject;

export const documentsOpenApi: ZodOpenApiPathsObject = {
  ...collections,
  [paymentClaimsBase]: {
    ...collections[paymentClaimsBase],
    post: operation({
      operationId: 'createPaymentClaimAccount',
      summary: 'Record a payment-claim account (cuenta de cobro) by hand (scope documents:write)',
      tags,
      restricted: true,
      path: pathIds('company_id'),
      body: paymentClaimIn,
      success: {
        status: 201,
        description: 'The document; it has no original file, so no PDF.',
        schema: documentOut,
        // Only to the document: one recorded by hand has no original file and no PDF (a link
        // there would lead a client, or a fuzzer's "created resource not found" check, to a 404).
        links: linksTo('document_id', 'id', ['getPaymentClaimAccount'], { company_id: '$request.path.company_id' }),
      },
      errors: { 404: 'not_found: no such company, or contact_id names no contact of the company.' },
    }),
  },
};
