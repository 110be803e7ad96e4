// The yardstick of the signed read: the least code that does the same work as
// `GET /v1/deposit/:id`, on the same SQLite file the sandbox writes (read only, WAL lets both read at once): look up
// the client's secret, check the timestamp window, HMAC-SHA256 over the signing string, compare in constant time, read
// the row and its history by keys, answer the envelope. No validation layer, no caches, no log, no view building.
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { signatureMatches, signRequest } from '../../server/common/request-signing';

const WINDOW_MS = 300_000;

export async function startLeastCodeRead(sqliteFile: string): Promise<{ url: string; stop(): Promise<void> }> {
  const db = new Database(sqliteFile, { readonly: true, fileMustExist: true });
  const secretOf = db.prepare<[string], { id: string; client_secret: string }>(
    'SELECT id, client_secret FROM merchants WHERE client_id = ?',
  );
  const depositOf = db.prepare<[string, string], Record<string, unknown> & { id: string }>(
    'SELECT * FROM deposits WHERE deposit_id = ? AND merchant_id = ?',
  );
  const historyOf = db.prepare<[string], Record<string, unknown>>(
    'SELECT * FROM deposit_activities WHERE deposit_row_id = ? ORDER BY seq',
  );
  const refuse = (status: number, message: string) =>
    new Response(JSON.stringify({ statusCode: status, error: 'Unauthorized', message }), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  const app = new Hono();
  app.get('/v1/deposit/:id', (c) => {
    const clientId = c.req.header('x-client-id') ?? '';
    const timestamp = c.req.header('x-timestamp') ?? '';
    const signature = c.req.header('x-signature') ?? '';
    if (Math.abs(Date.now() - Date.parse(timestamp)) > WINDOW_MS) return refuse(401, 'Stale timestamp');
    const merchant = secretOf.get(clientId);
    if (!merchant) return refuse(401, 'Unknown client');
    if (!signatureMatches(signature, signRequest(merchant.client_secret, 'GET', c.req.path, '', timestamp)))
      return refuse(401, 'Bad signature');
    const row = depositOf.get(c.req.param('id'), merchant.id);
    if (!row) return c.json({ statusCode: 404, error: 'Not Found', message: 'Deposit not found' }, 404);
    return c.json({
      statusCode: 200,
      message: 'Deposit retrieved successfully',
      data: { ...row, activities: historyOf.all(row.id) },
    });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) =>
        server.close(() => {
          db.close();
          resolve();
        }),
      ),
  };
}
