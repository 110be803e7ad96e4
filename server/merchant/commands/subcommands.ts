// The kasir-merchant command's subcommands beside serving (cli.ts): `check`, `deposits` and `login`, each from the same
// environment the server reads (docs/configuration.md). Each answers its exit code: 0, or 1 with one line saying why.
import { parseArgs } from 'node:util';
import { PaymentServiceClient } from '../client/client.js';
import { PaymentServiceError, PaymentServiceUnavailableError } from '../client/errors.js';
import { checkOptions } from '../check.js';
import { merchantStateFile } from '../config.js';
import { readEnvironment } from '../env.js';
import { runLogin } from './login.js';
import {
  depositsCsv,
  depositsTable,
  listDepositRecords,
  savedCheckoutsInFile,
  type SavedCheckoutLookup,
} from '../orders/records.js';
import { RedisState } from '../state/redis-state.js';
import type { DepositStatus } from '../client/types.js';

export const COMMANDS_USAGE = `Commands:
  kasir-merchant                 serve (the default)
  kasir-merchant check [--json]  checks the configuration against the payment service: one line per check, exit 1 when any fails
  kasir-merchant deposits [--since ISO] [--status pending|expired|completed] [--limit N] [--csv] [--json]
                                 the service's deposits, newest first, with the shop's orderId where this backend knows it
  kasir-merchant login [--base-url URL] [--email E] [--password P] [--otp CODE] [--mailbox] [--expiring]
                                 prints KASIR_ACCESS_TOKEN=... for an account of the service`;

const COMMANDS: Record<string, (args: string[], env: NodeJS.ProcessEnv) => Promise<number>> = {
  check: runCheck,
  deposits: runDeposits,
  login: (args, env) => runLogin(args, env),
};

/** Whether `name` is a subcommand (else the command serves). */
export const isCommand = (name: string | undefined): name is string =>
  name !== undefined && Object.hasOwn(COMMANDS, name);

export async function runCommand(name: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return COMMANDS[name](args, env);
}

const fail = (line: string) => {
  process.stderr.write(`[kasir-merchant] ${line}\n`);
  return 1;
};

async function runCheck(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let json = false;
  try {
    json = parseArgs({ args, options: { json: { type: 'boolean', default: false } } }).values.json;
  } catch (err) {
    return fail(`check: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The same check as kasir.check()'s (../check.ts), on the environment alone: a shop whose service signs otherwise runs
  // kasir.check() from its own code, where its signRequest is (docs/going-live.md).
  const report = await checkOptions(
    {},
    {
      env,
      pingRedis: async (url) => {
        const redis = new RedisState({ url, timeoutMs: 3000 });
        try {
          await redis.ping();
        } finally {
          await redis.close().catch(() => undefined);
        }
      },
    },
  );
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    const width = Math.max(...report.checks.map((check) => check.name.length));
    for (const check of report.checks)
      process.stdout.write(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(width)}  ${check.message}\n`);
    process.stdout.write(
      report.ok ? 'Every check passed.\n' : `${report.checks.filter((check) => !check.ok).length} check(s) failed.\n`,
    );
  }
  return report.ok ? 0 : 1;
}

async function runDeposits(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let flags;
  try {
    ({ values: flags } = parseArgs({
      args,
      options: {
        since: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        csv: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    return fail(`deposits: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (flags.limit !== undefined && !/^\d+$/.test(flags.limit))
    return fail(`deposits: --limit must be a whole number (got "${flags.limit}")`);
  const { values } = readEnvironment(env);
  const [baseUrl, clientId, clientSecret, redisUrl, redisPrefix, dataDir] = (
    ['baseUrl', 'clientId', 'clientSecret', 'redisUrl', 'redisPrefix', 'dataDir'] as const
  ).map((name) => values[name] as string | undefined);
  const missing = [
    !baseUrl && 'KASIR_BASE_URL',
    !clientId && 'KASIR_CLIENT_ID',
    !clientSecret && 'KASIR_CLIENT_SECRET',
  ].filter(Boolean);
  if (missing.length) return fail(`deposits: ${missing.join(', ')} not set (the same settings as the server's)`);
  const client = new PaymentServiceClient({ baseUrl: baseUrl!, clientId, clientSecret });
  // The orders of the checkouts this backend created: in Redis when copies share it, else its state file, read only
  // (a running server owns it).
  const redis = redisUrl ? new RedisState({ url: redisUrl, prefix: redisPrefix, timeoutMs: 3000 }) : undefined;
  const lookup: SavedCheckoutLookup = redis
    ? (id) => redis.loadCheckout(id)
    : savedCheckoutsInFile(merchantStateFile(dataDir ?? './.kasir'));
  try {
    const records = await listDepositRecords(client, lookup, {
      since: flags.since,
      status: flags.status as DepositStatus | undefined,
      limit: flags.limit === undefined ? undefined : Number(flags.limit),
    });
    if (flags.csv) process.stdout.write(depositsCsv(records));
    else if (flags.json) process.stdout.write(JSON.stringify(records, null, 2) + '\n');
    else process.stdout.write(records.length ? depositsTable(records) : 'No deposits.\n');
    return 0;
  } catch (err) {
    if (err instanceof PaymentServiceError && err.isAuth) {
      return fail(
        `deposits: the service refused the signed call: ${err.statusCode} "${err.message}": check KASIR_CLIENT_ID and KASIR_CLIENT_SECRET`,
      );
    }
    if (err instanceof PaymentServiceUnavailableError) return fail(`deposits: ${err.message}: check KASIR_BASE_URL`);
    if (err instanceof Error && 'status' in err) return fail(`deposits: ${err.message}`); // a query refused (400)
    throw err;
  } finally {
    await redis?.close().catch(() => undefined);
  }
}
