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
  readonly failed: boolean;
}

export function confirmPage(form: ConfirmForm): Html {
  return html`<h1>Confirm it is you</h1>
<p>This action needs your password${form.secondFactor ? ' and a code from your authenticator app (or one of your recovery codes)' : ''} again.</p>
${form.failed ? html`<div class="alert" role="alert"><p>The password or code was not right.</p></div>` : ''}
<form method="post" action="${form.action}" class="panel">
${csrfField(form.csrfToken)}
${form.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="field"><label for="reauth-password">Password</label><input id="reauth-password" name="_reauth_password" type="password" autocomplete="current-password" required></div>
${form.secondFactor ? html`<div class="field"><label for="reauth-code">Authenticator code, or a recovery code</label><input id="reauth-code" name="_reauth_code" autocomplete="one-time-code" maxlength="24" required></div>` : ''}
<button class="button" type="submit">Confirm</button>
</form>`;
}
