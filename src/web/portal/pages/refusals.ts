// A refusal in words, and the re-authentication form: a sensitive action asked without a fresh
// confirmation answers this form, which posts the same fields again with the password (and code).
import { html, type Html } from '../../html.ts';
import { csrfField } from '../layout.ts';

export function refusalPage(text: string): Html {
  return html`<h1>Not done</h1><div class="alert" role="alert"><p>${text}</p></div><p><a href="/portal">Back to the portal</a></p>`;
}

export interface ConfirmForm {
  /** The action's path: the form posts there again. */
  readonly action: string;
  readonly csrfToken: string;
  /** The action's own fields, carried over unchanged. */
  readonly fields: readonly (readonly [string, string])[];
  readonly secondFactor: boolean;
  /** The confirmation sent was refused: wrong, made before the second factor changed, or the member is locked for this many seconds more. */
  readonly failed?: { readonly wrong: true } | { readonly lockedFor: number } | { readonly changed: true };
}

/** A member locked (after five failures in a row, at sign-in or here) that stays signed in. */
export function lockedText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Too many failed attempts: this account is locked for ${minutes} more minute${minutes === 1 ? '' : 's'}. Nothing was done. You stay signed in; confirm again once the lock ends.`;
}

export function confirmPage(form: ConfirmForm): Html {
  return html`<h1>Confirm it is you</h1>
<p>This action needs your password${form.secondFactor ? ' and a code from your authenticator app (or one of your recovery codes)' : ''} again.</p>
${form.failed ? html`<div class="alert" role="alert"><p>${'lockedFor' in form.failed ? lockedText(form.failed.lockedFor) : 'changed' in form.failed ? 'Your second factor was changed meanwhile, by another request: nothing was done. Confirm with a code from your current authenticator app.' : 'The password or code was not right.'}</p></div>` : ''}
<form method="post" action="${form.action}" class="panel">
${csrfField(form.csrfToken)}
${form.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="field"><label for="reauth-password">Password</label><input id="reauth-password" name="_reauth_password" type="password" autocomplete="current-password" required></div>
${form.secondFactor ? html`<div class="field"><label for="reauth-code">Authenticator code, or a recovery code</label><input id="reauth-code" name="_reauth_code" autocomplete="one-time-code" maxlength="24" required></div>` : ''}
<button class="button" type="submit">Confirm</button>
</form>`;
}
