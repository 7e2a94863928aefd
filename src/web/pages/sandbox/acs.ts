// The sandbox issuer's 3-D Secure challenge page, sized by challenge_window_size, in the shopper's
// language like the hosted page. The form carries the shopper's session token (the one in the
// URL the shopper was given), without which the gateway refuses the answer. What a developer
// needs (the codes the sandbox takes, the window's size) sits in a closed "Sandbox" note.
import { ACS_CODES, CHALLENGE_WINDOWS, type ChallengeWindow } from '../../../connectors/simulator/acs.ts';
import { html } from '../../html.ts';
import type { Lang } from '../../i18n.ts';
import { sandboxMessages } from '../../i18n-sandbox.ts';
import { layout, type Page } from '../../layout.ts';

export interface AcsView {
  readonly baseUrl: string;
  readonly lang: Lang;
  readonly postUrl: string;
  /** The shopper's session token, posted back with the answer. */
  readonly session: string;
  readonly merchantName: string;
  readonly amount: string;
  readonly card: string;
  readonly window: ChallengeWindow;
  readonly wrongCode: boolean;
  readonly frameAncestors: readonly string[];
  readonly formTargets: readonly string[];
}

export function acsPage(view: AcsView): Page {
  const t = sandboxMessages(view.lang);
  return layout({
    baseUrl: view.baseUrl,
    lang: view.lang,
    status: view.wrongCode ? 400 : 200,
    title: `${t.acsTitle}: Sandbox Bank`,
    scripts: ['submit-once.js'],
    frameAncestors: view.frameAncestors,
    formTargets: view.formTargets,
    main: html`<main class="issuer">
<div class="panel challenge size-${view.window}" data-window="${view.window}" aria-labelledby="acs-heading">
<p class="issuer-brand">Sandbox Bank · 3-D Secure</p>
<h1 id="acs-heading">${t.acsHeading}</h1>
<dl class="facts">
<dt>${t.merchant}</dt><dd>${view.merchantName}</dd>
<dt>${t.amount}</dt><dd id="acs-amount">${view.amount}</dd>
<dt>${t.card}</dt><dd>${view.card}</dd>
</dl>
<form method="post" action="${view.postUrl}" data-submit-once>
<input type="hidden" name="session" value="${view.session}">
<div class="field">
<label for="otp">${t.otpLabel}</label>
<input id="otp" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required aria-describedby="otp-error" aria-invalid="${view.wrongCode ? 'true' : 'false'}">
<span class="error" id="otp-error" aria-live="polite">${view.wrongCode ? t.otpWrong : ''}</span>
</div>
<div class="button-row">
<button type="submit" class="button" name="action" value="verify">${t.verify}</button>
<button type="submit" class="button secondary" name="action" value="cancel" formnovalidate>${t.cancel}</button>
</div>
</form>
<details class="sandbox-hint"><summary>${t.sandboxNote}</summary>
<p lang="en">Code ${ACS_CODES.pass} passes, ${ACS_CODES.fail} fails. Challenge window ${view.window} (${CHALLENGE_WINDOWS[view.window]}).</p>
</details>
</div>
</main>`,
  });
}
