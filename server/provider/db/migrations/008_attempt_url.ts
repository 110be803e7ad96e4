import type { Kysely } from 'kysely';

// The URL each webhook attempt went to (without query or user info), so a listing of attempts stays true after the
// merchant changes the webhook URL (`kasir-sandbox webhooks`, the dashboard).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('url', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').dropColumn('url').execute();
}
