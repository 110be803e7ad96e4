// Values generated once and shared by every copy of the service through the database (service_keys).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './database.js';

/**
 * The value stored under `name`, made by `generate` when none is: the first copy to insert wins (ON CONFLICT DO
 * NOTHING), and every copy then reads the same value.
 */
async function sharedValue(db: Db, name: string, generate: () => string, now: Date): Promise<string> {
  await db
    .insertInto('service_keys')
    .values({ name, value: generate(), created_at: now.toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('service_keys').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

/**
 * The access-token signing key. Kept in the database so that a token issued by one copy verifies on another. A data
 * dir from before (its key in the file `jwt-secret`) has that key adopted, so the tokens it issued stay valid.
 */
export function loadJwtSecret(db: Db, dataDir: string, now: Date): Promise<string> {
  const file = join(dataDir, 'jwt-secret');
  return sharedValue(
    db,
    'jwt_secret',
    () => (existsSync(file) ? readFileSync(file, 'utf8').trim() : randomBytes(48).toString('base64url')),
    now,
  );
}
