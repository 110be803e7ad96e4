// Provider benchmark: deposit creations/s and signed GET /v1/deposit/:id per second over real HTTP
// (autocannon, 50 connections), each next to a bare Hono handler measured in the same run.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProviderConfig } from '../../server/provider/config';
import { startProvider } from '../../server/provider/main';
import { load, printRow, startBareHono } from './support';

function signedHeaders(clientId: string, secret: string, method: string, target: string, body: string) {
  const timestamp = new Date().toISOString();
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const signature = createHmac('sha256', secret).update(`${method}:${target}:${bodyHash}:${timestamp}`).digest('hex');
  return { 'x-client-id': clientId, 'x-timestamp': timestamp, 'x-signature': signature };
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-'));
  const config = loadProviderConfig({ ...process.env, KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0' }, { port: 0, scryptN: 2 ** 12, sweepIntervalMs: 60_000 });
  const provider = await startProvider(config);
  const bare = await startBareHono();
  const { clientId, clientSecret, accessToken } = provider.credentials;
  const base = provider.url.replace('localhost', '127.0.0.1');
  try {
    console.log('\npayment service (sandbox)');
    const bareGet = await load({ url: bare.url });
    const barePost = await load({ url: bare.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    printRow('bare Hono GET (yardstick)', bareGet.requestsPerSecond, bareGet.requestsPerSecond);
    printRow('bare Hono POST (yardstick)', barePost.requestsPerSecond, barePost.requestsPerSecond);

    let n = 0;
    const create = await load({
      url: `${base}/v1/deposit/fiat`,
      method: 'POST',
      setupRequest: (req) => {
        const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 + (n++ % 1000), outputCurrency: 'IDR', balanceType: 'fiat', paymentMethod: 'BCA_VA' });
        return { ...req, method: 'POST', path: '/v1/deposit/fiat', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` } };
      },
    });
    printRow('POST /v1/deposit/fiat (bearer, VA)', create.requestsPerSecond, barePost.requestsPerSecond, `p99 ${create.p99Ms} ms, non-2xx ${create.non2xx}`);

    // One deposit to read; its signature stays valid for the whole run (GETs are not replay-checked).
    const res = await fetch(`${base}/v1/deposit/fiat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ inputCurrency: 'IDR', inputAmount: 250000, outputCurrency: 'IDR', balanceType: 'fiat', paymentMethod: 'QRIS' }),
    });
    const { data } = (await res.json()) as { data: { depositId: string } };
    const target = `/v1/deposit/${data.depositId}`;
    const read = await load({
      url: `${base}${target}`,
      setupRequest: (req) => ({ ...req, method: 'GET', path: target, headers: signedHeaders(clientId, clientSecret, 'GET', target, '') }),
    });
    printRow('GET /v1/deposit/:id (signed)', read.requestsPerSecond, bareGet.requestsPerSecond, `p99 ${read.p99Ms} ms, non-2xx ${read.non2xx}`);
    const ratio = read.requestsPerSecond / bareGet.requestsPerSecond;
    console.log(`  signed read / bare handler: ${ratio.toFixed(2)} (target >= 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'})`);
  } finally {
    await bare.stop();
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
