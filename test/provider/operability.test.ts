// Running the service as an operator does: health and readiness probes, one JSON log line per request that never
// holds a secret, and a graceful stop (the listener's close(), and the kasir-sandbox command on SIGTERM).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hono } from 'hono';
import { listen } from '../../server/common/http-server';
import { createLogger } from '../../server/common/log';
import { createProviderApp } from '../../server/provider/process/app';
import { resolveProviderConfig } from '../../server/provider/instance/config';
import { createMailer } from '../../server/provider/mail/mailer';
import { openProvider } from '../../server/provider/process/main';
import { bodyOf, errorOf } from '../support/envelope';
import { commandArgs } from '../support/commands';
import { createTestProvider, signHeaders, testDatabaseEnv, type TestProvider } from '../support/provider';

describe('probes', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(() => p.close());

  it('GET /healthz answers 200 (alive)', async () => {
    const res = await p.app.request('/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(await bodyOf(res), { statusCode: 200, message: 'Alive' });
  });

  it('GET /readyz answers 200 while the database answers', async () => {
    const res = await p.app.request('/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(await bodyOf(res), { statusCode: 200, message: 'Ready' });
  });

  it('GET /readyz answers 503 in the envelope once the database is gone, while /healthz stays 200', async () => {
    const gone = await createTestProvider();
    await gone.deps.db.destroy();
    try {
      const res = await gone.app.request('/readyz');
      assert.equal(res.status, 503);
      assert.deepEqual(await errorOf(res), {
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'Not ready: the database does not answer',
      });
      assert.equal((await gone.app.request('/healthz')).status, 200);
    } finally {
      await gone.close().catch(() => {});
    }
  });
});

describe('the token signing key', () => {
  it('is kept in the database: a data dir from before has its key file adopted, and every opening after reads it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-key-'));
    const database = await testDatabaseEnv();
    try {
      writeFileSync(join(dataDir, 'jwt-secret'), 'the-key-of-an-older-data-dir\n');
      const config = resolveProviderConfig({ env: { KASIR_DATA_DIR: dataDir, ...database.env }, scryptN: 2 ** 10 });
      const first = await openProvider(config);
      assert.equal(first.jwtSecret, 'the-key-of-an-older-data-dir');
      rmSync(join(dataDir, 'jwt-secret'));
      // A restart (or another copy, on PostgreSQL) finds the key in the database, with no file.
      const second = await openProvider(config);
      assert.equal(second.jwtSecret, 'the-key-of-an-older-data-dir');
      await first.db.destroy();
      await second.db.destroy();
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is generated once when there is none, and is the same for openings racing each other', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-key-'));
    const database = await testDatabaseEnv();
    try {
      const config = resolveProviderConfig({ env: { KASIR_DATA_DIR: dataDir, ...database.env }, scryptN: 2 ** 10 });
      const first = await openProvider(config); // migrates
      assert.match(first.jwtSecret, /^[\w-]{64}$/);
      await first.db.deleteFrom('service_keys').where('name', '=', 'jwt_secret').execute();
      const racing = await Promise.all([openProvider(config), openProvider(config), openProvider(config)]);
      assert.notEqual(racing[0].jwtSecret, first.jwtSecret, 'a new key');
      assert.deepEqual(
        racing.map((d) => d.jwtSecret),
        [racing[0].jwtSecret, racing[0].jwtSecret, racing[0].jwtSecret],
      );
      for (const deps of [first, ...racing]) await deps.db.destroy();
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('request logs', () => {
  let p: TestProvider;
  const lines: string[] = [];
  let app: ReturnType<typeof createProviderApp>;
  before(async () => {
    p = await createTestProvider();
    const logger = createLogger('kasir-sandbox', {
      level: 'info',
      destination: {
        write: (line: string) => {
          lines.push(line);
        },
      },
    });
    app = createProviderApp({ ...p.deps, logger });
    // A login (password in the body), a signed request (signature headers), a bearer call (token), a query with an
    // email, and an unknown route: every kind of secret a request carries.
    await app.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: p.creds.email, password: p.creds.password }),
    });
    const target = '/v1/deposit?page=1&limit=5';
    await app.request(target, { headers: signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', target, '') });
    await app.request('/dashboard/api/account', {
      headers: { authorization: `Bearer ${p.creds.accessToken}`, 'x-request-id': 'req-from-the-proxy' },
    });
    await app.request(`/sandbox/mailbox?email=${encodeURIComponent(p.creds.email)}&token=abc`);
    logger.info(
      {
        password: 'hunter22',
        clientSecret: p.creds.clientSecret,
        account: { accountNumber: '1234567890123456', otp: '123456' },
      },
      'a careless caller',
    );
  });
  after(() => p.close());

  const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  it('writes one JSON line per request at info: request id, method, path, status and ms', () => {
    const requests = parsed().filter((l) => l.msg === 'request');
    assert.equal(requests.length, 4);
    for (const line of requests) {
      assert.equal(line.level, 30);
      assert.equal(typeof line.reqId, 'string');
      assert.equal(typeof line.ms, 'number');
      assert.equal(typeof line.status, 'number');
    }
    assert.deepEqual(
      requests.map((l) => [l.method, l.path, l.status]),
      [
        ['POST', '/v1/auth/login', 200],
        ['GET', '/v1/deposit', 200],
        ['GET', '/dashboard/api/account', 200],
        ['GET', '/sandbox/mailbox', 200],
      ],
    );
  });

  it('takes the request id a proxy sent', () => {
    assert.ok(parsed().some((l) => l.reqId === 'req-from-the-proxy' && l.path === '/dashboard/api/account'));
  });

  it('never holds a password, secret, token, signature, OTP, email query or account number', () => {
    const all = lines.join('\n');
    for (const secret of [
      p.creds.password,
      p.creds.clientSecret,
      p.creds.accessToken,
      p.creds.webhookSecret,
      'hunter22',
      '1234567890123456',
      '123456',
      'token=abc',
      'page=1',
    ]) {
      assert.ok(!all.includes(secret), `the log holds ${secret.slice(0, 6)}...`);
    }
    assert.ok(!/[0-9a-f]{64}/.test(all), 'no hex signature');
    assert.ok(!all.includes(encodeURIComponent(p.creds.email)), 'no query string');
  });

  it('masks the secret fields of an object a caller logs', () => {
    const careless = parsed().find((l) => l.msg === 'a careless caller')!;
    assert.equal(careless.password, '[redacted]');
    assert.equal(careless.clientSecret, '[redacted]');
    assert.deepEqual(careless.account, { accountNumber: '[redacted]', otp: '[redacted]' });
  });
});

describe('the mail log', () => {
  /** A login on a service whose logger writes to `lines`; the OTP it mailed. */
  async function loginLogged(sandbox: boolean) {
    const p = await createTestProvider({ sandbox });
    const lines: string[] = [];
    try {
      const logger = createLogger('kasir-sandbox', {
        level: 'info',
        destination: {
          write: (line: string) => {
            lines.push(line);
          },
        },
      });
      const app = createProviderApp({
        ...p.deps,
        logger,
        mailer: createMailer(p.deps.config, p.deps.db, p.deps.now, logger),
      });
      const res = await app.request('/v1/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: p.creds.email, password: p.creds.password }),
      });
      assert.equal(res.status, 200);
      const mail = await p.deps.db
        .selectFrom('sandbox_mailbox')
        .select('code')
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      return { log: lines.join(''), code: mail.code! };
    } finally {
      await p.close();
    }
  }

  it('outside sandbox mode without SMTP, says mail was not sent, with neither the code nor the full address', async () => {
    const { log, code } = await loginLogged(false);
    assert.match(log, /mail kept in the sandbox mailbox, not sent/);
    assert.ok(!log.includes(code), 'the OTP is in the log');
    assert.ok(!log.includes('merchant@sandbox.kasir.test'), 'the address is in the log');
  });

  it('in sandbox mode, prints the sandbox mail with its code (docs/design.md: the sandbox mailbox is printed to the log)', async () => {
    const { log, code } = await loginLogged(true);
    assert.match(log, /"msg":"sandbox mailbox"/);
    assert.ok(log.includes(code));
  });
});

describe('graceful close of the listener', () => {
  it('stops accepting, calls beforeClose first, lets a request in flight finish, then closes', async () => {
    const app = new Hono();
    const events: string[] = [];
    let arrived!: () => void;
    const requestArrived = new Promise<void>((r) => (arrived = r));
    app.get('/slow', async (c) => {
      arrived();
      await new Promise((r) => setTimeout(r, 300));
      events.push('slow answered');
      return c.text('done');
    });
    const server = await listen(app.fetch, 0, {
      hostname: '127.0.0.1',
      beforeClose: () => {
        events.push('beforeClose');
      },
    });
    const url = `http://127.0.0.1:${server.port}/slow`;
    const inFlight = fetch(url).then((r) => r.text());
    // Closed once the server holds the request (not after a fixed wait: on a busy machine it may not have arrived, and a
    // connection with no request yet is idle, which close() rightly cuts).
    await requestArrived;
    const closed = server.close().then(() => events.push('closed'));
    await new Promise((r) => setTimeout(r, 20));
    await assert.rejects(fetch(url, { headers: { connection: 'close' } }), 'a new connection is refused while closing');
    assert.equal(await inFlight, 'done');
    await closed;
    assert.deepEqual(events, ['beforeClose', 'slow answered', 'closed']);
  });

  it('cuts a request that outlives closeTimeoutMs', async () => {
    const app = new Hono();
    app.get('/hang', () => new Promise<Response>(() => {}));
    const server = await listen(app.fetch, 0, { hostname: '127.0.0.1', closeTimeoutMs: 100 });
    const hanging = fetch(`http://127.0.0.1:${server.port}/hang`).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await server.close();
    assert.ok(Date.now() - t0 < 1000);
    assert.ok((await hanging) instanceof Error);
  });
});

describe('kasir-sandbox on SIGTERM', () => {
  it('stops gracefully and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-sigterm-'));
    const database = await testDatabaseEnv();
    const child = spawn(process.execPath, commandArgs('kasir-sandbox'), {
      env: {
        ...process.env,
        KASIR_DATA_DIR: dataDir,
        PROVIDER_PORT: '0',
        KASIR_SCRYPT_N: '1024',
        KASIR_LOG_LEVEL: 'info',
        ...database.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 30_000);
        child.stdout.on('data', () => {
          const m = /sandbox on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      const missing = await fetch(`${url}/no-such-page`, { headers: { 'x-request-id': 'req-through-node' } });
      assert.equal(missing.status, 404);
      assert.equal(
        missing.headers.get('x-request-id'),
        'req-through-node',
        "the request id is answered (set on Node's response)",
      );
      assert.match((await fetch(`${url}/healthz`)).headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.match(
        out,
        /"reqId":"req-through-node","method":"GET","path":"\/no-such-page","status":404,.*"msg":"request"/,
        'JSON request lines at info',
      );
      assert.doesNotMatch(out, /"path":"\/healthz"/, 'probes are logged at debug');
      assert.match(out, /SIGTERM: stopping/);
    } finally {
      child.kill('SIGKILL');
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
