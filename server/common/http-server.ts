// Starts a Hono app on Node's HTTP server. Used by both the payment service and the merchant backend.
// Unlike @hono/node-server's serve(), a request Node can parse but no URL can be built from (a backslash in
// the path, an empty or invalid Host) is answered in the interface's error envelope instead of a bare 400.
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type FetchHandler = Parameters<typeof getRequestListener>[0];

export interface ListeningServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function listen(fetch: FetchHandler, port: number, hostname?: string): Promise<ListeningServer> {
  const server = createServer(getRequestListener(fetch, {
    hostname,
    errorHandler: (err) => {
      const message = err instanceof Error && err.message ? `Bad request: ${err.message}` : 'Bad request';
      return new Response(JSON.stringify({ statusCode: 400, error: 'Bad Request', message }), {
        status: 400,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
