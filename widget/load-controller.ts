// The element's asynchronous loads (the checkout, its words, a deposit being made) as one kind of reactive controller.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export interface LoadOptions<A extends readonly unknown[], R> {
  /** The load: `signal` aborts its requests when a newer run (or `reset`) supersedes it. */
  task(args: A, signal: AbortSignal): Promise<R>;
  /** Takes the outcome of the latest run (never a superseded one's). */
  onDone(value: R): void;
  /** What the load depends on, read after each update: a change runs it again (none: it runs when told). */
  args?(): A | undefined;
}

/**
 * One load of its host at a time: a run aborts the one before it (its AbortSignal), whose outcome is then dropped.
 * With `args`, a run starts after any update that changed them, so the host shows the load as pending meanwhile.
 * (What @lit/task does with `autoRun: 'afterUpdate'`, in a fraction of its bytes, which the first paint pays for.)
 */
export class LoadController<A extends readonly unknown[], R> implements ReactiveController {
  /** The latest run: none before any (or after `reset`), else pending, done or failed (with `error`). */
  status?: 'pending' | 'done' | 'failed';
  error?: unknown;
  /** Settles when the latest run has (done or failed). */
  settled: Promise<unknown> = Promise.resolve();
  private __args?: A;
  private __abort?: AbortController;
  private __host: ReactiveControllerHost;
  private __options: LoadOptions<A, R>;

  constructor(host: ReactiveControllerHost, options: LoadOptions<A, R>) {
    (this.__host = host).addController(this);
    this.__options = options;
  }

  hostUpdated() {
    const args = this.__options.args?.();
    if (args && !(this.__args && args.every((arg, i) => arg === this.__args![i]))) this.run(args);
  }

  /** Runs the load with `args` (by default the last ones: "Try again"). */
  run(args = this.__args!) {
    this.__abort?.abort();
    const abort = (this.__abort = new AbortController());
    const latest = () => abort === this.__abort;
    this.__args = args;
    this.status = 'pending';
    // Not within the update that may have started it: a next one shows the load pending.
    queueMicrotask(() => this.__host.requestUpdate());
    this.settled = this.__options.task(args, abort.signal).then(
      (value) => {
        if (!latest()) return;
        this.status = 'done';
        this.__options.onDone(value);
        this.__host.requestUpdate();
      },
      (error) => {
        if (!latest()) return;
        this.status = 'failed';
        this.error = error;
        this.__host.requestUpdate();
      },
    );
  }

  /** Takes `value` as the outcome of a run with the current arguments, without running (what the page's HTML held). */
  done(value: R) {
    this.__args = this.__options.args?.();
    this.status = 'done';
    this.__options.onDone(value);
  }

  /** Forgets the latest run, aborting it if it is pending. */
  reset() {
    this.__abort?.abort();
    this.__abort = this.status = undefined;
    this.__host.requestUpdate();
  }
}
