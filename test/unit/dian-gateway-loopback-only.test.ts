import test from 'ava';
import { DianError } from '../../integrations/dian/port';
import { createSoapDianGateway, DIAN_ENVIRONMENTS } from '../../integrations/dian/soap-gateway';

// The fuzzer may switch a company to habilitación or producción: with OUTBOUND_ALLOW_ONLY_LOOPBACK
// the gateway refuses DIAN's real hosts before signing or sending anything. (Its own file: the
// setting is process-wide.)
test('with OUTBOUND_ALLOW_ONLY_LOOPBACK the SOAP gateway never contacts DIAN, and still reaches loopback', async (t) => {
  process.env.OUTBOUND_ALLOW_ONLY_LOOPBACK = 'true';
  const contacted: string[] = [];
  const recordingFetch = (async (url: string | URL | Request) => {
    contacted.push(String(url));
    return new Response('not a SOAP envelope', { status: 503 });
  }) as typeof fetch;
  const signer = () => ({ action: 'http://wcf.dian.colombia/IWcfDianCustomerServices/GetStatusEvent', envelope: '<Envelope/>', contentType: 'application/soap+xml' });

  for (const url of Object.values(DIAN_ENVIRONMENTS)) {
    const gateway = createSoapDianGateway({ url, wsSecurity: signer, fetch: recordingFetch });
    const error = await t.throwsAsync(gateway.getStatusEvent('a'.repeat(96)), { instanceOf: DianError });
    t.like(error, { code: 'unavailable', retryable: false });
    t.regex(error!.message, /not a loopback address/);
  }
  t.deepEqual(contacted, []);

  const local = createSoapDianGateway({ url: 'http://127.0.0.1:9/WcfDianCustomerServices.svc', wsSecurity: signer, fetch: recordingFetch });
  await t.throwsAsync(local.getStatusEvent('a'.repeat(96)), { instanceOf: DianError });
  t.deepEqual(contacted, ['http://127.0.0.1:9/WcfDianCustomerServices.svc']);
});
