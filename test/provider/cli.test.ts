// kasir-sandbox as a merchant uses it from a terminal (docs/design.md, "Seeing and testing an integration"): the real
// command, spawned, starts a sandbox (one line per webhook attempt in its output), and the commands drive it through
// sandbox.json: pay, expire, deposits, webhooks (--follow), resend, env, each with --json, every error one line and
// exit 1. Also the data-dir lock: a second sandbox on a data dir in use refuses, a stale lock of a dead process is
// taken over.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger, readableLine } from '../../server/common/log';
import { logAttempt } from '../../server/provider/webhooks/attempt-log';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { runSandboxCommand, testDatabaseEnv } from '../support/provider';
import { commandArgs } from '../support/commands';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE_ENV = { ...process.env, KASIR_LOG_LEVEL: undefined, KASIR_SCRYPT_N: '1024', PROVIDER_HOST: undefined };

/** Runs a kasir-sandbox command to its end (test/support/provider.ts). */
const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  runSandboxCommand(args, { ...BASE_ENV, ...env });

/** Starts `kasir-sandbox start`, collecting its output. */
function startCli(env: Record<string, string | undefined>, args: string[] = []) {
  const child = spawn(process.execPath, [...commandArgs('kasir-sandbox'), 'start', ...args], {
    cwd: ROOT,
    env: { ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out, exited };
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

describe('kasir-sandbox commands against a running sandbox', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-cli-'));
  const env = { KASIR_DATA_DIR: dataDir };
  let sandbox: ReturnType<typeof startCli>;
  let creds: SandboxCredentials;
  let database: Awaited<ReturnType<typeof testDatabaseEnv>>;
  // The shop's receiver: refuses the signature (401) until told otherwise.
  let answer = 401;
  const received: IncomingMessage[] = [];
  const receiver = createServer((req, res) => {
    received.push(req);
    req.resume();
    res.writeHead(answer).end();
  });

  before(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/webhooks/kasir?token=not-for-logs`;
    database = await testDatabaseEnv();
    sandbox = startCli({ ...env, ...database.env, PROVIDER_PORT: '0', KASIR_WEBHOOK_URL: hookUrl });
    creds = await waitFor('sandbox.json and the sandbox answering', async () => {
      if (!sandbox.out.stdout.includes('payment service sandbox on')) return false;
      return JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
    });
  });
  after(async () => {
    if (process.env.DEBUG_CLI_TEST)
      console.error(sandbox.out.stdout.slice(-3000), sandbox.out.stderr.slice(-3000), sandbox.child.exitCode);
    await stop(sandbox.child);
    receiver.closeAllConnections();
    receiver.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const bearer = (method: string, path: string, body?: unknown) =>
    fetch(`${creds.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${creds.accessToken}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const createDeposit = async (paymentMethod = 'BCA_VA') => {
    const res = await bearer('POST', '/v1/deposit/fiat', {
      inputCurrency: 'IDR',
      inputAmount: 150000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod,
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { data: { depositId: string } }).data.depositId;
  };

  it('listens on loopback only by default', async (t) => {
    const port = new URL(creds.baseUrl).port;
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (!outside) return t.skip('this machine has no non-loopback IPv4 address');
    await assert.rejects(
      fetch(`http://${outside.address}:${port}/healthz`),
      (err: Error & { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED',
    );
  });

  it('env prints the merchant settings as KEY=value lines (and --json)', async () => {
    const out = await cli(['env'], env);
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(out.stdout.trim().split('\n'), [
      `KASIR_BASE_URL=${creds.baseUrl}`,
      `KASIR_CHECKOUT_URL=${creds.checkoutUrl}`,
      `KASIR_CLIENT_ID=${creds.clientId}`,
      `KASIR_CLIENT_SECRET=${creds.clientSecret}`,
      `KASIR_ACCESS_TOKEN=${creds.accessToken}`,
      `KASIR_WEBHOOK_SECRET=${creds.webhookSecret}`,
      'KASIR_SANDBOX=true',
    ]);
    const json = await cli(['env', '--json', '--data-dir', dataDir]);
    assert.equal(JSON.parse(json.stdout).KASIR_CLIENT_ID, creds.clientId);
  });

  it('pay latest completes the newest pending deposit, and the sandbox logs the attempt: status, URL without query, the signature hint', async () => {
    await createDeposit();
    const newest = await createDeposit('QRIS');
    const out = await cli(['pay', 'latest', '--json'], env);
    assert.equal(out.status, 0, out.stderr);
    const paid = JSON.parse(out.stdout);
    assert.equal(paid.depositId, newest);
    assert.equal(paid.status, 'completed');
    const line = await waitFor('the delivery line', () =>
      sandbox.out.stdout.split('\n').find((l) => l.includes('"component":"webhooks"') && l.includes(newest)),
    );
    const entry = JSON.parse(line);
    assert.equal(entry.level, 40);
    assert.equal(entry.event, 'deposit.completed');
    assert.equal(entry.depositId, newest);
    assert.equal(entry.status, 401);
    assert.equal(typeof entry.ms, 'number');
    assert.match(entry.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/webhooks\/kasir$/);
    assert.match(
      entry.msg,
      /deposit\.completed .* -> http:\/\/127\.0\.0\.1:\d+\/api\/webhooks\/kasir 401 in \d+ ms: the receiver refused the signature: it must use this sandbox's webhook secret/,
    );
    // No secret anywhere in the sandbox's output.
    for (const secret of [creds.clientSecret, creds.webhookSecret, creds.accessToken, creds.password, 'not-for-logs']) {
      assert.ok(!sandbox.out.stdout.includes(secret) && !sandbox.out.stderr.includes(secret), 'a secret in the output');
    }
  });

  it('pay and expire take a depositId; deposits lists newest first, filtered; errors are one line with exit 1', async () => {
    answer = 204;
    const a = await createDeposit();
    const b = await createDeposit();
    const paid = await cli(['pay', a], env);
    assert.equal(paid.status, 0, paid.stderr);
    assert.match(paid.stdout, new RegExp(`${a}: paid what was due .* status completed`));
    const expired = await cli(['expire', b], env);
    assert.equal(expired.status, 0, expired.stderr);
    assert.match(expired.stdout, new RegExp(`${b}: expired`));

    const list = await cli(['deposits', '--limit', '3'], env);
    assert.equal(list.status, 0, list.stderr);
    const rows = list.stdout.trim().split('\n');
    assert.match(rows[0], /^CREATED\s+DEPOSIT\s+METHOD\s+AMOUNT\s+STATUS$/);
    assert.equal(rows.length, 4);
    assert.ok(rows[1].includes(b) && rows[1].includes('expired'), rows[1]);
    assert.ok(rows[2].includes(a) && rows[2].includes('completed'), rows[2]);
    const completed = JSON.parse((await cli(['deposits', '--status', 'completed', '--json'], env)).stdout) as Array<{
      status: string;
    }>;
    assert.ok(completed.length >= 2 && completed.every((d) => d.status === 'completed'));

    for (const [args, message] of [
      [['pay', a], /^kasir-sandbox: PATCH \/v1\/deposit\/.*: 400 status: deposit is completed/],
      [['pay', 'nope'], /^kasir-sandbox: No deposit nope: /],
      [['pay'], /^kasir-sandbox: pay: give a depositId, a checkout id or latest/],
      [['pay', a, '--amount', '1,5'], /^kasir-sandbox: --amount: must be a positive decimal number/],
      [['deposits', '--status', 'paid'], /^kasir-sandbox: --status: must be pending, completed or expired/],
      [['deposits', '--limit', 'x'], /^kasir-sandbox: --limit: must be a whole number/],
      [['webhooks', '--bogus'], /^kasir-sandbox: webhooks: Unknown option '--bogus'/],
      [['frobnicate'], /^kasir-sandbox: unknown command "frobnicate"/],
      [
        ['resend', 'nope'],
        /^kasir-sandbox: POST \/sandbox\/deposits\/nope\/resend: 404 No webhook was sent for deposit nope/,
      ],
    ] as const) {
      const out = await cli([...args], env);
      assert.equal(out.status, 1, `${args.join(' ')}: ${out.stdout}`);
      assert.match(out.stderr, message);
      assert.equal(out.stderr.trim().split('\n').length, 1, out.stderr);
    }
  });

  it("webhooks lists attempts newest first; resend sends a deposit's last webhook again; --follow shows it as it happens", async () => {
    answer = 204;
    const id = await createDeposit();
    assert.equal((await cli(['pay', id], env)).status, 0);
    type Attempt = { id: number; depositId: string; status: number; event: string; url: string; time: string };
    const list = await waitFor('the attempt', async () => {
      const attempts = JSON.parse((await cli(['webhooks', '--json'], env)).stdout) as Attempt[];
      return attempts.some((a) => a.depositId === id) && attempts;
    });
    const ours = list.find((a) => a.depositId === id)!;
    assert.equal(ours.status, 204);
    assert.equal(ours.event, 'deposit.completed');
    assert.ok(
      list.some((a) => a.status === 401),
      'the earlier refused attempt is listed',
    );
    assert.deepEqual(
      list.map((a) => a.id),
      list.map((a) => a.id).sort((x, y) => y - x),
      'newest first',
    );
    const text = (await cli(['webhooks', '--limit', '50'], env)).stdout.trim().split('\n');
    assert.match(text[0], /^TIME\s+EVENT\s+DEPOSIT\s+URL\s+STATUS$/);
    assert.ok(
      text.some((row) => row.includes(id) && /\s204$/.test(row)),
      text.join('\n'),
    );
    assert.ok(
      text.some((row) => /401 \(signature refused: the receiver must use this sandbox's webhook secret\)$/.test(row)),
      text.join('\n'),
    );

    const follow = spawn(
      process.execPath,
      [...commandArgs('kasir-sandbox'), 'webhooks', '--follow', '--json', '--limit', '50'],
      { cwd: ROOT, env: { ...BASE_ENV, ...env } },
    );
    let followed = '';
    follow.stdout.setEncoding('utf8').on('data', (d: string) => (followed += d));
    try {
      await waitFor("the follower's first line", () => followed.includes(id));
      const resent = await cli(['resend', id], env);
      assert.equal(resent.status, 0, resent.stderr);
      assert.match(resent.stdout, new RegExp(`${id}: its last webhook \\(msg_.*\\) is queued again as msg_`));
      const firstDelivery = (
        JSON.parse(
          followed
            .trim()
            .split('\n')
            .find((l) => l.includes(id))!,
        ) as { deliveryId: string }
      ).deliveryId;
      await waitFor('the resent attempt in --follow', () =>
        followed
          .trim()
          .split('\n')
          .slice(1)
          .some((l) => {
            const a = JSON.parse(l) as { depositId: string; deliveryId: string };
            return a.depositId === id && a.deliveryId !== firstDelivery;
          }),
      );
    } finally {
      await stop(follow);
    }
  });

  it('a second sandbox on the data dir in use refuses with one line, and sandbox.json is left alone', async () => {
    const before = readFileSync(join(dataDir, 'sandbox.json'), 'utf8');
    const second = startCli({ ...env, ...database.env, PROVIDER_PORT: '0' });
    assert.equal(await second.exited, 1);
    assert.match(
      second.out.stderr.trim(),
      /^\[kasir-sandbox\] The data dir .* is in use by another sandbox \(pid \d+\); stop it, or give this one another KASIR_DATA_DIR$/,
    );
    assert.equal(readFileSync(join(dataDir, 'sandbox.json'), 'utf8'), before);
  });
});

describe('kasir-sandbox without a sandbox', () => {
  /** A port nothing listens on (one just closed). */
  const closedPort = () =>
    new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });

  it('names the missing sandbox.json, or the sandbox that does not answer, in one line', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'kasir-cli-empty-'));
    try {
      const out = await cli(['deposits'], { KASIR_DATA_DIR: empty });
      assert.equal(out.status, 1);
      assert.match(
        out.stderr.trim(),
        /^kasir-sandbox: No sandbox\.json in .*kasir-cli-empty-.*: start the sandbox first/,
      );
      const closed = await closedPort();
      writeFileSync(
        join(empty, 'sandbox.json'),
        JSON.stringify({ baseUrl: `http://127.0.0.1:${closed}`, clientId: 'x', clientSecret: 'y' }),
      );
      const down = await cli(['pay', 'latest'], { KASIR_DATA_DIR: empty });
      assert.equal(down.status, 1);
      assert.match(
        down.stderr.trim(),
        new RegExp(
          `^kasir-sandbox: No sandbox answers at http://127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\): is it running\\?`,
        ),
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a stale lock (its process gone) is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kasir-cli-stale-'));
    const database = await testDatabaseEnv();
    // A pid that is no process: one that just exited.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    writeFileSync(join(dir, 'sandbox.lock'), `${dead}\n`);
    const started = startCli({ KASIR_DATA_DIR: dir, PROVIDER_PORT: '0', ...database.env });
    try {
      await waitFor(
        'the sandbox to start',
        () => started.out.stdout.includes('payment service sandbox on') || started.child.exitCode !== null,
      );
      assert.equal(started.child.exitCode, null, started.out.stderr);
      assert.equal(readFileSync(join(dir, 'sandbox.lock'), 'utf8').trim(), String(started.child.pid));
    } finally {
      await stop(started.child);
      await database.drop();
    }
    assert.ok(!existsSync(join(dir, 'sandbox.lock')), 'the lock is released on stop');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('log lines on a terminal', () => {
  it('are readable: time, level, message, and only the fields the message does not show', () => {
    const line = readableLine(
      JSON.stringify({
        level: 40,
        time: '2026-11-25T05:00:01.234Z',
        pid: 1,
        hostname: 'h',
        name: 'kasir-sandbox',
        component: 'webhooks',
        event: 'deposit.completed',
        depositId: 'd1',
        url: 'http://127.0.0.1:3000/api/webhooks/kasir',
        status: 401,
        ms: 12,
        deliveryId: 'msg_1',
        msg: 'webhook deposit.completed d1 -> http://127.0.0.1:3000/api/webhooks/kasir 401 in 12 ms: the receiver refused the signature',
      }),
    );
    assert.equal(
      line,
      '05:00:01 WARN  webhook deposit.completed d1 -> http://127.0.0.1:3000/api/webhooks/kasir 401 in 12 ms: the receiver refused the signature deliveryId=msg_1\n',
    );
  });
});

describe('the delivery line of a refused connection', () => {
  it('says that nothing listens there and which setting to change', () => {
    const lines: string[] = [];
    const log = createLogger('kasir-sandbox', {
      level: 'info',
      destination: {
        write: (line: string) => {
          lines.push(line);
        },
      },
    });
    logAttempt(
      log,
      {
        event: 'deposit.completed',
        depositId: 'd1',
        url: 'http://localhost:3000/api/webhooks/kasir',
        status: null,
        error: 'connect ECONNREFUSED 127.0.0.1:3000',
        ms: 2,
        attempt: 1,
        deliveryId: 'msg_1',
      },
      true,
    );
    const entry = JSON.parse(lines[0]) as { level: number; msg: string };
    assert.equal(entry.level, 40);
    assert.equal(
      entry.msg,
      'webhook deposit.completed d1 -> http://localhost:3000/api/webhooks/kasir failed: connect ECONNREFUSED 127.0.0.1:3000 in 2 ms: ' +
        'nothing listens there: start the receiver, or set the webhook URL (KASIR_WEBHOOK_URL, or the dashboard)',
    );
  });
});
