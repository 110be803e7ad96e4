// The newcomer's reproductions (a live shop built from the tarballs): a restart between the order and its payment,
// two copies without Redis, the command's reconcile, the hosted checkout switched off; and the smaller things met on
// the way (a sandbox's credentials spread in, a .env read by the command).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sandboxDeps } from '../../server/provider/process/main';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { createKasirApi, type KasirApi } from '../../server/merchant/api';
import type { KasirApiOptions } from '../../server/merchant/config';
import type { CompletedDeposit } from '../../server/merchant/hooks';
import {
  capturedLog,
  depositEvent,
  routeWebhooksTo,
  runKasirMerchant,
  serviceClient,
  startUpstream,
  type Upstream,
} from './support';

interface Run {
  orderId?: string;
  checkoutId: string;
  at: number;
}

describe("the newcomer's reproductions", () => {
  let up: Upstream;
  let dir: string;
  const cwd = process.cwd();
  before(async () => {
    up = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'kasir-newcomer-'));
  });
  after(async () => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
    await up.close();
  });

  const deliver = async (api: KasirApi, checkoutId: string) => {
    const deposit = await serviceClient(up).getDeposit(checkoutId);
    const body = depositEvent(deposit);
    return api.request('http://localhost/webhooks/kasir', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...webhookHeaders(up.provider.credentials.webhookSecret, `msg_${randomUUID()}`, body),
      },
      body,
    });
  };

  it('1. a restart between the order and its payment: the retried webhook runs onDepositCompleted with its orderId (state on disk by default)', async () => {
    process.chdir(dir); // createKasirApi's default data dir is ./.kasir, here
    try {
      const runs: Run[] = [];
      const options = {
        ...up.config(),
        dataDir: undefined, // as every README example writes it: nothing said
        onDepositCompleted: (e: CompletedDeposit) =>
          void runs.push({ orderId: e.orderId, checkoutId: e.checkoutId, at: Date.now() }),
      };
      const before = createKasirApi(options);
      const { id } = await before.createCheckout({ amount: '150000', orderId: 'order-restart-1' });
      await before.service.chooseMethod(id, 'BCA_VA');
      await before.close();
      await serviceClient(up).sandboxPay(id);
      const afterRestart = createKasirApi(options);
      try {
        assert.equal((await deliver(afterRestart, id)).status, 200);
        assert.deepEqual(
          runs.map((run) => run.orderId),
          ['order-restart-1'],
        );
        const state = (await afterRestart.check()).checks.find((check) => check.name === 'state');
        assert.match(state?.message ?? '', /\.kasir/);
      } finally {
        await afterRestart.close();
      }
    } finally {
      process.chdir(cwd);
    }
  });

  it('2. two copies without Redis: a webhook landing on the copy that did not make the checkout says so, naming REDIS_URL and KASIR_DATA_DIR', async () => {
    const { logger, lines } = capturedLog();
    const a = createKasirApi({ ...up.config(), dataDir: join(dir, 'copy-a') });
    const b = createKasirApi({ ...up.config(), dataDir: join(dir, 'copy-b'), logger });
    try {
      const { id } = await a.createCheckout({ amount: '150000', orderId: 'order-copies-1' });
      await a.service.chooseMethod(id, 'BCA_VA');
      await serviceClient(up).sandboxPay(id);
      assert.equal((await deliver(b, id)).status, 200);
      assert.equal((await deliver(b, id)).status, 200);
      const told = lines.filter((line) => /no record of/.test(line.msg));
      assert.equal(told.length, 1, JSON.stringify(lines.map((l) => l.msg)));
      assert.match(told[0]!.msg, /REDIS_URL/);
      assert.match(told[0]!.msg, /KASIR_DATA_DIR/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("3. kasir-merchant reconcile marks no hook it did not run: it reports it, and the shop's reconcile then runs it", async () => {
    const dataDir = join(dir, 'shop-3');
    const runs: Run[] = [];
    const options = {
      ...up.config(),
      dataDir,
      onDepositCompleted: (e: CompletedDeposit) =>
        void runs.push({ orderId: e.orderId, checkoutId: e.checkoutId, at: Date.now() }),
    };
    const shop = createKasirApi(options);
    const { id } = await shop.createCheckout({ amount: '150000', orderId: 'order-reconcile-3' });
    await shop.service.chooseMethod(id, 'BCA_VA');
    await shop.close(); // the shop stopped
    await routeWebhooksTo(up, 'http://127.0.0.1:9');
    await serviceClient(up).sandboxPay(id);
    const c = up.provider.credentials;
    const command = await runKasirMerchant(['reconcile'], {
      KASIR_BASE_URL: c.baseUrl,
      KASIR_CLIENT_ID: c.clientId,
      KASIR_CLIENT_SECRET: c.clientSecret,
      KASIR_ACCESS_TOKEN: c.accessToken,
      KASIR_WEBHOOK_SECRET: c.webhookSecret,
      KASIR_DATA_DIR: dataDir,
      KASIR_LOG_LEVEL: 'warn',
    });
    assert.equal(command.code, 0, command.stdout + command.stderr);
    const line = command.stdout.split('\n').find((l) => l.includes(id)) ?? '';
    assert.match(line, /orderId=order-reconcile-3/);
    assert.match(line, /hooksRun=none/);
    assert.match(line, /hooksNotRun=onDepositCompleted/);
    const restarted = createKasirApi(options);
    try {
      const lines = await restarted.reconcile();
      assert.deepEqual(lines.find((l) => l.checkoutId === id)?.hooksRun, ['onDepositCompleted']);
      assert.deepEqual(
        runs.map((run) => run.orderId),
        ['order-reconcile-3'],
      );
    } finally {
      await restarted.close();
    }
  });

  it('reconcile runs onPaymentFailed too, for an attempt whose webhook never came, once', async () => {
    const failures: string[] = [];
    const api = createKasirApi({
      ...up.config(),
      onPaymentFailed: (e) => void failures.push(`${e.orderId}:${e.reason}`),
    });
    try {
      await routeWebhooksTo(up, 'http://127.0.0.1:9');
      const { id } = await api.createCheckout({ amount: '150000', orderId: 'order-failed-5' });
      await api.service.chooseMethod(id, 'BCA_VA');
      await up.provider.decline(id, { reason: 'insufficient_balance' });
      const first = await api.reconcile();
      assert.deepEqual(first.find((line) => line.checkoutId === id)?.hooksRun, ['onPaymentFailed']);
      const again = await api.reconcile();
      assert.deepEqual(again.find((line) => line.checkoutId === id)?.hooksRun, []);
      assert.deepEqual(failures, ['order-failed-5:insufficient_balance']);
    } finally {
      await api.close();
    }
  });

  it('4. the hosted checkout switched off: check fails naming the dashboard switch, and the refusal is logged', async () => {
    const db = sandboxDeps(up.provider).db;
    await db.updateTable('merchants').set({ checkout_enabled: 0 }).execute();
    const { logger, lines } = capturedLog();
    const api = createKasirApi({ ...up.config(), logger });
    try {
      const checkout = (await api.check()).checks.find((check) => check.name === 'checkout');
      assert.equal(checkout?.ok, false, JSON.stringify(checkout));
      assert.match(checkout!.message, /Checkout is not enabled/);
      assert.match(checkout!.message, /Hosted checkout enabled/);
      await assert.rejects(api.createCheckout({ amount: '150000', orderId: 'order-off-4' }));
      const told = lines.filter((line) => /refused to make a checkout/.test(line.msg));
      assert.equal(told.length, 1, JSON.stringify(lines.map((l) => l.msg)));
      assert.match(told[0]!.msg, /Hosted checkout enabled/);
    } finally {
      await db.updateTable('merchants').set({ checkout_enabled: 1 }).execute();
      await api.close();
    }
    const on = createKasirApi(up.config());
    try {
      assert.equal((await on.check()).checks.find((check) => check.name === 'checkout')?.ok, true);
    } finally {
      await on.close();
    }
  });
});

describe('a newcomer from the tarballs', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(() => up.close());

  it("takes a sandbox's credentials spread in (their dashboard sign-in ignored), and still refuses any other unknown name", async () => {
    const api = createKasirApi({ ...up.provider.credentials, sandbox: true, dataDir: false });
    try {
      assert.equal(api.config.clientId, up.provider.credentials.clientId);
    } finally {
      await api.close();
    }
    assert.throws(
      () => createKasirApi({ ...up.provider.credentials, dataDir: false, pasword: 'x' } as KasirApiOptions),
      /unknown option pasword \(did you mean password\?\)/,
    );
  });

  it('kasir-merchant reads a .env in its working directory', async () => {
    const c = up.provider.credentials;
    const dir = mkdtempSync(join(tmpdir(), 'kasir-dotenv-'));
    try {
      writeFileSync(
        join(dir, '.env'),
        [
          `KASIR_BASE_URL=${c.baseUrl}`,
          `KASIR_CLIENT_ID=${c.clientId}`,
          `KASIR_CLIENT_SECRET=${c.clientSecret}`,
          `KASIR_ACCESS_TOKEN=${c.accessToken}`,
          `KASIR_WEBHOOK_SECRET=${c.webhookSecret}`,
          'KASIR_SANDBOX=true',
        ].join('\n'),
      );
      const cli = fileURLToPath(new URL('../../server/merchant/cli.ts', import.meta.url));
      const clean = Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !key.startsWith('KASIR_') && key !== 'REDIS_URL'),
      );
      const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), cli, 'check', '--json'], {
          cwd: dir,
          env: clean,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.on('close', (code) => resolve({ code, stdout }));
      });
      assert.equal(out.code, 0, out.stdout);
      const report = JSON.parse(out.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean }> };
      assert.ok(report.checks.find((check) => check.name === 'credentials')?.ok, out.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
