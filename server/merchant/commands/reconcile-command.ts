// `kasir-merchant reconcile [--since ISO] [--hooks MODULE]`: reconcile (../webhooks/reconcile.ts) from the command's environment,
// one line per order (orderId, checkoutId, status, paid, hooks run). The command has no hooks of the shop's: without
// --hooks it only reports which hooks have not run (running none and marking none, so the shop's own backend still
// runs them); with --hooks it runs those of the module given, as a delivery would. Exit 1 when a checkout could not
// be read or a hook failed.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Logger } from '../../common/log.js';
import { createKasirApi } from '../api.js';
import { hooksOf, type MerchantServerOptions } from '../config.js';
import type { MerchantHooks } from '../hooks.js';
import { formatReconcileLine } from '../webhooks/reconcile.js';

export const RECONCILE_USAGE = `Usage: kasir-merchant reconcile [--since ISO] [--hooks MODULE]
Reads from the payment service every checkout this backend holds that is not settled (with --since, also those settled
since then). Without --hooks it reports the hooks whose webhook never arrived (hooksNotRun=...) and runs none: the
shop's backend (its follower, or kasir.reconcile()) runs them. With --hooks ./hooks.js it runs each of them once with
that module's hooks (its exports, or its default export: onDepositCompleted, onPaymentFailed, ...). Prints one line per
order. Safe to run on a timer and on every copy at once.`;

/** The hooks a module exports (named, or as its default export). */
async function loadHooks(path: string): Promise<MerchantHooks> {
  const module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  const exported = (module.default && typeof module.default === 'object' ? module.default : module) as MerchantHooks;
  const hooks = Object.fromEntries(
    Object.entries(hooksOf(exported)).filter(([, hook]) => typeof hook === 'function'),
  ) as MerchantHooks;
  if (!Object.keys(hooks).length)
    throw new Error(`${path} exports no hook (onDepositCompleted, onDepositExpired, onPaymentFailed, ...)`);
  return hooks;
}

/** Runs the command; answers its exit code. */
export async function reconcileCommand(args: string[], options: MerchantServerOptions, log: Logger): Promise<number> {
  let since: string | undefined;
  let hooksPath: string | undefined;
  try {
    ({
      values: { since, hooks: hooksPath },
    } = parseArgs({
      args,
      options: { since: { type: 'string' }, hooks: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(`[kasir-merchant] reconcile: ${(err as Error).message}\n${RECONCILE_USAGE}`);
    return 1;
  }
  let hooks: MerchantHooks = {};
  try {
    if (hooksPath) hooks = await loadHooks(hooksPath);
  } catch (err) {
    console.error(`[kasir-merchant] reconcile: --hooks: ${(err as Error).message}`);
    return 1;
  }
  const { port: _port, host: _host, ...apiOptions } = options;
  const kasir = createKasirApi({ ...apiOptions, ...hooks, logger: log });
  await kasir.follower.stop(); // one pass, here: nothing runs behind it
  try {
    const lines = await kasir.reconcile({ since, report: !hooksPath });
    for (const line of lines) console.log(formatReconcileLine(line));
    if (!lines.length) console.log('nothing to reconcile: every checkout this backend holds is settled');
    else if (!hooksPath && lines.some((line) => line.hooksNotRun?.length))
      console.log(
        'hooks not run: none was run here (this command has no hooks of the shop); the shop backend runs them, or run again with --hooks ./your-hooks.js',
      );
    return lines.some((line) => line.error) ? 1 : 0;
  } catch (err) {
    console.error(`[kasir-merchant] reconcile: ${(err as Error).message}`);
    return 1;
  } finally {
    await kasir.close();
  }
}
