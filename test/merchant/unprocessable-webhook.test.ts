// A webhook whose deposit carries a figure that is no number (paidAmount null, after
// `{"amount":1e308}` twice) must not make the receiver throw on Decimal(null) and answer 503 for ever
// (deposit.paid_late retried and never processed). The receiver answers such a genuine webhook 200 with `refused: true`
// (the sender stops retrying: the sandbox's dispatcher, as most senders, retries every non-2xx answer for days), runs
// no hook for it, and logs one warning naming the deposit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { createLogger } from '../../server/common/log';
import { call, depositEvent, merchantApp, startUpstream, upstreamDeposit, type Upstream } from './support';

describe('merchant receiver: a webhook it cannot process', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  for (const [name, bad] of [
    ['paidAmount null', null],
    ['paidAmount a string', 'lots'],
    ['remainingAmount an object', {}],
  ] as const) {
    it(`paid_late with ${name}: 200 refused, no hook, one warning naming the deposit, and a retry is not processed again`, async () => {
      lines.length = 0;
      let hooks = 0;
      const app = merchantApp(up, {
        onDepositPaidLate: () => {
          hooks++;
        },
        onDepositExpired: () => {
          hooks++;
        },
        logger: createLogger('test', { level: 'warn', destination }),
      });
      const id = randomUUID();
      const deposit = upstreamDeposit(id, 'expired');
      const field = name.split(' ')[0];
      const body = JSON.parse(
        depositEvent({
          ...deposit,
          payments: [
            {
              amount: 1e308,
              currency: 'IDR',
              method: 'BCA_VA',
              value: 1e308,
              receivedAt: deposit.updatedAt,
              late: true,
            },
          ],
        }),
      ) as Record<string, unknown>;
      body.type = 'deposit.paid_late';
      (body.data as Record<string, unknown>)[field] = bad;
      const text = JSON.stringify(body);
      const headers = {
        'Content-Type': 'application/json',
        ...webhookHeaders(up.provider.credentials.webhookSecret, `msg_${id}`, text),
      };
      const first = await call(app, 'POST', '/api/webhooks/kasir', text, headers);
      assert.equal(first.status, 200, first.text);
      assert.equal((first.json as { refused?: boolean }).refused, true);
      const retry = await call(app, 'POST', '/api/webhooks/kasir', text, headers);
      assert.equal(retry.status, 200);
      assert.equal(hooks, 0);
      const warnings = lines.filter((l) => l.includes(id));
      assert.equal(warnings.length, 1, lines.join('\n'));
      assert.match(warnings[0], new RegExp(`"level":40.*${field}`));
    });
  }
});
