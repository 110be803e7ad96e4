// `kasir-merchant reconcile [--since ISO]`: reconcile (./reconcile.ts) from the command's environment, one line per
// order (orderId, checkoutId, status, paid, hooks run), exit 1 when a checkout could not be read or a hook failed.
import { parseArgs } from 'node:util';
import type { Logger } from '../common/log.js';
import { createKasirApi } from './api.js';
import type { MerchantServerOptions } from './config.js';
import { formatReconcileLine } from './reconcile.js';

export const RECONCILE_USAGE = `Usage: kasir-merchant reconcile [--since ISO]
Reads from the payment service every checkout this backend holds that is not settled (with --since, also those settled
since then) and runs each hook whose webhook never arrived, once. Prints one line per order. Safe to run on a timer and
on every copy at once.`;

/** Runs the command; answers its exit code. */
export async function reconcileCommand(args: string[], options: MerchantServerOptions, log: Logger): Promise<number> {
  let since: string | undefined;
  try {
    ({
      values: { since },
    } = parseArgs({ args, options: { since: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    console.error(`[kasir-merchant] reconcile: ${(err as Error).message}\n${RECONCILE_USAGE}`);
    return 1;
  }
  const { port: _port, host: _host, ...apiOptions } = options;
  const kasir = createKasirApi({ ...apiOptions, logger: log });
  try {
    const lines = await kasir.reconcile({ since });
    for (const line of lines) console.log(formatReconcileLine(line));
    if (!lines.length) console.log('nothing to reconcile: every checkout this backend holds is settled');
    return lines.some((line) => line.error) ? 1 : 0;
  } catch (err) {
    console.error(`[kasir-merchant] reconcile: ${(err as Error).message}`);
    return 1;
  } finally {
    await kasir.close();
  }
}
