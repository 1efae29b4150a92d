import path from 'node:path';
import { verifyXadesSignature } from '../../domain/dian/xades';
import { startDianSimulator, type DianSimulator, type DianSimulatorOptions } from '../../integrations/dian/simulator/server';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from './api';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { FIXTURES } from './ingestion';
import { startReceiver, verifiedEvents } from './receiver';
import { startTestWorker, type TestWorker } from './worker';

/** The fixtures whose customer is NIT 900108281 (the world's company). */
export const BUYER_FIXTURES = ['invoice-signed-setp.xml', 'creditnote-usd.xml', 'toolbox-excluded-vat.xml'];

/**
 * DIAN end to end on the dev server: the simulator (verifying XAdES signatures of the events it
 * receives, its catalog seeded with the buyer's fixtures), the API and the worker pointed at it,
 * a company (NIT 900108281) with DIAN settings in environment 'simulator', and a webhook receiver.
 */
export async function startDianWorld(options: { env?: Record<string, string>; simulator?: DianSimulatorOptions } = {}) {
  const simulator: DianSimulator = await startDianSimulator({
    verifyApplicationResponse: verifyXadesSignature,
    seedFiles: BUYER_FIXTURES.map((name) => path.join(FIXTURES, name)),
    ...options.simulator,
  });
  const api: TestApi = await startTestApi({ DIAN_SIMULATOR_URL: simulator.url, ...options.env });
  const worker: TestWorker = await startTestWorker(api.database, api.config);
  const receiver = await startReceiver();
  const company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  const key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' })).key;
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${api.url}${url}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  };
  const endpoint = await call('POST', `/v1/companies/${company.id}/webhooks`, { url: receiver.url, events: [] });
  const secret = endpoint.body.secret as string;
  const certificate = generateTestPkcs12('clave-p12', { commonName: 'Opticas GMO firma' });
  const settings = await call('PUT', `/v1/companies/${company.id}/dian-settings`, {
    environment: 'simulator',
    software_id: 'c7f0b5a4-1111-4a0e-9d8b-000000000001',
    software_pin: '12345',
    certificate_p12_base64: certificate.p12.toString('base64'),
    certificate_password: certificate.password,
  });
  if (settings.status !== 200) throw new Error(`dian-settings: ${JSON.stringify(settings)}`);

  return {
    simulator, api, worker, receiver, company, key, call, certificate,
    /** Verified webhook events of one type, in arrival order. */
    events(type: string): { id: string; type: string; data: Record<string, any> }[] {
      return verifiedEvents(receiver.received, secret).filter((event) => event.type === type);
    },
    async close() {
      await worker.stop();
      await receiver.close();
      await api.close();
      await simulator.close();
    },
  };
}

export type DianWorld = Awaited<ReturnType<typeof startDianWorld>>;
