// `kasir-merchant check` and `kasir.check()`: is this configuration one a live shop can run on? One result per check,
// each failing one naming the setting to fix (docs/going-live.md). Reads the settings as given, even broken ones, so
// every problem is told at once instead of the first one thrown.
import ipaddr from 'ipaddr.js';
import { WEBHOOK_SECRET_FORMAT } from '../common/standard-webhooks.js';
import { PaymentServiceClient } from './client/client.js';
import { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';
import type { RequestSigner } from './client/signing.js';
import {
  checkMerchantOptions,
  ConfigError,
  DEFAULT_DATA_DIR,
  ORDER_SECRET_MIN_BYTES,
  type KasirApiOptions,
} from './config.js';
import { CONNECTION_VARIABLES, readEnvironment, type EnvName } from './env.js';

export interface CheckResult {
  /** service, credentials, accessToken, webhookSecret, allowedOrigins, redis, sandbox, orderSecret, settings, metrics. */
  name: string;
  ok: boolean;
  /** What was found; on a failure, the setting to fix. */
  message: string;
}

export interface CheckReport {
  /** Every check passed. */
  ok: boolean;
  checks: CheckResult[];
}

/** The settings checked, as they are (missing or malformed ones included). */
interface CheckInput {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  accessToken?: string;
  webhookSecret?: string;
  allowedOrigins: readonly string[];
  orderSecret?: string;
  sandbox: boolean;
  redisUrl?: string;
  /** Resolves when the shared state (Redis) answers, rejects otherwise; asked only when redisUrl is set. */
  pingRedis?: () => Promise<void>;
  fetch?: typeof fetch;
  signRequest?: RequestSigner;
  /** Longest wait for each call to the service, in ms (default 10 s). */
  timeoutMs?: number;
}

/** How a setting is named in a failing line: its variable, then its option. */
const SETTING = {
  baseUrl: 'KASIR_BASE_URL (baseUrl)',
  clientId: 'KASIR_CLIENT_ID (clientId)',
  clientSecret: 'KASIR_CLIENT_SECRET (clientSecret)',
  accessToken: 'KASIR_ACCESS_TOKEN (accessToken)',
  webhookSecret: 'KASIR_WEBHOOK_SECRET (webhookSecret)',
  allowedOrigins: 'KASIR_ALLOWED_ORIGINS (allowedOrigins)',
  redisUrl: 'REDIS_URL (redisUrl)',
  sandbox: 'KASIR_SANDBOX (sandbox)',
  orderSecret: 'KASIR_ORDER_SECRET (orderSecret)',
} as const;

/** Runs every check (the calls to the service and Redis at once) and answers them in a fixed order. */
async function checkConfiguration(input: CheckInput): Promise<CheckReport> {
  const baseUrl = httpUrl(input.baseUrl);
  const client = baseUrl
    ? new PaymentServiceClient({
        baseUrl,
        clientId: input.clientId,
        clientSecret: input.clientSecret,
        accessToken: input.accessToken,
        fetch: input.fetch,
        signRequest: input.signRequest,
        timeoutMs: input.timeoutMs ?? 10_000,
      })
    : undefined;
  const checks = await Promise.all([
    checkService(input, baseUrl),
    checkCredentials(input, client),
    checkAccessToken(input, client),
    checkWebhookSecret(input.webhookSecret),
    checkAllowedOrigins(input.allowedOrigins),
    checkRedis(input),
    checkSandbox(input.sandbox, baseUrl),
    checkOrderSecret(input.orderSecret, input.sandbox),
    checkHostedCheckout(input, client),
  ]);
  return { ok: checks.every((check) => check.ok), checks };
}

const pass = (name: string, message: string): CheckResult => ({ name, ok: true, message });
const fail = (name: string, message: string): CheckResult => ({ name, ok: false, message });

function httpUrl(value: string | undefined): string | undefined {
  try {
    const url = new URL(value ?? '');
    return ['http:', 'https:'].includes(url.protocol) ? url.href.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/** The service answers at baseUrl: any HTTP answer to an unsigned list call (a 401 is the expected one). */
async function checkService(input: CheckInput, baseUrl: string | undefined): Promise<CheckResult> {
  const name = 'service';
  if (!input.baseUrl)
    return fail(name, `${SETTING.baseUrl} is not set: the payment service's origin, e.g. https://api.service.example`);
  if (!baseUrl) return fail(name, `${SETTING.baseUrl} is not an http(s) URL (got ${JSON.stringify(input.baseUrl)})`);
  let res: Response;
  try {
    res = await (input.fetch ?? globalThis.fetch)(`${baseUrl}/v1/deposit?limit=1`, {
      headers: { Accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(input.timeoutMs ?? 10_000),
    });
    await res.body?.cancel();
  } catch (err) {
    const cause = err instanceof Error ? (err.cause as NodeJS.ErrnoException | undefined) : undefined;
    const code = cause?.code || cause?.message || (err instanceof Error ? err.message : String(err));
    return fail(name, `nothing answers at ${baseUrl} (${code}): check ${SETTING.baseUrl}`);
  }
  if (res.status === 404)
    return fail(
      name,
      `${baseUrl} answers, but not as the payment service (404 on /v1/deposit): ${SETTING.baseUrl} is the service's origin, without /v1`,
    );
  if (res.status >= 300 && res.status < 400)
    return fail(
      name,
      `${baseUrl} redirects (${res.status}${res.headers.get('location') ? ` to ${res.headers.get('location')}` : ''}): set ${SETTING.baseUrl} to where it points`,
    );
  return pass(name, `the payment service answers at ${baseUrl}`);
}

/** Client id and secret accepted: a signed GET /v1/deposit?limit=1. */
async function checkCredentials(input: CheckInput, client: PaymentServiceClient | undefined): Promise<CheckResult> {
  const name = 'credentials';
  const missing = (['clientId', 'clientSecret'] as const).filter((key) => !input[key]);
  if (missing.length) return fail(name, `${missing.map((key) => SETTING[key]).join(' and ')} not set`);
  if (!client) return fail(name, `not checked: ${SETTING.baseUrl} is missing or malformed`);
  try {
    await client.listDeposits({ limit: 1 });
    return pass(name, 'client id and secret accepted (a signed GET /v1/deposit?limit=1)');
  } catch (err) {
    if (err instanceof PaymentServiceError && err.isAuth) {
      // The interface does not say how a refusal reads; the usual words point at one setting, else both.
      const said = err.message.toLowerCase();
      const settings =
        /client|x-client-id/.test(said) && /unknown|not registered|not found|invalid client/.test(said)
          ? SETTING.clientId
          : /signature/.test(said)
            ? `${SETTING.clientSecret}${input.signRequest ? ' (or the signRequest option)' : ' (a service with another signature scheme: pass signRequest to createKasirApi and run kasir.check())'}`
            : /timestamp/.test(said)
              ? "this server's clock"
              : `${SETTING.clientId} and ${SETTING.clientSecret}`;
      return fail(name, `the service refused the signed call: ${err.statusCode} "${err.message}": check ${settings}`);
    }
    return fail(name, failureOf(err, 'GET /v1/deposit'));
  }
}

/** Access token accepted: GET /v1/deposit/payment-method with it. */
async function checkAccessToken(input: CheckInput, client: PaymentServiceClient | undefined): Promise<CheckResult> {
  const name = 'accessToken';
  if (!input.accessToken) return fail(name, `${SETTING.accessToken} is not set (\`kasir-merchant login\` prints one)`);
  if (!client) return fail(name, `not checked: ${SETTING.baseUrl} is missing or malformed`);
  try {
    await client.listPaymentMethods();
    return pass(name, 'access token accepted (GET /v1/deposit/payment-method)');
  } catch (err) {
    if (err instanceof PaymentServiceError && err.isAuth) {
      return fail(
        name,
        `the service refused the access token: ${err.statusCode} "${err.message}": check ${SETTING.accessToken} (\`kasir-merchant login\` prints a new one)`,
      );
    }
    return fail(name, failureOf(err, 'GET /v1/deposit/payment-method'));
  }
}

function failureOf(err: unknown, call: string): string {
  if (err instanceof PaymentServiceUnavailableError)
    return `not checked: the service does not answer ${call} (${err.message}): check ${SETTING.baseUrl}`;
  if (err instanceof PaymentServiceError) return `the service failed ${call}: ${err.statusCode} "${err.message}"`;
  return `${call} failed: ${err instanceof Error ? err.message : String(err)}`;
}

function checkWebhookSecret(secret: string | undefined): CheckResult {
  const name = 'webhookSecret';
  if (!secret)
    return fail(
      name,
      `${SETTING.webhookSecret} is not set: the secret the service's dashboard shows for this shop's webhook URL`,
    );
  if (!WEBHOOK_SECRET_FORMAT.test(secret))
    return fail(name, `${SETTING.webhookSecret} is malformed: it must be whsec_ followed by base64`);
  return pass(name, "webhook secret well formed (whsec_...); whether it is the service's shows at the first webhook");
}

function checkAllowedOrigins(values: readonly string[]): CheckResult {
  const name = 'allowedOrigins';
  const bad = values.filter((value) => !isOrigin(value));
  if (bad.length)
    return fail(
      name,
      `${SETTING.allowedOrigins}: ${bad.map((value) => JSON.stringify(value)).join(', ')} ${bad.length > 1 ? 'are not origins' : 'is not an origin'} (scheme://host[:port], no path)`,
    );
  return pass(name, values.length ? `${values.join(', ')}` : "none: only the API's own origin may call it");
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && url.origin === value.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

async function checkRedis(input: CheckInput): Promise<CheckResult> {
  const name = 'redis';
  if (!input.redisUrl) return pass(name, 'not set: one copy of the backend only (more than one needs REDIS_URL)');
  if (!/^rediss?:\/\/\S+$/.test(input.redisUrl))
    return fail(name, `${SETTING.redisUrl} must be a redis:// or rediss:// URL`);
  try {
    if (!input.pingRedis) throw new Error('no shared state to ask');
    await input.pingRedis();
    return pass(name, 'Redis answers');
  } catch (err) {
    return fail(
      name,
      `Redis does not answer (${err instanceof Error ? err.message : String(err)}): check ${SETTING.redisUrl}`,
    );
  }
}

/**
 * The account's hosted checkout is on: a signed POST /v1/checkout with an empty body, which the service refuses for a
 * missing amount when it is on (nothing is made) and with "Checkout is not enabled" when it is off (a new account's).
 */
async function checkHostedCheckout(input: CheckInput, client: PaymentServiceClient | undefined): Promise<CheckResult> {
  const name = 'checkout';
  if (!client || !input.clientId || !input.clientSecret)
    return fail(name, `not checked: ${SETTING.baseUrl}, ${SETTING.clientId} and ${SETTING.clientSecret} are needed`);
  try {
    await client.call('POST', '/v1/checkout', { auth: 'S', body: {} });
    return pass(name, 'hosted checkout enabled for this account');
  } catch (err) {
    if (err instanceof PaymentServiceError && /not enabled/i.test(err.message))
      return fail(
        name,
        `the service refused: ${err.statusCode} "${err.message}": switch on "Hosted checkout enabled" in the payment service's dashboard (Checkout), or ask the provider to enable it for this account; until then no checkout can be made`,
      );
    if (err instanceof PaymentServiceError && err.isAuth)
      return fail(name, `not checked: the service refused the signed call (see credentials)`);
    if (err instanceof PaymentServiceError && err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 404)
      return pass(
        name,
        'hosted checkout enabled for this account (an empty POST /v1/checkout is refused for its amount)',
      );
    return fail(name, failureOf(err, 'POST /v1/checkout'));
  }
}

/** Whether a URL's host is this machine (localhost, 127.0.0.0/8, ::1). */
function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/**
 * Whether sandbox mode is on against a service not on this machine: what a live shop must never run with. The backend
 * warns once when it first uses such a connection (and `check` fails).
 */
export function sandboxAgainstRemote(sandbox: boolean, baseUrl: string): boolean {
  return sandbox && !isLoopbackUrl(baseUrl);
}

export const SANDBOX_REMOTE_WARNING =
  'sandbox mode is on against a payment service that is not on this machine: anyone can mark a checkout paid or expired through /api/sandbox/...; turn KASIR_SANDBOX (sandbox) off for a live shop';

function checkSandbox(sandbox: boolean, baseUrl: string | undefined): CheckResult {
  const name = 'sandbox';
  if (!sandbox) return pass(name, 'off');
  if (baseUrl && !isLoopbackUrl(baseUrl)) {
    return fail(
      name,
      `sandbox mode is on against ${new URL(baseUrl).host}, which is not a local sandbox: turn ${SETTING.sandbox} off (it lets anyone mark a checkout paid or expired through /api/sandbox/...)`,
    );
  }
  return pass(name, 'on, against a sandbox on this machine');
}

/** A metrics token shorter than this is said to be guessable (a bearer token is tried as often as one likes). */
const METRICS_TOKEN_MIN_BYTES = 16;

/** Whether GET /metrics is served, and whether it needs a token (docs/observability.md): told, never failed. */
function checkMetrics(metrics: boolean, token: string | undefined): CheckResult {
  const name = 'metrics';
  if (!metrics) return pass(name, 'off (KASIR_METRICS=true serves GET /metrics for Prometheus)');
  const bytes = token ? Buffer.byteLength(token) : 0;
  if (token && bytes < METRICS_TOKEN_MIN_BYTES)
    return pass(
      name,
      `on at GET /metrics, protected by a KASIR_METRICS_TOKEN (metricsToken) of ${bytes} bytes, which can be guessed: use at least ${METRICS_TOKEN_MIN_BYTES} (e.g. openssl rand -hex 24)`,
    );
  if (token) return pass(name, 'on at GET /metrics, protected by KASIR_METRICS_TOKEN (metricsToken)');
  return pass(
    name,
    "on at GET /metrics and not protected: whoever reaches it reads the shop's figures; set KASIR_METRICS_TOKEN (metricsToken) unless only a private network reaches it",
  );
}

/** Outside sandbox mode a page opens an order only with its token, which needs the order secret (docs/security.md). */
function checkOrderSecret(secret: string | undefined, sandbox: boolean): CheckResult {
  const name = 'orderSecret';
  if (!secret)
    return sandbox
      ? pass(name, `not set: sandbox mode takes an order id alone; set ${SETTING.orderSecret} before going live`)
      : fail(
          name,
          `${SETTING.orderSecret} is not set: a page cannot open an order (order-id) without its token; set at least ${ORDER_SECRET_MIN_BYTES} random bytes, e.g. openssl rand -base64 32`,
        );
  if (Buffer.byteLength(secret) < ORDER_SECRET_MIN_BYTES)
    return fail(name, `${SETTING.orderSecret} is shorter than ${ORDER_SECRET_MIN_BYTES} bytes`);
  return pass(name, 'set: order tokens are signed with it');
}

/** Who runs the check: kasir.check() (api.ts) or kasir-merchant check (subcommands.ts). */
export interface CheckSource {
  /** Where the settings not passed as options are read from (./env.ts, as createKasirApi and the command read it). */
  env: NodeJS.ProcessEnv;
  /** Resolves when the shared state at `redisUrl` answers, rejects otherwise. */
  pingRedis(redisUrl: string): Promise<void>;
  timeoutMs?: number;
}

/**
 * The check of a configuration, the one both kasir.check() and kasir-merchant check run: each setting as given (the
 * option passed, else its variable, read by ./env.ts), checked against the service with the configured `fetch` and
 * `signRequest`, then the other settings as createKasirApi checks them (`settings`).
 */
export async function checkOptions(options: KasirApiOptions, source: CheckSource): Promise<CheckReport> {
  const { values } = readEnvironment(source.env);
  const given = <T>(name: EnvName): T | undefined => {
    const passed = (options as Record<string, unknown>)[name];
    return ((typeof passed === 'string' ? passed.trim() || undefined : passed) ?? values[name]) as T | undefined;
  };
  const redisUrl = given<string>('redisUrl');
  const report = await checkConfiguration({
    baseUrl: given('baseUrl'),
    clientId: given('clientId'),
    clientSecret: given('clientSecret'),
    accessToken: given('accessToken'),
    webhookSecret: given('webhookSecret'),
    allowedOrigins: given<readonly string[]>('allowedOrigins') ?? [],
    orderSecret: given('orderSecret'),
    sandbox: given<boolean>('sandbox') === true,
    redisUrl,
    pingRedis: redisUrl ? () => source.pingRedis(redisUrl) : undefined,
    fetch: options.fetch,
    signRequest: options.signRequest,
    timeoutMs: source.timeoutMs,
  });
  // The other settings: checked as createKasirApi checks them (a wrong one named by its option or its variable); the
  // connection and the allowed origins have their checks above.
  const others = Object.fromEntries(
    Object.entries(options).filter(
      ([name]) => !(name in CONNECTION_VARIABLES) && name !== 'allowedOrigins' && name !== 'orderSecret',
    ),
  );
  let settings: CheckResult = { name: 'settings', ok: true, message: 'the other settings are well formed' };
  try {
    checkMerchantOptions(others, {
      env: { ...source.env, KASIR_ALLOWED_ORIGINS: undefined, KASIR_ORDER_SECRET: undefined },
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    settings = fail('settings', err.message.replace(/^kasir merchant backend: /, ''));
  }
  report.checks.push(settings);
  report.checks.push(checkMetrics(given<boolean>('metrics') === true, given<string>('metricsToken')));
  report.checks.push(stateCheck(redisUrl, given<string | false>('dataDir')));
  return { ok: report.ok && settings.ok, checks: report.checks };
}

/** Which state the backend keeps (what survives a restart, what copies share): said, never failed. */
function stateCheck(redisUrl: string | undefined, dataDir: string | false | undefined): CheckResult {
  if (redisUrl) return pass('state', 'on Redis: shared by every copy, kept across restarts');
  if (dataDir === false)
    return pass(
      'state',
      'in memory only (dataDir: false): lost on restart, and one copy only; set KASIR_DATA_DIR or REDIS_URL',
    );
  return pass(
    'state',
    `in ${dataDir ?? DEFAULT_DATA_DIR} (KASIR_DATA_DIR): kept across restarts, for this one process; a second copy needs REDIS_URL`,
  );
}
