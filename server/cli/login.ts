// `npm run login`: signs a merchant in to a payment service (any base URL that implements the
// interface) with email, password and the emailed OTP, and prints a non-expiring access token for the
// merchant backend's configuration:  KASIR_ACCESS_TOKEN=...
//
//   npm run login -- --base-url https://sandbox.example --email me@shop.example
//   KASIR_BASE_URL=... KASIR_EMAIL=... KASIR_PASSWORD=... npm run login
//
// Flags: --base-url, --email, --password, --otp, --mailbox (sandbox only: read the OTP from
// GET /sandbox/mailbox instead of asking), --expiring (a 24-hour token instead of a non-expiring one).
// Anything not given is asked for; the password is read without echo. Only the token goes to stdout.
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    otp: { type: 'string' },
    mailbox: { type: 'boolean', default: false },
    expiring: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const say = (line: string) => process.stderr.write(line + '\n');

if (flags.help) {
  say('Usage: npm run login -- [--base-url URL] [--email EMAIL] [--password PASSWORD] [--otp CODE] [--mailbox] [--expiring]');
  process.exit(0);
}

// Piped input: one answer per line, from one reader (a reader per question would lose buffered lines).
let pipedLines: AsyncIterator<string> | undefined;

async function ask(question: string, hidden = false): Promise<string> {
  if (!process.stdin.isTTY) {
    pipedLines ??= createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
    process.stderr.write(question);
    const next = await pipedLines.next();
    process.stderr.write('\n');
    return next.done ? '' : next.value.trim();
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (hidden) {
    // Echo nothing while the password is typed.
    const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput;
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (s.startsWith(question)) write.call(rl, question);
    };
  }
  const answer = await rl.question(question);
  if (hidden) process.stderr.write('\n');
  rl.close();
  return answer.trim();
}

/** An answer of the service: the envelope (login and verify-login say `status`), its data as the caller expects it, unchecked. */
interface Envelope<T> { status?: number; statusCode?: number; message?: string; data?: T }

async function call<T>(baseUrl: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<Envelope<T>> {
  let res: Response;
  try {
    res = await fetch(baseUrl + path, {
      method: init.method ?? 'GET',
      headers: { Accept: 'application/json', ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(`Cannot reach ${baseUrl}: ${err instanceof Error ? err.message : err}`);
  }
  const json = (await res.json().catch(() => ({}))) as Envelope<T>;
  const code = json.statusCode ?? json.status ?? res.status;
  if (code >= 400 || !res.ok) throw new Error(json.message || `${path} failed with HTTP ${res.status}`);
  return json;
}

async function otpFromMailbox(baseUrl: string, email: string, after: string): Promise<string> {
  for (let i = 0; i < 20; i++) {
    const box = await call<Array<{ code: string | null; createdAt: string }>>(baseUrl, `/sandbox/mailbox?email=${encodeURIComponent(email)}`);
    const mail = box.data?.find((m) => m.code && m.createdAt >= after);
    if (mail?.code) return mail.code;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('No code arrived in the sandbox mailbox');
}

async function main(): Promise<void> {
  const baseUrl = (flags['base-url'] || process.env.KASIR_BASE_URL || (await ask('Payment service base URL [http://localhost:4010]: ')) || 'http://localhost:4010').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(baseUrl)) throw new Error('The base URL must start with http:// or https://');
  const email = flags.email || process.env.KASIR_EMAIL || (await ask('Email: '));
  const password = flags.password || process.env.KASIR_PASSWORD || (await ask('Password: ', true));
  if (!email || !password) throw new Error('Email and password are required');

  const startedAt = new Date(Date.now() - 5_000).toISOString();
  const login = await call<{ verificationToken?: unknown }>(baseUrl, '/v1/auth/login', { method: 'POST', body: { email, password } });
  const verificationToken = login.data?.verificationToken;
  if (typeof verificationToken !== 'string') throw new Error('The login response carried no verificationToken');
  say(`A code was sent to ${email}.`);

  const otp = flags.otp || (flags.mailbox ? await otpFromMailbox(baseUrl, email, startedAt) : await ask('Code from the email: '));
  const verified = await call<{ accessToken?: unknown; user?: { email?: string } }>(baseUrl, '/v1/auth/verify-login', {
    method: 'POST', body: { verificationToken, otp, isDisableExpire: !flags.expiring },
  });
  const token = verified.data?.accessToken;
  if (typeof token !== 'string') throw new Error('The verify-login response carried no accessToken');
  say(`Signed in as ${verified.data?.user?.email ?? email}${flags.expiring ? ' (token valid 24 hours)' : ' (token does not expire: keep it secret)'}. Add this to the merchant backend's environment:`);
  process.stdout.write(`KASIR_ACCESS_TOKEN=${token}\n`);
}

main().then(() => process.exit(0), (err: unknown) => {
  say(`login failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
