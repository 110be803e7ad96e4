import type { Kysely } from 'kysely';

// Who bears each kind of method's fee on a checkout (docs/indonesian-payments.md), as JSON such as
// {"va":"shopper","bank":"shopper","qris":"merchant","ewallet":"shopper"}; null on a checkout made before it (its
// amount field decides: inputAmount the merchant, outputAmount the shopper, QRIS always the merchant).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('checkouts').addColumn('fees_paid_by', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('checkouts').dropColumn('fees_paid_by').execute();
}
