// `kasir-merchant login` (shipped in @kasir/merchant): email, password and the code from the sandbox's OTP mailbox give
// an access token the service accepts; only `KASIR_ACCESS_TOKEN=...` reaches stdout, never the password.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { RunningSandbox } from '../../server/provider/process/main';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { commandArgs } from '../support/commands';
import { startTestSandbox, type TestSandbox } from '../support/provider';

const jwtPayload = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as {
    sub: string;
    iat: number;
    exp?: number;
  };

describe('kasir-merchant login against a running sandbox', () => {
  let running: TestSandbox;
  let provider: RunningSandbox;
  before(async () => {
    running = await startTestSandbox('kasir-login-');
    provider = running.sandbox;
  });
  after(() => running.stop());
  const run = (args: string[], input?: string, env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [...commandArgs('kasir-merchant'), 'login', ...args], {
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        env: { ...process.env, KASIR_PASSWORD: '', KASIR_EMAIL: '', KASIR_BASE_URL: '', ...env },
      });
      if (input !== undefined) child.stdin!.end(input);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => {
        stdout += d;
      });
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const accepted = async (token: string) => {
    const client = new PaymentServiceClient({ baseUrl: provider.url, accessToken: token });
    return (await client.listPaymentMethods({ currency: 'IDR' })).length > 0;
  };

  it('signs in from its flags, the code from the mailbox, and prints a non-expiring token the service accepts', async () => {
    const { credentials } = provider;
    const ok = await run([
      '--base-url',
      provider.url,
      '--email',
      credentials.email,
      '--password',
      credentials.password,
      '--mailbox',
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    const match = /^KASIR_ACCESS_TOKEN=(\S+)\n$/.exec(ok.stdout);
    assert.ok(match, ok.stdout);
    assert.equal(jwtPayload(match[1]).exp, undefined, 'non-expiring');
    assert.ok(await accepted(match[1]));
    assert.ok(!ok.stderr.includes(credentials.password), 'the password is never echoed');
  });

  it('takes the answers on stdin (email, then password) and the base URL from KASIR_BASE_URL; --expiring gives 24 hours', async () => {
    const { credentials } = provider;
    const piped = await run(['--mailbox', '--expiring'], `${credentials.email}\n${credentials.password}\n`, {
      KASIR_BASE_URL: provider.url,
    });
    assert.equal(piped.code, 0, piped.stderr);
    const token = /^KASIR_ACCESS_TOKEN=(\S+)\n$/.exec(piped.stdout)![1];
    assert.equal(jwtPayload(token).exp! - jwtPayload(token).iat, 24 * 3600);
    assert.ok(await accepted(token));
  });

  it('exits 1 on a wrong password, saying why on stderr and printing nothing; --help prints its usage', async () => {
    const bad = await run([
      '--base-url',
      provider.url,
      '--email',
      provider.credentials.email,
      '--password',
      'wrong-password',
      '--otp',
      '000000',
    ]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /login failed: Invalid email or password/);
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stderr, /Usage: kasir-merchant login/);
  });
});
