import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registerDocumentWithSimulator, registerForeignEventWithSimulator } from '../../integrations/dian/simulator/admin-client';
import { DianError, type DianGateway } from '../../integrations/dian/port';
import { buildSoapRequest, parseSoapEnvelope, verifySoapSecurity } from '../../integrations/dian/soap';
import { DIAN_ENVIRONMENTS, createSoapDianGateway, type SoapDianGatewaySettings } from '../../integrations/dian/soap-gateway';
import { buildTestEventZip, zipXml, buildTestApplicationResponse } from '../../integrations/dian/simulator/application-response';
import { buildApplicationResponse } from '../../domain/dian/application-response';
import { loadPkcs12 } from '../../domain/dian/certificate';
import { packageEvent } from '../../domain/dian/event-package';
import { signXadesEpes, verifyXadesSignature } from '../../domain/dian/xades';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { startDianSimulator, type DianSimulator, type DianSimulatorOptions } from '../../integrations/dian/simulator/server';
import { FIXTURES } from '../support/ingestion';

function testCredentials(commonName: string) {
  const { p12, password } = generateTestPkcs12('clave-de-prueba', { commonName });
  const { privateKeyPem, certificatePem } = loadPkcs12(p12, password);
  return { privateKeyPem, certificatePem };
}
const credentials = testCredentials('Comprador de pruebas');
const permissive = () => ({ valid: true });
const BUYER = '900123456';
const CUFE = 'a'.repeat(96);
const INVOICE_XML = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>SETP1</ID></Invoice>';

async function setup(
  t: ExecutionContext,
  options: DianSimulatorOptions = {},
  settings: Partial<SoapDianGatewaySettings> = {},
): Promise<{ simulator: DianSimulator; gateway: DianGateway }> {
  const simulator = await startDianSimulator({ verifyApplicationResponse: permissive, ...options });
  t.teardown(() => simulator.close());
  simulator.addDocument(CUFE, INVOICE_XML, { receiverNit: BUYER, issueDate: '2024-05-01', documentType: '01' });
  const gateway = createSoapDianGateway({ url: simulator.url, credentials, timeoutMs: 5_000, ...settings });
  return { simulator, gateway };
}

async function rawPost(simulator: DianSimulator, envelope: string, contentType = 'application/soap+xml; charset=utf-8') {
  const response = await fetch(simulator.url, { method: 'POST', headers: { 'Content-Type': contentType }, body: envelope });
  return { status: response.status, body: await response.text() };
}

async function rejectsWith(t: ExecutionContext, promise: Promise<unknown>, code: DianError['code'], retryable: boolean) {
  const error = await t.throwsAsync(promise, { instanceOf: DianError });
  t.is(error?.code, code);
  t.is(error?.retryable, retryable);
}

const send = (gateway: DianGateway, eventCode: string, extra: { cufe?: string; senderNit?: string } = {}) => {
  const event = buildTestEventZip({ cufe: extra.cufe ?? CUFE, eventCode, senderNit: extra.senderNit ?? BUYER });
  return gateway.sendEvent(event.zip, event.fileName);
};

test('the environments point at DIAN habilitación and producción', (t) => {
  t.is(DIAN_ENVIRONMENTS.habilitacion, 'https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc');
  t.is(DIAN_ENVIRONMENTS.produccion, 'https://vpfe.dian.gov.co/WcfDianCustomerServices.svc');
});

test('GetXmlByDocumentKey returns the stored XML for a known CUFE (case-insensitive, like DIAN)', async (t) => {
  const { gateway } = await setup(t);
  const answer = await gateway.getXmlByDocumentKey(CUFE.toUpperCase());
  t.true(answer.found);
  if (answer.found) t.is(answer.xml.toString('utf8'), INVOICE_XML);
});

test('GetXmlByDocumentKey for an unknown CUFE answers DIAN-style 404', async (t) => {
  const { gateway } = await setup(t);
  const answer = await gateway.getXmlByDocumentKey('b'.repeat(96));
  t.deepEqual(answer, { found: false, statusCode: '404', message: `Xml con CUFE: '${'b'.repeat(96)}' no encontrado.` });
});

test('the simulator seeds from UBL files and lists received documents through the extension', async (t) => {
  const expected = JSON.parse(readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as { file: string; cufe: string; customer_nit: string; issue_date: string }[];
  const { simulator, gateway } = await setup(t, { seedFiles: expected.map((e) => path.join(FIXTURES, e.file)) }, { extensions: { listReceivedDocuments: true } });
  const first = expected[0]!;
  const answer = await gateway.getXmlByDocumentKey(first.cufe);
  t.true(answer.found);
  if (answer.found) t.deepEqual(answer.xml, readFileSync(path.join(FIXTURES, first.file)));

  t.truthy(gateway.listReceivedDocuments);
  const listed = await gateway.listReceivedDocuments!({ companyNit: first.customer_nit, from: first.issue_date, to: first.issue_date, documentType: '' });
  t.true(listed.some((d) => d.cufe === first.cufe.toLowerCase() && d.issueDate === first.issue_date));
  const mine = await gateway.listReceivedDocuments!({ companyNit: BUYER, from: '2024-01-01', to: '2024-12-31', documentType: '01' });
  t.deepEqual(mine, [{ cufe: CUFE, documentType: '01', issueDate: '2024-05-01' }]);
  t.deepEqual(await gateway.listReceivedDocuments!({ companyNit: BUYER, from: '2024-06-01', to: '2024-12-31', documentType: '01' }), []);
  t.is(simulator.requests.at(-1)?.operation, 'ListReceivedDocuments');
});

test('listReceivedDocuments is absent unless the simulator extension is configured', async (t) => {
  const { gateway } = await setup(t);
  t.is(gateway.listReceivedDocuments, undefined);
});

test('events 030 → 032 → 033 are registered and read back with GetStatusEvent', async (t) => {
  const { simulator, gateway } = await setup(t);
  t.deepEqual(await gateway.getStatusEvent(CUFE), []);
  for (const code of ['030', '032', '033']) {
    const result = await send(gateway, code);
    t.like(result, { accepted: true, statusCode: '00', description: 'Procesado Correctamente.', errors: [] }, code);
    t.regex(result.documentKey ?? '', /^[0-9a-f]{96}$/);
  }
  const events = await gateway.getStatusEvent(CUFE);
  t.deepEqual(events.map((e) => e.code), ['030', '032', '033']);
  t.is(events[0]!.description, 'Acuse de recibo de Factura Electrónica de Venta');
  t.regex(events[2]!.date ?? '', /^\d{4}-\d{2}-\d{2}$/);
  t.deepEqual(events.map((e) => e.cude), simulator.events(CUFE).map((e) => e.cude));
  t.is(simulator.events(CUFE).length, 3);
});

test('GetStatusEvent for an unknown CUFE returns no events', async (t) => {
  const { simulator, gateway } = await setup(t);
  t.deepEqual(await gateway.getStatusEvent('c'.repeat(96)), []);
  t.is(simulator.requests.at(-1)?.outcome, 'StatusCode 66');
});

test('event order: 032 needs a registered 030 and 033 needs 032', async (t) => {
  const { gateway } = await setup(t);
  const early = await send(gateway, '032');
  t.false(early.accepted);
  t.is(early.statusCode, '99');
  t.is(early.description, 'Validación contiene errores en campos mandatorios.');
  t.regex(early.errors[0] ?? '', /^Regla: LGC02, Rechazo: .*030/);

  t.true((await send(gateway, '030')).accepted);
  const acceptance = await send(gateway, '033');
  t.false(acceptance.accepted);
  t.regex(acceptance.errors[0] ?? '', /^Regla: LGC02, Rechazo: .*032/);
  t.deepEqual((await gateway.getStatusEvent(CUFE)).map((e) => e.code), ['030']);
});

test('duplicates: the same ApplicationResponse twice is rule 90, a second 030 is refused', async (t) => {
  const { gateway } = await setup(t);
  const event = buildTestEventZip({ cufe: CUFE, eventCode: '030', senderNit: BUYER, id: 'EV-1' });
  t.true((await gateway.sendEvent(event.zip, event.fileName)).accepted);
  const again = await gateway.sendEvent(event.zip, event.fileName);
  t.false(again.accepted);
  t.deepEqual(again.errors, ['Regla: 90, Rechazo: Documento procesado anteriormente.']);
  t.is(again.documentKey, event.cude, 'the same document: its own key');

  // Same sender NIT, event type and number on ANOTHER invoice: rule 90 with the earlier key.
  const sameNumber = buildTestEventZip({ cufe: 'f'.repeat(96), eventCode: '030', senderNit: BUYER, id: 'EV-1' });
  const clash = await gateway.sendEvent(sameNumber.zip, sameNumber.fileName);
  t.false(clash.accepted);
  t.deepEqual(clash.errors, ['Regla: 90, Rechazo: Documento procesado anteriormente.']);
  t.is(clash.documentKey, event.cude);
  t.not(clash.documentKey, sameNumber.cude);

  const other = buildTestEventZip({ cufe: CUFE, eventCode: '030', senderNit: BUYER, cude: 'd'.repeat(96) });
  const second = await gateway.sendEvent(other.zip, other.fileName);
  t.false(second.accepted);
  t.regex(second.errors[0] ?? '', /^Regla: LGC01, /);
});

test('an event for an unknown CUFE or from someone other than the buyer is refused', async (t) => {
  const { gateway } = await setup(t);
  const unknown = await send(gateway, '030', { cufe: 'e'.repeat(96) });
  t.is(unknown.statusCode, '99');
  t.regex(unknown.errors[0] ?? '', /LGC03.*no existe/);
  const stranger = await send(gateway, '030', { senderNit: '811111111' });
  t.regex(stranger.errors[0] ?? '', /LGC05/);
});

test('the injected ApplicationResponse verifier decides on the signature', async (t) => {
  const seen: string[] = [];
  const { gateway } = await setup(t, {
    verifyApplicationResponse: (xml) => {
      seen.push(xml);
      return { valid: false, reason: 'digest de SignedProperties no coincide' };
    },
  });
  const event = buildTestEventZip({ cufe: CUFE, eventCode: '030', senderNit: BUYER });
  const result = await gateway.sendEvent(event.zip, event.fileName);
  t.false(result.accepted);
  t.regex(result.errors[0] ?? '', /digest de SignedProperties no coincide/);
  t.deepEqual(seen, [event.xml]);
});

test('the default verifier refuses an ApplicationResponse without ds:Signature', async (t) => {
  const simulator = await startDianSimulator();
  t.teardown(() => simulator.close());
  simulator.addDocument(CUFE, INVOICE_XML, { receiverNit: BUYER, issueDate: '2024-05-01', documentType: '01' });
  const gateway = createSoapDianGateway({ url: simulator.url, credentials });
  const { xml } = buildTestApplicationResponse({ cufe: CUFE, eventCode: '030', senderNit: BUYER });
  const unsigned = xml.replace(/<ext:UBLExtensions>.*<\/ext:UBLExtensions>/, '').replace(/ xmlns:ds="[^"]+"/, '');
  t.false((await gateway.sendEvent(zipXml('ar.xml', unsigned), 'ar.zip')).accepted);
  t.true((await gateway.sendEvent(zipXml('ar.xml', xml), 'ar.zip')).accepted);
});

test('a ZIP with no XML or two XMLs is rejected with status 89', async (t) => {
  const { gateway } = await setup(t);
  const empty = await gateway.sendEvent(Buffer.from('not a zip'), 'x.zip');
  t.is(empty.statusCode, '89');
  t.regex(empty.description, /No fue encontrado ningun documento XML valido/);
  const AdmZip = (await import('adm-zip')).default;
  const zip = new AdmZip();
  zip.addFile('a.xml', Buffer.from('<a/>'));
  zip.addFile('b.xml', Buffer.from('<b/>'));
  t.regex((await gateway.sendEvent(zip.toBuffer(), 'two.zip')).description, /Se debe enviar solo un fichero XML/);
});

test('the request is a signed SOAP 1.2 envelope covering Timestamp and To with a 60 s lifetime', (t) => {
  const now = new Date('2024-05-02T15:00:00Z');
  const request = buildSoapRequest('GetStatusEvent', { trackId: CUFE }, credentials, DIAN_ENVIRONMENTS.habilitacion, { now });
  t.is(request.action, 'http://wcf.dian.colombia/IWcfDianCustomerServices/GetStatusEvent');
  t.is(request.contentType, 'application/soap+xml; charset=utf-8; action="http://wcf.dian.colombia/IWcfDianCustomerServices/GetStatusEvent"');
  t.regex(request.envelope, /<wsu:Created>2024-05-02T15:00:00Z<\/wsu:Created><wsu:Expires>2024-05-02T15:01:00Z<\/wsu:Expires>/);
  const verdict = verifySoapSecurity(request.envelope, { now: new Date('2024-05-02T15:00:30Z') });
  t.true(verdict.valid, verdict.reason);
  t.is(verdict.certificatePem?.replace(/\s/g, ''), credentials.certificatePem.replace(/\s/g, ''));
  t.deepEqual(verifySoapSecurity(request.envelope, { now: new Date('2024-05-02T15:01:01Z') }), { valid: false, reason: 'wsu:Timestamp expired' });
  const parsed = parseSoapEnvelope(request.envelope);
  t.true(parsed.kind === 'body' && parsed.element === 'GetStatusEvent' && parsed.content['trackId'] === CUFE);
});

test('the simulator refuses envelopes tampered after signing (Timestamp, To, token swap, unsigned To)', async (t) => {
  const { simulator } = await setup(t);
  const sign = (options: Parameters<typeof buildSoapRequest>[4] = {}) =>
    buildSoapRequest('GetXmlByDocumentKey', { trackId: CUFE }, credentials, simulator.url, options).envelope;
  const good = sign();
  t.is((await rawPost(simulator, good)).status, 200);

  const other = testCredentials('Otro firmante');
  const otherToken = /<wsse:BinarySecurityToken[^>]*>([^<]+)</.exec(buildSoapRequest('GetStatusEvent', {}, other, simulator.url).envelope)![1]!;
  const tampered = {
    timestamp: good.replace(/<wsu:Expires>[^<]+/, '<wsu:Expires>2099-01-01T00:00:00Z'),
    to: sign().replace(`>${simulator.url}</wsa:To>`, `>${simulator.url}?x</wsa:To>`),
    token: good.replace(/(<wsse:BinarySecurityToken[^>]*>)[^<]+/, `$1${otherToken}`),
    toUnsigned: sign({ signTimestamp: true }).replace(/<ds:Reference URI="#id-[^"]+">[\s\S]*?<\/ds:Reference>/, ''),
    body: good.replace(`<wcf:trackId>${CUFE}`, `<wcf:trackId>${'f'.repeat(96)}`),
  };
  for (const [name, envelope] of Object.entries(tampered)) {
    const response = await rawPost(simulator, envelope);
    if (name === 'body') {
      // The Body is not in the signature (as with DIAN's own clients): the request goes through.
      t.is(response.status, 200, name);
      continue;
    }
    t.is(response.status, 500, name);
    const fault = parseSoapEnvelope(response.body);
    t.true(fault.kind === 'fault' && fault.subcode === 'a:InvalidSecurity', name);
    t.true(fault.kind === 'fault' && fault.reason === 'An error occurred when verifying security for the message.', name);
  }
  const reasons = simulator.requests.filter((r) => r.outcome.startsWith('security')).map((r) => r.outcome);
  t.regex(reasons[0]!, /digest mismatch for #TS-/);
  t.regex(reasons[1]!, /digest mismatch for #id-/);
  t.regex(reasons[2]!, /signature value does not verify|signature does not verify/);
  t.regex(reasons[3]!, /does not cover wsa:To/);
});

test('an expired Timestamp and a Timestamp left out of the signature are refused', async (t) => {
  const { simulator } = await setup(t);
  const stale = buildSoapRequest('GetStatusEvent', { trackId: CUFE }, credentials, simulator.url, { now: new Date(Date.now() - 120_000) });
  t.is((await rawPost(simulator, stale.envelope)).status, 500);
  const toOnly = buildSoapRequest('GetStatusEvent', { trackId: CUFE }, credentials, simulator.url, { signTimestamp: false });
  t.is((await rawPost(simulator, toOnly.envelope)).status, 500);
  t.deepEqual(
    simulator.requests.map((r) => r.outcome),
    ['security: wsu:Timestamp expired', 'security: signature does not cover wsu:Timestamp'],
  );
});

test('a security fault maps to a non-retryable rejected_security DianError', async (t) => {
  const { simulator } = await setup(t);
  const gateway = createSoapDianGateway({
    url: simulator.url,
    wsSecurity: (operation, params, to) => {
      const request = buildSoapRequest(operation, params, credentials, to);
      return { ...request, envelope: request.envelope.replace(/<wsu:Created>[^<]+/, '<wsu:Created>2000-01-01T00:00:00Z') };
    },
  });
  await rejectsWith(t, gateway.getStatusEvent(CUFE), 'rejected_security', false);
});

test('wsa:To other than the simulator URL, unknown actions and SOAP 1.1 are refused', async (t) => {
  const { simulator } = await setup(t);
  const elsewhere = buildSoapRequest('GetStatusEvent', { trackId: CUFE }, credentials, DIAN_ENVIRONMENTS.habilitacion);
  const misdirected = parseSoapEnvelope((await rawPost(simulator, elsewhere.envelope)).body);
  t.true(misdirected.kind === 'fault' && misdirected.subcode === 'a:DestinationUnreachable');

  const gateway = createSoapDianGateway({
    url: simulator.url,
    wsSecurity: (operation, params, to) => {
      const request = buildSoapRequest(operation, params, credentials, to);
      return { ...request, envelope: request.envelope.replace(request.action, 'http://wcf.dian.colombia/IWcfDianCustomerServices/SendBillSync') };
    },
  });
  await rejectsWith(t, gateway.getStatusEvent(CUFE), 'invalid_response', false);
  t.regex(simulator.requests.at(-1)!.outcome, /^action /);

  const soap11 = await rawPost(simulator, elsewhere.envelope, 'text/xml; charset=utf-8');
  t.is(soap11.status, 415);
});

test('HTTP 500 maps to a retryable unavailable DianError, and the next call succeeds', async (t) => {
  const { simulator, gateway } = await setup(t);
  simulator.failNext(2, 'http500');
  await rejectsWith(t, gateway.getXmlByDocumentKey(CUFE), 'unavailable', true);
  await rejectsWith(t, send(gateway, '030'), 'unavailable', true);
  t.true((await gateway.getXmlByDocumentKey(CUFE)).found);
  t.deepEqual(simulator.events(CUFE), []);
});

test('no answer within timeoutMs maps to a retryable timeout DianError', async (t) => {
  const { simulator, gateway } = await setup(t);
  const impatient = createSoapDianGateway({ url: simulator.url, credentials, timeoutMs: 400 });
  simulator.failNext(1, 'timeout');
  const started = Date.now();
  await rejectsWith(t, impatient.getStatusEvent(CUFE), 'timeout', true);
  t.true(Date.now() - started < 4_000);
  t.deepEqual(await gateway.getStatusEvent(CUFE), []);
});

test('an unreachable endpoint maps to a retryable unavailable DianError', async (t) => {
  const simulator = await startDianSimulator();
  const url = simulator.url;
  await simulator.close();
  const gateway = createSoapDianGateway({ url, credentials, timeoutMs: 2_000 });
  await rejectsWith(t, gateway.getXmlByDocumentKey(CUFE), 'unavailable', true);
});

test('a non-SOAP 200 answer is an invalid_response', async (t) => {
  const gateway = createSoapDianGateway({
    url: 'http://dian.invalid/WcfDianCustomerServices.svc',
    credentials,
    fetch: async () => new Response('<html>maintenance</html>', { status: 200 }),
  });
  await rejectsWith(t, gateway.getStatusEvent(CUFE), 'invalid_response', false);
});

test('end to end with domain/dian: a XAdES-signed 030 built by the domain is verified and registered', async (t) => {
  const { simulator, gateway } = await setup(t, {
    verifyApplicationResponse: (xml) => {
      const verdict = verifyXadesSignature(xml);
      return { valid: verdict.valid, reason: verdict.reason };
    },
  });
  const unsigned = buildApplicationResponse({
    responseCode: '030',
    id: 'AR1',
    issueDate: '2024-05-02',
    issueTime: '10:00:00',
    environment: 'testing',
    sender: { name: 'Comprador S.A.S.', nit: BUYER },
    receiver: { name: 'Proveedor S.A.S.', nit: '800000001' },
    software: { providerNit: BUYER, softwareId: 'b6b3f8a0-0000-4000-8000-000000000001', pin: '12345' },
    invoice: { number: 'SETP990000001', cufe: CUFE },
    issuer: { idType: '13', idNumber: '1020304050', firstName: 'Ana', familyName: 'Pérez', jobTitle: 'Contadora' },
  });
  const signed = signXadesEpes(unsigned, credentials);
  const accepted = await gateway.sendEvent(packageEvent(signed, 'ar1.xml'), 'ar1.zip');
  t.like(accepted, { accepted: true, statusCode: '00', description: 'Procesado Correctamente.', errors: [] });
  t.deepEqual(simulator.events(CUFE).map((e) => e.code), ['030']);

  const tampered = signed.replace('Comprador S.A.S.', 'Comprador Falso S.A.S.');
  const refused = await gateway.sendEvent(packageEvent(tampered, 'ar2.xml'), 'ar2.zip');
  t.false(refused.accepted);
  t.regex(refused.errors[0] ?? '', /^Regla: ZE02, /);
});

test('033 more than 3 Colombian business days after the 032 is refused (DC24c, tacit acceptance)', async (t) => {
  const { simulator, gateway } = await setup(t);
  // 030 and 032 registered through DIAN's portal on Thursday 2 May 2024: the deadline is Tuesday 7 May.
  simulator.registerEvent(CUFE, { code: '030', id: 'P-1', senderNit: BUYER, cude: '1'.repeat(96), date: '2024-05-02' });
  simulator.registerEvent(CUFE, { code: '032', id: 'P-2', senderNit: BUYER, cude: '2'.repeat(96), date: '2024-05-02' });
  const late = await send(gateway, '033');
  t.false(late.accepted);
  t.regex(late.errors[0] ?? '', /^Regla: DC24c, Rechazo: .*2024-05-07/);
  const events = await gateway.getStatusEvent(CUFE);
  t.deepEqual(events.map((e) => [e.code, e.date, e.cude]), [['030', '2024-05-02', '1'.repeat(96)], ['032', '2024-05-02', '2'.repeat(96)]]);
});

test('the simulator\'s HTTP administration registers documents and foreign events; the state file survives a restart', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dian-sim-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const stateFile = path.join(dir, 'state.json');
  const first = await startDianSimulator({ stateFile });
  const xml = readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'));
  const cufe = await registerDocumentWithSimulator(first.url, xml);
  t.regex(cufe ?? '', /^[0-9a-f]{96}$/);
  t.is(await registerDocumentWithSimulator(first.url, '<NotUbl/>'), null);
  await registerForeignEventWithSimulator(first.url, { cufe: cufe!, code: '030', id: 'OTRO-9', senderNit: '900108281', cude: '3'.repeat(96) });
  await first.close();
  const second = await startDianSimulator({ stateFile });
  t.teardown(() => second.close());
  t.true(second.catalog.documents.has(cufe!));
  t.deepEqual(second.events(cufe!).map((e) => [e.code, e.id, e.cude]), [['030', 'OTRO-9', '3'.repeat(96)]]);
  await t.throwsAsync(registerDocumentWithSimulator('http://127.0.0.1:9/WcfDianCustomerServices.svc', xml), { instanceOf: DianError });
});
