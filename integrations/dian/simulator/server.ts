/**
 * A loopback HTTP server that speaks DIAN's WcfDianCustomerServices protocol (SOAP 1.2,
 * WS-Addressing, WS-Security with an X.509 BinarySecurityToken) for the operations this
 * project uses (BulkDocumentDownloadAsync, GetStatusBulkDocumentDownload and
 * GetDocIdentifierWithEvents as DIAN's published code has them; bulk-download.ts), plus one
 * documented extension operation:
 *
 *   ListReceivedDocuments (action urn:dian-simulator:extensions/ListReceivedDocuments) —
 *   NOT part of DIAN's service; lists catalog documents by receiver NIT, issue-date range and
 *   document type. Only gateways created with `extensions.listReceivedDocuments` call it.
 *
 * Point `createSoapDianGateway({ url: simulator.url, ... })` at it; nothing else changes.
 *
 * Simulator-only administration over plain HTTP (so other processes can feed it; see
 * admin-client.ts), never part of DIAN:
 *   POST /simulator/documents  body: one UBL XML → 201 {cufe, document_type}; 400 if unreadable
 *   POST /simulator/events     JSON {cufe, code, id, sender_nit, cude, date?, time?} → 201:
 *                              an event registered elsewhere (DIAN's portal, another provider)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  NS,
  isRecord,
  operationForAction,
  parseSoapEnvelope,
  parseXmlDocument,
  text,
  verifySoapSecurity,
} from '../soap';
import { DianCatalog, type DocumentMeta, type ForeignEvent, type RegisteredEvent, type VerifyApplicationResponse } from './catalog';
import { SimulatedBulkDownloads } from './bulk-download';
import {
  FAULTS,
  bulkDownloadStatusEnvelope,
  dianResponseEnvelope,
  docIdentifierWithEventsEnvelope,
  eventResponseEnvelope,
  faultEnvelope,
  listReceivedDocumentsEnvelope,
  type SoapFault,
} from './responses';

export type { VerifyApplicationResponse, DocumentMeta, RegisteredEvent, ForeignEvent } from './catalog';

/**
 * http500: refused before processing; timeout: never answered; lostAnswer: processed (an event
 * is registered) but answered with HTTP 500, like an answer lost on the way back; noEnvelope:
 * not processed, answered 200 with an HTML page (a proxy's), which the gateway cannot read.
 */
export type FailureKind = 'http500' | 'timeout' | 'lostAnswer' | 'noEnvelope';

export type DianSimulatorOptions = {
  /**
   * Verifies the ApplicationResponse inside SendEventUpdateStatus's ZIP (XAdES). Inject
   * domain/dian's verifier; the default only requires a ds:Signature element to be present.
   */
  verifyApplicationResponse?: VerifyApplicationResponse;
  /** UBL files (Invoice/CreditNote/DebitNote, bare or AttachedDocument) to load at start. */
  seedFiles?: readonly string[];
  /** The simulator's clock (Timestamp expiry, event dates). */
  now?: () => Date;
  /** A JSON file keeping the catalogue (documents and events) across restarts. */
  stateFile?: string;
  /** Port to listen on (loopback only); 0 (default) picks a free one. */
  port?: number;
  /**
   * BulkDocumentDownloadAsync refuses starts more than this many days back (DIAN: 90, the
   * default). Widen only to test ranges longer than three months.
   */
  bulkDownloadMaxStartAgeDays?: number;
};

export type SimulatorRequest = { operation: string | null; status: number; outcome: string };

export type DianSimulator = {
  /** Endpoint URL; also the only wsa:To value accepted. */
  readonly url: string;
  readonly catalog: DianCatalog;
  /** Every request handled, in order, with why it was refused when it was. */
  readonly requests: SimulatorRequest[];
  addDocument(cufe: string, xml: string | Buffer, meta: DocumentMeta): void;
  seedFromFiles(paths: readonly string[]): void;
  events(cufe: string): RegisteredEvent[];
  /** An event registered through DIAN's portal or another provider (takes its number, listed by GetStatusEvent). */
  registerEvent(cufe: string, event: ForeignEvent): void;
  /** The next `n` requests fail: HTTP 500 with a WCF internal fault, or no answer at all. */
  failNext(n: number, kind: FailureKind): void;
  /** The next `n` document registrations (its administration) answer HTTP 503, as while its host is down. */
  refuseNextRegistrations(n: number): void;
  close(): Promise<void>;
};

const SERVICE_PATH = '/WcfDianCustomerServices.svc';
const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** Default ApplicationResponse check: structural only (a ds:Signature is present). */
const requireSignatureElement: VerifyApplicationResponse = (xml) =>
  xml.includes('http://www.w3.org/2000/09/xmldsig#') && /<(?:[\w-]+:)?Signature[\s>]/.test(xml)
    ? { valid: true }
    : { valid: false, reason: 'el ApplicationResponse no tiene ds:Signature' };

export async function startDianSimulator(options: DianSimulatorOptions = {}): Promise<DianSimulator> {
  const verifyApplicationResponse = options.verifyApplicationResponse ?? requireSignatureElement;
  const now = options.now ?? (() => new Date());
  const catalog = new DianCatalog(options.stateFile);
  const bulkDownloads = new SimulatedBulkDownloads(catalog, { maxStartAgeDays: options.bulkDownloadMaxStartAgeDays });
  if (options.seedFiles) catalog.seedFromFiles(options.seedFiles);
  const failures: FailureKind[] = [];
  let registrationsToRefuse = 0;
  const hung = new Set<http.ServerResponse>();
  const requests: SimulatorRequest[] = [];
  let url = '';

  const losing = new WeakSet<http.ServerResponse>();
  const send = (res: http.ServerResponse, status: number, body: string, operation: string | null, outcome: string) => {
    if (losing.has(res)) {
      requests.push({ operation, status: 500, outcome: `answer lost after ${outcome}` });
      res.writeHead(500, { 'Content-Type': 'application/soap+xml; charset=utf-8' });
      res.end(faultEnvelope(FAULTS.internal));
      return;
    }
    requests.push({ operation, status, outcome });
    res.writeHead(status, { 'Content-Type': 'application/soap+xml; charset=utf-8' });
    res.end(body);
  };
  const fault = (res: http.ServerResponse, value: SoapFault, operation: string | null, outcome: string) =>
    send(res, 500, faultEnvelope(value), operation, outcome);

  async function handleAdmin(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
    const json = (status: number, body: unknown) => {
      requests.push({ operation: `admin ${pathname}`, status, outcome: JSON.stringify(body) });
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return json(405, { error: 'POST only' });
    const body = await readBody(req);
    if (pathname === '/simulator/documents') {
      if (registrationsToRefuse > 0) {
        registrationsToRefuse -= 1;
        return json(503, { error: 'refused by refuseNextRegistrations' });
      }
      try {
        const added = catalog.addUbl(Buffer.from(body, 'utf8'));
        return json(201, { cufe: added.cufe, document_type: added.documentType });
      } catch (error) {
        return json(400, { error: (error as Error).message });
      }
    }
    if (pathname === '/simulator/events') {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return json(400, { error: 'the body is not JSON' });
      }
      const field = (name: string) => (typeof event[name] === 'string' && event[name] ? (event[name] as string) : undefined);
      const [cufe, code, id, senderNit, cude] = ['cufe', 'code', 'id', 'sender_nit', 'cude'].map(field);
      if (!cufe || !code || !id || !senderNit || !cude) return json(400, { error: 'cufe, code, id, sender_nit and cude are required' });
      const date = field('date');
      const time = field('time');
      catalog.registerEvent(cufe, { code, id, senderNit, cude, ...(date ? { date } : {}), ...(time ? { time } : {}) }, now());
      return json(201, { cufe: cufe.toLowerCase(), code, id });
    }
    return json(404, { error: `no simulator operation at ${pathname}` });
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    // Administration is not DIAN: injected failures do not apply to it.
    if (pathname.startsWith('/simulator/')) return handleAdmin(req, res, pathname);
    // The link GetStatusBulkDocumentDownload answers (DIAN's points at its file storage).
    const download = /^\/bulk-downloads\/([^/]+)\.csv$/.exec(pathname);
    if (download && req.method === 'GET') {
      const csv = bulkDownloads.csv(decodeURIComponent(download[1]!));
      requests.push({ operation: 'bulk download', status: csv === undefined ? 404 : 200, outcome: pathname });
      res.writeHead(csv === undefined ? 404 : 200, { 'Content-Type': 'text/csv; charset=utf-8' });
      res.end(csv ?? 'not found');
      return;
    }
    const injected = failures.shift();
    if (injected === 'timeout') {
      requests.push({ operation: null, status: 0, outcome: 'injected timeout' });
      hung.add(res);
      res.on('close', () => hung.delete(res));
      return;
    }
    const body = await readBody(req);
    if (injected === 'http500') return fault(res, FAULTS.internal, null, 'injected http500');
    if (injected === 'lostAnswer') losing.add(res);
    if (injected === 'noEnvelope') {
      // A proxy's page in DIAN's place: an answer the gateway cannot read, which no retry fixes.
      requests.push({ operation: null, status: 200, outcome: 'injected answer without a SOAP envelope' });
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Servicio en mantenimiento</body></html>');
      return;
    }
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== SERVICE_PATH) {
      requests.push({ operation: null, status: 404, outcome: 'not found' });
      res.writeHead(404).end();
      return;
    }
    const contentType = req.headers['content-type'] ?? '';
    if (!/^application\/soap\+xml\b/i.test(contentType)) {
      requests.push({ operation: null, status: 415, outcome: `content type ${contentType}` });
      res.writeHead(415, { 'Content-Type': 'text/plain' });
      res.end(`Cannot process the message because the content type '${contentType}' was not the expected type 'application/soap+xml; charset=utf-8'.`);
      return;
    }
    try {
      const root = parseXmlDocument(body);
      if (root.localName !== 'Envelope' || root.namespaceURI !== NS.soap) {
        return fault(res, FAULTS.badEnvelope('Expected a SOAP 1.2 envelope.'), null, 'not SOAP 1.2');
      }
    } catch (error) {
      return fault(res, FAULTS.badEnvelope('The message is not well-formed XML.'), null, `malformed: ${(error as Error).message}`);
    }
    const security = verifySoapSecurity(body, { now: now() });
    if (!security.valid) return fault(res, FAULTS.invalidSecurity, null, `security: ${security.reason}`);

    const parsed = parseSoapEnvelope(body);
    if (parsed.kind !== 'body') return fault(res, FAULTS.badEnvelope('A request cannot be a fault.'), null, 'fault as request');
    const action = text(parsed.header['Action']);
    const operation = operationForAction(action);
    if (!operation || parsed.element !== operation) return fault(res, FAULTS.actionNotSupported(action), null, `action ${action}`);
    const to = text(parsed.header['To']);
    if (to !== url) return fault(res, FAULTS.destinationUnreachable(to), operation, `wsa:To ${to}`);

    const param = (name: string) => (isRecord(parsed.content) ? text(parsed.content[name]) : '');
    switch (operation) {
      case 'GetXmlByDocumentKey': {
        const answer = catalog.getXml(param('trackId'));
        return send(res, 200, eventResponseEnvelope(answer), operation, `Code ${answer.code}`);
      }
      case 'GetStatusEvent': {
        const answer = catalog.statusEvent(param('trackId'));
        return send(res, 200, dianResponseEnvelope(operation, answer), operation, `StatusCode ${answer.statusCode}`);
      }
      case 'SendEventUpdateStatus': {
        const answer = catalog.sendEvent(param('contentFile'), verifyApplicationResponse, now());
        return send(res, 200, dianResponseEnvelope(operation, answer), operation, `StatusCode ${answer.statusCode}`);
      }
      case 'BulkDocumentDownloadAsync': {
        const answer = bulkDownloads.request(
          { nit: param('nit'), startDate: param('startDate'), endDate: param('endDate'), documentGroup: param('documentGroup') },
          now(),
        );
        return send(res, 200, dianResponseEnvelope(operation, answer), operation, `StatusCode ${answer.statusCode}`);
      }
      case 'GetStatusBulkDocumentDownload': {
        const answer = bulkDownloads.status(param('trackId'), new URL(url).origin);
        return send(res, 200, bulkDownloadStatusEnvelope(answer), operation, `StatusCode ${answer.statusCode}`);
      }
      case 'GetDocIdentifierWithEvents': {
        const answer = bulkDownloads.docIdentifiersWithEvents(param('contributorCode'), param('dateNumber'), now());
        return send(res, 200, docIdentifierWithEventsEnvelope(answer), operation, `StatusCode ${answer.statusCode}`);
      }
      case 'ListReceivedDocuments': {
        const documents = catalog.listReceived({
          companyNit: param('companyNit'),
          from: param('from'),
          to: param('to'),
          documentType: param('documentType'),
        });
        return send(res, 200, listReceivedDocumentsEnvelope(documents), operation, `${documents.length} documents`);
      }
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) fault(res, FAULTS.internal, null, `simulator error: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SERVICE_PATH}`;

  return {
    url,
    catalog,
    requests,
    addDocument: (cufe, xml, meta) => catalog.addDocument(cufe, xml, meta),
    seedFromFiles: (paths) => catalog.seedFromFiles(paths),
    events: (cufe) => catalog.events(cufe),
    registerEvent: (cufe, event) => catalog.registerEvent(cufe, event, now()),
    failNext(n, kind) {
      for (let i = 0; i < n; i++) failures.push(kind);
    },
    refuseNextRegistrations(n) {
      registrationsToRefuse += n;
    },
    async close() {
      for (const res of hung) res.destroy();
      hung.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
