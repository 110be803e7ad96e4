// A request body that never finishes is cut off after a bounded time on both servers: a client that
// drips a byte every 2 s, or announces a Content-Length longer than what it sends, gets 408 and a closed connection
// within the servers' 15 s request timeout (server/common/http-server.ts), not Node's 300 s.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { startTestSandbox, testDatabaseUrl, type TestSandbox } from '../support/provider';

/** What the server did to a request whose body never completes: when it closed the connection, and its status line. */
function unfinishedBody(
  port: number,
  path: string,
  drip: boolean,
  giveUpMs: number,
): Promise<{ closedAfterMs: number | undefined; status: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    let dripper: NodeJS.Timeout | undefined;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${drip ? 1000 : 25}\r\n\r\n{"amount":`,
      );
      if (drip) dripper = setInterval(() => socket.write(' '), 2000);
    });
    const done = (closedAfterMs: number | undefined) => {
      clearInterval(dripper);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedAfterMs, status: answer.split('\r\n')[0] ?? '' });
    };
    const giveUp = setTimeout(() => done(undefined), giveUpMs);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', () => done(Date.now() - started));
    socket.on('error', () => {
      /* a reset is a close too */
    });
  });
}

// The HTTP server's bound, reached before any database: run once, on SQLite (test:server), not again on PostgreSQL.
describe(
  'both servers cut off a request body that never completes',
  { skip: Boolean(testDatabaseUrl) && 'no database in it: test:server runs it' },
  () => {
    let sandbox: TestSandbox;
    let merchant: RunningMerchant;
    let dataDir: string;
    before(async () => {
      sandbox = await startTestSandbox('kasir-body-timeout-');
      dataDir = mkdtempSync(join(tmpdir(), 'kasir-body-timeout-merchant-'));
      merchant = await startMerchant({ port: 0, host: '127.0.0.1', dataDir });
    });
    after(async () => {
      await merchant.stop();
      await sandbox.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a dripping body and a short body: 408 and closed within the request timeout (15 s), on the sandbox and the merchant', async () => {
      const targets = [
        ['sandbox', sandbox.sandbox.port, '/v1/checkout'],
        ['merchant', merchant.port, '/api/checkouts'],
      ] as const;
      const outcomes = await Promise.all(
        targets.flatMap(([name, port, path]) =>
          [true, false].map(async (drip) => ({
            what: `${name}, ${drip ? 'dripping' : 'short'} body`,
            ...(await unfinishedBody(port, path, drip, 25_000)),
          })),
        ),
      );
      for (const { what, closedAfterMs, status } of outcomes) {
        assert.ok(
          closedAfterMs !== undefined && closedAfterMs < 19_000,
          `${what}: still open after ${closedAfterMs ?? 25_000} ms`,
        );
        assert.match(status, /^HTTP\/1\.1 408 /, `${what}: ${status}`);
      }
    });
  },
);
