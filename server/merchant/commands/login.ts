// `kasir-merchant login`: signs a merchant in to a payment service (any base URL that implements the interface) with
// email, password and the emailed code, and prints an access token for the backend's KASIR_ACCESS_TOKEN
// (docs/going-live.md). Anything not given as a flag or variable is asked for; the password is read without echo.
// Only the token goes to stdout (`kasir-merchant login >> .env`); questions and messages go to stderr.
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { PaymentServiceClient } from '../client/client.js';

const LOGIN_USAGE = `Usage: kasir-merchant login [--base-url URL] [--email EMAIL] [--password PASSWORD] [--otp CODE] [--mailbox] [--expiring]
Signs in to the payment service with email, password and the code it emails, and prints KASIR_ACCESS_TOKEN=... on stdout.
  --base-url   the service's origin (default KASIR_BASE_URL, else asked)
  --email      default KASIR_EMAIL, else asked
  --password   default KASIR_PASSWORD, else asked without echo
  --otp        the emailed code (else asked)
  --mailbox    a sandbox only: read the code from its mailbox (GET /sandbox/mailbox) instead of asking
  --expiring   a 24-hour token instead of one that does not expire`;

const say = (line: string) => process.stderr.write(line + '\n');

/** Runs the command; answers its exit code (0 with the token printed, 1 with one line on stderr saying why). */
export async function runLogin(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let flags;
  try {
    ({ values: flags } = parseArgs({
      args: [...args],
      options: {
        'base-url': { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        otp: { type: 'string' },
        mailbox: { type: 'boolean', default: false },
        expiring: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    say(`login: ${err instanceof Error ? err.message : String(err)}\n${LOGIN_USAGE}`);
    return 1;
  }
  if (flags.help) {
    say(LOGIN_USAGE);
    return 0;
  }
  const prompts = new Prompts();
  try {
    const baseUrl = (
      flags['base-url'] ||
      env.KASIR_BASE_URL ||
      (await prompts.ask('Payment service base URL [http://localhost:4010]: ')) ||
      'http://localhost:4010'
    ).replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new Error('The base URL must start with http:// or https://');
    const email = flags.email || env.KASIR_EMAIL || (await prompts.ask('Email: '));
    const password = flags.password || env.KASIR_PASSWORD || (await prompts.ask('Password: ', true));
    if (!email || !password) throw new Error('Email and password are required');

    const client = new PaymentServiceClient({ baseUrl, timeoutMs: 30_000 });
    const startedAt = new Date(Date.now() - 5_000).toISOString();
    const { verificationToken } = await client.login({ email, password });
    if (typeof verificationToken !== 'string') throw new Error('The login answer carried no verificationToken');
    say(`A code was sent to ${email}.`);

    const otp =
      flags.otp ||
      (flags.mailbox ? await otpFromMailbox(baseUrl, email, startedAt) : await prompts.ask('Code from the email: '));
    const verified = await client.verifyLogin({ verificationToken, otp, isDisableExpire: !flags.expiring });
    if (typeof verified.accessToken !== 'string') throw new Error('The verify-login answer carried no accessToken');
    say(
      `Signed in as ${verified.user?.email ?? email}${flags.expiring ? ' (token valid 24 hours)' : ' (token does not expire: keep it secret)'}. Add this to the merchant backend's environment:`,
    );
    process.stdout.write(`KASIR_ACCESS_TOKEN=${verified.accessToken}\n`);
    return 0;
  } catch (err) {
    say(`login failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    prompts.close();
  }
}

/** A sandbox's mailbox (not part of the interface): the code mailed to `email` since `after`. */
async function otpFromMailbox(baseUrl: string, email: string, after: string): Promise<string> {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${baseUrl}/sandbox/mailbox?email=${encodeURIComponent(email)}`, {
      headers: { Accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok)
      throw new Error(
        `${baseUrl} has no sandbox mailbox (HTTP ${res.status}): --mailbox is for a sandbox; give the emailed code with --otp`,
      );
    const box = (await res.json()) as { data?: Array<{ code: string | null; createdAt: string }> };
    const mail = box.data?.find((m) => m.code && m.createdAt >= after);
    if (mail?.code) return mail.code;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('No code arrived in the sandbox mailbox');
}

/** Questions on stderr, answers from a terminal (a password without echo) or, piped, one line each. */
class Prompts {
  private lines?: AsyncIterator<string>;
  private reader?: ReturnType<typeof createInterface>;

  async ask(question: string, hidden = false): Promise<string> {
    process.stderr.write(question);
    if (hidden && process.stdin.isTTY) return readHidden();
    // One reader for every answer: a reader per question would lose lines it buffered.
    this.reader ??= createInterface({ input: process.stdin, terminal: false });
    this.lines ??= this.reader[Symbol.asyncIterator]();
    const next = await this.lines.next();
    if (!process.stdin.isTTY) process.stderr.write('\n');
    return next.done ? '' : next.value.trim();
  }

  close() {
    this.reader?.close();
  }
}

/** A line typed on the terminal, echoed as nothing (raw mode: backspace edits it, Ctrl-C cancels). */
function readHidden(): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let answer = '';
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(answer.trim());
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
