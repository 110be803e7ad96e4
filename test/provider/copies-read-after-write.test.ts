// Read after write between two service instances on one PostgreSQL database, each hearing the other's changes
// (deposits/changes.ts): once A has answered a payment, B asked at once never answers the deposit from before it,
// though A's NOTIFY may not have reached B's read cache yet (docs/money.md). Both in one process, so B's read follows
// A's answer as closely as it can. PostgreSQL only (`npm run test:server:pg`); test/multi/read-after-write.test.ts
// does the same with two compiled copies and the notifications held back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestProvider, testDatabaseUrl, type TestProvider } from '../support/provider';
import { createFiat, type DepositView } from './deposit-helpers';
import { dataOf } from '../support/envelope';

const ROUNDS = 30;

describe(
  'read after write between two instances on one PostgreSQL',
  { skip: !testDatabaseUrl && 'PostgreSQL only' },
  () => {
    let a: TestProvider;
    let b: TestProvider;

    before(async () => {
      a = await createTestProvider();
      const databaseUrl = a.deps.config.databaseUrl!;
      b = await createTestProvider({ databaseUrl });
      for (const p of [a, b]) {
        p.deps.changes.listen(databaseUrl, p.deps.logger);
        while (!(await p.deps.changes.heardUpToNow())) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });

    after(async () => {
      for (const p of [b, a]) await p?.deps.changes.close();
      await b?.close();
      await a?.close();
    });

    /** B's signed read, as A's merchant. */
    const readOnB = async (id: string) =>
      dataOf<DepositView>(
        await b.signed('GET', `/v1/deposit/${id}`, undefined, {
          clientId: a.creds.clientId,
          secret: a.creds.clientSecret,
        }),
      );

    it('a payment answered by A: B, asked at once, never answers the deposit from before it', async () => {
      const stale: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const { depositId } = await createFiat(a);
        await readOnB(depositId);
        assert.equal((await readOnB(depositId)).paidAmount, 0); // B keeps the deposit as it is
        const paid = await dataOf<DepositView>(await a.signed('POST', `/v1/deposit/${depositId}/payments`, {}));
        const seen = await readOnB(depositId);
        if (seen.version < paid.version || seen.paidAmount !== paid.paidAmount)
          stale.push(
            `round ${round}: B answered version ${seen.version} (paid ${seen.paidAmount}) after A's ${paid.version}`,
          );
      }
      assert.deepEqual(stale, []);
    });
  },
);
