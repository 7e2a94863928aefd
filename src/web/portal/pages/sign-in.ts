// The pages before a session: sign-in, the second factor, enrolling one, the recovery codes shown
// once, and setting a password from a one-time link. Plain forms; no script needed.
import { html, type Html } from '../../html.ts';
import { csrfField } from '../layout.ts';
import { qrCode } from '../qr.ts';

function alert(text: string | undefined): Html | '' {
  return text ? html`<div class="alert" role="alert" id="form-error"><p>${text}</p></div>` : '';
}

export function signInForm(form: { csrfToken: string; email?: string; error?: string; notice?: string }): Html {
  return html`<h1>Sign in</h1>
${form.notice ? html`<div class="notice" role="status"><p>${form.notice}</p></div>` : ''}
${alert(form.error)}
<form method="post" action="/portal/sign-in" data-submit-once>
${csrfField(form.csrfToken)}
<div class="field"><label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}"${form.error ? html` aria-describedby="form-error"` : ''}></div>
<div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button class="button" type="submit">Sign in</button>
</form>`;
}

export function secondFactorForm(form: { csrfToken: string; error?: string }): Html {
  return html`<h1>Two-step verification</h1>
<p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
${alert(form.error)}
<form method="post" action="/portal/second-factor" data-submit-once>
${csrfField(form.csrfToken)}
<div class="field"><label for="code">Code</label><input id="code" name="code" autocomplete="one-time-code" required maxlength="24" autofocus></div>
<button class="button" type="submit">Verify</button>
</form>
<form method="post" action="/portal/sign-out" class="cancel-form">${csrfField(form.csrfToken)}<button class="linklike" type="submit">Cancel and sign out</button></form>`;
}

/**
 * `confirm`: a signed-in member changing its second factor proves it is them first: the password,
 * and a code from the current app when one is set.
 */
export function enrolForm(form: { csrfToken: string; secret: string; uri: string; required: boolean; confirm?: { current: boolean }; error?: string }): Html {
  const grouped = form.secret.match(/.{1,4}/g)!.join(' ');
  return html`<h1>Set up two-step verification</h1>
<p>${form.required ? 'Owners and admins protect the account with a second step at sign-in. ' : ''}Scan this code with an authenticator app (any TOTP app: 6 digits, every 30 seconds), or type the key below into it, then enter the code it shows.</p>
${qrCode(form.uri, 'QR code of the setup link for your authenticator app')}
<p><strong>Key</strong></p>
<p class="secret-text" id="totp-secret">${grouped}</p>
<details><summary>Setup link for apps that accept one</summary><p class="secret-text" id="totp-uri">${form.uri}</p></details>
${alert(form.error)}
<form method="post" action="/portal/enrol" data-submit-once>
${csrfField(form.csrfToken)}
<div class="field"><label for="code">Code from the app</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="7"></div>
${form.confirm
    ? html`<div class="field"><label for="enrol-password">Your password</label><input id="enrol-password" name="_reauth_password" type="password" autocomplete="current-password" required></div>
${form.confirm.current ? html`<div class="field"><label for="enrol-current">Code from your current app, or a recovery code</label><input id="enrol-current" name="_reauth_code" autocomplete="one-time-code" required maxlength="24"></div>` : ''}`
    : ''}
<button class="button" type="submit">Turn on</button>
</form>`;
}

export function recoveryCodesPage(codes: readonly string[], next: string): Html {
  return html`<h1>Your recovery codes</h1>
<p>Each code signs you in once if you lose your authenticator. Keep them somewhere safe: they are not shown again.</p>
<ol class="codes" id="recovery-codes">${codes.map((code) => html`<li>${code}</li>`)}</ol>
<p><a class="button" href="${next}">Continue</a></p>`;
}

/** A confirmation that lost to another request sent with it (the form sent twice): nothing done here, its codes were shown there. */
export function enrolmentTakenPage(): Html {
  return html`<h1>Already confirmed</h1>
<p>This key was already confirmed, or your second factor changed, by another request sent at the same time (the form sent twice, say): nothing was done by this one. If it was this key, two-step verification is on with it, and that answer showed your recovery codes. If you did not keep them, replace the key from My account to get ten new ones.</p>
<p><a class="button" href="/portal/account">My account</a></p>`;
}

/** A sign-in step sent again after another sending finished the sign-in: nothing done by this one. */
export function signInStepDonePage(): Html {
  return html`<h1>Already done</h1>
<p>This step of signing in was already completed by another sending of the same form (the form sent twice, say): nothing was done by this one. If it was the confirmation of two-step verification, that answer showed your recovery codes; if you did not keep them, replace the key from My account to get ten new ones.</p>
<p><a class="button" href="/portal">Continue</a></p>`;
}

export function setPasswordForm(form: { csrfToken: string; token: string; email: string; error?: string }): Html {
  return html`<h1>Choose a password</h1>
<p>For <strong>${form.email}</strong>. At least 12 characters; a phrase of several words is easy to remember and hard to guess.</p>
${alert(form.error)}
<form method="post" action="/portal/set-password" data-submit-once>
${csrfField(form.csrfToken)}
<input type="hidden" name="token" value="${form.token}">
<input type="text" name="username" autocomplete="username" value="${form.email}" hidden>
<div class="field"><label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" maxlength="200" required></div>
<button class="button" type="submit">Set password</button>
</form>`;
}

export function linkGonePage(): Html {
  return html`<h1>This link does not work</h1><p>It has been used, replaced by a newer one, or has expired. Ask the administrator for a new link.</p><p><a href="/portal/sign-in">Sign in</a></p>`;
}
