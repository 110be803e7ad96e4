// GET /checkouts/:id/events: the deposit as server-sent events, for a shopper's page that would rather not poll.
// Streams are counted per copy of the backend (a copy's memory and sockets are what a stream costs): at most
// sseMaxPerAddress per client (an IPv6 /64 counts as one) and sseMaxTotal in all. drain() ends them with a
// reconnect hint, so EventSource reconnects to another copy behind a load balancer.
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import ipaddr from 'ipaddr.js';
import { checkoutIdParam } from '../../common/widget-api.js';
import type { Logger } from '../../common/log.js';
import type { MerchantConfig } from '../config.js';
import { ApiError } from '../http.js';
import { TERMINAL } from '../model.js';
import type { MerchantService } from './service.js';
import type { CachedDeposit } from '../state/status-cache.js';

export interface EventStreamOptions {
  config: Pick<MerchantConfig, 'sseMaxPerAddress' | 'sseMaxTotal' | 'statusRefreshMs'>;
  /** Who a request comes from (the limits count streams per client). */
  addressOf: (c: Context) => string;
  /** A comment line this often keeps proxies from closing an idle stream (default 15 s). */
  heartbeatMs?: number;
  /** A stream ends after this long; EventSource reconnects (default 10 min). */
  maxStreamMs?: number;
  now: () => number;
  log: Logger;
}

export interface EventStreams {
  /** The route, to mount at the API's root. */
  readonly routes: Hono;
  /** True once drain() was called. */
  readonly draining: boolean;
  /** Ends the open streams with a reconnect hint and refuses new ones. */
  drain(): void;
}

export function eventStreams(service: MerchantService, options: EventStreamOptions): EventStreams {
  const { config, addressOf, now, log } = options;
  const streams = new StreamCounter(config.sseMaxPerAddress, config.sseMaxTotal);
  let draining = false;
  const wakeOnDrain = new Set<() => void>();
  const routes = new Hono();
  routes.get('/checkouts/:id/events', async (c) => {
    const id = checkoutIdParam(c);
    if (draining) throw new ApiError(503, 'This server is shutting down; reconnect');
    if (!(await service.exists(id))) throw new ApiError(404, 'Checkout not found');
    const address = streamOwner(addressOf(c));
    const refused = streams.acquire(address);
    if (refused) {
      c.header('Retry-After', '30');
      throw new ApiError(429, refused);
    }
    const heartbeatMs = options.heartbeatMs ?? 15_000;
    const maxStreamMs = options.maxStreamMs ?? 10 * 60_000;
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      let lastEtag: string | undefined;
      let wake: (() => void) | undefined;
      let pending: CachedDeposit | undefined;
      const unsubscribe = service.deposits.subscribe(id, (entry) => {
        pending = entry;
        wake?.();
      });
      const onDrain = () => wake?.();
      wakeOnDrain.add(onDrain);
      stream.onAbort(() => wake?.());
      const send = async (entry: CachedDeposit | undefined | null) => {
        if (!entry?.deposit || entry.etag === lastEtag) return false;
        lastEtag = entry.etag;
        await stream.writeSSE({
          event: 'deposit',
          data: JSON.stringify({ ...entry.deposit, serverTime: new Date(now()).toISOString() }),
        });
        return TERMINAL.has(entry.deposit.status);
      };
      const deadline = Date.now() + maxStreamMs;
      let beatAt = Date.now();
      try {
        await stream.write('retry: 3000\n\n');
        if (await send(await service.deposits.get(id).catch(() => service.deposits.peek(id)))) return;
        while (!stream.aborted && !stream.closed && Date.now() < deadline) {
          if (draining) {
            // Shutting down: reconnect soon (to another copy); the stream's last event id is not needed, the first
            // event of a new stream is the deposit as it is then.
            await stream.write('retry: 500\n\n');
            break;
          }
          // While no webhook reaches this backend, the stream re-reads the deposit as often as a poll would (a poller
          // sees a payment within one refresh; a stream must not lag behind it); with webhooks, at each heartbeat.
          const waitMs = service.webhooksArriving()
            ? heartbeatMs
            : Math.min(heartbeatMs, Math.max(config.statusRefreshMs, 250));
          const next =
            pending ??
            (await new Promise<CachedDeposit | undefined>((resolve) => {
              const timer = setTimeout(() => resolve(undefined), waitMs);
              wake = () => {
                clearTimeout(timer);
                resolve(pending);
              };
            }));
          wake = undefined;
          pending = undefined;
          if (stream.aborted || stream.closed) break;
          if (next) {
            if (await send(next)) return;
          } else if (!draining) {
            if (Date.now() - beatAt >= heartbeatMs - 10) {
              await stream.write(': ping\n\n');
              beatAt = Date.now();
            }
            // Bounded re-read: catches a change whose webhook has not (yet) arrived; listeners fire on change.
            void service.deposits.get(id).catch(() => undefined);
          }
        }
      } catch (err) {
        // A shopper who went away makes the next write fail: nothing to report.
        if (!stream.aborted && !stream.closed)
          log.warn({ checkoutId: id, err: err instanceof Error ? err.message : String(err) }, 'event stream failed');
      } finally {
        unsubscribe();
        wakeOnDrain.delete(onDrain);
        streams.release(address);
      }
    });
  });
  return {
    routes,
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
      for (const wakeStream of wakeOnDrain) wakeStream();
    },
  };
}

/** Open event streams of one copy, per client address and in all. */
class StreamCounter {
  private readonly perAddress = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly maxPerAddress: number,
    private readonly maxTotal: number,
  ) {}

  /** Counts a new stream, or answers why it is refused. */
  acquire(address: string): string | undefined {
    const open = this.perAddress.get(address) ?? 0;
    if (open >= this.maxPerAddress)
      return `Too many open event streams from this address (at most ${this.maxPerAddress}); close one or poll`;
    if (this.total >= this.maxTotal) return 'Too many open event streams on this server; poll the deposit instead';
    this.perAddress.set(address, open + 1);
    this.total++;
    return undefined;
  }

  release(address: string) {
    const open = this.perAddress.get(address) ?? 0;
    if (open <= 1) this.perAddress.delete(address);
    else this.perAddress.set(address, open - 1);
    this.total--;
  }
}

/**
 * Who a stream counts against: the client's address, or for IPv6 its /64 (one subscriber's network, in which a
 * client may hold any number of addresses).
 */
function streamOwner(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address); // an IPv4-mapped IPv6 address counts as its IPv4 address
  if (ip.kind() === 'ipv4') return ip.toString();
  const network = [...ip.toByteArray().slice(0, 8), 0, 0, 0, 0, 0, 0, 0, 0];
  return `${ipaddr.fromByteArray(network).toString()}/64`;
}
