// Two copies of the payment service (the compiled kasir-sandbox command, each its own port and data dir) on one fresh
// PostgreSQL database, as docs/design.md, "More than one copy" says: a token from one works on the other, a signed
// request replayed to the other is refused, a change on one shows on the other, each webhook reaches the receiver once,
// and a copy killed with SIGKILL while deposits are being completed loses nothing: every acknowledged completion is in
// the database and its webhook delivered (by the survivor, once the dead copy's claims ran out).
// Run by `npm run test:multi` (PostgreSQL from with-postgres.sh); build first (`npx tsc -b server/provider`).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { signedRequestHeaders } from '../../server/common/request-signing';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { createTestDatabase, testDatabaseUrl } from '../support/provider';

const CLI = 'server/provider/dist/provider/cli.js';

interface Copy {
  child: ChildProcess;
  url: string;
  credentials: SandboxCredentials;
  dataDir: string;
  output: string[];
}

async function startCopy(databaseUrl: string, webhookUrl: string): Promise<Copy> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-copy-'));
  const output: string[] = [];
  const child = spawn(process.execPath, [CLI], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      KASIR_DATA_DIR: dataDir,
      PROVIDER_PORT: '0',
      KASIR_WEBHOOK_URL: webhookUrl,
      KASIR_SCRYPT_N: '1024',
      KASIR_LOG_LEVEL: 'warn',
      KASIR_WEBHOOK_TIMEOUT_MS: '2000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`copy did not start: ${output.join('')}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`copy exited with ${code}: ${output.join('')}`)));
    child.stdout!.on('data', () => {
      const m = /sandbox on (http:\/\/\S+)/.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace('localhost', '127.0.0.1'));
      }
    });
  });
  const credentials = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
  return { child, url, credentials, dataDir, output };
}

async function stopCopy(copy: Copy | undefined): Promise<void> {
  if (!copy) return;
  if (copy.child.exitCode === null && copy.child.signalCode === null) {
    const exited = new Promise((resolve) => copy.child.once('exit', resolve));
    copy.child.kill('SIGTERM');
    await exited;
  }
  rmSync(copy.dataDir, { recursive: true, force: true });
}

interface Arrival {
  webhookId: string;
  depositId: string;
  type: string;
}

async function startReceiver() {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { depositId: string; type: string };
      arrivals.push({ webhookId: String(req.headers['webhook-id']), depositId: body.depositId, type: body.type });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** A bearer call; the answer's status and data. */
async function call<T>(
  copy: Copy,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: T; message: string }> {
  const res = await fetch(copy.url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: T; message: string };
  return { status: res.status, data: json.data, message: json.message };
}

const FIAT = {
  inputCurrency: 'IDR',
  inputAmount: 150000,
  outputCurrency: 'IDR',
  balanceType: 'fiat',
  paymentMethod: 'BCA_VA',
};

describe('two copies of the payment service on one PostgreSQL database', { timeout: 180_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let a: Copy;
  let b: Copy | undefined;
  let sql: pg.Client;
  const createOn = async (copy: Copy) => {
    const res = await call<{ depositId: string }>(copy, copy.credentials.accessToken, 'POST', '/v1/deposit/fiat', FIAT);
    assert.equal(res.status, 201, res.message);
    return res.data.depositId;
  };

  before(async () => {
    assert.ok(
      testDatabaseUrl,
      'KASIR_TEST_DATABASE_URL is not set: run through npm run test:multi (test/support/with-postgres.sh)',
    );
    assert.ok(existsSync(CLI), `${CLI} is missing: build first (npx tsc -b server/provider)`);
    database = await createTestDatabase();
    receiver = await startReceiver();
    // Started together: seeding, the token key and the sandbox password are decided once, whichever copy comes first.
    [a, b] = await Promise.all([startCopy(database.url, receiver.url), startCopy(database.url, receiver.url)]);
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });
  after(async () => {
    await sql?.end();
    await stopCopy(b);
    await stopCopy(a);
    await receiver?.close();
    await database?.drop();
  });

  it('seeds one merchant account: both copies write the same credentials', () => {
    const { accessToken: _a, ...first } = a.credentials;
    const { accessToken: _b, ...second } = b!.credentials;
    assert.deepEqual(
      { ...first, baseUrl: '', checkoutUrl: '', dashboardUrl: '' },
      { ...second, baseUrl: '', checkoutUrl: '', dashboardUrl: '' },
    );
  });

  it('accepts a token issued by one copy on the other (one signing key)', async () => {
    const res = await call(b!, a.credentials.accessToken, 'GET', '/dashboard/api/account');
    assert.equal(res.status, 200, res.message);
    assert.equal((await call(a, b!.credentials.accessToken, 'GET', '/dashboard/api/account')).status, 200);
  });

  it('lets the seeded password log in on either copy', async () => {
    for (const copy of [a, b!]) {
      const res = await fetch(`${copy.url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: a.credentials.email, password: a.credentials.password }),
      });
      assert.equal(res.status, 200);
    }
  });

  it('refuses a signed request replayed to the other copy', async () => {
    const { clientId, clientSecret } = a.credentials;
    const target = `/v1/deposit/${await createOn(a)}`;
    const body = JSON.stringify({ status: 'completed' });
    const headers = {
      ...signedRequestHeaders(clientId, clientSecret, 'PATCH', target, body),
      'content-type': 'application/json',
    };
    const first = await fetch(a.url + target, { method: 'PATCH', headers, body });
    assert.equal(first.status, 200);
    const replay = await fetch(b!.url + target, { method: 'PATCH', headers, body });
    assert.equal(replay.status, 401);
    assert.match(((await replay.json()) as { message: string }).message, /^Replay/);
  });

  it('shows on one copy a completion made on the other, at once (its read cache dropped by the notification)', async () => {
    const id = await createOn(a);
    const statusOn = async (copy: Copy) => {
      const target = `/v1/deposit/${id}`;
      const res = await fetch(copy.url + target, {
        headers: signedRequestHeaders(a.credentials.clientId, a.credentials.clientSecret, 'GET', target, ''),
      });
      return ((await res.json()) as { data: { status: string } }).data.status;
    };
    assert.equal(await statusOn(a), 'pending'); // cached on a now
    assert.equal(
      (await call(b!, a.credentials.accessToken, 'PATCH', `/v1/deposit/${id}`, { status: 'completed' })).status,
      200,
    );
    const t0 = Date.now();
    await waitFor(async () => (await statusOn(a)) === 'completed', 2000, 'the completion on a');
    assert.ok(Date.now() - t0 < 500, `seen after ${Date.now() - t0} ms`);
  });

  it('delivers each webhook once while both copies run', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await createOn(i % 2 ? a : b!));
    const before = receiver.arrivals.length;
    await Promise.all(
      ids.map((id, i) =>
        call(i % 3 ? a : b!, a.credentials.accessToken, 'PATCH', `/v1/deposit/${id}`, { status: 'completed' }),
      ),
    );
    await waitFor(() => ids.every((id) => receiver.arrivals.some((x) => x.depositId === id)), 10_000, 'every webhook');
    await new Promise((r) => setTimeout(r, 500));
    const arrived = receiver.arrivals.slice(before).filter((x) => ids.includes(x.depositId));
    assert.equal(arrived.length, ids.length, 'no webhook twice');
    assert.equal(new Set(arrived.map((x) => x.webhookId)).size, ids.length);
  });

  describe('one copy killed with SIGKILL while deposits are being completed', () => {
    const acknowledged = new Set<string>();
    let ids: string[];
    before(async () => {
      ids = [];
      for (let i = 0; i < 200; i++) ids.push(await createOn(a));
      const token = a.credentials.accessToken;
      let next = 0;
      let killed = false;
      // 8 clients, each completing through the copies in turn; b is killed once 60 completions were acknowledged.
      await Promise.all(
        Array.from({ length: 8 }, async (_, client) => {
          while (next < ids.length) {
            const id = ids[next++];
            const copy = !killed && (client + next) % 2 ? b! : a;
            try {
              const res = await call(copy, token, 'PATCH', `/v1/deposit/${id}`, { status: 'completed' });
              if (res.status === 200) acknowledged.add(id);
            } catch {
              // b died under this request: unacknowledged, it may or may not have committed. The client retries on a.
              const res = await call(a, token, 'PATCH', `/v1/deposit/${id}`, { status: 'completed' });
              if (res.status === 200) acknowledged.add(id);
            }
            if (!killed && acknowledged.size >= 60) {
              killed = true;
              b!.child.kill('SIGKILL');
            }
          }
        }),
      );
      assert.ok(killed);
    });

    it('keeps every acknowledged completion in the database', async () => {
      const { rows } = await sql.query<{ deposit_id: string; status: string }>(
        'select deposit_id, status from deposits where deposit_id = any($1)',
        [[...acknowledged]],
      );
      assert.equal(rows.length, acknowledged.size);
      assert.ok(rows.every((r) => r.status === 'completed'));
    });

    it('has exactly one completion webhook in the outbox per completed deposit', async () => {
      const { rows } = await sql.query<{ deposit_id: string; n: string }>(
        `select d.deposit_id, count(w.id) as n from deposits d left join webhook_deliveries w on w.deposit_id = d.deposit_id and w.event_type = 'deposit.completed'
         where d.deposit_id = any($1) and d.status = 'completed' group by d.deposit_id`,
        [ids],
      );
      assert.ok(rows.length >= acknowledged.size);
      for (const r of rows) assert.equal(Number(r.n), 1, r.deposit_id);
    });

    it("delivers every completion's webhook, recorded as succeeded (the dead copy's claims taken over after their lease)", async () => {
      await waitFor(
        async () => {
          const { rows } = await sql.query<{ n: string }>(
            `select count(*) as n from webhook_deliveries where deposit_id = any($1) and event_type = 'deposit.completed' and status <> 'succeeded'`,
            [ids],
          );
          return Number(rows[0].n) === 0;
        },
        60_000,
        'every delivery recorded as succeeded',
      );
      const { rows } = await sql.query<{ id: string; deposit_id: string }>(
        `select id, deposit_id from webhook_deliveries where deposit_id = any($1) and event_type = 'deposit.completed'`,
        [ids],
      );
      const received = new Set(receiver.arrivals.map((x) => x.webhookId));
      for (const r of rows) assert.ok(received.has(r.id), `webhook ${r.id} of ${r.deposit_id} never arrived`);
      for (const id of acknowledged)
        assert.ok(
          rows.some((r) => r.deposit_id === id),
          id,
        );
    });

    it('sends a webhook twice only when the killed copy had it in flight (a 2xx it could not record)', async () => {
      await new Promise((r) => setTimeout(r, 1500)); // well past the survivor's next look at the outbox
      const counts = new Map<string, number>();
      for (const x of receiver.arrivals) counts.set(x.webhookId, (counts.get(x.webhookId) ?? 0) + 1);
      const twice = [...counts.values()].filter((n) => n > 1);
      assert.ok(
        twice.every((n) => n === 2),
        'never more than twice',
      );
      // A copy holds at most its concurrency bound (256) of claims; a fast receiver leaves very few in flight.
      assert.ok(twice.length <= 32, `${twice.length} webhooks arrived twice`);
      const { rows } = await sql.query<{ n: string }>(
        `select count(*) as n from webhook_attempts a join webhook_deliveries w on w.id = a.delivery_id
        where w.deposit_id = any($1) and a.response_status between 200 and 299`,
        [ids],
      );
      const distinct = new Set(receiver.arrivals.filter((x) => ids.includes(x.depositId)).map((x) => x.webhookId)).size;
      assert.equal(Number(rows[0].n), distinct, 'one recorded success per webhook');
    });

    it('leaves the survivor serving', async () => {
      const res = await fetch(`${a.url}/readyz`);
      assert.equal(res.status, 200);
    });
  });
});
