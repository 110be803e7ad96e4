// The status cache on its own (injected clock, hand-settled loads): stale-while-revalidate within its bound, and the
// guarantees it keeps (one load per key at a time, pushes win over older reads, terminal values never re-read,
// failures back off).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedReader, DepositStatusCache } from '../../server/merchant/state/status-cache';
import { LocalState } from '../../server/merchant/state/shared-state';
import type { StoredDeposit } from '../../server/merchant/model';

/** A load the test settles by hand, and how many were started. */
function gatedLoads<T>() {
  const pending: Array<{ key: string; resolve: (value: T) => void; reject: (err: unknown) => void }> = [];
  return {
    pending,
    load: (key: string) =>
      new Promise<T>((resolve, reject) => {
        pending.push({ key, resolve, reject });
      }),
  };
}

/** Lets settled promises run their callbacks. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('merchant status cache: stale-while-revalidate', () => {
  const refreshMs = 1000;

  function reader(staleMs: number) {
    let t = 0;
    const loads = gatedLoads<string>();
    const cache = new BoundedReader<string>(loads.load, {
      refreshMs,
      staleMs,
      now: () => t,
      isFinal: (v) => v === 'final',
    });
    return {
      cache,
      loads,
      advance: (ms: number) => {
        t += ms;
      },
    };
  }

  async function primed(staleMs: number, value = 'v1') {
    const r = reader(staleMs);
    const first = r.cache.get('k');
    r.loads.pending.shift()!.resolve(value);
    assert.equal(await first, value);
    return r;
  }

  it('answers a value past its interval at once while one re-read runs, then serves what the re-read found', async () => {
    const { cache, loads, advance } = await primed(refreshMs);
    advance(refreshMs + 10);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get('k')));
    assert.deepEqual(new Set(answers), new Set(['v1']), 'every reader gets the known value without waiting');
    assert.equal(loads.pending.length, 1, 'one re-read for all of them');
    loads.pending.shift()!.resolve('v2');
    await flush();
    assert.equal(await cache.get('k'), 'v2');
    assert.equal(loads.pending.length, 0, 'the re-read value is fresh: no further load');
  });

  it('makes readers of a value older than the interval and the stale bound wait for the read', async () => {
    const { cache, loads, advance } = await primed(refreshMs);
    advance(2 * refreshMs + 1);
    let settled = false;
    const answer = cache.get('k').then((v) => {
      settled = true;
      return v;
    });
    await flush();
    assert.equal(settled, false, 'too old: the reader waits');
    assert.equal(loads.pending.length, 1);
    loads.pending.shift()!.resolve('v2');
    assert.equal(await answer, 'v2');
  });

  it('without a stale bound, waits as before', async () => {
    const { cache, loads, advance } = await primed(0);
    advance(refreshMs + 10);
    let settled = false;
    const answer = cache.get('k').then((v) => {
      settled = true;
      return v;
    });
    await flush();
    assert.equal(settled, false);
    loads.pending.shift()!.resolve('v2');
    assert.equal(await answer, 'v2');
  });

  it('keeps a push that lands while the background re-read runs over the older read', async () => {
    const { cache, loads, advance } = await primed(refreshMs);
    advance(refreshMs + 10);
    assert.equal(await cache.get('k'), 'v1');
    advance(5);
    cache.put('k', 'pushed');
    loads.pending.shift()!.resolve('older read');
    await flush();
    assert.equal(await cache.get('k'), 'pushed');
  });

  it('keeps serving the last value when the background re-read fails, and tries again one interval later', async () => {
    const { cache, loads, advance } = await primed(refreshMs);
    advance(refreshMs + 10);
    assert.equal(await cache.get('k'), 'v1');
    loads.pending.shift()!.reject(new Error('payment service down'));
    await flush();
    assert.equal(await cache.get('k'), 'v1');
    assert.equal(loads.pending.length, 0, 'backed off: no new load within the interval');
    advance(refreshMs + 10);
    assert.equal(await cache.get('k'), 'v1');
    assert.equal(loads.pending.length, 1, 'tried again after the interval, in the background');
  });

  it('never re-reads a final value', async () => {
    const { cache, loads, advance } = await primed(refreshMs, 'final');
    advance(10 * refreshMs);
    assert.equal(await cache.get('k'), 'final');
    assert.equal(loads.pending.length, 0);
  });
});

describe('merchant status cache: a deposit read in the background wakes its listeners', () => {
  it('answers the pending deposit at once, then the completed one the re-read found, telling the stream', async () => {
    let t = 0;
    const loads = gatedLoads<StoredDeposit | null>();
    const cache = new DepositStatusCache(loads.load, new LocalState(), {
      refreshMs: 1000,
      staleMs: 1000,
      now: () => t,
    });
    const deposit = (status: string, version: number) =>
      ({ checkoutId: 'c1', id: 'c1', status, version }) as unknown as StoredDeposit;
    const first = cache.get('c1');
    await flush();
    loads.pending.shift()!.resolve(deposit('pending', 1));
    assert.equal((await first).deposit?.status, 'pending');
    const seen: string[] = [];
    cache.subscribe('c1', (entry) => seen.push(entry.deposit!.status));
    t += 1500;
    assert.equal((await cache.get('c1')).deposit?.status, 'pending', 'answered at once');
    await flush();
    assert.equal(loads.pending.length, 1);
    loads.pending.shift()!.resolve(deposit('completed', 2));
    await flush();
    assert.deepEqual(seen, ['completed']);
    assert.equal((await cache.get('c1')).deposit?.status, 'completed');
  });
});
