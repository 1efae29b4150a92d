import test, { type ExecutionContext } from 'ava';
import { loadPkcs12 } from '../../domain/dian/certificate';
import { colombianDate } from '../../domain/dian/business-days';
import { buildTestEventZip } from '../../integrations/dian/simulator/application-response';
import { startDianSimulator } from '../../integrations/dian/simulator/server';
import { createSoapDianGateway } from '../../integrations/dian/soap-gateway';
import { generateTestPkcs12 } from '../../testing/dian-certificates';

// DIAN's bulk download and event index over SOAP against the simulator (assumed operations:
// integrations/dian/README.md, "Bulk listing").
const { p12, password } = generateTestPkcs12('clave-de-prueba', { commonName: 'Comprador de pruebas' });
const credentials = loadPkcs12(p12, password);
const BUYER = '900123456';
const SUPPLIER = '800197268';
const daysAgo = (days: number) => colombianDate(new Date(Date.now() - days * 86_400_000));

async function setup(t: ExecutionContext, bulkListing = true) {
  const simulator = await startDianSimulator({ verifyApplicationResponse: () => ({ valid: true }) });
  t.teardown(() => simulator.close());
  const xml = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>';
  simulator.addDocument('a'.repeat(96), xml, { receiverNit: BUYER, senderNit: SUPPLIER, issueDate: daysAgo(3), documentType: '01' });
  simulator.addDocument('b'.repeat(96), xml, { receiverNit: SUPPLIER, senderNit: BUYER, issueDate: daysAgo(2), documentType: '01' });
  simulator.addDocument('c'.repeat(96), xml, { receiverNit: BUYER, senderNit: SUPPLIER, issueDate: daysAgo(2), documentType: '91' });
  const gateway = createSoapDianGateway({ url: simulator.url, credentials: { privateKeyPem: credentials.privateKeyPem, certificatePem: credentials.certificatePem }, timeoutMs: 5_000, bulkListing });
  return { simulator, gateway };
}

test('the bulk operations exist only when the deployment turns them on', async (t) => {
  const { gateway } = await setup(t, false);
  t.is(gateway.bulkListing, undefined);
});

test('BulkDocumentDownloadAsync → GetStatusBulkDocumentDownload → the CSV link, filtered by group and NIT', async (t) => {
  const { gateway } = await setup(t);
  const bulk = gateway.bulkListing!;
  const received = await bulk.requestBulkDownload({ nit: BUYER, from: daysAgo(10), to: daysAgo(0), group: 'Recibido' });
  if (!('trackId' in received)) return t.fail(JSON.stringify(received));
  const status = await bulk.bulkDownloadStatus(received.trackId);
  if (status.state !== 'ready') return t.fail(JSON.stringify(status));
  const csv = await (await fetch(status.url)).text();
  const lines = csv.trim().split('\r\n');
  t.is(lines[0], 'Tipo de documento;CUFE/CUDE;Fecha Emisión;NIT Emisor;NIT Receptor;Grupo');
  t.deepEqual(lines.slice(1).map((line) => line.split(';')[1]), ['a'.repeat(96), 'c'.repeat(96)], 'oldest first');
  t.true(lines.slice(1).every((line) => line.split(';')[4] === BUYER), 'only documents the NIT received');
  t.is(lines.length - 1, 2);

  const issued = await bulk.requestBulkDownload({ nit: BUYER, from: daysAgo(10), to: daysAgo(0), group: 'Emitido' });
  if (!('trackId' in issued)) return t.fail();
  const issuedStatus = await bulk.bulkDownloadStatus(issued.trackId);
  const issuedCsv = issuedStatus.state === 'ready' ? await (await fetch(issuedStatus.url)).text() : '';
  t.true(issuedCsv.includes('b'.repeat(96)));
  t.false(issuedCsv.includes('a'.repeat(96)));
});

test('DIAN\'s limits: a span over 3 months, a start older than 3 months, a bad group, an unknown trackId', async (t) => {
  const { gateway } = await setup(t);
  const bulk = gateway.bulkListing!;
  const tooLong = await bulk.requestBulkDownload({ nit: BUYER, from: daysAgo(91), to: daysAgo(0), group: 'Recibido' });
  t.deepEqual(tooLong, { refused: { statusCode: '89', description: 'El rango de fechas especificado para esta solicitud, supera el rango máximo de fechas permitido (3 meses).' } });
  t.true('trackId' in (await bulk.requestBulkDownload({ nit: BUYER, from: daysAgo(90), to: daysAgo(0), group: 'Recibido' })), '90 days of span are allowed');
  const tooOld = await bulk.requestBulkDownload({ nit: BUYER, from: daysAgo(120), to: daysAgo(100), group: 'Recibido' });
  t.like(tooOld, { refused: { statusCode: '89', description: 'la fecha de inicio supera el rango máximo de fechas permitido (3 meses).' } });
  const badGroup = await bulk.requestBulkDownload({ nit: BUYER, from: daysAgo(5), to: daysAgo(0), group: 'Otros' as 'Todos' });
  t.like(badGroup, { refused: { statusCode: '89', description: 'El grupo de documento solicitado (Otros) es inválido.' } });
  t.like(await bulk.bulkDownloadStatus('00000000-0000-0000-0000-000000000000'), { state: 'refused', statusCode: '89' });
});

test('GetDocIdentifierWithEvents lists the NIT\'s documents with an event registered that day', async (t) => {
  const { simulator, gateway } = await setup(t);
  const today = colombianDate(new Date());
  t.deepEqual(await gateway.bulkListing!.docIdentifiersWithEvents(BUYER, today), []);
  const event = buildTestEventZip({ cufe: 'a'.repeat(96), eventCode: '030', senderNit: BUYER });
  t.true((await gateway.sendEvent(event.zip, event.fileName)).accepted);
  t.deepEqual(await gateway.bulkListing!.docIdentifiersWithEvents(BUYER, today), ['a'.repeat(96)]);
  t.deepEqual(await gateway.bulkListing!.docIdentifiersWithEvents(BUYER, daysAgo(1)), []);
  t.is(simulator.requests.filter((request) => request.operation === 'GetDocIdentifierWithEvents').length, 3);
});
