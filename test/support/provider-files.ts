// The payment service's test files (test/provider/*.test.ts) in one process, as test:server and test:server:pg run
// them: each file's own process cost (tsx's loader thread, importing the service and its packages, node:test's
// harness: about 2 s of CPU, most of a small file's) is paid once instead of 48 times. The files share nothing else:
// each opens its own providers, data dirs and databases and closes them. A file alone still runs as
// `node --import tsx --test test/provider/x.test.ts`. A test below fails when a file of the folder is not imported here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import '../provider/auth.test';
import '../provider/body-timeout.test';
import '../provider/checkout-crypto.test';
import '../provider/checkout.test';
import '../provider/cli-args.test';
import '../provider/cli-pay-amount.test';
import '../provider/cli.test';
import '../provider/copies-read-after-write.test';
import '../provider/dashboard-deposits.test';
import '../provider/dashboard.test';
import '../provider/data-dir-lock.test';
import '../provider/deposits.test';
import '../provider/engine.test';
import '../provider/error-rows.test';
import '../provider/ewallet-flows.test';
import '../provider/expiry.test';
import '../provider/failed-attempts.test';
import '../provider/fee-policy.test';
import '../provider/foundation.test';
import '../provider/fuzz-accounts.test';
import '../provider/fuzz.test';
import '../provider/hardening.test';
import '../provider/http-body.test';
import '../provider/idempotency.test';
import '../provider/json-bodies.test';
import '../provider/ledger-migration.test';
import '../provider/ledger-properties.test';
import '../provider/ledger-reproductions.test';
import '../provider/ledger-sandbox-pay.test';
import '../provider/list-growth.test';
import '../provider/money.test';
import '../provider/openapi.test';
import '../provider/operability.test';
import '../provider/pages.test';
import '../provider/payment-uri.test';
import '../provider/payments.test';
import '../provider/precision.test';
import '../provider/pricing.test';
import '../provider/quotes.test';
import '../provider/recipients.test';
import '../provider/references.test';
import '../provider/sandbox-helpers.test';
import '../provider/sandbox-package.test';
import '../provider/signature.test';
import '../provider/switch-bound-and-values.test';
import '../provider/webhook-stream.test';
import '../provider/webhook-url-guard.test';
import '../provider/webhooks.test';

it('runs every test file of test/provider', () => {
  const imported = [
    ...readFileSync(new URL(import.meta.url), 'utf8').matchAll(/^import '\.\.\/provider\/(.+)';$/gm),
  ].map(([, name]) => `${name}.ts`);
  const files = readdirSync(new URL('../provider/', import.meta.url)).filter((file) => file.endsWith('.test.ts'));
  assert.deepEqual(files.sort(), imported.sort(), 'import each file of test/provider here');
});
