import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticateBearer } from '../../server/provider/http/bearer';
import { createTestProvider, testDatabaseEnv, type TestProvider } from '../support/provider';

/** Builds a provider with the given auth rate-limit environment (read once, when the routes are built). */
async function providerWithLimits(env: Record<string, string>): Promise<TestProvider> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await createTestProvider();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const post = (p: TestProvider, path: string, body: unknown, headers: Record<string, string> = {}) =>
  p.app.request(`http://localhost${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function latestMail(p: TestProvider, email: string) {
  const res = await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(email)}`);
  assert.equal(res.status, 200);
  return (await res.json()).data[0] as { subject: string; text: string; code: string | null } | undefined;
}

async function loginToken(p: TestProvider, email = p.creds.email, password = p.creds.password) {
  const res = await post(p, '/v1/auth/login', { email, password });
  assert.equal(res.status, 200);
  const body = await res.json();
  const mail = await latestMail(p, email);
  assert.ok(mail?.code);
  assert.ok(mail.text.includes(mail.code), 'the code is in the mail text');
  return { verificationToken: body.data.verificationToken as string, otp: mail.code };
}

const jwtPayload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
const otherCode = (otp: string) => String((Number(otp) + 1) % 1_000_000).padStart(6, '0');

describe('accounts: register, login, verify-login (interface 4.1 and 5)', () => {
  let p: TestProvider;
  before(async () => { p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '1000', KASIR_AUTH_RATE_PER_ADDRESS: '1000' }); });
  after(async () => { await p.close(); });

  it('logs in with OTP and returns a 24-hour token and the User of 2.1 under status', async () => {
    const res = await post(p, '/v1/auth/login', { email: p.creds.email.toUpperCase(), password: p.creds.password });
    assert.equal(res.status, 200);
    const login = await res.json();
    assert.deepEqual(Object.keys(login).sort(), ['data', 'message', 'status']);
    assert.equal(login.status, 200);
    assert.equal(typeof login.data.verificationToken, 'string');
    const otp = (await latestMail(p, p.creds.email))!.code!;
    assert.match(otp, /^\d{6}$/);

    const verify = await post(p, '/v1/auth/verify-login', { verificationToken: login.data.verificationToken, otp });
    assert.equal(verify.status, 200);
    const body = await verify.json();
    assert.equal(body.status, 200);
    assert.equal(body.statusCode, undefined);
    const { accessToken, user } = body.data;
    for (const key of ['id', 'name', 'policy', 'email', 'organizationId', 'role', 'is_active', 'invitation_date', 'invitation_expiration_date',
      'iskyc', 'kyc_url', 'country', 'countryCode', 'legalFullName', 'providerId', 'otp_code', 'credentials', 'createdAt', 'updatedAt']) {
      assert.ok(key in user, key);
    }
    assert.equal(user.email, p.creds.email);
    assert.deepEqual(Object.keys(user.organizationId).sort(), ['_id', 'orgName']);
    assert.equal(user.organizationId.orgName, 'Kasir Sandbox Store');
    assert.equal(user.is_active, true);
    assert.equal(typeof user.otp_code, 'string');
    assert.notEqual(user.otp_code, otp, 'otp_code never carries a live code');
    assert.deepEqual(user.credentials, {});
    const payload = jwtPayload(accessToken);
    assert.equal(payload.exp - payload.iat, 24 * 3600);
    const merchant = await authenticateBearer(p.deps, `Bearer ${accessToken}`);
    assert.equal(merchant.userId, user.id);
  });

  it('issues a non-expiring token with isDisableExpire', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const body = await (await post(p, '/v1/auth/verify-login', { verificationToken, otp, isDisableExpire: true })).json();
    assert.equal(body.status, 200);
    assert.equal(jwtPayload(body.data.accessToken).exp, undefined);
  });

  it('refuses a wrong password with only "Invalid email or password"', async () => {
    const res = await post(p, '/v1/auth/login', { email: p.creds.email, password: 'wrong-password' });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { statusCode: 401, error: 'Unauthorized', message: 'Invalid email or password' });
  });

  it('gives the same answer, at the same cost, for unknown and known emails', async () => {
    const known = await post(p, '/v1/auth/login', { email: p.creds.email, password: 'wrong-password' });
    const unknown = await post(p, '/v1/auth/login', { email: 'nobody@example.com', password: 'wrong-password' });
    assert.equal(known.status, unknown.status);
    assert.deepEqual(await known.json(), await unknown.json());

    // Timing: an unknown email must run the same scrypt as a known one (a dummy hash), not return at once.
    const slow = await createTestProvider({ scryptN: 2 ** 14 });
    try {
      const time = async (email: string) => {
        const samples: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t0 = performance.now();
          await post(slow, '/v1/auth/login', { email, password: 'wrong-password' });
          samples.push(performance.now() - t0);
        }
        return samples.sort((a, b) => a - b)[2];
      };
      await time('warm-up@example.com');
      const knownMs = await time(slow.creds.email);
      const unknownMs = await time('nobody@example.com');
      assert.ok(knownMs > 5, `scrypt at N=2^14 takes time (${knownMs} ms)`);
      assert.ok(unknownMs > knownMs * 0.5 && unknownMs < knownMs * 2, `unknown ${unknownMs} ms vs known ${knownMs} ms`);
    } finally {
      await slow.close();
    }
  });

  it('refuses a wrong OTP and counts down the attempts', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp: otherCode(otp) });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { statusCode: 401, error: 'Unauthorized', message: 'Invalid OTP: 4 attempts left' });
    const ok = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
    assert.equal(ok.status, 200, 'a wrong code does not burn the token before the fifth');
  });

  it('burns the token on the fifth wrong OTP: the sixth attempt fails even with the right code', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp: otherCode(otp) });
      assert.equal(res.status, 401);
      messages.push((await res.json()).message);
    }
    assert.equal(messages[3], 'Invalid OTP: 1 attempt left');
    assert.match(messages[4], /too many attempts/);
    const sixth = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
    assert.equal(sixth.status, 401);
    assert.match((await sixth.json()).message, /Invalid or expired verification token/);
  });

  it('refuses a reused OTP', async () => {
    const { verificationToken, otp } = await loginToken(p);
    assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken, otp })).status, 200);
    const again = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
    assert.equal(again.status, 401);
    assert.match((await again.json()).message, /Invalid or expired verification token/);
  });

  it('accepts only one of two concurrent verifications of one OTP', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const results = await Promise.all([1, 2, 3].map(() => post(p, '/v1/auth/verify-login', { verificationToken, otp })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 401, 401]);
  });

  it('refuses an expired OTP (10 minutes)', async () => {
    const { verificationToken, otp } = await loginToken(p);
    p.clock.offsetMs += 10 * 60_000 + 1000;
    try {
      const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
      assert.equal(res.status, 401);
      assert.match((await res.json()).message, /Invalid or expired verification token/);
    } finally {
      p.clock.offsetMs = 0;
    }
    const { verificationToken: fresh, otp: freshOtp } = await loginToken(p);
    p.clock.offsetMs += 9 * 60_000;
    try {
      assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken: fresh, otp: freshOtp })).status, 200, 'still valid at 9 minutes');
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('refuses an unknown verification token', async () => {
    const res = await post(p, '/v1/auth/verify-login', { verificationToken: 'made-up', otp: '123456' });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).statusCode, 401);
  });

  it('registers an inactive user that the OTP activates', async () => {
    const email = 'new.merchant@example.com';
    const res = await post(p, '/v1/auth/register', { email, password: 'correct horse', fullName: 'New Merchant', nationalID: '3171', country: 'Indonesia', countryCode: 'ID' });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.statusCode, 200);
    const row = await p.deps.db.selectFrom('users').select(['is_active', 'password_hash']).where('email', '=', email).executeTakeFirstOrThrow();
    assert.equal(row.is_active, 0);
    assert.match(row.password_hash, /^scrypt\$/);
    assert.ok(!row.password_hash.includes('correct horse'));
    const mail = (await latestMail(p, email))!;
    const verify = await (await post(p, '/v1/auth/verify-login', { verificationToken: body.data.verificationToken, otp: mail.code })).json();
    assert.equal(verify.status, 200);
    assert.equal(verify.data.user.is_active, true);
    assert.equal(verify.data.user.country, 'Indonesia');
    assert.equal(verify.data.user.countryCode, 'ID');
    assert.equal(verify.data.user.organizationId.orgName, 'New Merchant');
    const merchant = await authenticateBearer(p.deps, `Bearer ${verify.data.accessToken}`);
    assert.equal(merchant.userId, verify.data.user.id);
    // And the new user can log in.
    const { verificationToken, otp } = await loginToken(p, email, 'correct horse');
    assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken, otp })).status, 200);
  });

  it('answers a register with a taken email the same way, with no usable token', async () => {
    const fresh = await post(p, '/v1/auth/register', { email: 'unique.one@example.com', password: 'password-1', fullName: 'A' });
    const taken = await post(p, '/v1/auth/register', { email: p.creds.email, password: 'password-1', fullName: 'A' });
    assert.equal(fresh.status, taken.status);
    const [a, b] = [await fresh.json(), await taken.json()];
    assert.deepEqual({ ...a, data: Object.keys(a.data) }, { ...b, data: Object.keys(b.data) });
    assert.equal(typeof b.data.verificationToken, 'string');
    assert.equal(b.data.verificationToken.length, a.data.verificationToken.length);
    const mail = (await latestMail(p, p.creds.email))!;
    assert.equal(mail.code, null, 'the owner gets a notice, not a code');
    assert.match(mail.subject, /tried to register/);
    for (const otp of ['000000', '123456']) {
      const res = await post(p, '/v1/auth/verify-login', { verificationToken: b.data.verificationToken, otp });
      assert.equal(res.status, 401);
    }
  });

  it('validates the bodies, naming the field, in the statusCode envelope', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/v1/auth/register', { email: 'a@example.com', password: 'short', fullName: 'A' }, /^password: must be at least 8 characters/],
      ['/v1/auth/register', { email: 'not-email', password: 'long enough', fullName: 'A' }, /^email: must be a valid email address/],
      ['/v1/auth/register', { email: 'a@example.com', password: 'long enough' }, /^fullName: is required/],
      ['/v1/auth/login', { email: 'a@example.com' }, /^password: is required/],
      ['/v1/auth/login', { email: 42, password: 'x' }, /^email: must be a string/],
      ['/v1/auth/verify-login', { verificationToken: 'x' }, /^otp: is required/],
      ['/v1/auth/verify-login', { verificationToken: 'x', otp: '123456', isDisableExpire: 'yes' }, /^isDisableExpire: must be a boolean/],
    ];
    for (const [path, body, message] of cases) {
      const res = await post(p, path, body);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
      const json = await res.json();
      assert.equal(json.statusCode, 400);
      assert.match(json.message, message);
    }
    const malformed = await p.app.request('http://localhost/v1/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"email":' });
    assert.equal(malformed.status, 400);
    assert.equal((await malformed.json()).statusCode, 400);
  });

  it('keeps the mailbox to sandbox mode', async () => {
    const res = await p.app.request('http://localhost/sandbox/mailbox?email=nope');
    assert.equal(res.status, 400);
    p.deps.config.sandbox = false;
    try {
      const off = await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(p.creds.email)}`);
      assert.equal(off.status, 403);
      assert.equal((await off.json()).statusCode, 403);
    } finally {
      p.deps.config.sandbox = true;
    }
  });
});

describe('accounts: rate limits', () => {
  it('defaults to 20 per email and 200 per address in 15 minutes, configurable by environment', async () => {
    const { loadAuthRateLimits } = await import('../../server/provider/auth/rate-limit');
    assert.deepEqual(loadAuthRateLimits({}), { windowSeconds: 900, perEmail: 20, perAddress: 200, trustProxy: false });
    assert.deepEqual(loadAuthRateLimits({ KASIR_AUTH_RATE_WINDOW_SECONDS: '60', KASIR_AUTH_RATE_PER_EMAIL: '3', KASIR_AUTH_RATE_PER_ADDRESS: 'x', KASIR_TRUST_PROXY: 'true' }),
      { windowSeconds: 60, perEmail: 3, perAddress: 200, trustProxy: true });
  });

  it('answers 429 in the envelope over the per-email limit', async () => {
    const p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '3', KASIR_AUTH_RATE_PER_ADDRESS: '1000' });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await post(p, '/v1/auth/login', { email: p.creds.email, password: 'wrong-password' })).status, 401);
      const limited = await post(p, '/v1/auth/login', { email: p.creds.email, password: p.creds.password });
      assert.equal(limited.status, 429);
      const body = await limited.json();
      assert.equal(body.statusCode, 429);
      assert.equal(body.error, 'Too Many Requests');
      assert.match(body.message, /Too many attempts/);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      // Another email is not affected; the window passes.
      assert.equal((await post(p, '/v1/auth/login', { email: 'someone@example.com', password: 'wrong-password' })).status, 401);
      p.clock.offsetMs += 16 * 60_000;
      assert.equal((await post(p, '/v1/auth/login', { email: p.creds.email, password: p.creds.password })).status, 200);
    } finally {
      await p.close();
    }
  });

  it('answers 429 over the per-address limit, for register, login and verify-login', async () => {
    const p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '1000', KASIR_AUTH_RATE_PER_ADDRESS: '2', KASIR_TRUST_PROXY: 'true' });
    try {
      const from = (ip: string) => ({ 'X-Forwarded-For': ip });
      for (const [path, body] of [
        ['/v1/auth/register', (i: number) => ({ email: `r${i}@example.com`, password: 'long enough', fullName: 'R' })],
        ['/v1/auth/login', (i: number) => ({ email: `l${i}@example.com`, password: 'wrong-password' })],
        ['/v1/auth/verify-login', (i: number) => ({ verificationToken: `t${i}`, otp: '000000' })],
      ] as const) {
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await post(p, path, body(i), from('203.0.113.7'))).status);
        assert.equal(statuses[2], 429, path);
        assert.notEqual(statuses[0], 429, path);
        assert.notEqual((await post(p, path, body(9), from('203.0.113.8'))).status, 429, `${path} from another address`);
      }
    } finally {
      await p.close();
    }
  });

  it('limits verify-login per email too', async () => {
    const p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '2', KASIR_AUTH_RATE_PER_ADDRESS: '1000' });
    try {
      const { verificationToken, otp } = await loginToken(p);
      for (let i = 0; i < 2; i++) assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken, otp: otherCode(otp) })).status, 401);
      const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
      assert.equal(res.status, 429);
    } finally {
      await p.close();
    }
  });
});

describe('npm run login (server/cli/login.ts)', () => {
  it('walks through login and OTP against a running service and prints a non-expiring token', async () => {
    const { spawn } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startSandbox, sandboxDeps } = await import('../../server/provider/main');
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-cli-'));
    const database = await testDatabaseEnv();
    const provider = await startSandbox({ env: { KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0', ...database.env }, scryptN: 2 ** 10 });
    const run = (args: string[], input?: string, env: Record<string, string> = {}) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/login.ts', ...args], {
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], env: { ...process.env, KASIR_PASSWORD: '', KASIR_EMAIL: '', KASIR_BASE_URL: '', ...env },
      });
      if (input !== undefined) child.stdin!.end(input);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => { stdout += d; });
      child.stderr!.on('data', (d) => { stderr += d; });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    try {
      const { credentials } = provider;
      const ok = await run(['--base-url', provider.url, '--email', credentials.email, '--password', credentials.password, '--mailbox']);
      assert.equal(ok.code, 0, ok.stderr);
      const match = /^KASIR_ACCESS_TOKEN=(\S+)\n$/.exec(ok.stdout);
      assert.ok(match, ok.stdout);
      assert.equal(jwtPayload(match[1]).exp, undefined, 'non-expiring');
      const merchant = await authenticateBearer(sandboxDeps(provider), `Bearer ${match[1]}`);
      assert.equal(merchant.clientId, credentials.clientId);
      assert.ok(!ok.stderr.includes(credentials.password), 'the password is never echoed');

      // Prompts answered on stdin (email, then password), base URL from the environment, a 24-hour token.
      const piped = await run(['--mailbox', '--expiring'], `${credentials.email}\n${credentials.password}\n`, { KASIR_BASE_URL: provider.url });
      assert.equal(piped.code, 0, piped.stderr);
      const pipedToken = /^KASIR_ACCESS_TOKEN=(\S+)\n$/.exec(piped.stdout)![1];
      assert.equal(jwtPayload(pipedToken).exp - jwtPayload(pipedToken).iat, 24 * 3600);

      const bad = await run(['--base-url', provider.url, '--email', credentials.email, '--password', 'wrong-password', '--otp', '000000']);
      assert.equal(bad.code, 1);
      assert.equal(bad.stdout, '');
      assert.match(bad.stderr, /Invalid email or password/);
    } finally {
      await provider.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('OTP mail through SMTP when SMTP_URL is set', () => {
  it('sends the code to the SMTP server and keeps nothing in the sandbox mailbox', async () => {
    const net = await import('node:net');
    const messages: Array<{ rcpt: string[]; data: string }> = [];
    const smtp = net.createServer((socket) => {
      let buffer = '';
      let inData = false;
      let current = { rcpt: [] as string[], data: '' };
      socket.write('220 localhost fake ESMTP\r\n');
      socket.on('data', (chunk) => {
        buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\r\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 2);
          if (inData) {
            if (line === '.') {
              inData = false;
              messages.push(current);
              current = { rcpt: [], data: '' };
              socket.write('250 2.0.0 queued\r\n');
            } else {
              current.data += line + '\n';
            }
            continue;
          }
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === 'EHLO' || verb === 'HELO') socket.write('250-localhost\r\n250 8BITMIME\r\n');
          else if (verb === 'MAIL') socket.write('250 2.1.0 ok\r\n');
          else if (verb === 'RCPT') { current.rcpt.push(line); socket.write('250 2.1.5 ok\r\n'); }
          else if (verb === 'DATA') { inData = true; socket.write('354 go ahead\r\n'); }
          else if (verb === 'QUIT') { socket.end('221 bye\r\n'); }
          else socket.write('250 ok\r\n');
        }
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.address() as import('node:net').AddressInfo).port;
    const p = await createTestProvider({ smtpUrl: `smtp://127.0.0.1:${port}` });
    try {
      const login = await post(p, '/v1/auth/login', { email: p.creds.email, password: p.creds.password });
      assert.equal(login.status, 200);
      const deadline = Date.now() + 5000;
      while (!messages.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(messages.length, 1);
      assert.match(messages[0].rcpt[0], new RegExp(p.creds.email.replace(/[.]/g, '\\.')));
      const code = /code to sign in to kasir: (\d{6})/.exec(messages[0].data)?.[1];
      assert.ok(code, messages[0].data);
      const box = await (await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(p.creds.email)}`)).json();
      assert.deepEqual(box.data, []);
      const verify = await post(p, '/v1/auth/verify-login', { verificationToken: (await login.json()).data.verificationToken, otp: code });
      assert.equal(verify.status, 200);
    } finally {
      await p.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
