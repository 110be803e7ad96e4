// One merchant process without Redis (`npm run start:merchant`, compiled: dist/server/merchant.js) keeps webhook dedupe,
// the once-per-deposit hook markers and its checkouts' orders in KASIR_DATA_DIR: killed (SIGKILL) and started again,
// it acknowledges a replayed webhook without running the hook again, ignores a new webhook id for a deposit whose
// hook ran ("Resend"), and still knows the order of a checkout created before the kill. Hook runs are counted from
// the process's own log lines (`deposit completed`).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { sandboxConnectionEnv } from '../support/sandbox-env';
import { routeWebhooksTo, startUpstream, waitFor, type Upstream } from './support';

const BIN = resolve(import.meta.dirname, '../../dist/server/merchant.js');

interface LogLine {
  msg?: string;
  checkoutId?: string;
  orderId?: string;
  webhookId?: string;
  url?: string;
  path?: string;
  status?: number;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The demo merchant process; its stdout's JSON lines collected. */
function startProcess(env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(process.execPath, [BIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let cut: number;
    while ((cut = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        /* not a log line */
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    lines,
    exited,
    get stderr() {
      return stderr;
    },
    hookRuns: () => lines.filter((l) => l.msg === 'deposit completed'),
  };
}

describe(
  'merchant process without Redis: restart and replay',
  { skip: !existsSync(BIN) && 'dist/server/merchant.js is not built (npm run build)' },
  () => {
    let up: Upstream;
    let dataDir: string;
    let base: string;
    let env: NodeJS.ProcessEnv;
    let client: PaymentServiceClient;
    const processes: Array<ReturnType<typeof startProcess>> = [];

    const start = async () => {
      const p = startProcess(env);
      processes.push(p);
      await waitFor(() => p.lines.some((l) => l.url) || p.child.exitCode !== null, 15_000);
      assert.equal(p.child.exitCode, null, p.stderr);
      return p;
    };
    const post = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body ?? {}),
      });
      return {
        status: res.status,
        json: (await res.json()) as { message: string; data?: unknown; orderId?: string; checkoutId?: string },
      };
    };
    const order = async () => {
      const created = await post('/shop/orders', { items: [{ sku: 'kopi', quantity: 1 }] });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const { orderId, checkoutId } = created.json as { orderId: string; checkoutId: string };
      assert.equal((await post(`/api/checkouts/${checkoutId}/deposit`, { method: 'QRIS' })).status, 201);
      return { orderId, checkoutId };
    };
    /**
     * The webhook the payment service sends for a deposit (docs/design.md, "Webhooks"), signed with the shop's secret.
     */
    const webhook = async (checkoutId: string, webhookId: string) => {
      const deposit = await client.getDeposit(checkoutId);
      const body = JSON.stringify({
        type: 'deposit.completed',
        orderId: checkoutId,
        depositId: checkoutId,
        reference: deposit.reference,
        status: deposit.status,
        data: deposit,
        timestamp: new Date().toISOString(),
      });
      return post('/api/webhooks/kasir', body, webhookHeaders(up.provider.credentials.webhookSecret, webhookId, body));
    };

    before(async () => {
      up = await startUpstream();
      dataDir = mkdtempSync(join(tmpdir(), 'kasir-merchant-restart-'));
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      await routeWebhooksTo(up, base);
      const c = up.provider.credentials;
      client = new PaymentServiceClient({
        baseUrl: c.baseUrl,
        checkoutUrl: c.checkoutUrl,
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        accessToken: c.accessToken,
      });
      env = {
        ...process.env,
        REDIS_URL: '',
        KASIR_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        KASIR_LOG_LEVEL: 'info',
        ...sandboxConnectionEnv(c),
      };
    });
    after(async () => {
      for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      await up.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    let paid: { orderId: string; checkoutId: string };
    let unpaid: { orderId: string; checkoutId: string };
    let firstRun: LogLine;

    it('runs the hook once when the payment service delivers the completion', async () => {
      const p = await start();
      paid = await order();
      unpaid = await order();
      assert.equal((await post(`/api/sandbox/checkouts/${paid.checkoutId}/pay`)).status, 200);
      firstRun = (await waitFor(() => p.hookRuns().find((l) => l.checkoutId === paid.checkoutId)))!;
      assert.equal(firstRun.orderId, paid.orderId);
      assert.ok(firstRun.webhookId);
      // Killed as soon as the webhook was acknowledged (its request line, logged after the answer was made): nothing
      // flushed on the way out. (Killed between the hook's return and the acknowledgement, the retry would run the hook
      // again: the one window the README names.)
      await waitFor(() =>
        p.lines.some((l) => l.msg === 'request' && l.path === '/api/webhooks/kasir' && l.status === 200),
      );
      p.child.kill('SIGKILL');
      await p.exited;
    });

    describe('started again on the same KASIR_DATA_DIR', () => {
      let p: ReturnType<typeof startProcess>;
      before(async () => {
        p = await start();
      });

      it('acknowledges the replayed webhook (same webhook-id) without running the hook', async () => {
        const replay = await webhook(paid.checkoutId, firstRun.webhookId!);
        assert.equal(replay.status, 200);
        assert.match(replay.json.message, /Duplicate/);
      });

      it('acknowledges a new webhook id for the completed deposit (a "Resend") without running the hook', async () => {
        const resend = await webhook(paid.checkoutId, `msg_resend_${paid.checkoutId}`);
        assert.equal(resend.status, 200);
        assert.equal(resend.json.message, 'Webhook received');
      });

      it('gives the hook of a checkout created before the restart its order', async () => {
        assert.equal((await post(`/api/sandbox/checkouts/${unpaid.checkoutId}/pay`)).status, 200);
        const run = (await waitFor(() => p.hookRuns().find((l) => l.checkoutId === unpaid.checkoutId)))!;
        assert.equal(run.orderId, unpaid.orderId);
      });

      it('ran no hook twice', () => {
        const runs = processes.flatMap((q) => q.hookRuns());
        assert.equal(runs.filter((l) => l.checkoutId === paid.checkoutId).length, 1);
        assert.equal(runs.filter((l) => l.checkoutId === unpaid.checkoutId).length, 1);
      });
    });
  },
);
