/**
 * Feeding the DIAN simulator from another process (the worker, `npm start`'s seed): its
 * simulator-only HTTP administration (server.ts), next to the SOAP endpoint at
 * DIAN_SIMULATOR_URL. Never used for DIAN's real environments.
 */
import { withClientSpan } from '../../outbound/client-span';
import { DianError } from '../port';

function adminUrl(simulatorUrl: string, pathname: string): string {
  return new URL(pathname, simulatorUrl).toString();
}

async function post(url: string, body: string, contentType: string): Promise<Response> {
  let response: Response;
  try {
    response = await withClientSpan(
      { method: 'POST', url, peer: 'dian' },
      (traceHeaders) => fetch(url, { method: 'POST', headers: { ...traceHeaders, 'Content-Type': contentType }, body, signal: AbortSignal.timeout(10_000) }),
      (answer) => ({ status: answer.status }),
    );
  } catch (error) {
    throw new DianError('unavailable', `The DIAN simulator at ${url} cannot be reached: ${(error as Error).message}`, true, { cause: error });
  }
  if (response.status >= 500) throw new DianError('unavailable', `The DIAN simulator answered HTTP ${response.status}`, true);
  return response;
}

/**
 * Makes the simulator know one UBL document, as DIAN knows every validated one. Returns its CUFE,
 * or null when the simulator cannot read it as an Invoice/CreditNote/DebitNote.
 */
export async function registerDocumentWithSimulator(simulatorUrl: string, xml: Buffer | string): Promise<string | null> {
  const response = await post(adminUrl(simulatorUrl, '/simulator/documents'), Buffer.isBuffer(xml) ? xml.toString('utf8') : xml, 'application/xml');
  if (response.status !== 201) return null;
  return ((await response.json()) as { cufe: string }).cufe;
}

/** An event registered outside this service (DIAN's portal, another provider's software). */
export async function registerForeignEventWithSimulator(
  simulatorUrl: string,
  event: { cufe: string; code: string; id: string; senderNit: string; cude: string; date?: string; time?: string },
): Promise<void> {
  const { senderNit, ...rest } = event;
  const response = await post(adminUrl(simulatorUrl, '/simulator/events'), JSON.stringify({ ...rest, sender_nit: senderNit }), 'application/json');
  if (response.status !== 201) throw new DianError('invalid_response', `The DIAN simulator refused the event: HTTP ${response.status} ${await response.text()}`, false);
}
