// Starts a Hono app on Node's HTTP server. Used by both the payment service and the merchant backend.
// Unlike @hono/node-server's serve(), a request Node can parse but no URL can be built from (a backslash in
// the path, an empty or invalid Host) is answered in the interface's error envelope instead of a bare 400.
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type FetchHandler = Parameters<typeof getRequestListener>[0];

export interface ListenOptions {
  hostname?: string;
  /**
   * Called first when close() starts, after the server stopped accepting connections: end what would otherwise
   * never finish on its own (server-sent event streams) so close() does not wait for them until its timeout.
   */
  beforeClose?: () => void | Promise<void>;
  /** How long close() waits for in-flight requests before cutting their connections (default 10 s). */
  closeTimeoutMs?: number;
  /**
   * The longest a client may take to send a whole request, headers and body (default 15 s): one that drips its body,
   * or announces a longer Content-Length than it sends, is answered 408 and its connection closed after this, instead
   * of holding a socket for Node's 300 s. Every body these servers take is small (each route
   * bounds its own).
   */
  requestTimeoutMs?: number;
  /** The longest a client may take to send the request's headers (default 10 s, at most requestTimeoutMs). */
  headersTimeoutMs?: number;
}

export interface ListeningServer {
  server: Server;
  port: number;
  /**
   * Graceful: stops accepting, calls `beforeClose`, lets in-flight requests finish (up to `closeTimeoutMs`; their
   * keep-alive connections are told `Connection: close`), closes idle keep-alive connections, then any left.
   * Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

export async function listen(
  fetch: FetchHandler,
  port: number,
  hostnameOrOptions?: string | ListenOptions,
): Promise<ListeningServer> {
  const options: ListenOptions =
    typeof hostnameOrOptions === 'string' ? { hostname: hostnameOrOptions } : (hostnameOrOptions ?? {});
  const { hostname } = options;
  const handle = getRequestListener(fetch, {
    hostname,
    errorHandler: (err) => {
      const message = err instanceof Error && err.message ? `Bad request: ${err.message}` : 'Bad request';
      return new Response(JSON.stringify({ statusCode: 400, error: 'Bad Request', message }), {
        status: 400,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  });
  let inFlight = 0;
  let closing: Promise<void> | undefined;
  let drained: (() => void) | undefined;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  // Node looks for overdue requests once per connectionsCheckingInterval (30 s by default): a second keeps the bound
  // close to what is set.
  const server = createServer(
    { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) },
    (req, res) => {
      inFlight += 1;
      // A request that arrives on a kept-alive connection while closing is still answered, then the connection ends.
      if (closing) res.shouldKeepAlive = false;
      res.once('close', () => {
        inFlight -= 1;
        if (closing) server.closeIdleConnections();
        if (inFlight === 0) drained?.();
      });
      void handle(req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => resolve());
  });
  const close = async (): Promise<void> => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    try {
      await options.beforeClose?.();
    } finally {
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => {
            drained = resolve;
          }),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
          }),
        ]);
        clearTimeout(timer);
      }
      server.closeAllConnections();
      await stopped;
    }
  };
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => (closing ??= close()),
  };
}
