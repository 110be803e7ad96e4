// `npx kasir-sandbox pay latest` completes the newest pending deposit of a running `npm start`,
// and the delivery line appears in the sandbox's output (here `npm start`'s: the sandbox runs in its process). The
// real compiled server (dist/server/start.js) and the real bin (the package's dist), as `npm start` and npx run them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sparePort } from './harness';

const BIN = join(
  'server/provider',
  JSON.parse(readFileSync('server/provider/package.json', 'utf8')).bin['kasir-sandbox'],
);

describe('kasir-sandbox pay latest against npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-e2e-cli-'));
  let output = '';
  let child: ReturnType<typeof spawn>;
  let shop = '';

  before(async () => {
    const [port, providerPort] = [await sparePort(), await sparePort()];
    shop = `http://localhost:${port}`;
    child = spawn(process.execPath, ['dist/server/start.js'], {
      env: {
        ...process.env,
        KASIR_LOG_LEVEL: undefined,
        PORT: String(port),
        PROVIDER_PORT: String(providerPort),
        KASIR_DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const deadline = Date.now() + 30_000;
    while (!output.includes('demo shop on http')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${shop}/api${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
    return ((await res.json()) as { data: { id: string; status: string } }).data;
  };

  it('completes the newest pending deposit; the shop gets its webhook and npm start prints the delivery line', async () => {
    const older = await post('/checkouts', { amount: '150000', currency: 'IDR' });
    await post(`/checkouts/${older.id}/deposit`, { method: 'BCA_VA' });
    const newest = await post('/checkouts', { amount: '99000', currency: 'IDR' });
    await post(`/checkouts/${newest.id}/deposit`, { method: 'QRIS' });

    const pay = spawnSync(process.execPath, [BIN, 'pay', 'latest'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, KASIR_DATA_DIR: dataDir },
    });
    assert.equal(pay.status, 0, pay.stderr);
    assert.match(pay.stdout, new RegExp(`^${newest.id}: paid what was due \\(99000 IDR, QRIS\\); status completed`));

    // The delivery line: JSON here (a pipe), with the event, the deposit, the shop's receiver and its 2xx.
    const deadline = Date.now() + 10_000;
    let line: { event: string; depositId: string; url: string; status: number; ms: number; msg: string } | undefined;
    while (!line && Date.now() < deadline) {
      const found = output.split('\n').find((l) => l.includes('"component":"webhooks"') && l.includes(newest.id));
      if (found) line = JSON.parse(found);
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(line, `no delivery line in npm start's output:\n${output.slice(-3000)}`);
    assert.equal(line.event, 'deposit.completed');
    assert.equal(line.url, `${shop}/api/webhooks/kasir`);
    assert.ok(line.status >= 200 && line.status < 300, `status ${line.status}`);
    assert.equal(typeof line.ms, 'number');

    // The shop saw it: the widget API reads the deposit completed; the older one is still pending.
    const read = async (id: string) =>
      ((await (await fetch(`${shop}/api/checkouts/${id}/deposit`)).json()) as { data: { status: string } }).data.status;
    assert.equal(await read(newest.id), 'completed');
    assert.equal(await read(older.id), 'pending');
  });
});
