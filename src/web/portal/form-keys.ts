// The one-time key of a form that moves money (a transaction's refund, capture, cancel and review
// forms). The page draws a fresh random key for each form when it renders; the form posts it back,
// and the action claims its refund, capture or void under it (src/app/portal/payment-actions.ts).
// So the same form sent twice (a double click, the browser resending after a lost answer, the
// re-authentication step posting it again) is answered with what its first sending did, while a
// page rendered anew carries a new key and may refund again on purpose.
import { randomBytes } from 'node:crypto';
import { PortalRefusal } from '../../app/portal/refusal.ts';
import { html, type Html } from '../html.ts';

export const FORM_KEY_FIELD = 'form_key';

/** 128 random bits or more, base64url: what newFormKey draws (22 characters), with room to draw more later. */
const FORM_KEY = /^[A-Za-z0-9_-]{22,64}$/;

/** A new key for one form of one rendered page: 128 random bits, base64url. */
export function newFormKey(): string {
  return randomBytes(16).toString('base64url');
}

/** The hidden field that carries a new key; the re-authentication form carries it over as it is (confirmPage). */
export function formKeyField(): Html {
  return html`<input type="hidden" name="${FORM_KEY_FIELD}" value="${newFormKey()}">`;
}

/** The form's key as posted; a missing or malformed one is refused naming the field, before anything is done. */
export function readFormKey(form: Record<string, string>): string {
  const key = form[FORM_KEY_FIELD];
  const again = 'open the transaction again and send the form from there';
  if (key === undefined || key === '') throw new PortalRefusal(`${FORM_KEY_FIELD} is missing: ${again}`, { field: FORM_KEY_FIELD });
  if (!FORM_KEY.test(key)) throw new PortalRefusal(`${FORM_KEY_FIELD} is invalid: expected the key the page wrote into the form; ${again}`, { field: FORM_KEY_FIELD });
  return key;
}
