// The interface's envelopes as tests read them: typed answers (bodyOf, dataOf, errorOf) and the envelope check.
import assert from 'node:assert/strict';
import type { ErrorBody } from '../../server/common/errors';

export type { ErrorBody } from '../../server/common/errors';

/** The success envelope of the interface and the widget API: `{statusCode, message, data}`. */
export interface Envelope<T> {
  statusCode: number;
  message: string;
  data: T;
}

/** The JSON body of an answer, as the type the test expects (the assertions then check it is). */
export async function bodyOf<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** The `data` of a success envelope. */
export async function dataOf<T>(res: Response): Promise<T> {
  return (await bodyOf<Envelope<T>>(res)).data;
}

/** The error envelope `{statusCode, error, message}`. */
export function errorOf(res: Response): Promise<ErrorBody> {
  return bodyOf<ErrorBody>(res);
}

/**
 * Asserts that an answer is the interface's envelope: JSON whose statusCode (or `status`, as login and
 * verify-login answer) is the HTTP status, with a message; on errors also the label, no data and no stack trace.
 */
export function assertEnvelope(status: number, text: string, what = ''): void {
  const where = what ? `${what}: ` : '';
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text);
  } catch {
    assert.fail(`${where}not JSON: ${status} ${text.slice(0, 200)}`);
  }
  assert.equal(json.statusCode ?? json.status, status, `${where}body code matches HTTP status: ${text}`);
  assert.equal(typeof json.message, 'string', `${where}${text}`);
  if (status >= 400) {
    assert.equal(json.statusCode, status, `${where}errors keep statusCode: ${text}`);
    assert.equal(typeof json.error, 'string', `${where}${text}`);
    assert.equal('data' in json, false, `${where}${text}`);
    assert.doesNotMatch(text, /\n\s+at |node_modules/, `${where}no stack trace`);
  }
}
