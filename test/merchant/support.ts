// A real payment-service sandbox (started over HTTP on port 0, fresh data dir, cheap scrypt) and the merchant
// backend configured from its credentials. Tests may start the provider; the backend itself never imports it.
import { makeOrderToken } from '../../server/merchant/orders/order-token';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxDeps, startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import type { Checkout, Method } from '@kasir/checkout';
import { Hono } from 'hono';
import { createKasirApi } from '../../server/merchant/api';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { createLogger } from '../../server/merchant/index';
import type { Deposit } from '../../server/merchant/client/types';
import type { SignableRequest } from '../../server/merchant/client/signing';
import type { KasirApiOptions } from '../../server/merchant/config';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { testDatabaseEnv } from '../support/provider';
import { commandArgs } from '../support/commands';
export type { Envelope } from '../support/envelope';

/** The fields every envelope of the widget API has, success or error (an error adds its label). */
export interface AnyEnvelope {
  statusCode: number;
  message: string;
  error?: string;
}

export interface Upstream {
  provider: RunningSandbox;
  /** Calls the merchant backends of this stack made to the payment service, by "METHOD path". */
  calls: string[];
  countingFetch: typeof fetch;
  /** createKasirApi's options for the sandbox merchant (sandbox routes on), with overrides. */
  config(overrides?: Partial<KasirApiOptions>): KasirApiOptions;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-merchant-test-'));
  const database = await testDatabaseEnv(); // PostgreSQL when the suite runs on it (test:server:pg)
  const provider = await startSandbox({
    env: { KASIR_DATA_DIR: dataDir, ...database.env },
    port: 0,
    scryptN: 2 ** 10,
    sweepIntervalMs: 60_000,
  });
  const calls: string[] = [];
  const countingFetch: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return fetch(input, init);
  };
  const creds = provider.credentials;
  return {
    provider,
    calls,
    countingFetch,
    config: (overrides = {}) => ({
      baseUrl: creds.baseUrl,
      checkoutUrl: creds.checkoutUrl,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      accessToken: creds.accessToken,
      webhookSecret: creds.webhookSecret,
      sandbox: true,
      dataDir: false, // memory: a test leaves nothing behind (a test of restarts passes its own)
      // The follower reads nothing within a test unless it asks (its own tests set a short followMs): the tests that
      // count upstream calls count the status cache's.
      followMs: 3_600_000,
      ...overrides,
    }),
    async close() {
      await provider.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The order secret of the tests' shops that open orders from a page (docs/security.md). */
export const ORDER_SECRET = 'test-order-secret-0123456789abcdef-0123456789';
/** The token a shop's server renders for `orderId` under ORDER_SECRET (kasir.orderToken). */
export const orderTokenOf = (orderId: string, expiresIn?: number) =>
  makeOrderToken(ORDER_SECRET, orderId, Date.now(), { expiresIn });

/** Points the sandbox merchant's webhooks at a running backend. */
export async function routeWebhooksTo(upstream: Upstream, url: string) {
  await sandboxDeps(upstream.provider)
    .db.updateTable('merchants')
    .set({ webhook_url: `${url}/api/webhooks/kasir` })
    .execute();
}

/** createKasirApi mounted at /api, as a shop mounts it; `.api` is createKasirApi's app, `.service` its service. */
export function merchantApp(
  upstream: Upstream,
  options: Partial<KasirApiOptions> = {},
  config: Partial<KasirApiOptions> = {},
) {
  const api = createKasirApi({ ...upstream.config(config), fetch: upstream.countingFetch, ...options });
  return Object.assign(new Hono().route('/api', api), { service: api.service, api });
}

export async function runningMerchant(
  upstream: Upstream,
  options: Partial<KasirApiOptions> = {},
  config: Partial<KasirApiOptions> = {},
): Promise<RunningMerchant> {
  const merchant = await startMerchant({
    ...upstream.config(config),
    fetch: upstream.countingFetch,
    ...options,
    port: 0,
  });
  await routeWebhooksTo(upstream, merchant.url);
  return merchant;
}

/**
 * app.request() with a JSON body; a POST is sent as application/json, body or not, as the element sends it (headers
 * override). `json` is the answer's JSON as the type the test expects (its assertions then check
 * it is): an envelope's common fields unless told, e.g. `call<Envelope<Checkout>>(...)`; undefined when the body is
 * empty or not JSON.
 */
export async function call<T = AnyEnvelope>(
  app: { request: (input: string, init?: RequestInit) => Response | Promise<Response> },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await app.request(`http://localhost${path}`, {
    method,
    headers: { ...(body === undefined && method === 'GET' ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  // Read the headers before the body: after serve() in this process, @hono/node-server's lightweight
  // Response forgets headers set by middleware once its body was read.
  const resHeaders = new Headers(res.headers);
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { res, headers: resHeaders, status: res.status, json: json as T, text };
}

/** A checkout's method by its code; fails the test when the checkout has none. */
export function methodOf(checkout: Pick<Checkout, 'methods'>, code: string): Method {
  const method = checkout.methods.find((m) => m.code === code);
  assert.ok(method, `no ${code} among ${checkout.methods.map((m) => m.code).join(', ')}`);
  return method;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 8000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await sleep(stepMs);
  }
}

interface SseEvent {
  event?: string;
  data?: string;
}

/**
 * Opens an SSE stream and collects its events (and the `retry:` hints the server sends); `done` resolves when the
 * server closes it.
 */
export function openEvents(url: string, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const controller = new AbortController();
  let status = 0;
  let contentType = '';
  let retryAfter: string | null = null;
  let body = '';
  const done = (async () => {
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: controller.signal });
    status = res.status;
    contentType = res.headers.get('content-type') ?? '';
    retryAfter = res.headers.get('retry-after');
    if (!res.body) return;
    if (!contentType.startsWith('text/event-stream')) {
      body = await res.text();
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) e.event = line.slice(7);
            if (line.startsWith('data: ')) e.data = (e.data ? e.data + '\n' : '') + line.slice(6);
            if (line.startsWith('retry: ')) retries.push(Number(line.slice(7)));
          }
          if (e.event || e.data) events.push(e);
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  return {
    events,
    retries,
    done,
    close: () => controller.abort(),
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    get retryAfter() {
      return retryAfter;
    },
    get body() {
      return body;
    },
  };
}

/**
 * A deposit as the payment service answers it, with a user id and a note that must never reach a
 * shopper (the no-leak assertions look for them).
 */
export function upstreamDeposit(
  id: string,
  status: Deposit['status'],
  updatedAt = new Date().toISOString(),
  version = 1,
): Deposit {
  return {
    id: 'row1',
    depositId: id,
    depositType: 'fiat',
    userId: 'user-secret-id',
    inputCurrency: 'IDR',
    inputAmount: 150000,
    outputCurrency: 'IDR',
    exchangeRate: 1,
    outputAmount: 146000,
    fee: { amount: 4000, percentage: 0, currency: 'IDR' },
    paymentFiat: {
      bankName: 'Bank Central Asia',
      bankCode: 'BCA_VA',
      accountName: 'Kasir Sandbox Store',
      accountNumber: '3935812345678901',
    },
    paymentCrypto: {},
    status,
    activityHistory: [],
    reference: '',
    note: 'internal note',
    bankNote: '',
    paidAmount: status === 'completed' ? 150000 : 0,
    remainingAmount: status === 'pending' ? 150000 : 0,
    overpaidAmount: 0,
    paidValue: status === 'completed' ? 150000 : 0,
    remainingValue: status === 'pending' ? 150000 : 0,
    overpaidValue: 0,
    orderCurrency: 'IDR',
    payments:
      status === 'completed'
        ? [{ amount: 150000, currency: 'IDR', method: 'BCA_VA', value: 150000, receivedAt: updatedAt, late: false }]
        : [],
    expiredAt: new Date(Date.now() + 86_400_000).toISOString(),
    createdAt: updatedAt,
    updatedAt,
    version,
  };
}

/** The body of the deposit webhook for `deposit` (docs/design.md, "Webhooks"), as the service sends it. */
export function depositEvent(deposit: Deposit): string {
  return JSON.stringify({
    type: `deposit.${deposit.status}`,
    orderId: deposit.depositId,
    depositId: deposit.depositId,
    reference: '',
    status: deposit.status,
    data: deposit,
    timestamp: new Date().toISOString(),
  });
}

/**
 * Runs `kasir-merchant <args>` with only `env` for its configuration (none of this process's KASIR_* or REDIS_URL), as
 * a shop's terminal would; resolves with its exit code and output.
 */
export function runKasirMerchant(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('KASIR_') && key !== 'REDIS_URL'),
  );
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...commandArgs('kasir-merchant'), ...args], {
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A stand-in payment service that signs as SNAP BI does (HMAC-SHA512 over METHOD:path:token:bodyhash:timestamp,
 * base64, the access token signed in) and accepts nothing else: every /v1 call must carry its signature, and the
 * bearer calls its token too. `signer` is the shop's signRequest for it.
 */
export function snapStandIn(
  credentials = { clientId: 'partner-42', clientSecret: 'snap-secret', accessToken: 'b2b-token' },
) {
  const signature = (method: string, path: string, token: string, body: string, timestamp: string) =>
    createHmac('sha512', credentials.clientSecret)
      .update(`${method}:${path}:${token}:${createHash('sha256').update(body).digest('hex')}:${timestamp}`)
      .digest('base64');
  const signer = ({ method, path, body, timestamp, clientId, accessToken = '' }: SignableRequest) => ({
    'X-PARTNER-ID': clientId,
    'X-TIMESTAMP': timestamp,
    'X-SIGNATURE': signature(method, path, accessToken, body, timestamp),
  });
  const accepted: string[] = [];
  const app = new Hono();
  app.use('/v1/*', async (c, next) => {
    const url = new URL(c.req.url);
    const expected = signature(
      c.req.method,
      url.pathname + url.search,
      credentials.accessToken,
      await c.req.text(),
      c.req.header('x-timestamp') ?? '',
    );
    if (c.req.header('x-partner-id') !== credentials.clientId || c.req.header('x-signature') !== expected)
      return c.json({ statusCode: 401, error: 'Unauthorized', message: 'Invalid signature' }, 401);
    accepted.push(`${c.req.method} ${url.pathname}${url.search}`);
    await next();
  });
  const page = { docs: [], totalDocs: 0, limit: 1, page: 1, totalPages: 0, hasPrevPage: false, hasNextPage: false };
  app.get('/v1/deposit', (c) => c.json({ statusCode: 200, message: 'OK', data: page }));
  app.post('/v1/checkout', (c) =>
    c.json({ statusCode: 400, error: 'Bad Request', message: 'inputAmount or outputAmount is required' }, 400),
  );
  app.get('/v1/deposit/payment-method', (c) =>
    c.req.header('authorization') === `Bearer ${credentials.accessToken}`
      ? c.json({ statusCode: 200, message: 'OK', data: [] })
      : c.json({ statusCode: 401, error: 'Unauthorized', message: 'Invalid access token' }, 401),
  );
  const baseUrl = 'https://snap.example';
  return {
    accepted,
    signer,
    /** createKasirApi's options for this service (its fetch carries the calls to the stand-in). */
    options: {
      baseUrl,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      accessToken: credentials.accessToken,
      webhookSecret: 'whsec_dGVzdA==',
      dataDir: false,
      fetch: (async (input, init) =>
        app.fetch(new Request(input instanceof Request ? input : String(input), init))) as typeof fetch,
    } satisfies KasirApiOptions,
  };
}

/** A log that keeps its lines (JSON) for the test to read. */
export function capturedLog() {
  const lines: Array<{ msg: string } & Record<string, unknown>> = [];
  const logger = createLogger('kasir-merchant', {
    level: 'warn',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) },
  });
  return { logger, lines };
}

/** Pays at the service, as a bank would: no browser, no backend involved. */
export function serviceClient(up: Upstream) {
  const c = up.provider.credentials;
  return new PaymentServiceClient({
    baseUrl: c.baseUrl,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    accessToken: c.accessToken,
  });
}
