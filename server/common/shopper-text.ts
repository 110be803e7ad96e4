// What a shopper types (a refund form's fields, a wallet's phone number) reaches the shop's hooks, the payment
// service and the shop's records: text that could rewrite a log line or a header (C0 and C1 control characters: CR,
// LF, ESC, ...) or show itself reversed (the bidirectional overrides and isolates U+202A-U+202E, U+2066-U+2069) is
// refused with a 400 naming the field, and every field has a maximum length. Checked here, once, for every form.
import { ApiError } from './errors.js';

/** C0 and C1 control characters (DEL included) and the bidirectional overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** What a field holding such a character is told (after its name). */
export const UNSAFE_TEXT_PROBLEM = 'must not contain control characters or text-direction marks';

/** Whether `text` holds none of those characters (a form's zod schema refines its fields with it). */
export const isSafeShopperText = (text: string): boolean => !UNSAFE.test(text);

/** Why `text` is not shopper text, or undefined when it is. */
function shopperTextProblem(text: string, maxLength: number): string | undefined {
  if (!isSafeShopperText(text)) return UNSAFE_TEXT_PROBLEM;
  if (text.length > maxLength) return `must be at most ${maxLength} characters`;
  return undefined;
}

/** The check outside a schema: the text, or a 400 naming `field`. */
export function checkShopperText(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw new ApiError(400, `${field}: must be text`);
  const problem = shopperTextProblem(value, maxLength);
  if (problem) throw new ApiError(400, `${field}: ${problem}`);
  return value;
}
