import test from 'ava';
import { verifyXadesSignature } from '../../domain/dian/xades';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { verifyWithXmlsec1 } from '../support/xmlsec';
import { fixture, importSteps, upload, waitForImport } from '../support/ingestion';

// DIAN buyer events 030 → 032 → 033 on the dev server against the simulator, which verifies
// the XAdES-EPES signature of every ApplicationResponse it receives.
let world: DianWorld;
let invoice: { id: number; cufe: string; fileId: number };
const ISSUER = { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora', department: 'Finanzas' };

test.before(async () => {
  world = await startDianWorld();
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const file = await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id);
  invoice = { id: file.documents[0].id, cufe: file.documents[0].cufe, fileId: accepted.body.id };
});
test.after.always(async () => {
  await world?.close();
});

const eventsPath = () => `/v1/companies/${world.company.id}/invoices/${invoice.id}/dian-events`;

/**
 * Sends the event `concurrently` times at once, as a client retrying in parallel might: exactly one
 * is accepted (the order check runs under a lock on the invoice), the others are refused.
 */
async function emitAndWait(event: string, withIssuer = true, concurrently = 1) {
  const answers = await Promise.all(Array.from({ length: concurrently }, () => world.call('POST', eventsPath(), { event, ...(withIssuer ? { issuer: ISSUER } : {}) })));
  const accepted = answers.filter((answer) => answer.status === 202);
  const refused = answers.filter((answer) => answer.status === 409 && ['event_in_progress', 'event_already_registered'].includes(answer.body.error.code));
  if (accepted.length !== 1 || refused.length !== concurrently - 1) throw new Error(JSON.stringify(answers.map((answer) => [answer.status, answer.body.error?.code])));
  const posted = accepted[0]!;
  // Where the event's outcome shows: the invoice's events (an event has no GET of its own; no Location before 2026-11-25).
  if (posted.headers.get('location') !== eventsPath()) throw new Error(`Location: ${posted.headers.get('location')}`);
  return eventually(async () => {
    const list = await world.call('GET', eventsPath());
    const row = list.body.data.find((item: { id: number }) => item.id === posted.body.id);
    return row && row.status !== 'pending' ? { posted, row } : undefined;
  });
}

test.serial('an invoice of a company with DIAN settings imports inline, then DIAN learns it and its events are read, then document.imported is published (decision 0019)', async (t) => {
  const steps = await importSteps(world.api.temporal.client, world.worker.taskQueue, invoice.fileId);
  t.deepEqual(steps, { tasks: ['registerImportedWithDianSimulator', 'syncDianEventsOf'], local: ['importAndPublishUploadedFile', 'publishEvents'], workflowTasks: 3 });
  await eventually(() => world.events('document.imported').some((event) => event.data.id === invoice.fileId) || undefined);
  t.is(world.events('document.imported').filter((event) => event.data.id === invoice.fileId).length, 1);
});

test.serial('without an issuer, 030 is refused with 400 naming issuer', async (t) => {
  const response = await world.call('POST', eventsPath(), { event: '030' });
  t.is(response.status, 400);
  t.like(response.body.error, { code: 'invalid_parameter', param: 'issuer' });
});

test.serial('an issuer id_type that is no DIAN identification type is refused with 400 naming issuer.id_type', async (t) => {
  const response = await world.call('POST', eventsPath(), { event: '030', issuer: { ...ISSUER, id_type: '99' } });
  t.is(response.status, 400);
  t.like(response.body.error, { code: 'invalid_parameter' });
  t.regex(response.body.error.param, /^issuer/);
  t.regex(response.body.error.message, /13 cédula, 31 NIT/);
});

test.serial('an issuer name with a lone surrogate is refused with 400 naming it (it was a 500 from the jsonb column)', async (t) => {
  for (const [field, value] of [['first_name', 'Ana\ud800'], ['family_name', '\udfffP']] as const) {
    const response = await world.call('POST', eventsPath(), { event: '030', issuer: { ...ISSUER, [field]: value } });
    t.is(response.status, 400, field);
    t.like(response.body.error, { code: 'invalid_parameter', param: `issuer.${field}` });
  }
});

test.serial('032 before 030 is out of order (409)', async (t) => {
  const response = await world.call('POST', eventsPath(), { event: '032', issuer: ISSUER });
  t.is(response.status, 409);
  t.is(response.body.error.code, 'event_out_of_order');
});

test.serial('030, 032 and 033 (each sent 4 times at once: one accepted) are signed, sent and registered; each ends with dian_event.completed', async (t) => {
  for (const code of ['030', '032', '033']) {
    const { posted, row } = await emitAndWait(code, code !== '033', 4);
    t.like(posted.body, { invoice_id: invoice.id, cufe: invoice.cufe, event: code, status: 'pending', succeeded: false });
    t.like(row, { event: code, status: 'succeeded', succeeded: true });
    t.regex(row.cude, /^[0-9a-f]{96}$/);
    const completed = await eventually(() => world.events('dian_event.completed').find((event) => event.data.event === code));
    t.deepEqual(completed.data, { invoice_id: invoice.id, cufe: invoice.cufe, event: code, succeeded: true });
  }
  t.deepEqual(world.simulator.events(invoice.cufe).map((event) => event.code), ['030', '032', '033']);
  const cudes = (await world.call('GET', eventsPath())).body.data.map((row: { cude: string }) => row.cude);
  t.deepEqual(world.simulator.events(invoice.cufe).map((event) => event.cude), cudes);
  t.is(world.events('dian_event.failed').length, 0);
});

test.serial('each event keeps its signed ApplicationResponse (toolbox content, verified by xmlsec1) and DIAN\'s answer, linked from the record', async (t) => {
  const list = (await world.call('GET', eventsPath())).body.data as { id: number; event: string; cude: string; files: Record<string, string | null> }[];
  const acceptance = list.find((row) => row.event === '033')!;
  t.is(acceptance.files.application_response, `${eventsPath()}/${acceptance.id}/application-response`);
  t.is(acceptance.files.dian_response, `${eventsPath()}/${acceptance.id}/dian-response`);
  const download = async (link: string) => {
    const redirect = await fetch(`${world.api.url}${link}`, { headers: { Authorization: `Bearer ${world.key}` }, redirect: 'manual' });
    t.is(redirect.status, 302);
    const file = await fetch(new URL(redirect.headers.get('location')!, world.api.url));
    t.is(file.status, 200);
    // As the OpenAPI document declares the download (it said application/octet-stream).
    const declared = (await (await fetch(`${world.api.url}/v1/openapi.json`)).json()) as any;
    t.true(Object.keys(declared.paths['/blobs/{key}'].get.responses['200'].content).includes(file.headers.get('content-type')!), `${link}: ${file.headers.get('content-type')}`);
    return Buffer.from(await file.arrayBuffer());
  };
  const signed = (await download(acceptance.files.application_response!)).toString('utf8');
  t.true(signed.includes(`<cbc:UUID schemeID="2" schemeName="CUDE-SHA384">${acceptance.cude}</cbc:UUID>`));
  t.true(signed.includes(`<sts:QRCode>https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=${invoice.cufe}</sts:QRCode>`));
  // The company is a persona jurídica (schemeVersionID 1); the supplier's NIT alone does not tell.
  t.regex(signed, /<cac:SenderParty><cac:PartyTaxScheme><cbc:RegistrationName>[^<]*<\/cbc:RegistrationName><cbc:CompanyID [^>]*schemeVersionID="1"/);
  t.regex(signed, /<sts:ProviderID [^>]*>900108281<\/sts:ProviderID>/);
  const verdict = await verifyWithXmlsec1(signed, world.certificate.certificatePem);
  t.true(verdict.valid, verdict.output);
  const tampered = await verifyWithXmlsec1(signed.replace('Aceptación expresa', 'Aceptación tácita'), world.certificate.certificatePem);
  t.false(tampered.valid, tampered.output);
  const answer = JSON.parse((await download(acceptance.files.dian_response!)).toString('utf8'));
  t.like(answer, { accepted: true, statusCode: '00', documentKey: acceptance.cude });
  const receipt = list.find((row) => row.event === '030')!;
  t.true((await download(receipt.files.application_response!)).toString('utf8').includes('<cbc:Description>Acuse de recibo de Factura Electrónica de Venta</cbc:Description>'));
});

test.serial('a repeated successful event is refused with 409 event_already_registered', async (t) => {
  const response = await world.call('POST', eventsPath(), { event: '030', issuer: ISSUER });
  t.is(response.status, 409);
  t.is(response.body.error.code, 'event_already_registered');
});

test.serial('the simulator refuses an ApplicationResponse whose signature does not verify', (t) => {
  // The injected verifier is the real one: tampering with signed XML is detected.
  const verdict = verifyXadesSignature('<ApplicationResponse xmlns="urn:x"><ID>1</ID></ApplicationResponse>');
  t.false(verdict.valid);
  t.true(world.simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').every((request) => request.outcome === 'StatusCode 00'));
});

test.serial('events are only for known electronic invoices: 404 otherwise', async (t) => {
  const response = await world.call('POST', `/v1/companies/${world.company.id}/invoices/999999/dian-events`, { event: '033' });
  t.is(response.status, 404);
});

test.serial('GET dian-settings never returns secrets', async (t) => {
  const response = await world.call('GET', `/v1/companies/${world.company.id}/dian-settings`);
  t.is(response.status, 200);
  t.is(response.body.environment, 'simulator');
  t.regex(response.body.certificate.subject, /CN=Opticas GMO firma/);
  const text = JSON.stringify(response.body);
  t.false(text.includes('12345'));
  t.false(text.includes(world.certificate.password));
});

test.serial('a PKCS#12 with the wrong password is refused with 400 naming certificate_password', async (t) => {
  const response = await world.call('PUT', `/v1/companies/${world.company.id}/dian-settings`, {
    environment: 'simulator', software_id: 'x', software_pin: 'y',
    certificate_p12_base64: world.certificate.p12.toString('base64'), certificate_password: 'wrong',
  });
  t.is(response.status, 400);
  t.is(response.body.error.param, 'certificate_password');
});
