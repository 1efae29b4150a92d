import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The OTLP/JSON body of POST /v1/traces, as far as tests read it. */
export type OtlpExport = {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
};

/** A real OTLP/HTTP receiver on loopback: records the body of every POST /v1/traces. */
export async function startOtlpReceiver() {
  const bodies: { contentType: string | undefined; body: string }[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') bodies.push({ contentType: request.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every span the receiver got, with the service.name of the process that sent it. */
export function receivedSpans(bodies: readonly { body: string }[]) {
  return bodies.flatMap(({ body }) =>
    (JSON.parse(body) as OtlpExport).resourceSpans.flatMap((resourceSpans) => {
      const service = resourceSpans.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue;
      return resourceSpans.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ service, ...span })));
    }),
  );
}
