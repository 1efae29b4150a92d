import type http from 'node:http';

/**
 * The bare node:http baselines' shared tail: keep-alive as the API's (api/start-api.ts), listen
 * on PORT/HOST, and on SIGINT/SIGTERM close the server and the pool, then exit (a second
 * signal exits 130 at once).
 */
export function listenUntilSignalled(server: http.Server, pool: { end(): Promise<void> }, options: { name: string; defaultPort: number }): void {
  server.keepAliveTimeout = 65_000; // as api/start-api.ts

  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    server.close(() => {
      pool.end().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeIdleConnections();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const host = process.env.HOST ?? '127.0.0.1';
  server.listen(Number(process.env.PORT ?? options.defaultPort), host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : process.env.PORT;
    console.log(`${options.name} listening on http://${host}:${port}`);
  });
}
