import test from 'ava';
import pino from 'pino';
import { mapError } from '../../api/errors';
import type { DocumentRow, DocumentsRepository } from '../../db/repositories/documents';
import { createDocumentFiles, type PdfProducer } from '../../services/link-document-files';
import { BlobNotFoundError, type BlobStore } from '../../storage/blob-store';

// Spec, Endpoints rule 3 and Errors: 404 file_not_available means the variant does not exist or
// the on-demand PDF cannot be generated, and that a retry is useless. A file store or database
// that fails for the moment is no such answer: a retry can succeed.

const invoice = {
  id: 7,
  company_id: 1,
  number: 'SETP990000002',
  document_type: 'electronic_invoice',
  original_blob_key: 'companies/1/uploads/invoice.xml',
  original_file_name: 'invoice.xml',
  original_extension: 'xml',
  original_content_type: 'application/xml',
  original_size: 10,
  original_zip_pdf_entry: null,
  pdf_blob_key: null,
} as unknown as DocumentRow;

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

function files(options: { get?: () => Promise<Buffer>; put?: () => Promise<void>; producePdf?: PdfProducer; setPdfBlobKey?: () => Promise<void> }) {
  const stored: string[] = [];
  const blobStore = {
    driver: 'filesystem',
    get: options.get ?? (async () => Buffer.from('<Invoice/>')),
    put: options.put ?? (async (key: string) => void stored.push(key)),
    signedDownloadUrl: async (key: string) => `https://files.example/${key}?signature=x`,
  } as unknown as BlobStore;
  const documents = { setPdfBlobKey: options.setPdfBlobKey ?? (async () => undefined) } as unknown as DocumentsRepository;
  const producePdf = options.producePdf ?? (async () => Buffer.from('%PDF-1.7'));
  return { documentFiles: createDocumentFiles({ blobStore, documents, producePdf, logger: pino({ level: 'silent' }) }), stored };
}

test('an on-demand PDF is produced, stored and redirected to', async (t) => {
  const { documentFiles, stored } = files({});
  t.regex((await documentFiles.pdfUrl(invoice)) ?? '', /representation\.pdf/);
  t.deepEqual(stored, ['companies/1/documents/7/representation.pdf']);
});

test('a PDF that cannot be generated from the original, or an original that is gone, is no file (404 file_not_available)', async (t) => {
  const refused = files({ producePdf: async () => null });
  t.is(await refused.documentFiles.pdfUrl(invoice), null);
  const unparseable = files({ producePdf: async () => { throw new Error('unexpected close tag'); } });
  t.is(await unparseable.documentFiles.pdfUrl(invoice), null);
  const gone = files({ get: async () => { throw new BlobNotFoundError(invoice.original_blob_key!); } });
  t.is(await gone.documentFiles.pdfUrl(invoice), null);
});

test('a file store or database that fails for now is thrown, answered 5xx, not 404 file_not_available', async (t) => {
  const cases: [string, Parameters<typeof files>[0], number][] = [
    ['the original cannot be read (connection reset)', { get: async () => { throw withCode('read ECONNRESET', 'ECONNRESET'); } }, 503],
    ['the original cannot be read (object storage answers 503)', { get: async () => { throw Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' }); } }, 500],
    ['the PDF cannot be stored (disk full)', { put: async () => { throw withCode('ENOSPC: no space left on device, write', 'ENOSPC'); } }, 507],
    ['the PDF cannot be recorded (database down)', { setPdfBlobKey: async () => { throw withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'); } }, 503],
  ];
  for (const [label, options, status] of cases) {
    const error = await t.throwsAsync(files(options).documentFiles.pdfUrl(invoice), undefined, label);
    t.is(mapError(error).status, status, label);
  }
});

/** A producer that counts its renders and finishes them only when told to, so requests overlap. */
function heldProducer() {
  const rendered: number[] = [];
  let finish: (bytes: Buffer | null) => void = () => undefined;
  const held = new Promise<Buffer | null>((resolve) => { finish = resolve; });
  const producePdf: PdfProducer = async (document) => {
    rendered.push(document.company_id);
    return held;
  };
  return { rendered, producePdf, finish: (bytes: Buffer | null) => finish(bytes) };
}

test('concurrent requests for the PDF of one document share one render (no N-fold work in the CPU pool)', async (t) => {
  const producer = heldProducer();
  const { documentFiles, stored } = files({ producePdf: producer.producePdf });
  const requests = Array.from({ length: 8 }, () => documentFiles.pdfUrl(invoice));
  await new Promise((resolve) => setImmediate(resolve));
  producer.finish(Buffer.from('%PDF-1.7'));
  const urls = await Promise.all(requests);
  t.is(producer.rendered.length, 1);
  t.deepEqual(stored, ['companies/1/documents/7/representation.pdf']);
  for (const url of urls) t.regex(url ?? '', /representation\.pdf/);
});

test('the shared render is per tenant and ends with its render: another company\'s document of the same id renders its own; a failed render is tried again', async (t) => {
  const producer = heldProducer();
  const { documentFiles } = files({ producePdf: producer.producePdf });
  const foreign = { ...invoice, company_id: 2, original_blob_key: 'companies/2/uploads/invoice.xml' } as DocumentRow;
  const requests = [documentFiles.pdfUrl(invoice), documentFiles.pdfUrl(foreign), documentFiles.pdfUrl(invoice), documentFiles.pdfUrl(foreign)];
  await new Promise((resolve) => setImmediate(resolve));
  producer.finish(null);
  t.deepEqual(await Promise.all(requests), [null, null, null, null]);
  t.deepEqual(producer.rendered.sort(), [1, 2]);
  t.is(await documentFiles.pdfUrl(invoice), null);
  t.deepEqual(producer.rendered.sort(), [1, 1, 2], 'a render that settled is not reused');
});
