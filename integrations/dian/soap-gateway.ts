/**
 * DianGateway over DIAN's SOAP web service. The same code talks to habilitación, producción
 * or the local simulator: only `settings.url` (and credentials) change.
 */
import { XMLParser } from 'fast-xml-parser';
import { DianError, type DianBulkListing, type DianGateway, type DianReceivedDocument, type DianRegisteredEvent, type DianSendResult } from './port';
import { withClientSpan } from '../outbound/client-span';
import { allowedUnderLoopbackOnly } from '../outbound/public-targets';
import { readCappedBody } from '../outbound/capped-body';
import { buildSoapRequest, isRecord, parseSoapEnvelope, text, type SoapCredentials, type SoapOperation, type SoapRequest } from './soap';

export const DIAN_ENVIRONMENTS = {
  habilitacion: 'https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc',
  produccion: 'https://vpfe.dian.gov.co/WcfDianCustomerServices.svc',
} as const;

export type DianEnvironment = keyof typeof DIAN_ENVIRONMENTS;

/**
 * Produces the signed envelope for one call. The default signs with `settings.credentials`
 * through buildSoapRequest; inject another (an HSM, a key held by another service) if needed.
 */
export type WsSecuritySigner = (operation: SoapOperation, params: Record<string, string>, to: string) => SoapRequest | Promise<SoapRequest>;

export type SoapDianGatewaySettings = {
  url: string;
  /** Certificate and key for WS-Security; required unless `wsSecurity` is given. */
  credentials?: SoapCredentials;
  wsSecurity?: WsSecuritySigner;
  /** Per call, including reading the answer; 30 s by default. */
  timeoutMs?: number;
  /** Forwarded to buildSoapRequest; see README.md (DIAN signs-only-To reports). */
  signTimestamp?: boolean;
  /**
   * Simulator-only operations. `listReceivedDocuments` adds `gateway.listReceivedDocuments`,
   * which DIAN does not offer: leave it off when `url` points at DIAN.
   */
  extensions?: { listReceivedDocuments?: boolean };
  /**
   * DIAN's bulk download and event index (BulkDocumentDownloadAsync, GetStatusBulkDocumentDownload,
   * GetDocIdentifierWithEvents): declared by DIAN's interface, their use ASSUMED (README.md).
   * Adds `gateway.bulkListing`.
   */
  bulkListing?: boolean;
  /** Injectable for tests; global fetch by default. */
  fetch?: typeof fetch;
};

type Result = Record<string, unknown>;

/**
 * The most of one DIAN answer read. The largest one we use carries a document's XML in base64
 * (GetXmlByDocumentKey), and a file over 20 MB is refused anyway (services/accept-file.ts): 20 MB
 * in base64 is 26.7 MB, plus the envelope. Beyond it the answer is not read; before 2026-11-25 it
 * was read whole, and a broken upstream streaming without end filled the worker's 128 MB heap.
 */
export const DIAN_MAX_ANSWER_BYTES = 28 * 1024 * 1024;

/** DNS's limit for a host name; OpenSSL refuses longer SNI names. */
const MAX_HOST_NAME_LENGTH = 253;

export function createSoapDianGateway(settings: SoapDianGatewaySettings): DianGateway {
  const timeoutMs = settings.timeoutMs ?? 30_000;
  const doFetch = settings.fetch ?? fetch;
  const credentials = settings.credentials;
  const sign: WsSecuritySigner =
    settings.wsSecurity ??
    ((operation, params, to) => {
      if (!credentials) throw new Error('createSoapDianGateway needs credentials or a wsSecurity signer');
      return buildSoapRequest(operation, params, credentials, to, { signTimestamp: settings.signTimestamp });
    });
  if (!settings.wsSecurity && !credentials) throw new Error('createSoapDianGateway needs credentials or a wsSecurity signer');

  async function call(operation: SoapOperation, params: Record<string, string>): Promise<Result> {
    // Under a fuzzer (OUTBOUND_ALLOW_ONLY_LOOPBACK) a company switched to habilitación or
    // producción must not make the service contact DIAN's real hosts.
    if (!allowedUnderLoopbackOnly(settings.url)) {
      throw new DianError('unavailable', `DIAN ${operation}: ${settings.url} is not a loopback address (OUTBOUND_ALLOW_ONLY_LOOPBACK)`, false);
    }
    // A host name OpenSSL cannot send as SNI would leave a stale error behind (domain/dian/signing-key.ts).
    const host = new URL(settings.url).hostname;
    if (host.length === 0 || host.length > MAX_HOST_NAME_LENGTH) {
      throw new DianError('unavailable', `DIAN ${operation}: the host name of ${settings.url.slice(0, 80)}… is not a valid DNS name (${host.length} characters)`, false);
    }
    const request = await sign(operation, params, settings.url);
    let status: number;
    let body: string;
    try {
      ({ status, body } = await withClientSpan(
        { method: 'POST', url: settings.url, peer: 'dian', operation },
        async (traceHeaders) => {
          const response = await doFetch(settings.url, {
            method: 'POST',
            headers: { ...traceHeaders, 'Content-Type': request.contentType },
            body: request.envelope,
            // A redirect would re-send the signed envelope wherever the answer points (a 307 keeps the POST).
            redirect: 'manual',
            signal: AbortSignal.timeout(timeoutMs),
          });
          const answer = await readCappedBody(response, DIAN_MAX_ANSWER_BYTES);
          if (answer.truncated && response.ok) {
            throw new DianError('invalid_response', `DIAN ${operation} answered more than ${DIAN_MAX_ANSWER_BYTES} bytes`, false);
          }
          return { status: response.status, body: answer.text };
        },
        (answer) => ({ status: answer.status }),
      ));
    } catch (error) {
      if (error instanceof DianError) throw error;
      const name = (error as { name?: string }).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new DianError('timeout', `DIAN ${operation} did not answer within ${timeoutMs} ms`, true, { cause: error });
      }
      throw new DianError('unavailable', `DIAN ${operation} unreachable: ${(error as Error).message}`, true, { cause: error });
    }

    if (status >= 300 && status < 400) {
      throw new DianError('unavailable', `DIAN ${operation} answered HTTP ${status}; redirects are not followed`, true);
    }
    let parsed: ReturnType<typeof parseSoapEnvelope>;
    try {
      parsed = parseSoapEnvelope(body);
    } catch {
      if (status >= 500 || status === 429) {
        throw new DianError('unavailable', `DIAN ${operation} answered HTTP ${status}`, true);
      }
      throw new DianError('invalid_response', `DIAN ${operation} answered HTTP ${status} without a SOAP envelope`, false);
    }
    if (parsed.kind === 'fault') {
      const detail = `${parsed.subcode ?? parsed.code}: ${parsed.reason}`;
      if (/InvalidSecurity|FailedAuthentication|verifying security/i.test(`${parsed.subcode} ${parsed.code} ${parsed.reason}`)) {
        throw new DianError('rejected_security', `DIAN refused the WS-Security header of ${operation} (${detail})`, false);
      }
      if (/Receiver/i.test(parsed.code) || (status >= 500 && !/Sender/i.test(parsed.code))) {
        throw new DianError('unavailable', `DIAN ${operation} failed on the server (${detail})`, true);
      }
      throw new DianError('invalid_response', `DIAN refused ${operation} (${detail})`, false);
    }
    if (status < 200 || status >= 300) {
      throw new DianError('unavailable', `DIAN ${operation} answered HTTP ${status}`, status >= 500 || status === 429);
    }
    const raw = parsed.element === `${operation}Response` ? parsed.content[`${operation}Result`] : undefined;
    const result = raw === '' ? {} : raw; // an empty <…Result/> element
    if (!isRecord(result)) {
      throw new DianError('invalid_response', `DIAN ${operation} answered ${parsed.element} without ${operation}Result`, false);
    }
    return result;
  }

  const gateway: DianGateway = {
    async sendEvent(zip: Buffer, fileName: string): Promise<DianSendResult> {
      if (zip.length === 0) throw new Error(`sendEvent: ${fileName} is empty`);
      // The WSDL's SendEventUpdateStatus takes only contentFile; the ZIP's own entry names the XML.
      const result = await call('SendEventUpdateStatus', { contentFile: zip.toString('base64') });
      return toSendResult(result);
    },

    async getXmlByDocumentKey(cufe: string) {
      const result = await call('GetXmlByDocumentKey', { trackId: cufe });
      const code = text(result['Code']);
      const xml = text(result['XmlBytesBase64']);
      if (code === '100' && xml) return { found: true as const, xml: Buffer.from(xml, 'base64') };
      if (!code) throw new DianError('invalid_response', 'GetXmlByDocumentKey answered without Code', false);
      return { found: false as const, statusCode: code, message: text(result['Message']) };
    },

    async getStatusEvent(cufe: string): Promise<DianRegisteredEvent[]> {
      const result = await call('GetStatusEvent', { trackId: cufe });
      const statusCode = text(result['StatusCode']);
      // 66: trackId unknown to DIAN; 67: the CUFE has no events yet.
      if (statusCode === '66' || statusCode === '67') return [];
      if (statusCode !== '00') {
        throw new DianError(
          'invalid_response',
          `GetStatusEvent answered StatusCode ${statusCode || '(none)'}: ${text(result['StatusDescription'])}`,
          statusCode === '98',
        );
      }
      const xml = text(result['XmlBase64Bytes']);
      return xml ? eventsFromApplicationResponse(Buffer.from(xml, 'base64').toString('utf8')) : [];
    },
  };

  if (settings.extensions?.listReceivedDocuments) {
    gateway.listReceivedDocuments = async (range): Promise<DianReceivedDocument[]> => {
      const result = await call('ListReceivedDocuments', {
        companyNit: range.companyNit,
        from: range.from,
        to: range.to,
        documentType: range.documentType,
      });
      const documents = Array.isArray(result['Document']) ? result['Document'] : [];
      return documents.filter(isRecord).map((document) => ({
        cufe: text(document['Cufe']),
        documentType: text(document['DocumentType']),
        issueDate: text(document['IssueDate']),
      }));
    };
  }
  if (settings.bulkListing) gateway.bulkListing = soapBulkListing(call);
  return gateway;
}

/** A GUID anywhere in a text (DIAN's request messages may carry the trackId only there). */
const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function soapBulkListing(call: (operation: SoapOperation, params: Record<string, string>) => Promise<Result>): DianBulkListing {
  return {
    async requestBulkDownload({ nit, from, to, group }) {
      // Parameter names and order are those of DIAN's interface (string nit, startDate, endDate, documentGroup).
      const result = await call('BulkDocumentDownloadAsync', { nit, startDate: from, endDate: to, documentGroup: group });
      const statusCode = text(result['StatusCode']);
      const description = text(result['StatusDescription']) || text(result['StatusMessage']);
      if (text(result['IsValid']).toLowerCase() !== 'true') return { refused: { statusCode: statusCode || '(none)', description } };
      // ASSUMED: the request's trackId comes back in XmlDocumentKey, or inside the description.
      const trackId = text(result['XmlDocumentKey']) || (GUID.exec(description)?.[0] ?? '');
      if (!trackId) throw new DianError('invalid_response', `BulkDocumentDownloadAsync accepted the request without a trackId: ${description}`, false);
      return { trackId };
    },

    async bulkDownloadStatus(trackId) {
      const result = await call('GetStatusBulkDocumentDownload', { trackId });
      const description = text(result['StatusDescription']) || text(result['StatusMessage']);
      if (text(result['IsValid']).toLowerCase() !== 'true') {
        return { state: 'refused' as const, statusCode: text(result['StatusCode']) || '(none)', description };
      }
      const url = text(result['UrlDescarga']);
      return url ? { state: 'ready' as const, url, description } : { state: 'pending' as const, description };
    },

    async docIdentifiersWithEvents(nit, date) {
      const result = await call('GetDocIdentifierWithEvents', { contributorCode: nit, dateNumber: date.replaceAll('-', '') });
      if (text(result['Success']).toLowerCase() !== 'true') {
        throw new DianError('invalid_response', `GetDocIdentifierWithEvents answered ${text(result['StatusCode'])}: ${text(result['Message'])}`, false);
      }
      const csv = Buffer.from(text(result['CsvBase64Bytes']), 'base64').toString('utf8');
      return [...new Set(csv.match(/\b[0-9a-f]{40,128}\b/gi) ?? [])].map((cufe) => cufe.toLowerCase());
    },
  };
}

function toSendResult(result: Result): DianSendResult {
  const statusCode = text(result['StatusCode']);
  const errorMessage = result['ErrorMessage'];
  const errors = isRecord(errorMessage) && Array.isArray(errorMessage['string']) ? errorMessage['string'].map(text).filter(Boolean) : [];
  return {
    accepted: text(result['IsValid']).toLowerCase() === 'true' && statusCode === '00',
    statusCode,
    description: text(result['StatusDescription']) || text(result['StatusMessage']),
    errors,
    documentKey: text(result['XmlDocumentKey']).toLowerCase() || null,
  };
}

const applicationResponseParser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'DocumentResponse',
});

/** GetStatusEvent's XmlBase64Bytes: an ApplicationResponse with one cac:DocumentResponse per event. */
export function eventsFromApplicationResponse(xml: string): DianRegisteredEvent[] {
  let document: Record<string, unknown>;
  try {
    document = applicationResponseParser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    throw new DianError('invalid_response', `GetStatusEvent returned unreadable XML: ${(error as Error).message}`, false);
  }
  const root = document['ApplicationResponse'];
  if (!isRecord(root)) throw new DianError('invalid_response', 'GetStatusEvent XML is not an ApplicationResponse', false);
  const responses = Array.isArray(root['DocumentResponse']) ? root['DocumentResponse'] : [];
  return responses.filter(isRecord).flatMap((documentResponse) => {
    const response = documentResponse['Response'];
    if (!isRecord(response)) return [];
    const code = text(response['ResponseCode']);
    if (!code) return [];
    const date = text(response['EffectiveDate']);
    const reference = documentResponse['DocumentReference'];
    const cude = isRecord(reference) ? text(reference['UUID']).toLowerCase() : '';
    return [{ code, description: text(response['Description']), date: date || null, cude: cude || null }];
  });
}
