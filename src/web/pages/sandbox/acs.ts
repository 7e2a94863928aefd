// The sandbox issuer's 3-D Secure challenge page, sized by challenge_window_size. A simulated
// third party: English only, and it says which codes the sandbox takes.
import { ACS_CODES, CHALLENGE_WINDOWS, type ChallengeWindow } from '../../../connectors/simulator/acs.ts';
import { html } from '../../html.ts';
import { layout, type Page } from '../../layout.ts';

export interface AcsView {
  readonly baseUrl: string;
  readonly postUrl: string;
  readonly merchantName: string;
  readonly amount: string;
  readonly card: string;
  readonly window: ChallengeWindow;
  readonly wrongCode: boolean;
  readonly frameAncestors: readonly string[];
  readonly formTargets: readonly string[];
}

export function acsPage(view: AcsView): Page {
  return layout({
    baseUrl: view.baseUrl,
    lang: 'en',
    status: view.wrongCode ? 400 : 200,
    title: 'Verify your payment: Sandbox Bank',
    scripts: ['submit-once.js'],
    frameAncestors: view.frameAncestors,
    formTargets: view.formTargets,
    main: html`<main class="issuer">
<div class="panel challenge size-${view.window}" data-window="${view.window}" aria-labelledby="acs-heading">
<p class="issuer-brand">Sandbox Bank · 3-D Secure</p>
<h1 id="acs-heading">Verify it’s you</h1>
<dl class="facts">
<dt>Merchant</dt><dd>${view.merchantName}</dd>
<dt>Amount</dt><dd id="acs-amount">${view.amount}</dd>
<dt>Card</dt><dd>${view.card}</dd>
</dl>
<form method="post" action="${view.postUrl}" data-submit-once>
<div class="field">
<label for="otp">One-time code sent to your phone</label>
<input id="otp" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required aria-describedby="otp-error otp-hint" aria-invalid="${view.wrongCode ? 'true' : 'false'}">
<span class="error" id="otp-error" aria-live="polite">${view.wrongCode ? 'That code is not right. Try again.' : ''}</span>
</div>
<p class="sandbox-hint" id="otp-hint">Sandbox: ${ACS_CODES.pass} passes, ${ACS_CODES.fail} fails. Window ${view.window} (${CHALLENGE_WINDOWS[view.window]}).</p>
<div class="button-row">
<button type="submit" class="button" name="action" value="verify">Verify</button>
<button type="submit" class="button secondary" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>
</div>
</main>`,
  });
}
