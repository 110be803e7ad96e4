import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { userView } from '../../server/provider/auth/accounts';
import { authenticateBearer } from '../../server/provider/auth/bearer';
import { bodyOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';

/** The User, as verify-login answers it. */
type User = Awaited<ReturnType<typeof userView>>;
/** login and verify-login answer under `status`, not statusCode (as the interface's authentication endpoints do). */
interface StatusEnvelope<T> {
  status: number;
  statusCode?: number;
  message: string;
  data: T;
}
type TokenAnswer = StatusEnvelope<{ verificationToken: string }>;
type SessionAnswer = StatusEnvelope<{ accessToken: string; user: User }>;
/** A message in the sandbox mailbox. */
interface Mail {
  subject: string;
  text: string;
  code: string | null;
}

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
  p.app.request(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function latestMail(p: TestProvider, email: string) {
  const res = await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(email)}`);
  assert.equal(res.status, 200);
  return (await bodyOf<Envelope<Mail[]>>(res)).data[0] as Mail | undefined;
}

async function loginToken(p: TestProvider, email = p.creds.email, password = p.creds.password) {
  const res = await post(p, '/v1/auth/login', { email, password });
  assert.equal(res.status, 200);
  const body = await bodyOf<TokenAnswer>(res);
  const mail = await latestMail(p, email);
  assert.ok(mail?.code);
  assert.ok(mail.text.includes(mail.code), 'the code is in the mail text');
  return { verificationToken: body.data.verificationToken, otp: mail.code };
}

const jwtPayload = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as {
    sub: string;
    iat: number;
    exp?: number;
  };
const otherCode = (otp: string) => String((Number(otp) + 1) % 1_000_000).padStart(6, '0');

describe('accounts: register, login, verify-login', () => {
  let p: TestProvider;
  before(async () => {
    p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '1000', KASIR_AUTH_RATE_PER_ADDRESS: '1000' });
  });
  after(async () => {
    await p.close();
  });

  describe('a login with its OTP', () => {
    let loginStatus: number;
    let login: TokenAnswer;
    let otp: string;
    let verifyStatus: number;
    let body: SessionAnswer;
    before(async () => {
      const res = await post(p, '/v1/auth/login', { email: p.creds.email.toUpperCase(), password: p.creds.password });
      loginStatus = res.status;
      login = await bodyOf<TokenAnswer>(res);
      otp = (await latestMail(p, p.creds.email))!.code!;
      const verify = await post(p, '/v1/auth/verify-login', { verificationToken: login.data.verificationToken, otp });
      verifyStatus = verify.status;
      body = await bodyOf<SessionAnswer>(verify);
    });

    it('answers the login under status with a verification token, the email matched in any case', () => {
      assert.equal(loginStatus, 200);
      assert.deepEqual(Object.keys(login).sort(), ['data', 'message', 'status']);
      assert.equal(login.status, 200);
      assert.equal(typeof login.data.verificationToken, 'string');
    });

    it('mails a six-digit code', () => {
      assert.match(otp, /^\d{6}$/);
    });

    it('answers verify-login under status, with no statusCode', () => {
      assert.equal(verifyStatus, 200);
      assert.equal(body.status, 200);
      assert.equal(body.statusCode, undefined);
    });

    it('returns the User of 2.1 with every field, and never a live code in otp_code', () => {
      const { user } = body.data;
      for (const key of [
        'id',
        'name',
        'policy',
        'email',
        'organizationId',
        'role',
        'is_active',
        'invitation_date',
        'invitation_expiration_date',
        'iskyc',
        'kyc_url',
        'country',
        'countryCode',
        'legalFullName',
        'providerId',
        'otp_code',
        'credentials',
        'createdAt',
        'updatedAt',
      ]) {
        assert.ok(key in user, key);
      }
      assert.equal(user.email, p.creds.email);
      assert.deepEqual(Object.keys(user.organizationId).sort(), ['_id', 'orgName']);
      assert.equal(user.organizationId.orgName, 'Kasir Sandbox Store');
      assert.equal(user.is_active, true);
      assert.equal(typeof user.otp_code, 'string');
      assert.notEqual(user.otp_code, otp, 'otp_code never carries a live code');
      assert.deepEqual(user.credentials, {});
    });

    it("returns a 24-hour access token for the user's merchant account", async () => {
      const { accessToken, user } = body.data;
      const payload = jwtPayload(accessToken);
      assert.equal(payload.exp! - payload.iat, 24 * 3600);
      const merchant = await authenticateBearer(p.deps, `Bearer ${accessToken}`);
      assert.equal(merchant.userId, user.id);
    });
  });

  it('issues a non-expiring token with isDisableExpire', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const body = await bodyOf<SessionAnswer>(
      await post(p, '/v1/auth/verify-login', { verificationToken, otp, isDisableExpire: true }),
    );
    assert.equal(body.status, 200);
    assert.equal(jwtPayload(body.data.accessToken).exp, undefined);
  });

  it('refuses a wrong password with only "Invalid email or password"', async () => {
    const res = await post(p, '/v1/auth/login', { email: p.creds.email, password: 'wrong-password' });
    assert.equal(res.status, 401);
    assert.deepEqual(await errorOf(res), {
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Invalid email or password',
    });
  });

  it('gives the same answer for unknown and known emails', async () => {
    const known = await post(p, '/v1/auth/login', { email: p.creds.email, password: 'wrong-password' });
    const unknown = await post(p, '/v1/auth/login', { email: 'nobody@example.com', password: 'wrong-password' });
    assert.equal(known.status, unknown.status);
    assert.deepEqual(await errorOf(known), await errorOf(unknown));
  });

  it('spends the same scrypt work on an unknown email as on a known one (a dummy hash), not returning at once', async () => {
    const slow = await createTestProvider({ scryptN: 2 ** 14 });
    try {
      const once = async (email: string) => {
        const t0 = performance.now();
        await post(slow, '/v1/auth/login', { email, password: 'wrong-password' });
        return performance.now() - t0;
      };
      await once('warm-up@example.com');
      // Alternated, so what else the machine does falls on both alike; medians of nine.
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 9; i++) {
        known.push(await once(slow.creds.email));
        unknown.push(await once('nobody@example.com'));
      }
      const median = (samples: number[]) => samples.sort((a, b) => a - b)[4]!;
      const [knownMs, unknownMs] = [median(known), median(unknown)];
      assert.ok(knownMs > 5, `scrypt at N=2^14 takes time (${knownMs} ms)`);
      // Returning at once would be a fraction of a millisecond against scrypt's tens: the bounds leave a busy machine room.
      assert.ok(unknownMs > knownMs / 3 && unknownMs < knownMs * 3, `unknown ${unknownMs} ms vs known ${knownMs} ms`);
    } finally {
      await slow.close();
    }
  });

  describe('a wrong OTP', () => {
    let login: { verificationToken: string; otp: string };
    before(async () => {
      login = await loginToken(p);
    });

    it('is refused, counting down the attempts', async () => {
      const res = await post(p, '/v1/auth/verify-login', {
        verificationToken: login.verificationToken,
        otp: otherCode(login.otp),
      });
      assert.equal(res.status, 401);
      assert.deepEqual(await errorOf(res), {
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Invalid OTP: 4 attempts left',
      });
    });

    it('does not burn the token before the fifth: the right code still works', async () => {
      const ok = await post(p, '/v1/auth/verify-login', login);
      assert.equal(ok.status, 200, 'a wrong code does not burn the token before the fifth');
    });
  });

  it('burns the token on the fifth wrong OTP: the sixth attempt fails even with the right code', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp: otherCode(otp) });
      assert.equal(res.status, 401);
      messages.push((await errorOf(res)).message);
    }
    assert.equal(messages[3], 'Invalid OTP: 1 attempt left');
    assert.match(messages[4], /too many attempts/);
    const sixth = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
    assert.equal(sixth.status, 401);
    assert.match((await errorOf(sixth)).message, /Invalid or expired verification token/);
  });

  it('refuses a reused OTP', async () => {
    const { verificationToken, otp } = await loginToken(p);
    assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken, otp })).status, 200);
    const again = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
    assert.equal(again.status, 401);
    assert.match((await errorOf(again)).message, /Invalid or expired verification token/);
  });

  it('accepts only one of two concurrent verifications of one OTP', async () => {
    const { verificationToken, otp } = await loginToken(p);
    const results = await Promise.all(
      [1, 2, 3].map(() => post(p, '/v1/auth/verify-login', { verificationToken, otp })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 401, 401]);
  });

  it('refuses an OTP after 10 minutes', async () => {
    const { verificationToken, otp } = await loginToken(p);
    p.clock.offsetMs += 10 * 60_000 + 1000;
    try {
      const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
      assert.equal(res.status, 401);
      assert.match((await errorOf(res)).message, /Invalid or expired verification token/);
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('still takes an OTP at 9 minutes', async () => {
    const { verificationToken: fresh, otp: freshOtp } = await loginToken(p);
    p.clock.offsetMs += 9 * 60_000;
    try {
      assert.equal(
        (await post(p, '/v1/auth/verify-login', { verificationToken: fresh, otp: freshOtp })).status,
        200,
        'still valid at 9 minutes',
      );
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('refuses an unknown verification token', async () => {
    const res = await post(p, '/v1/auth/verify-login', { verificationToken: 'made-up', otp: '123456' });
    assert.equal(res.status, 401);
    assert.equal((await errorOf(res)).statusCode, 401);
  });

  describe('a registration', () => {
    const email = 'new.merchant@example.com';
    let registered: { status: number; body: Envelope<{ verificationToken: string }> };
    let verify: SessionAnswer;
    before(async () => {
      const res = await post(p, '/v1/auth/register', {
        email,
        password: 'correct horse',
        fullName: 'New Merchant',
        nationalID: '3171',
        country: 'Indonesia',
        countryCode: 'ID',
      });
      registered = { status: res.status, body: await bodyOf<Envelope<{ verificationToken: string }>>(res) };
    });

    it('answers in the statusCode envelope', () => {
      assert.equal(registered.status, 200);
      assert.equal(registered.body.statusCode, 200);
    });

    it('keeps the user inactive, with a scrypt hash of the password', async () => {
      const row = await p.deps.db
        .selectFrom('users')
        .select(['is_active', 'password_hash'])
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      assert.equal(row.is_active, 0);
      assert.match(row.password_hash, /^scrypt\$/);
      assert.ok(!row.password_hash.includes('correct horse'));
    });

    it('is activated by the mailed OTP, with the details given', async () => {
      const mail = (await latestMail(p, email))!;
      verify = await bodyOf<SessionAnswer>(
        await post(p, '/v1/auth/verify-login', {
          verificationToken: registered.body.data.verificationToken,
          otp: mail.code,
        }),
      );
      assert.equal(verify.status, 200);
      assert.equal(verify.data.user.is_active, true);
      assert.equal(verify.data.user.country, 'Indonesia');
      assert.equal(verify.data.user.countryCode, 'ID');
      assert.equal(verify.data.user.organizationId.orgName, 'New Merchant');
    });

    it("gives a token for the new user's own merchant account", async () => {
      const merchant = await authenticateBearer(p.deps, `Bearer ${verify.data.accessToken}`);
      assert.equal(merchant.userId, verify.data.user.id);
    });

    it('lets the new user log in', async () => {
      const { verificationToken, otp } = await loginToken(p, email, 'correct horse');
      assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken, otp })).status, 200);
    });
  });

  describe('a registration with a taken email', () => {
    let a: Envelope<{ verificationToken: string }>;
    let b: Envelope<{ verificationToken: string }>;
    let statuses: [number, number];
    before(async () => {
      const fresh = await post(p, '/v1/auth/register', {
        email: 'unique.one@example.com',
        password: 'password-1',
        fullName: 'A',
      });
      const taken = await post(p, '/v1/auth/register', { email: p.creds.email, password: 'password-1', fullName: 'A' });
      statuses = [fresh.status, taken.status];
      [a, b] = [await bodyOf<typeof a>(fresh), await bodyOf<typeof b>(taken)];
    });

    it('is answered as a new one, with a token of the same shape', () => {
      assert.equal(statuses[0], statuses[1]);
      assert.deepEqual({ ...a, data: Object.keys(a.data) }, { ...b, data: Object.keys(b.data) });
      assert.equal(typeof b.data.verificationToken, 'string');
      assert.equal(b.data.verificationToken.length, a.data.verificationToken.length);
    });

    it("mails the email's owner a notice, not a code", async () => {
      const mail = (await latestMail(p, p.creds.email))!;
      assert.equal(mail.code, null, 'the owner gets a notice, not a code');
      assert.match(mail.subject, /tried to register/);
    });

    it('gives a token no OTP verifies', async () => {
      for (const otp of ['000000', '123456']) {
        const res = await post(p, '/v1/auth/verify-login', { verificationToken: b.data.verificationToken, otp });
        assert.equal(res.status, 401);
      }
    });
  });

  describe('validates the bodies, naming the field, in the statusCode envelope', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      [
        '/v1/auth/register',
        { email: 'a@example.com', password: 'short', fullName: 'A' },
        /^password: must be at least 8 characters/,
      ],
      [
        '/v1/auth/register',
        { email: 'not-email', password: 'long enough', fullName: 'A' },
        /^email: must be a valid email address/,
      ],
      ['/v1/auth/register', { email: 'a@example.com', password: 'long enough' }, /^fullName: is required/],
      ['/v1/auth/login', { email: 'a@example.com' }, /^password: is required/],
      ['/v1/auth/login', { email: 42, password: 'x' }, /^email: must be a string/],
      ['/v1/auth/verify-login', { verificationToken: 'x' }, /^otp: is required/],
      [
        '/v1/auth/verify-login',
        { verificationToken: 'x', otp: '123456', isDisableExpire: 'yes' },
        /^isDisableExpire: must be a boolean/,
      ],
    ];
    for (const [path, body, message] of cases) {
      it(`refuses ${JSON.stringify(body)} on ${path}`, async () => {
        const res = await post(p, path, body);
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
        const json = await errorOf(res);
        assert.equal(json.statusCode, 400);
        assert.match(json.message, message);
      });
    }

    it('refuses malformed JSON', async () => {
      const malformed = await p.app.request('http://localhost/v1/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"email":',
      });
      assert.equal(malformed.status, 400);
      assert.equal((await errorOf(malformed)).statusCode, 400);
    });
  });

  it('asks the mailbox for a valid email', async () => {
    const res = await p.app.request('http://localhost/sandbox/mailbox?email=nope');
    assert.equal(res.status, 400);
  });

  it('keeps the mailbox to sandbox mode', async () => {
    p.deps.config.sandbox = false;
    try {
      const off = await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(p.creds.email)}`);
      assert.equal(off.status, 403);
      assert.equal((await errorOf(off)).statusCode, 403);
    } finally {
      p.deps.config.sandbox = true;
    }
  });
});

describe('accounts: rate limits', () => {
  it('defaults to 20 per email and 200 per address in 15 minutes', async () => {
    const { loadAuthRateLimits } = await import('../../server/provider/auth/rate-limit');
    assert.deepEqual(loadAuthRateLimits({}), { windowSeconds: 900, perEmail: 20, perAddress: 200, trustProxy: false });
  });

  it('takes the window, the limits and trusting a proxy from the environment, ignoring a bad number', async () => {
    const { loadAuthRateLimits } = await import('../../server/provider/auth/rate-limit');
    assert.deepEqual(
      loadAuthRateLimits({
        KASIR_AUTH_RATE_WINDOW_SECONDS: '60',
        KASIR_AUTH_RATE_PER_EMAIL: '3',
        KASIR_AUTH_RATE_PER_ADDRESS: 'x',
        KASIR_TRUST_PROXY: 'true',
      }),
      { windowSeconds: 60, perEmail: 3, perAddress: 200, trustProxy: true },
    );
  });

  describe('over the per-email limit', () => {
    let p: TestProvider;
    before(async () => {
      p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '3', KASIR_AUTH_RATE_PER_ADDRESS: '1000' });
    });
    after(async () => {
      await p.close();
    });

    it('answers 429 in the envelope, with a Retry-After', async () => {
      for (let i = 0; i < 3; i++)
        assert.equal(
          (await post(p, '/v1/auth/login', { email: p.creds.email, password: 'wrong-password' })).status,
          401,
        );
      const limited = await post(p, '/v1/auth/login', { email: p.creds.email, password: p.creds.password });
      assert.equal(limited.status, 429);
      const body = await errorOf(limited);
      assert.equal(body.statusCode, 429);
      assert.equal(body.error, 'Too Many Requests');
      assert.match(body.message, /Too many attempts/);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    });

    it('leaves another email alone', async () => {
      assert.equal(
        (await post(p, '/v1/auth/login', { email: 'someone@example.com', password: 'wrong-password' })).status,
        401,
      );
    });

    it('lets the email in again once the window passes', async () => {
      p.clock.offsetMs += 16 * 60_000;
      assert.equal((await post(p, '/v1/auth/login', { email: p.creds.email, password: p.creds.password })).status, 200);
    });
  });

  describe('answers 429 over the per-address limit', () => {
    let p: TestProvider;
    before(async () => {
      p = await providerWithLimits({
        KASIR_AUTH_RATE_PER_EMAIL: '1000',
        KASIR_AUTH_RATE_PER_ADDRESS: '2',
        KASIR_TRUST_PROXY: 'true',
      });
    });
    after(async () => {
      await p.close();
    });
    const from = (ip: string) => ({ 'X-Forwarded-For': ip });

    for (const [path, body] of [
      ['/v1/auth/register', (i: number) => ({ email: `r${i}@example.com`, password: 'long enough', fullName: 'R' })],
      ['/v1/auth/login', (i: number) => ({ email: `l${i}@example.com`, password: 'wrong-password' })],
      ['/v1/auth/verify-login', (i: number) => ({ verificationToken: `t${i}`, otp: '000000' })],
    ] as const) {
      it(`on ${path}, and only from that address`, async () => {
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await post(p, path, body(i), from('203.0.113.7'))).status);
        assert.equal(statuses[2], 429, path);
        assert.notEqual(statuses[0], 429, path);
        assert.notEqual(
          (await post(p, path, body(9), from('203.0.113.8'))).status,
          429,
          `${path} from another address`,
        );
      });
    }
  });

  it('limits verify-login per email too', async () => {
    const p = await providerWithLimits({ KASIR_AUTH_RATE_PER_EMAIL: '2', KASIR_AUTH_RATE_PER_ADDRESS: '1000' });
    try {
      const { verificationToken, otp } = await loginToken(p);
      for (let i = 0; i < 2; i++)
        assert.equal((await post(p, '/v1/auth/verify-login', { verificationToken, otp: otherCode(otp) })).status, 401);
      const res = await post(p, '/v1/auth/verify-login', { verificationToken, otp });
      assert.equal(res.status, 429);
    } finally {
      await p.close();
    }
  });
});

describe('OTP mail through SMTP when SMTP_URL is set', () => {
  const messages: Array<{ rcpt: string[]; data: string }> = [];
  let smtp: Server;
  let p: TestProvider;
  let login: Response;
  before(async () => {
    smtp = createServer((socket) => {
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
          else if (verb === 'RCPT') {
            current.rcpt.push(line);
            socket.write('250 2.1.5 ok\r\n');
          } else if (verb === 'DATA') {
            inData = true;
            socket.write('354 go ahead\r\n');
          } else if (verb === 'QUIT') {
            socket.end('221 bye\r\n');
          } else socket.write('250 ok\r\n');
        }
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.address() as AddressInfo).port;
    p = await createTestProvider({ smtpUrl: `smtp://127.0.0.1:${port}` });
    login = await post(p, '/v1/auth/login', { email: p.creds.email, password: p.creds.password });
  });
  after(async () => {
    await p.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });
  const mailedCode = () => /code to sign in to kasir: (\d{6})/.exec(messages[0].data)?.[1];

  it('sends the code to the SMTP server, to the user', async () => {
    assert.equal(login.status, 200);
    const deadline = Date.now() + 5000;
    while (!messages.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(messages.length, 1);
    assert.match(messages[0].rcpt[0], new RegExp(p.creds.email.replace(/[.]/g, '\\.')));
    assert.ok(mailedCode(), messages[0].data);
  });

  it('keeps nothing in the sandbox mailbox', async () => {
    const box = await bodyOf<Envelope<Mail[]>>(
      await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(p.creds.email)}`),
    );
    assert.deepEqual(box.data, []);
  });

  it('mails a code that verifies the login', async () => {
    const verify = await post(p, '/v1/auth/verify-login', {
      verificationToken: (await bodyOf<TokenAnswer>(login)).data.verificationToken,
      otp: mailedCode(),
    });
    assert.equal(verify.status, 200);
  });
});
