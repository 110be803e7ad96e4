// Merchant backend benchmark: widget-API status reads (GET /api/checkouts/:id/deposit) per second with 1,000
// concurrent clients over real HTTP, next to a bare Hono handler in the same run, and how many calls reached
// the payment service meanwhile (counted by the backend's instrumented fetch).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMerchantConfig } from '../../server/merchant/config';
import { startMerchant } from '../../server/merchant/server';
import { startSandbox } from '../../server/provider/main';
import { load, printRow, startBareHono } from './support';

const CONNECTIONS = 1000;

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-merchant-'));
  const provider = await startSandbox({ env: { ...process.env, KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0' }, port: 0, scryptN: 2 ** 12, sweepIntervalMs: 60_000 });
  let upstreamCalls = 0;
  const countingFetch: typeof fetch = (input, init) => {
    upstreamCalls++;
    return fetch(input, init);
  };
  const c = provider.credentials;
  const config = loadMerchantConfig({}, {
    baseUrl: c.baseUrl.replace('localhost', '127.0.0.1'), checkoutUrl: c.checkoutUrl.replace('localhost', '127.0.0.1'),
    clientId: c.clientId, clientSecret: c.clientSecret, accessToken: c.accessToken, webhookSecret: c.webhookSecret,
    port: 0, host: '127.0.0.1', sandbox: true, checkoutRateLimit: 10_000,
  });
  const merchant = await startMerchant({ ...config, fetch: countingFetch });
  const base = `http://127.0.0.1:${merchant.port}`;
  const bare = await startBareHono();
  try {
    // Pending checkouts with a chosen method: what shoppers poll.
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const created = await fetch(`${base}/api/checkouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: String(100000 + i), currency: 'IDR' }) });
      const { data } = (await created.json()) as { data: { id: string } };
      await fetch(`${base}/api/checkouts/${data.id}/deposit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: i % 2 ? 'QRIS' : 'BCA_VA' }) });
      ids.push(data.id);
    }
    const seconds = Number(process.env.BENCH_SECONDS || 5);
    console.log(`\nmerchant backend (widget API status reads, ${CONNECTIONS} connections, ${seconds} s each, status refresh ${config.statusRefreshMs} ms)`);
    const bareGet = await load({ url: bare.url, connections: CONNECTIONS });
    printRow('bare Hono GET (yardstick)', bareGet.requestsPerSecond, bareGet.requestsPerSecond, `p99 ${bareGet.p99Ms} ms`);

    const measure = async (label: string, options: Parameters<typeof load>[0], deposits: number) => {
      const before = upstreamCalls;
      const result = await load({ connections: CONNECTIONS, ...options });
      const calls = upstreamCalls - before;
      const served = result.requestsPerSecond * seconds;
      printRow(label, result.requestsPerSecond, bareGet.requestsPerSecond,
        `p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
      console.log(`  ${''.padEnd(48)} upstream calls ${calls} for ~${served} reads (${deposits} deposit${deposits > 1 ? 's' : ''}; 1 per ${calls ? Math.round(served / calls) : served} reads; bound ${Math.ceil((seconds * 1000) / config.statusRefreshMs + 1) * deposits})`);
    };

    const one = `/api/checkouts/${ids[0]}/deposit`;
    await measure('GET /api/checkouts/:id/deposit (one checkout)', { url: base + one }, 1);

    await measure('GET /api/checkouts/:id/deposit (50 checkouts)', {
      url: base + one,
      requests: ids.map((id) => ({ method: 'GET', path: `/api/checkouts/${id}/deposit` })),
    }, ids.length);

    const etag = (await fetch(base + one)).headers.get('etag') ?? '';
    await measure('GET .../deposit, If-None-Match (304, one checkout)', { url: base + one, headers: { 'if-none-match': etag } }, 1);
  } finally {
    await bare.stop();
    await merchant.stop();
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
