import { randomBytes, randomUUID } from 'node:crypto';

/** A 24-hex record id (the interface's `_id` / `id` fields look like MongoDB ObjectIds). */
export const newRecordId = (): string => randomBytes(12).toString('hex');

/** A UUID, for depositIds and checkout ids: unguessable, since the hosted checkout is keyed by it. */
export const newUuid = (): string => randomUUID();

/** A random token of `bytes` bytes, URL-safe. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
