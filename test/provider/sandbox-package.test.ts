// @kasir/sandbox as a shop uses it: startSandbox from its entry (index.ts) in a test suite, and the compiled
// kasir-sandbox bin (dist/provider/cli.js, built by `npm run build`, which `npm test` runs first).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  SandboxConfigError,
  startSandbox,
  type RunningSandbox,
  type SandboxCredentials,
  type SandboxOptions,
} from '../../server/provider/index';
import { signHeaders, testDatabaseEnv } from '../support/provider';

const SANDBOX_JSON_KEYS = [
  'baseUrl',
  'checkoutUrl',
  'dashboardUrl',
  'email',
  'password',
  'clientId',
  'clientSecret',
  'accessToken',
  'webhookSecret',
];
const PACKAGE_DIR = resolve(import.meta.dirname, '../../server/provider');
const BIN = join(PACKAGE_DIR, 'dist/provider/cli.js');
const ENTRY = join(PACKAGE_DIR, 'dist/provider/index.js');
const FAST = { scryptN: 2 ** 10, sweepIntervalMs: 60_000 } satisfies SandboxOptions;

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A fetch signed with the sandbox merchant's client secret (docs/design.md, "Signed requests"). */
async function signed(
  sandbox: { url: string; credentials: SandboxCredentials },
  method: string,
  path: string,
  body?: unknown,
  timestamp?: string,
) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers = {
    ...signHeaders(sandbox.credentials.clientId, sandbox.credentials.clientSecret, method, path, raw, timestamp),
    ...(raw ? { 'Content-Type': 'application/json' } : {}),
  };
  return fetch(sandbox.url + path, { method, headers, body: raw || undefined });
}

/** A port nothing listens on (bound, read, released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

const isListening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

/** A webhook receiver on 127.0.0.1. */
async function startReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('startSandbox (@kasir/sandbox entry)', () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof testDatabaseEnv>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  before(async () => {
    dataDir = tempDir('kasir-sandbox-pkg-');
    database = await testDatabaseEnv();
    receiver = await startReceiver();
    // env: {} keeps the runner's own environment out; the options say everything.
    sandbox = await startSandbox({
      port: 0,
      dataDir,
      databaseUrl: database.env.DATABASE_URL,
      webhookUrl: receiver.url,
      env: {},
      ...FAST,
    });
  });
  after(async () => {
    await sandbox?.stop();
    await receiver?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens on the port picked for port 0 and writes sandbox.json with exactly the keys listed in docs/design.md, "Running it"', async () => {
    assert.ok(sandbox.port > 0);
    assert.equal(sandbox.url, `http://localhost:${sandbox.port}`);
    assert.equal(sandbox.dataDir, dataDir);
    const file = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8'));
    assert.deepEqual(Object.keys(file), SANDBOX_JSON_KEYS);
    assert.deepEqual(file, sandbox.credentials);
    assert.equal(file.baseUrl, sandbox.url);
    assert.equal(file.checkoutUrl, `${sandbox.url}/checkout`);
    assert.equal(file.dashboardUrl, `${sandbox.url}/dashboard`);
    assert.match(file.webhookSecret, /^whsec_/);
    const res = await fetch(`${sandbox.url}/v1/reference/currencies`);
    assert.equal(res.status, 200);
  });

  it('answers signed requests: a checkout created, paid with the sandbox status update, and its webhook delivered', async () => {
    let res = await signed(sandbox, 'POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    assert.equal(res.status, 200);
    const checkout = ((await res.json()) as { data: { id: string; url: string } }).data;
    assert.equal(checkout.url, `${sandbox.credentials.checkoutUrl}/${checkout.id}`);
    res = await fetch(`${sandbox.url}/checkout/${checkout.id}/deposit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ paymentMethod: 'BCA_VA' }),
    });
    assert.equal(res.status, 201);
    res = await signed(sandbox, 'PATCH', `/v1/deposit/${checkout.id}`, { status: 'completed' });
    assert.equal(res.status, 200);
    res = await signed(sandbox, 'GET', `/v1/deposit/${checkout.id}`);
    assert.equal(((await res.json()) as { data: { status: string } }).data.status, 'completed');

    // The webhookUrl option is where the seeded merchant's webhooks go, signed with the webhookSecret of sandbox.json.
    await waitFor(() => receiver.received.length > 0, 'the deposit.completed webhook');
    const [hook] = receiver.received;
    const event = new Webhook(sandbox.credentials.webhookSecret).verify(
      hook.body,
      hook.headers as Record<string, string>,
    ) as { type: string; depositId: string };
    assert.equal(event.type, 'deposit.completed');
    assert.equal(event.depositId, checkout.id);

    const unsigned = await fetch(`${sandbox.url}/v1/deposit/${checkout.id}`);
    assert.equal(unsigned.status, 401);
  });

  it('stop() closes the port and can be called twice', async () => {
    const dir = tempDir('kasir-sandbox-stop-');
    const db = await testDatabaseEnv();
    try {
      const other = await startSandbox({ port: 0, dataDir: dir, databaseUrl: db.env.DATABASE_URL, env: {}, ...FAST });
      assert.ok(await isListening(other.port));
      await Promise.all([other.stop(), other.stop()]);
      await other.stop();
      assert.equal(await isListening(other.port), false);
    } finally {
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('startSandbox on the same data dir again', () => {
  it('reuses the merchant account and its credentials (only the URLs follow the port)', async () => {
    const dataDir = tempDir('kasir-sandbox-restart-');
    const database = await testDatabaseEnv();
    const options: SandboxOptions = { port: 0, dataDir, databaseUrl: database.env.DATABASE_URL, env: {}, ...FAST };
    try {
      const first = await startSandbox(options);
      const earlier = first.credentials;
      await first.stop();
      const second = await startSandbox(options);
      try {
        const { baseUrl, checkoutUrl, dashboardUrl, ...secrets } = second.credentials;
        const { baseUrl: _b, checkoutUrl: _c, dashboardUrl: _d, ...secretsBefore } = earlier;
        assert.deepEqual(secrets, secretsBefore);
        assert.equal(baseUrl, second.url);
        assert.equal(checkoutUrl, `${second.url}/checkout`);
        assert.equal(dashboardUrl, `${second.url}/dashboard`);
        assert.deepEqual(JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')), second.credentials);
        // The token and the client secret of the first start work on the second.
        const res = await fetch(`${second.url}/v1/deposit/payment-method?currency=IDR`, {
          headers: { Authorization: `Bearer ${earlier.accessToken}` },
        });
        assert.equal(res.status, 200);
        assert.equal((await signed({ url: second.url, credentials: earlier }, 'GET', '/v1/deposit')).status, 200);
      } finally {
        await second.stop();
      }
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('gives a new token when sandbox.json outlives its database (the old one would name a user that is gone)', async () => {
    const dataDir = tempDir('kasir-sandbox-newdb-');
    const first = await testDatabaseEnv();
    const second = await testDatabaseEnv();
    try {
      const a = await startSandbox({ port: 0, dataDir, databaseUrl: first.env.DATABASE_URL, env: {}, ...FAST });
      await a.stop();
      for (const name of readdirSync(dataDir)) if (name.startsWith('kasir.sqlite')) rmSync(join(dataDir, name));
      const b = await startSandbox({ port: 0, dataDir, databaseUrl: second.env.DATABASE_URL, env: {}, ...FAST });
      try {
        assert.notEqual(b.credentials.clientId, a.credentials.clientId, 'a new merchant account');
        const res = await fetch(`${b.url}/v1/deposit/payment-method?currency=IDR`, {
          headers: { Authorization: `Bearer ${b.credentials.accessToken}` },
        });
        assert.equal(res.status, 200);
      } finally {
        await b.stop();
      }
    } finally {
      await first.drop();
      await second.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("takes unset options from the environment it is given (the bin's variables)", async () => {
    const dataDir = tempDir('kasir-sandbox-env-');
    const database = await testDatabaseEnv();
    try {
      const sandbox = await startSandbox({
        env: { PROVIDER_PORT: '0', KASIR_DATA_DIR: dataDir, KASIR_SCRYPT_N: '1024', ...database.env },
      });
      try {
        assert.equal(sandbox.dataDir, dataDir);
        assert.ok(existsSync(join(dataDir, 'sandbox.json')));
        assert.equal((await signed(sandbox, 'GET', '/v1/deposit')).status, 200);
      } finally {
        await sandbox.stop();
      }
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('runs on the clock it is given (now)', async () => {
    const dataDir = tempDir('kasir-sandbox-clock-');
    const database = await testDatabaseEnv();
    const later = new Date(Date.now() + 3 * 3600_000);
    try {
      const sandbox = await startSandbox({
        port: 0,
        dataDir,
        databaseUrl: database.env.DATABASE_URL,
        env: {},
        now: () => later,
        ...FAST,
      });
      try {
        // A signature stamped with the real time is 3 h away from the sandbox's clock; one stamped with its clock passes.
        const stale = await signed(sandbox, 'GET', '/v1/deposit');
        assert.equal(stale.status, 401);
        assert.match(((await stale.json()) as { message: string }).message, /timestamp/i);
        assert.equal((await signed(sandbox, 'GET', '/v1/deposit', undefined, later.toISOString())).status, 200);
      } finally {
        await sandbox.stop();
      }
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('startSandbox with a bad option', () => {
  let dataDir: string;
  before(() => {
    dataDir = tempDir('kasir-sandbox-bad-');
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['port -1', { port: -1 }, /^Invalid port: /],
    ['port 65536', { port: 65536 }, /^Invalid port: .*got 65536/],
    ['port 1.5', { port: 1.5 }, /^Invalid port: /],
    ['port "4010" (a string)', { port: '4010' }, /^Invalid port: /],
    [
      'databaseUrl mysql://',
      { databaseUrl: 'mysql://localhost/kasir' },
      /^Invalid databaseUrl: must be a postgres:\/\/ or postgresql:\/\/ URL/,
    ],
    ['databaseUrl a file path', { databaseUrl: './kasir.sqlite' }, /^Invalid databaseUrl: /],
    [
      'webhookUrl ftp://',
      { webhookUrl: 'ftp://shop.example/hooks' },
      /^Invalid webhookUrl: must be an http:\/\/ or https:\/\/ URL/,
    ],
    ['webhookUrl not a URL', { webhookUrl: 'shop.example/hooks' }, /^Invalid webhookUrl: /],
    ['baseUrl not http', { baseUrl: 'localhost:4010' }, /^Invalid baseUrl: /],
    ['host empty', { host: '' }, /^Invalid host: /],
    ['scryptN not a power of two', { scryptN: 1000 }, /^Invalid scryptN: must be a power of two/],
    ['expirySeconds.qris 0', { expirySeconds: { qris: 0 } }, /^Invalid expirySeconds\.qris: /],
    [
      'expirySeconds with an unknown kind',
      { expirySeconds: { cash: 60 } },
      /^Invalid expirySeconds: unknown kind "cash"/,
    ],
    ['sweepIntervalMs 0', { sweepIntervalMs: 0 }, /^Invalid sweepIntervalMs: /],
    ['smtpUrl http://', { smtpUrl: 'http://mail.example' }, /^Invalid smtpUrl: /],
    ['sandbox "yes"', { sandbox: 'yes' }, /^Invalid sandbox: must be true or false/],
    ['now not a function', { now: new Date() }, /^Invalid now: /],
    ['an unknown option', { prot: 4010 }, /^Invalid options: unknown option "prot"/],
    [
      'a misspelled option, with the nearest known name',
      { webhookURL: 'http://localhost:3000/h' },
      /^Invalid options: unknown option "webhookURL" \(did you mean webhookUrl\?\)$/,
    ],
    [
      'every problem at once',
      { port: -1, host: '', prot: 1, env: { KASIR_SANDBOX: 'yes' } },
      /^Invalid port: .*got -1; Invalid host: .*got ""; Invalid options: unknown option "prot" \(did you mean port\?\); Invalid KASIR_SANDBOX: must be true or false; got "yes"$/,
    ],
    [
      'PROVIDER_PORT=abc in env',
      { port: undefined, env: { PROVIDER_PORT: 'abc' } },
      /^Invalid PROVIDER_PORT: .*got "abc"/,
    ],
    ['DATABASE_URL=mysql:// in env', { env: { DATABASE_URL: 'mysql://localhost/kasir' } }, /^Invalid DATABASE_URL: /],
    ['KASIR_WEBHOOK_URL=ftp:// in env', { env: { KASIR_WEBHOOK_URL: 'ftp://x' } }, /^Invalid KASIR_WEBHOOK_URL: /],
    [
      'KASIR_EXPIRY_QRIS_SECONDS=soon in env',
      { env: { KASIR_EXPIRY_QRIS_SECONDS: 'soon' } },
      /^Invalid KASIR_EXPIRY_QRIS_SECONDS: /,
    ],
    [
      'KASIR_SANDBOX_RATES not JSON in env',
      { env: { KASIR_SANDBOX_RATES: '{USD: 1}' } },
      /^Invalid KASIR_SANDBOX_RATES: /,
    ],
  ];
  for (const [name, options, message] of cases) {
    it(`throws naming it: ${name}`, async () => {
      await assert.rejects(
        startSandbox({ port: 0, dataDir, env: {}, ...FAST, ...options } as SandboxOptions),
        (err: Error) => {
          assert.ok(err instanceof SandboxConfigError, `a SandboxConfigError, got ${err}`);
          assert.match(err.message, message);
          assert.doesNotMatch(err.message, /\n/, 'one line');
          return true;
        },
      );
    });
  }

  it('an option given wins over a bad variable (it is not even read)', async () => {
    const sandbox = await startSandbox({ port: 0, dataDir, env: { PROVIDER_PORT: 'abc' }, ...FAST });
    await sandbox.stop();
  });

  it('throws naming dataDir when it cannot be created or written', async () => {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, 'not a directory');
    await assert.rejects(
      startSandbox({ port: 0, dataDir: join(file, 'data'), env: {}, ...FAST }),
      /^SandboxConfigError: Invalid dataDir: cannot create or write the directory .*a-file\/data/,
    );
    await assert.rejects(
      startSandbox({ port: 0, dataDir: file, env: {}, ...FAST }),
      /^SandboxConfigError: Invalid dataDir: /,
    );
    await assert.rejects(
      startSandbox({ port: 0, env: { KASIR_DATA_DIR: join(file, 'data') }, ...FAST }),
      /Invalid KASIR_DATA_DIR: /,
    );
  });

  it('throws before anything listens or is written', async () => {
    const port = await freePort();
    const dir = join(dataDir, 'untouched');
    await assert.rejects(
      startSandbox({ port, dataDir: dir, databaseUrl: 'mysql://localhost/kasir', env: {} }),
      /databaseUrl/,
    );
    await assert.rejects(startSandbox({ port, dataDir: dir, webhookUrl: 'nope', env: {} }), /webhookUrl/);
    assert.equal(await isListening(port), false);
    assert.equal(existsSync(dir), false, 'not even the data directory');
  });

  it('a port in use is an error saying so, and leaves nothing open', async () => {
    const busy = await startSandbox({ port: 0, dataDir, env: {}, ...FAST });
    const dir = tempDir('kasir-sandbox-busy-');
    try {
      await assert.rejects(
        startSandbox({ port: busy.port, host: '0.0.0.0', dataDir: dir, env: {}, ...FAST }),
        /already in use/,
      );
    } finally {
      await busy.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Runs a command to its end (or until `until` sees its output), with a deadline. */
function run(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    until?: (stdout: string) => boolean;
    timeoutMs?: number;
  } = {},
) {
  return new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
    kill(signal?: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }>;
  }>((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveExit) => {
      child.once('exit', (code) => resolveExit({ code, stdout, stderr }));
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${args.join(' ')} timed out; stdout: ${stdout}; stderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    const kill = (signal: NodeJS.Signals = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    };
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      if (options.until?.(stdout)) {
        clearTimeout(timer);
        done({ code: null, signal: null, stdout, stderr, kill });
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, kill });
    });
  });
}

describe('kasir-sandbox (the compiled bin)', () => {
  before(() => {
    assert.ok(existsSync(BIN), `${BIN} is missing: run npm run build first (npm test does)`);
    assert.ok(existsSync(ENTRY), `${ENTRY} is missing: run npm run build first (npm test does)`);
  });

  it('starts from the environment, writes sandbox.json, serves, and stops on SIGTERM; a restart reuses the credentials', async (t) => {
    const dataDir = tempDir('kasir-sandbox-bin-');
    const database = await testDatabaseEnv();
    const env = { PROVIDER_PORT: '0', KASIR_DATA_DIR: dataDir, KASIR_SCRYPT_N: '1024', ...database.env };
    try {
      const started = Date.now();
      const bin = await run([BIN], { env, until: (out) => out.includes('sandbox.json') });
      assert.equal(bin.code, null, `the bin exited: ${bin.stderr}`);
      const startMs = Date.now() - started;
      const url = /on (http:\/\/localhost:\d+)/.exec(bin.stdout)?.[1];
      assert.ok(url, bin.stdout);
      assert.ok(bin.stdout.includes(`credentials in ${join(dataDir, 'sandbox.json')}`), bin.stdout);
      const credentials = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
      assert.deepEqual(Object.keys(credentials), SANDBOX_JSON_KEYS);
      assert.equal(credentials.baseUrl, url);
      assert.equal((await fetch(`${url}/v1/reference/currencies`)).status, 200);
      assert.equal((await signed({ url, credentials }, 'GET', '/v1/deposit')).status, 200);
      for (const path of ['/dashboard', '/docs', '/checkout/kasir-checkout.js']) {
        const res: Response = await fetch(url + path);
        assert.equal(res.status, 200, path);
        await res.arrayBuffer();
      }
      const stopped = await bin.kill('SIGTERM');
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.equal(stopped.stderr, '');

      const again = await run([BIN], { env, until: (out) => out.includes('sandbox.json') });
      const restarted = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
      assert.equal(restarted.clientSecret, credentials.clientSecret);
      assert.equal(restarted.accessToken, credentials.accessToken);
      assert.equal(restarted.password, credentials.password);
      assert.equal((await again.kill('SIGINT')).code, 0);
      t.diagnostic(`kasir-sandbox ready in ${startMs} ms`);
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  for (const [variable, value] of [
    ['PROVIDER_PORT', 'abc'],
    ['DATABASE_URL', 'mysql://localhost/kasir'],
    ['KASIR_WEBHOOK_URL', 'not-a-url'],
    ['KASIR_SCRYPT_N', '1000'],
  ]) {
    it(`exits 1 with one line naming ${variable} when it is ${value}`, async () => {
      const dataDir = tempDir('kasir-sandbox-binbad-');
      try {
        const result = await run([BIN], { env: { KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0', [variable]: value } });
        assert.equal(result.code, 1);
        assert.equal(result.stdout, '');
        const lines = result.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
        assert.match(lines[0], new RegExp(`^\\[kasir-sandbox\\] Invalid ${variable}: `));
        assert.doesNotMatch(result.stderr, /\bat .*\.js:\d+/, 'no stack trace');
        assert.equal(existsSync(join(dataDir, 'sandbox.json')), false);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }

  it('--help prints the usage with its variables and exits 0', async () => {
    const result = await run([BIN, '--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: kasir-sandbox/);
    for (const variable of ['PROVIDER_PORT', 'KASIR_DATA_DIR', 'DATABASE_URL', 'KASIR_WEBHOOK_URL'])
      assert.ok(result.stdout.includes(variable), variable);
  });

  it('importing the package entry starts nothing and writes nothing', async () => {
    const cwd = tempDir('kasir-sandbox-import-');
    try {
      const result = await run(
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(ENTRY)}); console.log(Object.keys(m).sort().join(','))`,
        ],
        { cwd, env: { PROVIDER_PORT: 'abc' } },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), 'SandboxConfigError,startSandbox');
      assert.deepEqual(readdirSync(cwd), []);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
