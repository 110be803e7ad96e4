// A virtual clock for the page: setTimeout, setInterval and Date.now run on test time, advanced by tick().
// (@sinonjs/fake-timers ships as CommonJS only, which the test runner does not load.)
const real = { setTimeout, clearTimeout, setInterval, clearInterval, now: Date.now };

const channel = new MessageChannel();
const waiting: Array<() => void> = [];
channel.port1.onmessage = () => waiting.shift()?.();
/** One real macrotask (a message, so no timer clamping). */
const yieldTask = () => new Promise<void>((go) => (waiting.push(go), channel.port2.postMessage(0)));

/** What the page waits for from the test's fakes (a fake answer's body, until it is read), registered by pageWork. */
const working = new Set<Promise<unknown>>();

/**
 * Registers `work` as something settle() waits for. A body is read in a number of turns that differs by browser
 * (Firefox takes more than Chromium), so settle() waits for the work itself, not for a count of turns.
 */
export function pageWork<T>(work: Promise<T>): Promise<T> {
  working.add(work);
  const done = () => working.delete(work);
  work.then(done, done);
  return work;
}

/**
 * Lets the page settle: every fake request answered and its body read, then `rounds` turns with nothing in flight
 * for what follows (Lit updates, the element's reaction to an answer, a request that reaction makes). Fails if the
 * page is still waiting after 5 s of real time.
 */
export const settle = async (rounds = 4) => {
  const deadline = real.now() + 5000;
  for (let quiet = 0; quiet < rounds;) {
    await yieldTask();
    quiet = working.size ? 0 : quiet + 1;
    if (working.size && real.now() > deadline)
      throw new Error(`the page never settled: ${working.size} fake requests still unanswered after 5 s`);
  }
};

interface Timer {
  id: number;
  at: number;
  every?: number;
  fn: () => void;
}

export class FakeClock {
  now: number;
  private timers = new Map<number, Timer>();
  private seq = 1;

  constructor(start = real.now()) {
    this.now = start;
  }

  install() {
    const w = window as unknown as Record<string, unknown>;
    w.setTimeout = (fn: () => void, ms = 0) => this.add(fn, ms);
    w.setInterval = (fn: () => void, ms = 0) => this.add(fn, ms, Math.max(1, ms));
    w.clearTimeout = w.clearInterval = (id?: number) => id !== undefined && this.timers.delete(id);
    Date.now = () => this.now;
    return this;
  }

  uninstall() {
    Object.assign(window, {
      setTimeout: real.setTimeout,
      clearTimeout: real.clearTimeout,
      setInterval: real.setInterval,
      clearInterval: real.clearInterval,
    });
    Date.now = real.now;
  }

  /** Advances time by `ms`, running each timer when due and letting promises settle after each. */
  async tick(ms: number) {
    const end = this.now + ms;
    await settle();
    for (;;) {
      const next = [...this.timers.values()].sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next || next.at > end) break;
      this.now = next.at;
      if (next.every) next.at += next.every;
      else this.timers.delete(next.id);
      next.fn();
      await settle();
    }
    this.now = end;
    await settle();
  }

  private add(fn: () => void, ms: number, every?: number) {
    const id = this.seq++;
    this.timers.set(id, { id, at: this.now + Math.max(0, ms), every, fn });
    return id;
  }
}
