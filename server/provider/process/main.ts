// Starting the payment-service sandbox: the one implementation behind startSandbox (the package's entry), the
// kasir-sandbox bin and the demo's `npm start`.
import { join } from 'node:path';
import { listen, type ListeningServer } from '../../common/http-server.js';
import { createLogger } from '../../common/log.js';
import { updateWebhookUrlOfClient } from '../accounts/merchants.js';
import { createProviderApp, type ProviderApp } from './app.js';
import { CREDENTIAL_CACHE } from '../auth/credentials.js';
import { expiringCache } from '../instance/cache.js';
import {
  resolveProviderConfig,
  SandboxConfigError,
  type ProviderConfig,
  type SandboxOptions,
} from '../instance/config.js';
import { openDatabase } from '../db/database.js';
import { DepositChangeFeed } from '../deposits/changes.js';
import { createDepositCaches } from '../deposits/read-cache.js';
import { ORGANIZATION_NAME_CACHE } from '../deposits/payment-plan.js';
import type { ProviderCaches, ProviderDeps } from '../instance/deps.js';
import { VERIFIED_TOKEN_CACHE } from '../auth/tokens.js';
import { startBackgroundJobs } from './jobs.js';
import { SandboxTelemetry } from '../instance/telemetry.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import type { DepositView as SandboxDeposit } from '../deposits/view.js';
import { createMailer } from '../mail/mailer.js';
import { loadJwtSecret } from '../db/service-keys.js';
import { SandboxClient, type WebhookAttempt } from '../sandbox/client.js';
import { seedSandbox, type SandboxCredentials } from '../sandbox/seed.js';

/** A sandbox serving over HTTP, as `startSandbox` returns it. */
export interface RunningSandbox {
  /** The service's origin (= `credentials.baseUrl`), e.g. `http://localhost:4010`; the interface's `/v1/...` paths are relative to it. */
  url: string;
  /** The port it listens on (the one picked when started with port 0). */
  port: number;
  /** The seeded merchant account: the same object as `sandbox.json`. */
  credentials: SandboxCredentials;
  /** The absolute data directory; `sandbox.json` is `join(dataDir, 'sandbox.json')`. */
  dataDir: string;
  /**
   * Starts delivering webhooks when the sandbox was started with `deliverWebhooks: false`: call it once the receiver
   * listens. Deliveries enqueued meanwhile wait in the outbox. With `webhookUrl` (the receiver's address, known only
   * once it listens, e.g. on port 0), the seeded merchant's webhook URL becomes that first; each later call may change it.
   */
  startDelivery(webhookUrl?: string): Promise<void>;
  /**
   * Pays a pending deposit, by its depositId (a checkout's deposit has the checkout's id) or `'latest'` (the newest
   * pending one): what is due, or `amount` (in its inputCurrency; docs/design.md, "Payments that do not go as
   * planned"). `currency` and `method` send it to a method the deposit had before a switch (money still arriving to its
   * old VA, account or address; docs/money.md). Answers the updated Deposit; its webhook goes out as for any payment
   * (see `webhooks()`).
   */
  pay(id: string, options?: { amount?: number | string; currency?: string; method?: string }): Promise<SandboxDeposit>;
  /** Expires a pending deposit (by depositId, checkout id or `'latest'`) as its time running out would. */
  expire(id: string): Promise<SandboxDeposit>;
  /**
   * A failed attempt to pay a pending deposit (by depositId, checkout id or `'latest'`; docs/indonesian-payments.md):
   * `reason` declined (the default), insufficient_balance or timeout. The deposit stays pending; webhook
   * deposit.payment_failed.
   */
  decline(id: string, options?: { reason?: 'declined' | 'insufficient_balance' | 'timeout' }): Promise<SandboxDeposit>;
  /**
   * The webhook delivery attempts, newest first (each: time, event, depositId, url, status or error, durationMs):
   * the last 20, or `limit`, of all deposits or of `depositId`.
   */
  webhooks(query?: { limit?: number; depositId?: string }): Promise<WebhookAttempt[]>;
  /**
   * Stops gracefully: stops accepting connections, lets requests and webhook deliveries in flight finish (up to a few
   * seconds), then closes the remaining connections and the database. Safe to call twice.
   */
  stop(): Promise<void>;
}

/** How long stop() lets requests and webhook deliveries in flight finish before cutting them. */
const STOP_GRACE_MS = 5_000;

/** Where a running sandbox keeps its internals: a hidden (symbol, non-enumerable) property of the sandbox itself. */
const DEPS = Symbol('kasir.sandboxDeps');

/** The internals of a running sandbox (database, config, clock) for this repository's own tests; not part of the package's API. */
export function sandboxDeps(sandbox: RunningSandbox): ProviderDeps {
  const deps = (sandbox as RunningSandbox & { [DEPS]?: ProviderDeps })[DEPS];
  if (!deps) throw new Error('not a sandbox started by startSandbox');
  return deps;
}

/** Where a database URL points, without its credentials (for error messages). */
function describeDatabase(config: ProviderConfig): string {
  if (!config.databaseUrl) return `the SQLite file ${join(config.dataDir, 'kasir.sqlite')}`;
  try {
    const u = new URL(config.databaseUrl);
    return `the PostgreSQL database ${u.host}${u.pathname}`;
  } catch {
    return 'the PostgreSQL database';
  }
}

/**
 * A service instance's own, empty caches, on its clock. On PostgreSQL other copies may write the same database: a
 * cached deposit view is answered only once the change feed has heard every change committed before the read.
 */
function createProviderCaches(changes: DepositChangeFeed, now: () => Date, shared: boolean): ProviderCaches {
  return {
    ...createDepositCaches(changes, now, shared),
    credentials: expiringCache(now, CREDENTIAL_CACHE),
    verifiedTokens: expiringCache(now, VERIFIED_TOKEN_CACHE),
    organizationNames: expiringCache(now, ORGANIZATION_NAME_CACHE),
  };
}

/**
 * Opens (and migrates) the database of a resolved configuration, loads the token key and makes this instance's own
 * mailer and caches: everything the service is built from, with nothing listening. startSandbox serves it; the tests
 * drive it through app.request().
 */
export async function openProvider(config: ProviderConfig, now: () => Date = () => new Date()): Promise<ProviderDeps> {
  let db;
  try {
    db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  } catch (err) {
    const code = (err as { code?: string } | undefined)?.code;
    const reason = (err instanceof Error && err.message) || code || String(err);
    throw Object.assign(new Error(`Cannot open ${describeDatabase(config)}: ${reason}`, { cause: err }), {
      code: code ?? 'KASIR_DATABASE',
    });
  }
  try {
    const logger = createLogger('kasir-sandbox', { level: config.logLevel });
    const changes = new DepositChangeFeed();
    return {
      db,
      config,
      jwtSecret: await loadJwtSecret(db, config.dataDir, now()),
      now,
      logger,
      mailer: createMailer(config, db, now, logger),
      caches: createProviderCaches(changes, now, !!config.databaseUrl),
      changes,
      telemetry: new SandboxTelemetry(config, db, changes, now),
    };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

/** The config with the port the server got (port 0 picks one) and a base URL that names it. */
function withListeningPort(config: ProviderConfig, port: number): ProviderConfig {
  if (config.port !== 0) return config;
  const base = new URL(config.baseUrl);
  if (base.port !== '0') return { ...config, port };
  base.port = String(port);
  return { ...config, port, baseUrl: base.origin };
}

/**
 * Starts the payment-service sandbox: opens its database (SQLite in `dataDir`, or PostgreSQL with `databaseUrl`),
 * serves the interface's API, the hosted checkout, the dashboard and the docs on `port`, seeds the sandbox merchant
 * (once; a restart on the same data keeps it) and writes `sandbox.json` in `dataDir`.
 *
 * Options left out come from the environment (`PROVIDER_PORT`, `KASIR_DATA_DIR`, `DATABASE_URL`, `KASIR_WEBHOOK_URL`, ...)
 * and then the defaults. A bad option throws an Error naming it (a `SandboxConfigError`) before anything listens.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const config = resolveProviderConfig(options);
  // Before anything else touches the data dir: a second sandbox on it refuses instead of rewriting sandbox.json.
  const unlock = lockDataDir(config.dataDir);
  let deps: ProviderDeps;
  try {
    deps = await openProvider(config, options.now);
  } catch (err) {
    unlock();
    throw err;
  }
  let http: ListeningServer | undefined;
  let stopJobs: ((graceMs?: number) => Promise<void>) | undefined;
  let releaseDelivery!: () => void;
  const deliveryStarted = new Promise<void>((resolve) => {
    releaseDelivery = resolve;
  });
  try {
    // The app is built once the port is known: with port 0 the URLs it hands out (OpenAPI servers, checkout links)
    // must carry the port picked. A request that arrives before the account is seeded and sandbox.json written waits
    // for it, so whoever sees the port answer finds both.
    let app: ProviderApp | undefined;
    let seeded!: (app: ProviderApp) => void;
    const ready = new Promise<ProviderApp>((resolve) => {
      seeded = resolve;
    });
    try {
      http = await listen(
        (request, env) => (app ? app.fetch(request, env) : ready.then((built) => built.fetch(request, env))),
        config.port,
        { hostname: config.host, closeTimeoutMs: STOP_GRACE_MS },
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const reason =
        code === 'EADDRINUSE'
          ? 'the port is already in use'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message;
      throw Object.assign(new Error(`Cannot listen on ${config.host}:${config.port}: ${reason}`, { cause: err }), {
        code,
      });
    }
    // With port 0 the port, and the base URL that carries it, are known only now: the instance's config is completed
    // once, here, before anything reads it for a request, and frozen (never changed after listen).
    const listening = Object.freeze(withListeningPort(config, http.port));
    deps = { ...deps, config: listening };
    const built = createProviderApp(deps);
    const credentials = await seedSandbox(deps);
    app = built;
    seeded(built);
    stopJobs = startBackgroundJobs(deps, {
      deliverAfter: options.deliverWebhooks === false ? deliveryStarted : undefined,
    });
    const server = http;
    const jobs = stopJobs;
    let stopping: Promise<void> | undefined;
    // The same calls over HTTP as kasir-sandbox's commands: a shop's test drives the sandbox as a terminal would. To the
    // socket itself, not the public baseUrl (a proxy's, KASIR_PROVIDER_PUBLIC_URL).
    const host = listening.host === '0.0.0.0' || listening.host === '::' ? '127.0.0.1' : listening.host;
    const client = new SandboxClient({
      ...credentials,
      baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${http.port}`,
    });
    const startDelivery = async (webhookUrl?: string) => {
      if (webhookUrl !== undefined) {
        if (!URL.canParse(webhookUrl) || !['http:', 'https:'].includes(new URL(webhookUrl).protocol)) {
          throw new SandboxConfigError([
            { setting: 'webhookUrl', problem: 'must be an http:// or https:// URL', value: webhookUrl },
          ]);
        }
        await updateWebhookUrlOfClient(deps.db, credentials.clientId, webhookUrl, deps.now());
      }
      releaseDelivery();
    };
    const sandbox: RunningSandbox = {
      url: listening.baseUrl,
      port: http.port,
      credentials,
      dataDir: listening.dataDir,
      startDelivery,
      pay: (id, options) => client.pay(id, options),
      expire: (id) => client.expire(id),
      decline: (id, options) => client.decline(id, options),
      webhooks: (query) => client.webhooks(query),
      stop() {
        stopping ??= (async () => {
          // Requests first (a request in flight may still enqueue a webhook), with deliveries going on meanwhile.
          const closed = server.close();
          await Promise.all([closed, jobs(STOP_GRACE_MS)]);
          await deps.db.destroy();
          unlock();
          deps.logger.flush();
        })();
        return stopping;
      },
    };
    Object.defineProperty(sandbox, DEPS, { value: deps });
    return sandbox;
  } catch (err) {
    await stopJobs?.().catch(() => {});
    await http?.close().catch(() => {});
    await deps.db.destroy().catch(() => {});
    unlock();
    throw err;
  }
}
