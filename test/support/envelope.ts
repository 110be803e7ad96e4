import assert from 'node:assert/strict';

/**
 * Asserts that an answer is the interface's envelope: JSON whose statusCode (or `status`, as login and
 * verify-login answer) is the HTTP status, with a message; on errors also the label, no data and no stack trace.
 */
export function assertEnvelope(status: number, text: string, what = ''): void {
  const where = what ? `${what}: ` : '';
  let json: Record<string, unknown>;
  try { json = JSON.parse(text); } catch { assert.fail(`${where}not JSON: ${status} ${text.slice(0, 200)}`); }
  assert.equal(json.statusCode ?? json.status, status, `${where}body code matches HTTP status: ${text}`);
  assert.equal(typeof json.message, 'string', `${where}${text}`);
  if (status >= 400) {
    assert.equal(json.statusCode, status, `${where}errors keep statusCode: ${text}`);
    assert.equal(typeof json.error, 'string', `${where}${text}`);
    assert.equal('data' in json, false, `${where}${text}`);
    assert.doesNotMatch(text, /\n\s+at |node_modules/, `${where}no stack trace`);
  }
}
