// Creating a deposit (docs/design.md, "Deposits"): pending, with its first history entry, its unique code and its
// quote's claim, in one transaction; no webhook (the status has not moved yet).
import { ApiError } from '../../common/errors.js';
import type { NewDeposit } from '../db/deposit-tables.js';
import type { ProviderDeps } from '../instance/deps.js';
import { newRecordId, newUuid } from '../db/ids.js';
import { DepositIdTaken } from './errors.js';
import {
  cryptoPlan,
  fiatPlan,
  ledgerColumns,
  withFreshDraws,
  writePaymentExtras,
  type CreateOptions,
  type CryptoDepositRequest,
  type DepositOwner,
  type FiatDepositRequest,
  type PaymentPlan,
} from './payment-plan.js';
import { insertActivity, insertDeposit, uniqueViolation } from './repository.js';
import { toDepositView, type ActivityRow, type DepositView } from './view.js';

const ACTIVITY_CREATED = { activity: 'Payee Payment', status: 'pending', description: 'Waiting for payment' } as const;

type DepositIdentity = Pick<
  NewDeposit,
  'id' | 'deposit_id' | 'merchant_id' | 'user_id' | 'reference' | 'note' | 'checkout_id' | 'created_at' | 'updated_at'
>;

/**
 * Inserts a pending deposit, its first history entry, its unique code and its quote's claim in one transaction,
 * drawing its payment details again when a VA number or unique code is taken; a taken reference is a 409, a taken
 * depositId a DepositIdTaken.
 */
async function insertPending(
  deps: ProviderDeps,
  identity: DepositIdentity,
  plan: PaymentPlan,
  now: Date,
  order: CreateOptions['order'],
): Promise<DepositView> {
  try {
    const { row, activity } = await withFreshDraws(deps, async (trx) => {
      const { columns, code } = await plan.draw(trx, identity.id, now);
      const row = await insertDeposit(trx, {
        ...identity,
        ...columns,
        ...ledgerColumns(columns, order),
        status: 'pending',
      });
      await writePaymentExtras(trx, identity.merchant_id, row.id, plan, code, now);
      const activity: ActivityRow = {
        id: newRecordId(),
        deposit_row_id: row.id,
        seq: 1,
        ...ACTIVITY_CREATED,
        updated_at: row.created_at,
      };
      await insertActivity(trx, activity);
      return { row, activity };
    });
    return toDepositView(row, [activity], []);
  } catch (err) {
    const which = uniqueViolation(err);
    if (which === 'reference')
      throw new ApiError(409, `reference: a deposit with reference '${identity.reference}' already exists`);
    if (which === 'deposit_id') throw new DepositIdTaken();
    throw err;
  }
}

function identityOf(
  owner: DepositOwner,
  req: { reference?: string; note?: string },
  depositId: string,
  options: CreateOptions,
  now: Date,
): DepositIdentity {
  return {
    id: newRecordId(),
    deposit_id: depositId,
    merchant_id: owner.merchantId,
    user_id: owner.userId,
    reference: req.reference,
    note: req.note,
    checkout_id: options.checkoutId,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

/** Creates a pending fiat deposit (POST /v1/deposit/fiat and the hosted checkout). */
export async function createFiatDeposit(
  deps: ProviderDeps,
  owner: DepositOwner,
  req: FiatDepositRequest,
  options: CreateOptions = {},
): Promise<DepositView> {
  const depositId = options.depositId ?? newUuid();
  const plan = await fiatPlan(deps, owner, req, depositId, options);
  const now = deps.now();
  return insertPending(deps, identityOf(owner, req, depositId, options, now), plan, now, options.order);
}

/** Creates a pending crypto deposit (POST /v1/deposit/crypto and the hosted checkout). */
export async function createCryptoDeposit(
  deps: ProviderDeps,
  owner: DepositOwner,
  req: CryptoDepositRequest,
  options: CreateOptions = {},
): Promise<DepositView> {
  const plan = await cryptoPlan(deps, owner, req, options);
  const now = deps.now();
  return insertPending(
    deps,
    identityOf(owner, req, options.depositId ?? newUuid(), options, now),
    plan,
    now,
    options.order,
  );
}
